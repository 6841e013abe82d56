"""The ``"agenda"`` algorithm: plans that reach the goal without the cost of proving optimality.

It reaches the goal's atoms a few at a time, each stage an optimal A* plan, then polishes the
plan's tail (planning.py). Its plans must replay to the goal; its length can only be at least
the optimum; a stage that cannot follow the one before it must go before it; and an unreachable
goal is still reported as unreachable, a stopped search as stopped.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

import robotouille
from robotouille import SearchLimitError, UnsolvableError, datasets, planning
from robotouille.__main__ import main
from robotouille.problem import Goal, GoalAtom, GoalVar

from .test_planning import (
    RANDOM_PROBLEMS,
    _knife_problem,
    load_problem,
    python_bfs,
    replay,
    solvable_problems,
)
from .test_projections import _kitchen, _two_robot_lettuce_sandwich
from .test_simultaneous_bound import _simultaneous


def test_an_agenda_plan_replays_to_the_goal_and_is_no_shorter_than_the_optimum() -> None:
    env = robotouille.load("cheese_sandwich")
    plan = robotouille.plan(env, "agenda")
    assert plan.algorithm == "agenda"
    assert plan.length >= robotouille.optimal_length(env)
    assert plan.stats.expanded > 0 and plan.stats.seconds > 0
    replay(env, plan)


def test_a_stage_that_cannot_follow_the_one_before_goes_before_it(monkeypatch: Any) -> None:
    """The soup's goal lists "the soup is in the bowl" before "the soup boils": water already
    poured into a bowl cannot be boiled, so the agenda must boil it first. The stage after the
    pour has the poured water as its soup (the reached atoms' variables stay bound), and the
    bound proves it a dead end at the stage's start: the water never goes back into a pot."""
    monkeypatch.setattr(planning, "AGENDA_STAGE_STATES", 20_000)
    stages: list[list[int]] = []
    failures: list[int] = []
    stage_env, run = planning._stage_env, planning._run

    def recording(env: robotouille.Env, atoms: Any, bound: Any = None) -> robotouille.Env:
        stages.append(list(atoms))
        return stage_env(env, atoms, bound)

    def failing(*args: Any, **kwargs: Any) -> planning.Plan:
        try:
            return run(*args, **kwargs)
        except (SearchLimitError, UnsolvableError) as failed:
            failures.append(failed.stats.initial_h)  # type: ignore[union-attr]
            raise

    monkeypatch.setattr(planning, "_stage_env", recording)
    monkeypatch.setattr(planning, "_run", failing)
    (inst,) = datasets.load("asynchronous", seeds=[42], tasks=["5"])
    env = inst.load()
    atoms = [a.predicate for a in env.task.problem.goal.atoms]
    assert atoms[:3] == ["in", "isboiling", "addedto"]
    plan = robotouille.plan(env, "agenda")
    assert [0, 1] in stages and [1, 0] in stages  # in, then boiling: failed; swapped
    assert stages[-1][:3] == [1, 2, 0]  # boiled, potato added, then poured
    assert failures and set(failures) == {-1}  # each failure was a dead end at its start
    # Polishing planned the whole goal again from ever earlier states along the plan: here it
    # got back far enough for an optimal plan.
    assert plan.length == inst.optimal_length == 21
    replay(env, plan)


def test_a_stage_over_the_optimal_budget_is_planned_with_weighted_astar(monkeypatch: Any) -> None:
    monkeypatch.setattr(planning, "AGENDA_OPTIMAL_STAGE_STATES", 5)
    weights: list[int] = []
    run = planning._run

    def recording(*args: Any, **kwargs: Any) -> planning.Plan:
        weights.append(args[-1])
        return run(*args, **kwargs)

    monkeypatch.setattr(planning, "_run", recording)
    (inst,) = datasets.load("synchronous", seeds=[42], tasks=["2"])
    env = inst.load()
    plan = robotouille.plan(env, "agenda")
    # Each stage first tries optimal A* (weight 1), which runs out of its 5 states, then weighted
    # A*; polishing (the whole goal, after the stages) stays optimal.
    assert planning.AGENDA_STAGE_WEIGHT in weights and weights[0] == 1
    assert plan.length >= 24  # the optimum (test_weighted_astar_plans_within_...)
    replay(env, plan)


def test_the_reached_atoms_bind_their_variables_to_distinct_objects() -> None:
    """Two waters in one group: each takes a different object, the one its atoms hold for."""
    water = GoalVar("water", "1", 0, ("water1", "water2"))
    other = GoalVar("water", "2", 0, ("water1", "water2"))
    bowl = GoalVar("bowl", "3", 1, ("bowl1", "bowl2"))
    goal = Goal(
        atoms=(
            GoalAtom("isboiling", (0,)),
            GoalAtom("isboiling", (1,)),
            GoalAtom("in", (0, 2)),
        ),
        variables=(water, other, bowl),
    )
    true = {"isboiling(water1)", "isboiling(water2)", "in(water2,bowl1)"}
    assert planning._goal_binding(goal, [0, 1], true) == {0: "water1", 1: "water2"}
    assert planning._goal_binding(goal, [0, 2], true) == {0: "water2", 2: "bowl1"}
    assert planning._goal_binding(goal, [0, 1, 2], true) == {0: "water2", 1: "water1", 2: "bowl1"}
    assert planning._goal_binding(goal, [1], {"isboiling(water2)"}) == {1: "water2"}
    assert planning._goal_binding(goal, [0, 1], {"isboiling(water2)"}) is None
    assert planning._goal_binding(goal, [], set()) == {}


def test_a_stage_keeps_the_bound_objects_and_drops_them_from_their_groups() -> None:
    (inst,) = datasets.load("multi_agent", seeds=[42], tasks=["10"])  # two soups
    env = inst.load()
    goal = env.task.problem.goal
    waters = [i for i, v in enumerate(goal.variables) if v.arg == "water"]
    assert len(waters) == 2 and goal.variables[waters[1]].candidates == ("water1", "water2")
    atoms = [i for i, a in enumerate(goal.atoms) if set(a.args) & set(waters)]
    stage = planning._stage_env(env, atoms, {waters[0]: "water1"})
    assert [v.candidates for v in stage.task.problem.goal.variables if v.arg == "water"] == [
        ("water1",),
        ("water2",),
    ]


@settings(RANDOM_PROBLEMS, max_examples=120)
@given(problem=solvable_problems())
def test_agenda_plans_reach_random_reachable_goals(
    problem: tuple[dict[str, Any], dict[str, Any], str],
) -> None:
    """On random small problems in every mode, whose goals a random walk made true."""
    env = load_problem(problem)
    if env is None:
        return
    try:
        optimum = python_bfs(env, max_states=3000)
    except OverflowError:
        optimum = 0
    assert optimum is not None  # reachable by construction
    plan = robotouille.plan(env, "agenda", max_states=200_000)
    assert plan.length >= optimum
    replay(env, plan, structured=True)


def test_an_unreachable_goal_is_still_unreachable() -> None:
    with pytest.raises(UnsolvableError):
        robotouille.plan(_knife_problem(with_pick=False), "agenda")


def test_limits_stop_the_agenda_and_name_themselves() -> None:
    env = robotouille.load("cheese_sandwich")
    with pytest.raises(SearchLimitError) as info:
        robotouille.plan(env, "agenda", time_limit=1e-6)
    assert info.value.limit == "time_limit"
    with pytest.raises(SearchLimitError) as info:
        robotouille.plan(env, "agenda", max_states=1)
    assert info.value.limit == "max_states"


def test_optimal_length_refuses_the_agenda() -> None:
    with pytest.raises(ValueError, match="astar"):
        robotouille.optimal_length(robotouille.load("cheese_sandwich"), "agenda")  # type: ignore[arg-type]


def test_plan_many_runs_agendas_in_parallel() -> None:
    envs = [robotouille.load("cheese_sandwich"), _knife_problem(with_pick=False)]
    plan, error = robotouille.plan_many(envs, threads=2, algorithm="agenda", return_exceptions=True)
    assert isinstance(plan, robotouille.Plan) and isinstance(error, UnsolvableError)
    assert plan.length == robotouille.plan(envs[0], "agenda").length


def test_cli_says_an_agenda_plan_is_not_necessarily_optimal(capsys: Any) -> None:
    assert main(["plan", "cheese_sandwich", "--algorithm", "agenda"]) == 0
    out = capsys.readouterr().out
    assert "not necessarily optimal" in out and "Optimal plan" not in out


def test_a_simultaneous_agenda_lets_both_robots_work_at_once() -> None:
    """In simultaneous mode the agenda schedules a centralized agenda plan into joint steps:
    shorter than that plan, never shorter than the joint optimum, and it replays."""
    joint = _simultaneous(_two_robot_lettuce_sandwich())
    plan = robotouille.plan(joint, "agenda")
    assert all(isinstance(step, list) and len(step) == 2 for step in plan.actions)
    replay(joint, plan)
    sequential = robotouille.plan(_two_robot_lettuce_sandwich(), "agenda")
    assert robotouille.optimal_length(joint) <= plan.length < sequential.length


def test_the_joint_schedule_waits_for_what_the_centralized_plan_waited_for() -> None:
    """A two-robot kitchen where the patty cooks while the lettuce is cut: the schedule puts
    both robots' actions side by side, yet never takes the patty off the stove before the
    centralized plan had it cooked, so it reaches the goal; one action per step replays too."""
    central = _kitchen([["lettuce"], ["patty"], [], [], []], ["lettuce", "patty"], robots=2)
    steps = robotouille.plan(central).structured
    joint = _simultaneous(central)
    schedule = planning._joint_schedule(joint, steps)
    assert schedule is not None and len(schedule) < len(steps)
    for entries in (schedule, planning._one_per_step(joint, steps)):
        joint.reset()
        for step in entries:
            assert not joint.step(step)[4]["skipped"]
        assert joint.goal_reached()
    assert len(planning._one_per_step(joint, steps)) == len(steps)
