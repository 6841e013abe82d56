"""The projection bound in simultaneous mode (projection.h, "Joint steps").

There every robot may act in a step, so the rows are built from actions without the
end-of-step pass (which only waiting runs) and their sum, a bound on the actions still needed,
is divided by the number of robots. What matters is that it never exceeds the steps to go: A*
with it must find BFS's optimum, and the bound read along that plan stays within the steps
left. test_planning's hypothesis test does the same on random domains in every mode.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

import robotouille
from robotouille import InvalidActionError, SearchLimitError
from robotouille.domains import bundled_environment_path

from .test_planning import replay
from .test_projections import (
    EXAMPLES,
    _kitchen,
    _two_robot_cheese_sandwich,
    _two_robot_lettuce_sandwich,
    bound,
    generated_examples,
    needs_shared,
)


def _simultaneous(env: robotouille.Env) -> robotouille.Env:
    """The env's task in simultaneous mode, in the env's current state."""
    joint = robotouille.Env(env.task, mode="simultaneous")
    joint.set_state(env.get_state())
    return joint


def _check_against_bfs(env: robotouille.Env) -> None:
    """A* with the bound finds BFS's optimum from the env's state (where BFS ends within its
    state cap), and the bound never exceeds the steps left along that plan."""
    try:
        reference = robotouille.plan(env, "bfs", max_states=400_000)
    except SearchLimitError:
        assume(False)
    start = env.get_state()
    plan = robotouille.plan(env)
    assert plan.length == reference.length
    replay(env, plan, bound=lambda: bound(env))
    env.set_state(start)


def test_the_bound_counts_both_robots_actions_at_half_a_step_each() -> None:
    """The start bound of two robots in simultaneous mode is at least half the actions the rows
    count, and more than the time bound alone (what the planner had before)."""
    env = _simultaneous(_two_robot_lettuce_sandwich())
    value = bound(env)
    time_only = robotouille.plan(env, heuristic="time").stats.initial_h
    assert value > time_only
    assert value <= robotouille.plan(env, "bfs").length


def test_one_robot_in_simultaneous_mode_keeps_the_centralized_bound() -> None:
    """With one robot a joint step is one action and one pass, as in centralized mode: the same
    rows, not divided."""
    path = bundled_environment_path("synchronous/1_lettuce_sandwich")
    central = robotouille.load(path)
    joint = robotouille.load(path, mode="simultaneous")
    assert bound(joint) == bound(central)
    assert robotouille.plan(joint).length == robotouille.plan(central).length


@generated_examples(20)
@given(walk=st.lists(st.integers(0, 1_000), min_size=0, max_size=12))
def test_two_robot_sandwiches_keep_their_optimum_in_simultaneous_mode(walk: list[int]) -> None:
    """From states a random (centralized) walk reaches, A* finds BFS's joint-step optimum."""
    env = _two_robot_lettuce_sandwich() if len(walk) % 2 else _two_robot_cheese_sandwich()
    for pick in walk:
        actions = env.valid_actions()
        env.step(actions[pick % len(actions)])
    assume(not env.goal_reached())
    _check_against_bfs(_simultaneous(env))


@generated_examples(25)
@given(
    data=st.data(),
    goal=st.sampled_from([["lettuce"], ["patty"], ["lettuce", "patty"]]),
)
def test_two_robot_kitchens_keep_their_optimum_in_simultaneous_mode(
    data: st.DataObject, goal: list[str]
) -> None:
    """Two-robot kitchens with random stacks on the stations, items cut or cooked already or
    not (timers, clearing, covering candidates): A* finds BFS's joint-step optimum."""
    stacks: list[list[str]] = [[] for _ in range(5)]
    for name in goal:
        stacks[data.draw(st.sampled_from([0, 1, 4]))].append(name)
    others = st.sampled_from(["cheese", "tomato", "lettuce", "patty", "lettuce*", "patty*"])
    for name in data.draw(st.lists(others, max_size=2)):
        stacks[data.draw(st.sampled_from([2, 3, 0, 1, 4]))].append(name)
    _check_against_bfs(_simultaneous(_kitchen(stacks, goal, robots=2)))


@needs_shared
def test_a_multi_agent_original_solves_in_simultaneous_mode() -> None:
    """multi_agent/7: 19 joint steps against 32 in centralized mode; the start bound lies
    between half the centralized one and the optimum."""
    path = EXAMPLES / "multi_agent" / "7_onion_potato_tomato_soup.json"
    central = robotouille.load(path)
    joint = robotouille.load(path, mode="simultaneous")
    plan = robotouille.plan(joint, time_limit=60)
    replay(joint, plan)
    assert plan.length < robotouille.plan(central, time_limit=60).length
    assert math.ceil(bound(central) / 2) <= plan.stats.initial_h <= plan.length


def _reaches_the_goal(env: robotouille.Env, steps: list[list[Any]]) -> bool:
    """Whether the joint steps replay from the env's start (no entry invalid or skipped) and
    end at the goal."""
    env.reset()
    try:
        for step in steps:
            if env.step(step)[4]["skipped"]:
                return False
    except InvalidActionError:
        return False
    return env.goal_reached()


def test_a_joint_plan_has_no_entry_it_does_not_need() -> None:
    """Among optimal joint plans A* may return one where a robot walks about while the other
    works (here the second robot fetched and cooked the patty no goal needs); the plan keeps
    only entries whose removal would break it."""
    env = _simultaneous(_kitchen([["lettuce"], ["patty"], [], [], []], ["lettuce"], robots=2))
    plan = robotouille.plan(env)
    assert _reaches_the_goal(env, plan.structured)
    entries = [(i, r) for i, step in enumerate(plan.structured) for r, e in enumerate(step) if e]
    assert all(step[1] is None for step in plan.structured)  # robot2 has nothing to do
    for i, r in entries:
        trial = [list(step) for step in plan.structured]
        trial[i][r] = None
        assert not _reaches_the_goal(env, trial)
