"""The projection bound (python/robotouille/projections.py, cpp/.../projection.h).

Admissibility is what matters: the bound never exceeds the true number of steps to go. It is
checked here along optimal plans of original files (every state on the plan), and on hundreds
of random problems by test_planning's hypothesis test (A* with it == BFS == a plain Python
BFS). The other tests check the pieces the argument rests on: which objects get projections,
the one-hand invariant behind charging moves, the shared goal variables, and that malformed
tables are refused, and that objects with spare candidates (roles) still count. Idling (a lone
robot's waits beside an object) has its own hypothesis test on generated chicken sandwiches,
since the random domains of test_planning never have the shapes it needs.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import robotouille
from robotouille import SearchLimitError, _core, datasets, planning
from robotouille.domains import bundled_environment_path, default_domain_path
from robotouille.planning import _as_lists, _bound_tables, _projection_tables, _run, _start_stats
from robotouille.projections import (
    ARRIVAL_FREED,
    ARRIVAL_SLOT,
    ARRIVAL_STAYS,
    IDLE_BLOCKED,
    IDLE_SETS,
    MAX_FACTS,
    ProjectionTables,
    _arrival_shapes,
    _hands,
    _lift_shapes,
    _projection_objects,
    _stack_shapes,
    _status_facts,
    _TaskView,
    find_projections,
    implied_goal_task,
    stations_hold_stacks,
)

from .conftest import SHARED
from .test_planning import replay

EXAMPLES = SHARED / "reference" / "robotouille" / "environments" / "env_generator" / "examples"
needs_shared = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="../shared is not available")


def generated_examples(count: int) -> Any:
    """Hypothesis settings for the tests over generated instances: `count` derandomized
    examples, without deadlines (a search may take a second)."""
    return settings(
        max_examples=count,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
    )


# Projection limits under which no projection grows past the first caps (to compare tables).
NO_UPGRADES = {"upgrade_states": 0}
NO_AWAY = {"away_begin": [], "away": []}


def start_stats(
    env: robotouille.Env,
    *,
    limits: dict[str, float] | None = None,
    threads: int = 1,
    **tables: Any,
) -> dict[str, Any]:
    """The statistics of a one-state search from the env's state with the projection bound: by
    default with the tables the planner uses there, else with the given ones (for the env's own
    task), under the default projection limits or the given ones, built on `threads` threads."""
    return _start_stats(env, tables or None, limits=limits, threads=threads)


def timed_start_stats(
    env: robotouille.Env,
    time_limit: float,
    limits: dict[str, float],
    max_memory_bytes: int | None = None,
    *,
    keep_positions: bool = False,
) -> robotouille.SearchStats:
    """The statistics of a search from the env's state that stops after its first state, under
    a time limit (which sets the upgrade share, unless the limits name one); with
    ``keep_positions``, with every robot's position kept in the full rows (no away robots)."""
    planner_tables = planning._bound_tables

    def kept(env: robotouille.Env, bits: np.ndarray) -> tuple[Any, Any]:
        tables, task = planner_tables(env, bits)
        return (None if tables is None else {**tables, **NO_AWAY}), task

    with (
        pytest.raises(SearchLimitError) as stopped,
        mock.patch.object(planning, "_bound_tables", kept if keep_positions else planner_tables),
    ):
        _run(
            env,
            "astar",
            "projections",
            1,
            max_memory_bytes,
            time_limit,
            None,
            projection_limits=limits,
        )
    assert stopped.value.limit == "max_states"
    return stopped.value.stats


def planner_tables(env: robotouille.Env) -> tuple[dict[str, Any], Any]:
    """The projection tables the planner uses at the env's state, and their task."""
    bits = np.unpackbits(env._words[0].view(np.uint8), bitorder="little")
    tables, task = _bound_tables(env, bits)
    assert tables is not None
    return tables, task


def start_stats_keeping_positions(
    env: robotouille.Env, *, limits: dict[str, float] | None = None, threads: int = 1
) -> dict[str, Any]:
    """start_stats with the planner's tables, except that every robot keeps its position in
    the full rows (no away robots, see projection.h): rows as large as the upgrade tests need."""
    tables, task = planner_tables(env)
    return _start_stats(env, {**tables, **NO_AWAY}, task, limits=limits, threads=threads)


def bound_keeping_positions(env: robotouille.Env, limits: dict[str, float]) -> int:
    """The bound of start_stats_keeping_positions."""
    value: int = start_stats_keeping_positions(env, limits=limits)["initial_h"]
    return value


def bound(env: robotouille.Env, *, limits: dict[str, float] | None = None, **tables: Any) -> int:
    """The A* bound at the env's state: max(projections, time bound) (see start_stats)."""
    value: int = start_stats(env, limits=limits, **tables)["initial_h"]
    return value


def abstract_states(env: robotouille.Env, tables: dict[str, Any]) -> int:
    """The abstract states of the projections the given tables build from the env's state."""
    value: int = start_stats(env, **tables)["abstract_states"]
    return value


def assert_within_steps_to_go(env: robotouille.Env, plan: robotouille.Plan) -> None:
    """Steps the env along an optimal plan: the bound never exceeds the steps to go."""
    for i, action in enumerate(plan.actions):
        assert bound(env) <= plan.length - i
        env.step(action)
    assert bound(env) == 0


def test_projection_objects_and_the_one_hand_invariant_of_the_bundled_task() -> None:
    env = robotouille.load("cheese_sandwich")
    task = env.task
    tables = find_projections(task)
    # Each object twice: with the robot's position, and the coarser fallback without it.
    names = sorted(task.objects[o].name for o in tables.objects)
    assert names == ["bread1", "bread1", "bread2", "bread2", "cheese1", "cheese1"]
    assert tables.fallback.tolist() == [0, 1] * 3
    view = _TaskView(task)
    hold, hand = _hands(view, set(_projection_objects(task, view)))
    assert {task.fact_name(f) for facts in hold.values() for _, f in facts} == {
        "has_item(robot1,bread1)",
        "has_item(robot1,bread2)",
        "has_item(robot1,cheese1)",
    }
    names = {task.fact_name(f) for f in hand}
    assert {"nothing(robot1)", "has_item(robot1,bread1)"} <= names
    assert not any(n.startswith("loc(") for n in names)
    # Moves are charged while holding (cost code 2), picks and places to their item.
    moves = [
        c
        for g, c in zip(tables.groundings, tables.costs)
        if task.grounding_name(int(g))[0] == "move"
    ]
    assert set(moves) == {2}  # in the first variant; the fallbacks have no position facts


def test_a_hand_that_can_hold_two_things_gets_no_move_charges() -> None:
    domain = json.loads(default_domain_path().read_text())
    pick = next(a for a in domain["action_defs"] if a["name"] == "pick-up-item")
    # Picking no longer needs (or uses up) a free hand: two items can be held at once.
    pick["precons"] = [p for p in pick["precons"] if p["predicate"] != "nothing"]
    pick["immediate_fx"] = [p for p in pick["immediate_fx"] if p["predicate"] != "nothing"]
    env2 = robotouille.load("cheese_sandwich", domain)
    tables = find_projections(env2.task)
    assert 2 not in set(tables.costs.tolist())
    plan = robotouille.plan(env2)
    assert plan.stats.initial_h <= plan.length
    replay(env2, plan)


def test_arrivals_charge_the_empty_move_before_each_pick() -> None:
    """Moves set the arrival bit, puts clear it, picks of the item pay for it (projection.h)."""
    env = robotouille.load("cheese_sandwich")
    task = env.task
    tables = find_projections(task)
    row = slice(int(tables.grounding_begin[0]), int(tables.grounding_begin[1]))
    expected = {"move": 1, "pick-up-item": 4, "unstack": 4, "place-item": 2, "stack": 2}
    held = task.objects[tables.objects[0]].name
    for g, code in zip(tables.groundings[row], tables.arrivals[row]):
        action, args = task.grounding_name(int(g))
        mine = action == "move" or args[1] == held
        assert code == (expected.get(action, 0) if mine else 0), (action, args)
    pairs = tables.colocated[2 * tables.colocated_begin[0] : 2 * tables.colocated_begin[1]]
    names = {task.fact_name(int(f)) for f in pairs}
    assert {"loc(robot1,table1)", f"item_at({held},table1)", f"item_on({held},table1)"} <= names
    # Every pick of the bundled sandwich's cheese and top bread follows an arrival.
    plain = dataclasses.replace(tables, arrivals=np.zeros_like(tables.arrivals))
    with_arrivals = bound(env, **_as_lists(tables))
    assert with_arrivals > bound(env, **_as_lists(plain))
    plan = robotouille.plan(env, "bfs")
    assert with_arrivals <= plan.length
    for i, action in enumerate(plan.actions):
        assert bound(env) <= plan.length - i
        env.step(action)


def test_arrivals_need_the_hand_shapes_of_the_argument() -> None:
    domain = json.loads(default_domain_path().read_text())
    assert _arrival_shapes(robotouille.load("cheese_sandwich").task.domain)
    place = next(a for a in domain["action_defs"] if a["name"] == "place-item")
    # Putting an item down anywhere (even where another item stands) breaks the argument.
    place["precons"] = [p for p in place["precons"] if p["predicate"] != "station_empty"]
    env = robotouille.load("cheese_sandwich", domain)
    assert not _arrival_shapes(env.task.domain)
    assert not find_projections(env.task).arrivals.any()


def _two_robot_cheese_sandwich() -> robotouille.Env:
    layout = json.loads(bundled_environment_path("cheese_sandwich").read_text())
    layout["players"].append({"name": "robot", "x": 3, "y": 1, "direction": [0, -1]})
    return robotouille.load(layout)


def test_each_robot_has_its_own_arrival_bit() -> None:
    env = _two_robot_cheese_sandwich()
    task = env.task
    # Each robot gets its own bit, and the bound stays admissible.
    tables = find_projections(task)
    robots = sorted(task.object_index[r] for r in task.problem.players)
    for g, code in zip(tables.groundings.tolist(), tables.arrivals.tolist()):
        if code:
            assert code // ARRIVAL_SLOT == robots.index(int(task.owner[g]))
    assert {code // ARRIVAL_SLOT for code in tables.arrivals.tolist() if code} == {0, 1}
    plan = robotouille.plan(env, "bfs")
    plain = _as_lists(find_projections(task, arrivals=False))
    assert bound(env, **_as_lists(tables)) > bound(env, **plain)
    # A robot's bit varies only where it stands at the item's station (it is set elsewhere,
    # see projection.h), so the bits add far fewer abstract states than 4 combinations of two
    # free bits would: kept as plain history they made 8,162 states of 2,400 without them.
    assert abstract_states(env, _as_lists(tables)) < 2 * abstract_states(env, plain)
    for i, action in enumerate(plan.actions):
        assert bound(env, **_as_lists(tables)) <= plan.length - i
        env.step(action)


def test_a_robot_with_a_full_hand_beside_an_item_still_pays_its_arrival() -> None:
    """The robot brings the cheese to table2, where bread1 lies: it must leave to put the
    cheese down before it can pick bread1 up, so bread1's row still counts that arrival."""
    env = robotouille.load("cheese_sandwich")
    tables = find_projections(env.task)
    assert [env.task.fact_name(int(f)) for f in tables.free_hands] == ["nothing(robot1)"]
    without = _as_lists(dataclasses.replace(tables, free_hands=np.full(1, -1)))
    for action in ("Move robot1 from table2 to table1", "Pick up cheese1 from table1 using robot1"):
        env.step(action)
    # Empty-handed beside bread1 (at the start) the hand changes nothing; here it does.
    env.step("Move robot1 from table1 to table2")
    steps_to_go = robotouille.optimal_length(env)
    assert steps_to_go == 5  # away to table4 and back to table2 before bread1's pick
    assert bound(env, **_as_lists(tables)) == bound(env, **without) + 1 <= steps_to_go
    assert not find_projections(env.task, arrivals=False).free_hands.size


def test_a_robot_beside_a_covered_item_still_pays_its_arrival() -> None:
    """The cheese starts under a bread at the robot's station: the robot must take the bread
    off, filling its hand, and leave with it before it can pick the cheese up, so the cheese's
    row counts that arrival although the robot stands there empty-handed."""
    layout = json.loads(bundled_environment_path("cheese_sandwich").read_text())
    layout["items"] = [
        {"name": "cheese", "x": 1, "y": 0, "stack-level": 0},
        {"name": "bread", "x": 1, "y": 0, "stack-level": 1},
        {"name": "bread", "x": 4, "y": 2, "stack-level": 0},
    ]
    env = robotouille.load(layout)
    tables = find_projections(env.task)
    task = env.task
    # Each object's full row reads its own clear fact; fallbacks have no arrivals.
    full = [row for row, k in enumerate(tables.fallback) if not k]
    assert [task.fact_name(int(tables.clear_facts[row])) for row in full] == [
        f"clear({task.objects[tables.objects[row]].name})" for row in full
    ]
    assert all(tables.clear_facts[row] == -1 for row, k in enumerate(tables.fallback) if k)
    unread = dataclasses.replace(tables, clear_facts=np.full(len(tables.clear_facts), -1))
    assert bound(env, **_as_lists(tables)) == bound(env, **_as_lists(unread)) + 1
    assert_within_steps_to_go(env, robotouille.plan(env, "bfs"))


def test_each_robot_with_a_full_hand_beside_an_item_pays_its_arrival() -> None:
    """With two robots, each robot's own hand decides its own arrival bit, and the bound stays
    within the steps to go along an optimal plan."""
    env = _two_robot_cheese_sandwich()
    tables = find_projections(env.task)
    robots = sorted(env.task.object_index[r] for r in env.task.problem.players)
    names = [env.task.fact_name(int(f)) for f in tables.free_hands]
    assert names == [f"nothing({env.task.objects[r].name})" for r in robots]
    plan = robotouille.plan(env, "bfs")
    assert_within_steps_to_go(env, plan)


def _bundled(dataset: str, task: str, seed: int = 42) -> robotouille.Env:
    [instance] = [i for i in datasets.load(dataset, seeds=[seed]) if i.task.startswith(task)]
    return instance.load()


def _codes_by_action(task: Any, tables: ProjectionTables, name: str) -> dict[str, set[int]]:
    """The arrival codes (slot left out) of the groundings that name the object, by action,
    over its rows."""
    out: dict[str, set[int]] = {}
    for row, o in enumerate(tables.objects):
        if task.objects[o].name != name:
            continue
        begin, end = int(tables.grounding_begin[row]), int(tables.grounding_begin[row + 1])
        for g, code in zip(tables.groundings[begin:end], tables.arrivals[begin:end]):
            action, args = task.grounding_name(int(g))
            if name in args:
                out.setdefault(action, set()).add(int(code) % ARRIVAL_SLOT)
    return out


def _projected(task: Any, tables: ProjectionTables) -> dict[str, str]:
    """The projection objects' names by their names' stems (potato1: potato)."""
    return {
        task.objects[o].name.rstrip("0123456789"): task.objects[o].name for o in tables.objects
    }


def _picks_of(task: Any, name: str) -> list[int]:
    """The groundings that pick the named container up."""
    return [
        g
        for g in range(len(task.owner))
        if task.grounding_name(g)[0] == "pick-up-container" and name in task.grounding_name(g)[1]
    ]


def _without_idling(tables: dict[str, Any]) -> dict[str, Any]:
    return {**tables, "idle_begin": [0] * len(tables["idle_begin"]), "idle": []}


def test_idling_charges_the_wait_beside_a_cooking_chicken() -> None:
    """Asynchronous/1 seed 42: the chicken starts on a stove. Once the robot stands beside it
    with empty hands, the chicken's row counts one more step (waiting there until it is
    cooked, or leaving and coming back); the bound then equals the steps to go all along an
    optimal plan, one more than without idling before the chicken is picked up."""
    (instance,) = datasets.load("asynchronous", seeds=[42], tasks=["1"])
    env = instance.load()
    plan = robotouille.plan(env)
    raised = 0
    for i, action in enumerate(plan.actions):
        bits = np.unpackbits(env._words[0].view(np.uint8), bitorder="little")
        tables, projection_task = _bound_tables(env, bits)
        assert tables is not None and projection_task is None
        with_idling, without = bound(env, **tables), bound(env, **_without_idling(tables))
        assert without <= with_idling <= plan.length - i
        raised += with_idling > without
        env.step(action)
    assert raised == 2  # beside the chicken before and after cooking it


@generated_examples(10)
@given(
    seed=st.integers(0, 10_000),
    task=st.sampled_from(["0_cheese_chicken_sandwich", "1_lettuce_chicken_sandwich"]),
)
def test_idling_keeps_the_optimum_of_random_chicken_sandwiches(seed: int, task: str) -> None:
    """On generated chicken sandwiches (the robot waits beside the stove, or leaves and comes
    back), A* with the projections and idling finds the optimum that BFS finds (where BFS
    ends within its state cap)."""
    (instance,) = datasets.load("asynchronous", seeds=[seed], tasks=[task])
    env = instance.load()
    assert find_projections(env.task).idle.size
    plan = robotouille.plan(env)
    assert plan.stats.initial_h <= plan.length
    replay(env, plan)
    try:
        reference = robotouille.plan(instance.load(), "bfs", max_states=2_000_000)
    except SearchLimitError:
        assume(False)
    assert reference.length == plan.length


def _kitchen(
    stacks: list[list[str]],
    goal: list[str],
    robots: int = 1,
    *,
    last: str = "table",
    at_board: bool = False,
) -> robotouille.Env:
    """A small kitchen: two tables, a board, a stove and a fifth station (``last``), holding
    the given stacks (bottom first) in that order; the goal is each named item (lettuce: cut,
    patty: cooked; a name ending in ``*`` starts so). The first robot faces the second table
    (the board, ``at_board``), the second robot the fifth station."""
    places = [("table", 0, 2), ("table", 1, 0), ("board", 2, 4), ("stove", 4, 2), (last, 3, 0)]
    kinds = {"lettuce": ["iscuttable"], "tomato": ["iscuttable"], "patty": ["iscookable"]}
    wanted = {"lettuce": "iscut", "patty": "iscooked"}
    items = [
        {
            "name": name.rstrip("*"),
            "x": x,
            "y": y,
            "stack-level": level,
            "predicates": kinds.get(name.rstrip("*"), [])
            + ([wanted[name.rstrip("*")]] if name.endswith("*") else []),
        }
        for (_, x, y), stack in zip(places, stacks)
        for level, name in enumerate(stack)
    ]
    first = (
        {"x": 2, "y": 3, "direction": [0, 1]}
        if at_board
        else {"x": 1, "y": 1, "direction": [0, -1]}
    )
    players = [{"name": "robot", **first}]
    if robots == 2:
        players.append({"name": "robot", "x": 3, "y": 1, "direction": [0, -1]})
    layout = {
        "version": "1.0.0",
        "width": 5,
        "height": 5,
        "config": {"num_cuts": {"default": 2}, "cook_time": {"default": 2}},
        "stations": [{"name": n, "x": x, "y": y} for n, x, y in places],
        "items": items,
        "players": players,
        "goal_description": "Cut the lettuce and cook the patty",
        "goal": [
            {"predicate": wanted[name], "args": [name], "ids": [k + 1]}
            for k, name in enumerate(goal)
        ],
    }
    return robotouille.load(layout)  # type: ignore[arg-type]


def _without_clearing(tables: dict[str, Any]) -> dict[str, Any]:
    return {**tables, "clearing": []}


def test_clearing_counts_the_picks_and_arrivals_that_free_the_only_board() -> None:
    """The board holds cheese under a tomato (no goal names either), so cutting the lettuce
    first needs both picked off it, each after an empty-handed arrival and followed by a move
    holding it (or putting it back): 6 steps that no row pays for."""
    env = _kitchen([["lettuce"], [], ["cheese", "tomato"], [], []], ["lettuce"])
    tables = _projection_tables(env)
    assert tables["clearing"]
    plain, cleared = bound(env, **_without_clearing(tables)), bound(env, **tables)
    assert cleared == plain + 6
    plan = robotouille.plan(env)
    reference = robotouille.plan(env, "bfs")
    assert plan.length == reference.length
    raised = 0
    for i, action in enumerate(plan.actions):
        with_clearing = bound(env, **_projection_tables(env))
        assert bound(env, **_without_clearing(_projection_tables(env))) <= with_clearing
        assert with_clearing <= plan.length - i
        raised += with_clearing > bound(env, **_without_clearing(_projection_tables(env)))
        env.step(action)
    assert raised > 0
    # An item on the lettuce (a goal object) is picked off it in a step its row pays for.
    on_goal = _kitchen([[], [], ["lettuce", "tomato"], [], []], ["lettuce"])
    tables = _projection_tables(on_goal)
    assert bound(on_goal, **tables) == bound(on_goal, **_without_clearing(tables))


def test_clearing_needs_every_station_of_the_kind_covered() -> None:
    """With a second board that is free the lettuce can be cut there: clearing adds nothing.
    With the robot standing empty-handed at the covered board, one arrival fewer."""
    stacks = [["lettuce"], [], ["cheese"], [], []]
    for env, added in (
        (_kitchen(stacks, ["lettuce"]), 3),
        (_kitchen(stacks, ["lettuce"], last="board"), 0),
        (_kitchen(stacks, ["lettuce"], at_board=True), 2),
    ):
        tables = _projection_tables(env)
        assert bound(env, **tables) == bound(env, **_without_clearing(tables)) + added


def _parks_at(layout: list[int]) -> int:
    """Where the clearing layout's parks begin (read as projection.cc reads it)."""
    at = 1

    def skip_counted(width: int) -> None:  # a count, then that many entries of `width` values
        nonlocal at
        at += 1 + width * layout[at]

    stations = layout[at]
    at += 1
    for _ in range(stations):
        skip_counted(2)  # the robots' (position, free hand) pairs
        items = layout[at]
        at += 1
        for _ in range(items):
            at += 1  # the item's fact
            skip_counted(1)  # the facts that rule it out
        skip_counted(2)  # the covering candidates
    requirements = layout[at]
    at += 1
    for _ in range(requirements):
        at += 1  # its group
        skip_counted(1)  # the facts that void it
        skip_counted(1)  # the templates that void it
        skip_counted(1)  # its stations
    return at


def _without_parks(tables: dict[str, Any]) -> dict[str, Any]:
    layout = [int(x) for x in tables["clearing"]]
    return {**tables, "clearing": [*layout[: _parks_at(layout)], 0]} if layout else tables


def test_a_top_bread_that_covers_the_board_is_parked_before_the_cuts() -> None:
    """bread2 stands on the only board, where the lettuce and the tomato must be cut before
    they join the sandwich. As its top bread it must leave the board before the cuts and can
    reach the sandwich only after them, so it is put down elsewhere and picked up once more:
    the park distance counts those 4 steps, and the bound starts at the optimum, 28."""
    (instance,) = datasets.load("synchronous", tasks=["2"], seeds=[336])
    env = instance.load()
    tables = _projection_tables(env)
    stacks = [["lettuce"], [], ["cheese"], [], []]
    assert bound(env, **tables) == instance.optimal_length == 28
    assert bound(env, **_without_parks(tables)) == 24
    plan = robotouille.plan(env)
    assert plan.length == 28
    raised = 0
    for i, action in enumerate(plan.actions):
        tables = _projection_tables(env)
        with_parks = bound(env, **tables)
        assert bound(env, **_without_parks(tables)) <= with_parks <= plan.length - i
        raised += with_parks > bound(env, **_without_parks(tables))
        env.step(action)
    assert raised > 0
    # With two robots too (one per station): the other one may hold the top bread meanwhile,
    # but not at the board. The park lists both robots' positions there.
    for robots in (1, 2):
        kitchen = _kitchen(stacks, ["lettuce"], robots)
        layout = [int(x) for x in _projection_tables(kitchen)["clearing"]]
        at = _parks_at(layout)
        assert layout[at] == 1 and layout[at + 3] == robots


def _two_robot_lettuce_sandwich() -> robotouille.Env:
    """The bundled lettuce sandwich with a second robot (one board, where the lettuce is cut)."""
    layout = json.loads(bundled_environment_path("synchronous/1_lettuce_sandwich").read_text())
    layout["players"].append({"name": "robot", "x": 3, "y": 1, "direction": [0, -1]})
    return robotouille.load(layout)


def _check_optimum_after_walk(env: robotouille.Env, walk: list[int]) -> None:
    """Steps the env by the walk's picks among its valid actions; from there (unless at the
    goal) A* finds BFS's optimum, and the planner's start bound does not exceed it."""
    for pick in walk:
        actions = env.valid_actions()
        env.step(actions[pick % len(actions)])
    assume(not env.goal_reached())
    optimum = robotouille.plan(env, "bfs").length
    assert _planner_bound(env) <= optimum
    assert robotouille.plan(env).length == optimum


@generated_examples(25)
@given(walk=st.lists(st.integers(0, 1_000), min_size=2, max_size=16))
def test_two_robot_lettuce_sandwiches_keep_their_optimum(walk: list[int]) -> None:
    """From states a random walk of two robots reaches, A* with the parks (both robots' places at
    the board) and the lifts finds BFS's optimum, and the bound never exceeds it."""
    env = _two_robot_lettuce_sandwich()
    layout = [int(x) for x in _projection_tables(env, implied=True)["clearing"]]
    assert layout[_parks_at(layout)] == 1
    _check_optimum_after_walk(env, walk)


def test_two_robots_park_the_top_bread_that_covers_the_only_stove() -> None:
    """multi_agent/5 seed 84: bread2 lies on the only stove, where the chicken must cook, and
    robot1 stands there holding bread1. Whichever robot cooks the chicken stands at the stove
    with an empty hand, so bread2 is neither there nor held by a robot there: the park counts
    its way off the stove, and the bound starts at 29 instead of 28 (the optimum is 33). A*
    still finds the optimum, and the bound stays within the steps to go."""
    (instance,) = datasets.load("multi_agent", tasks=["5"], seeds=[84])
    env = instance.load()
    assert _planner_bound(env) == 29
    tables, _ = planner_tables(env)
    assert _planner_bound(env, **_without_parks(tables)) == 28
    plan = robotouille.plan(env)
    assert plan.length == instance.optimal_length == 33
    for i, action in enumerate(plan.actions[:16]):  # up to bread2's departure from the stove
        assert _planner_bound(env) <= plan.length - i
        env.step(action)


def test_a_candidate_that_plays_no_role_pays_for_leaving_the_only_board() -> None:
    """patty2 covers the board, where the lettuce must be cut; patty1 is cooked already and
    takes the goal's patty role at no cost. patty2 then plays no role, so its row adds
    nothing, yet it must leave the board: its pick, the arrival before it and the move after
    it (2 with the robot standing ready at the board). Cooking patty2 instead costs its row."""
    stacks = [["lettuce"], ["patty*"], ["patty"], [], []]
    for env, added in (
        (_kitchen(stacks, ["lettuce", "patty"]), 3),
        (_kitchen(stacks, ["lettuce", "patty"], at_board=True), 2),
    ):
        tables = _projection_tables(env)
        assert bound(env, **tables) == bound(env, **_without_clearing(tables)) + added
        plan = robotouille.plan(env)
        assert plan.length == robotouille.plan(env, "bfs").length
        for i, action in enumerate(plan.actions):
            assert bound(env) <= plan.length - i
            env.step(action)
    # patty2 is the lettuce's cover no longer once the lettuce is cut.
    done = _kitchen([["lettuce*"], ["patty*"], ["patty"], [], []], ["lettuce", "patty"])
    tables = _projection_tables(done)
    assert bound(done, **tables) == bound(done, **_without_clearing(tables)) == 0


@generated_examples(40)
@given(
    data=st.data(),
    robots=st.sampled_from([1, 2]),
    goal=st.sampled_from([["lettuce"], ["patty"], ["lettuce", "patty"]]),
)
def test_clearing_keeps_the_optimum_of_kitchens_with_covered_stations(
    data: st.DataObject, robots: int, goal: list[str]
) -> None:
    """Kitchens whose board and stove hold random stacks of items that no goal names: A* with
    the clearing term finds BFS's optimum (where BFS ends within its state cap), and its bound
    never exceeds the steps to go along that plan."""
    stacks: list[list[str]] = [[] for _ in range(5)]
    for name in goal:
        stacks[data.draw(st.sampled_from([0, 1, 4]))].append(name)
    # Other items, some of them candidates of the goal's variables (cooked or cut already, or
    # not), which the matching may leave without a role.
    others = st.sampled_from(
        ["cheese", "tomato", "onion", "lettuce", "patty", "lettuce*", "patty*"]
    )
    for name in data.draw(st.lists(others, max_size=3)):
        stacks[data.draw(st.sampled_from([2, 3, 2, 3, 0, 1, 4]))].append(name)  # board, stove
    env = _kitchen(stacks, goal, robots)
    plan = robotouille.plan(env)
    replay(env, plan)
    env = _kitchen(stacks, goal, robots)
    try:
        reference = robotouille.plan(env, "bfs", max_states=1_000_000)
    except SearchLimitError:
        assume(False)
    assert reference.length == plan.length
    for i, action in enumerate(plan.actions):
        assert bound(env) <= plan.length - i
        env.step(action)


def _idling_objects(task: Any) -> set[str]:
    tables = find_projections(task)
    begin = tables.idle_begin
    return {task.objects[o].name for r, o in enumerate(tables.objects) if begin[r + 1] > begin[r]}


def test_idling_needs_one_robot_and_every_other_step_there_blocked() -> None:
    env = robotouille.load("cheese_sandwich")
    tables = find_projections(env.task)
    task = env.task
    robot = task.object_index[task.problem.players[0]]
    # The full rows, not the fallbacks (without the robot's position).
    assert _idling_objects(task) == {"bread1", "bread2", "cheese1"}
    rows = range(len(tables.objects))
    assert sum(int(tables.idle_begin[r + 1] > tables.idle_begin[r]) for r in rows) == 3
    quadruples = tables.idle.reshape(-1, 4)
    free = f"nothing({task.objects[robot].name})"
    assert {task.fact_name(int(f)) for f in quadruples[:, 3]} == {free}
    first = slice(int(tables.grounding_begin[0]), int(tables.grounding_begin[1]))
    name = task.objects[tables.objects[0]].name
    for g, code in zip(tables.groundings[first].tolist(), tables.idle_codes[first].tolist()):
        action, args = task.grounding_name(g)
        # Putting the object down leaves the robot idle at it; stacking another item on it
        # needs that item in the hand.
        assert bool(code & IDLE_SETS) == (action in ("place-item", "stack") and args[1] == name)
        if action == "stack" and args[2] == name:
            assert code & IDLE_BLOCKED
    # Two robots: another robot's steps look like waiting to the row.
    assert not find_projections(_two_robot_cheese_sandwich().task).idle.size
    # A cut that needs nothing at the board could apply while the robot idles at a bread
    # there, and it is charged to the lettuce it cuts: only the lettuce's row still idles.
    (instance,) = datasets.load("synchronous", seeds=[42], tasks=["1"])
    assert _idling_objects(instance.load().task) == {"bread1", "bread2", "lettuce1"}
    domain = json.loads(default_domain_path().read_text())
    cut = next(a for a in domain["action_defs"] if a["name"] == "cut")
    cut["precons"] = [p for p in cut["precons"] if p["predicate"] not in ("item_on", "clear")]
    assert _idling_objects(instance.load(domain).task) == {"lettuce1"}


def test_a_restored_state_that_breaks_a_proven_group_goes_without_what_rests_on_it() -> None:
    """The move charges (and arrivals and idling) rest on the robot holding exactly one thing
    (its free hand counts as one), idling also on it standing at one place, as in every state
    reachable from the start. A state restored with set_state that breaks the hand (neither
    free nor holding anything) is planned without the projections; one that puts the robot at
    two places, without idling."""
    env = robotouille.load("cheese_sandwich")
    task = env.task
    bits = np.unpackbits(env._words[0].view(np.uint8), bitorder="little")
    tables = _bound_tables(env, bits)[0]
    assert tables is not None and len(tables["idle"])
    names = [task.fact_name(f) for f in range(task.num_pred_facts)]
    no_hand = bits.copy()
    no_hand[names.index("nothing(robot1)")] = 0
    assert _bound_tables(env, no_hand) == (None, None)
    here = next(n for n, f in enumerate(names) if f.startswith("loc(robot1,") and bits[n])
    elsewhere = next(n for n, f in enumerate(names) if f.startswith("loc(robot1,") and n != here)
    two_places = bits.copy()
    two_places[elsewhere] = 1
    tables = _bound_tables(env, two_places)[0]
    assert tables is not None and not len(tables["idle"])
    plan = robotouille.plan(env)  # the env's own state still gets everything
    assert plan.stats.initial_h == plan.length


def test_containers_pay_for_their_arrivals_and_a_pot_also_after_a_freed_hand() -> None:
    """A station with a container holds no item, so a robot that arrives at a bowl with
    something in hand cannot put it down there before the pick; at a pot it can, by adding
    an ingredient, which therefore clears the arrival bit as putting the pot down does
    (projections.py, _arrival_shapes; projection.h, "Arrivals")."""
    env = _bundled("asynchronous", "5_potato_soup")
    task = env.task
    tables = find_projections(task)
    bowl, pot = _projected(task, tables)["bowl"], _projected(task, tables)["pot"]
    bowl_codes = _codes_by_action(task, tables, bowl)
    assert 4 in bowl_codes["pick-up-container"] and 2 in bowl_codes["place-container"]
    pot_codes = _codes_by_action(task, tables, pot)
    assert 4 in pot_codes["pick-up-container"] and ARRIVAL_FREED in pot_codes["add-to"]
    for name in (bowl, pot):
        plain = dataclasses.replace(
            tables,
            arrivals=np.where(
                np.isin(tables.groundings, _picks_of(task, name)), 0, tables.arrivals
            ),
        )
        assert bound(env, **_as_lists(tables)) > bound(env, **_as_lists(plain))
    # Without the freed hand, the pick of the pot right after adding the potato would pay for
    # an arrival that never happens: from the potato's pick on, the bound would exceed the
    # steps to go.
    unfreed = dataclasses.replace(tables, arrivals=tables.arrivals & ~ARRIVAL_FREED)
    plan = robotouille.plan(env)
    added = next(i for i, a in enumerate(plan.actions) if a.startswith("Add "))
    assert plan.actions[added + 1].startswith(f"Pick up {pot}")
    for action in plan.actions[: added - 1]:
        env.step(action)
    assert plan.actions[added - 2].startswith("Pick up potato")
    assert bound(env, **_as_lists(unfreed)) > plan.length - (added - 1) >= bound(env)


def test_the_pot_is_carried_to_the_bowl_before_it_is_poured() -> None:
    """Filling the bowl needs the bowl at the station of the robot holding the pot, and no
    container stands where the pot was picked up or comes there while the robot holds it: a
    move comes between (projection.h, "Hand-overs"), which the pot's projection now pays."""
    env = _bundled("asynchronous", "5_potato_soup")
    task = env.task
    tables = find_projections(task)
    pot = _projected(task, tables)["pot"]
    assert 8 | ARRIVAL_STAYS in _codes_by_action(task, tables, pot)["fill-bowl"]
    fills = np.isin(
        tables.groundings,
        [g for g in range(len(task.owner)) if task.grounding_name(g)[0] == "fill-bowl"],
    )
    plain = dataclasses.replace(
        tables, arrivals=np.where(fills, tables.arrivals & ~8, tables.arrivals)
    )
    assert bound(env, **_as_lists(tables)) == bound(env, **_as_lists(plain)) + 1
    plan = robotouille.plan(env)
    assert_within_steps_to_go(env, plan)
    env.reset()
    for action in plan.actions[:-3]:
        env.step(action)
    # Beside the boiled soup with an empty hand: pick the pot up, carry it, pour.
    assert plan.actions[-3].startswith(f"Pick up {pot}") and bound(env) == 3


# Caps under which the original multi_agent/10 builds every pot's row whole (1.05M states for
# both waters), whatever the machine's load.
WHOLE_POT_ROWS = {
    "upgrade_seconds": 1000,
    "upgrade_states": 2_000_000,
    "upgrade_total_states": 8_000_000,
    "retry_states": 2_000_000,
}


@needs_shared
def test_a_pot_poured_into_the_bowl_moves_before_it_is_put_down() -> None:
    """Pouring keeps the pot in the robot's hand beside the bowl, where it cannot be put down
    (a station holds one container): the robot moves before it puts the pot down again
    (projection.h, "Hand-overs"). The original multi_agent/10's optimal plan pours one pot into
    a bowl and fills it again at a sink; the pot's row for both waters let the robot pour at a
    sink and put the pot down right there. Without that, the bound at the start is 52, with it
    53 (the optimum is 54)."""
    env = robotouille.load(
        EXAMPLES / "multi_agent" / "10_potato_tomato_chicken_soup_potato_cheese_onion_soup.json"
    )
    tables, task = planner_tables(env)
    codes = _codes_by_action(env.task, find_projections(planning._implied_task(env)), "pot1")
    assert 8 | ARRIVAL_STAYS in codes["fill-bowl"]
    kept = {**tables, "arrivals": [code & ~ARRIVAL_STAYS for code in tables["arrivals"]]}
    with_stays = _start_stats(env, tables, task, limits=WHOLE_POT_ROWS)["initial_h"]
    without = _start_stats(env, kept, task, limits=WHOLE_POT_ROWS)["initial_h"]
    assert (without, with_stays) == (52, 53)


def test_an_ingredient_is_carried_to_the_pot_before_it_goes_in() -> None:
    """A move comes between picking an ingredient up and adding it to the pot (projection.h,
    "Hand-overs"); a state where the robot holds it away from the pot is read with its
    fresh-pick bit set."""
    env = _bundled("asynchronous", "5_potato_soup")
    task = env.task
    tables = find_projections(task)
    potato = _projected(task, tables)["potato"]
    codes = _codes_by_action(task, tables, potato)
    assert 2 | 8 in codes["add-to"] and 4 in codes["pick-up-item"]
    assert len(tables.hand_over_places) > 0
    plain = dataclasses.replace(
        tables, arrivals=tables.arrivals & ~8, hand_over_places=np.zeros(0, np.int64)
    )
    assert bound(env, **_as_lists(tables)) > bound(env, **_as_lists(plain))
    plan = robotouille.plan(env)
    before = bound(env)
    for i, action in enumerate(plan.actions):
        assert before <= plan.length - i
        env.step(action)
        after = bound(env)
        if action.startswith(f"Pick up {potato}"):
            assert after == before - 1  # the carry still ahead counts right after the pick
        before = after


def test_hand_overs_with_two_robots() -> None:
    """With two robots the other robot cannot bring the pot either: it would have to stand
    where the holding robot stands. Each robot has its own fresh-pick bit; the bound rises and
    stays within the steps to go along an optimal plan, whichever robot carries what."""
    env = _bundled("multi_agent", "7_onion_potato_tomato_soup")
    task = env.task
    tables = find_projections(task)
    slots = {int(code) // ARRIVAL_SLOT for code in tables.arrivals if code & 8}
    assert slots == {0, 1}
    places = tables.hand_over_places.reshape(-1, 3)
    assert set(places[:, 0]) == {0, 1}
    plain = dataclasses.replace(
        tables, arrivals=tables.arrivals & ~8, hand_over_places=np.zeros(0, np.int64)
    )
    assert bound(env, **_as_lists(tables)) > bound(env, **_as_lists(plain))
    plan = robotouille.plan(env)
    carriers = set()
    for i, action in enumerate(plan.actions):
        assert bound(env) <= plan.length - i
        if " into " in action:
            carriers.add(action.split()[-1])
        env.step(action)
    assert carriers == {"robot1", "robot2"}


@generated_examples(12)
@given(seed=st.integers(0, 10_000))
def test_the_soups_bound_keeps_the_optimum_of_random_potato_soups(seed: int) -> None:
    """On generated potato soups (bowl arrivals and the potato's hand-over both apply), A* with
    the projections finds the optimum that A* with the critical-path time bound alone finds
    (where that weaker search ends within its state cap)."""
    [instance] = [
        i for i in datasets.load("asynchronous", seeds=[seed]) if i.task.startswith("5_")
    ]
    env = instance.load()
    plan = robotouille.plan(env)
    assert plan.stats.initial_h <= plan.length
    replay(env, plan)
    env = instance.load()
    try:
        reference = robotouille.plan(env, heuristic="time", max_states=150_000)
    except SearchLimitError:
        assume(False)
    assert reference.length == plan.length


def test_two_robots_get_arrivals_only_where_one_robot_stands_at_a_station() -> None:
    """A robot cannot stay while an item is brought to it only because the other robot may
    not come to its station: without that (moves that ignore vacancy) two robots get no
    arrivals, while one robot still does."""
    layout = json.loads(bundled_environment_path("cheese_sandwich").read_text())
    domain = json.loads(default_domain_path().read_text())
    move = next(a for a in domain["action_defs"] if a["name"] == "move")
    move["precons"] = [p for p in move["precons"] if p["predicate"] != "vacant"]
    assert find_projections(robotouille.load(layout, domain).task).arrivals.any()
    layout["players"].append({"name": "robot", "x": 3, "y": 1, "direction": [0, -1]})
    assert find_projections(robotouille.load(layout).task).arrivals.any()
    assert not find_projections(robotouille.load(layout, domain).task).arrivals.any()


def _long_kitchen(tables: int) -> robotouille.Env:
    """A board and `tables` tables in two rows, a lettuce on the last table, two robots; the
    goal: the lettuce cut. The lettuce's row with the robots' positions has about four facts
    per station (its own places and both robots')."""
    width = tables // 2 + 1
    places = [("board", 0, 0)] + [("table", x, 0) for x in range(1, width)]
    places = (places + [("table", x, 4) for x in range(width)])[: tables + 1]
    layout = {
        "version": "1.0.0",
        "width": width,
        "height": 5,
        "config": {"num_cuts": {"default": 2}},
        "stations": [{"name": n, "x": x, "y": y} for n, x, y in places],
        "items": [
            {
                "name": "lettuce",
                "x": places[-1][1],
                "y": places[-1][2],
                "stack-level": 0,
                "predicates": ["iscuttable"],
            }
        ],
        "players": [
            {"name": "robot", "x": 1, "y": 1, "direction": [0, -1]},
            {"name": "robot", "x": 2, "y": 3, "direction": [0, 1]},
        ],
        "goal_description": "Cut the lettuce",
        "goal": [{"predicate": "iscut", "args": ["lettuce"], "ids": [1]}],
    }
    return robotouille.load(layout)  # type: ignore[arg-type]


def test_a_row_over_two_words_keeps_the_robots_positions() -> None:
    """An abstract state holds up to MAX_FACTS facts (three words): with 30 tables the
    lettuce's full row has 132, more than two words hold, and is built. It bounds the optimum
    exactly, where its fallback (moves free) bounds it lower, and never exceeds the steps to
    go along an optimal plan."""
    env = _long_kitchen(30)
    tables = find_projections(env.task)
    sizes = np.diff(tables.fact_begin).tolist()
    assert tables.fallback.tolist() == [0, 1]
    assert 128 < sizes[0] <= MAX_FACTS
    plan = robotouille.plan(env)
    assert bound(env) == plan.length == 6
    assert bound(env, **_as_lists(_keep_rows(tables, [1]))) < plan.length
    assert_within_steps_to_go(env, plan)


def test_a_row_over_max_facts_is_left_out() -> None:
    """With 48 tables the lettuce's full row would need more than MAX_FACTS facts: only the row
    without positions is kept, and the bound stays within the optimum."""
    env = _long_kitchen(48)
    tables = find_projections(env.task)
    assert tables.fallback.tolist() == [0]
    assert np.diff(tables.fact_begin).tolist()[0] < 128
    assert 0 < bound(env) < robotouille.plan(env).length


@needs_shared
def test_the_table_of_a_burger_is_a_key_variable() -> None:
    env = robotouille.load(EXAMPLES / "synchronous" / "6_lettuce_tomato_cheeseburger.json")
    tables = find_projections(env.task)
    variables = env.task.problem.goal.variables
    assert [variables[v].candidates[0].rstrip("0123456789") for v in tables.key_vars] == ["table"]


@needs_shared
@pytest.mark.parametrize(
    "name",
    [
        "synchronous/2_lettuce_tomato_sandwich.json",
        "synchronous/5_double_cheeseburger.json",
        "asynchronous/1_lettuce_chicken_sandwich.json",
        "asynchronous/5_potato_soup.json",
    ],
)
def test_the_bound_never_exceeds_the_steps_to_go_along_an_optimal_plan(name: str) -> None:
    env = robotouille.load(EXAMPLES / name)
    plan = robotouille.plan(env, "astar", heuristic="lmcut")
    assert robotouille.plan(env).length == plan.length
    assert_within_steps_to_go(env, plan)


@pytest.mark.parametrize(
    ("dataset", "task", "seed"),
    [("synchronous", "2", 1003), ("asynchronous", "7", 1001), ("multi_agent", "4", 1001)],
)
def test_the_bound_never_exceeds_the_steps_to_go_on_fresh_seeds(
    dataset: str, task: str, seed: int
) -> None:
    """Seeds the bundled datasets do not use, where BFS would take too long: along A*'s plan
    (benchmarks/fresh_seeds_report.py runs this over hundreds of seeds)."""
    (instance,) = robotouille.datasets.load(dataset, seeds=[seed], tasks=[task])
    env = instance.load()
    assert_within_steps_to_go(env, robotouille.plan(env))


@pytest.mark.parametrize(
    ("task", "seed", "at_least"),
    [("1_lettuce_sandwich", 3, 15), ("1_lettuce_sandwich", 8, 15), ("0_cheese_sandwich", 35, 6)],
)
def test_objects_with_spare_candidates_still_count(task: str, seed: int, at_least: int) -> None:
    """Generated instances with spare lettuces or breads: the bound still charges the lettuce
    and both slices (roles and the matching), and never exceeds the steps to go."""
    (instance,) = datasets.load("synchronous", seeds=[seed], tasks=[task])
    env = instance.load()
    plan = robotouille.plan(env, "astar", heuristic="lmcut")
    assert robotouille.plan(env).length == plan.length
    assert plan.length >= bound(env) >= at_least
    assert_within_steps_to_go(env, plan)


def _keep_rows(tables: ProjectionTables, rows: list[int]) -> ProjectionTables:
    """The tables with only the given rows (none of them a fallback)."""

    def column(begin: np.ndarray, values: np.ndarray, width: int = 1) -> tuple[Any, Any]:
        parts = [values[width * begin[r] : width * begin[r + 1]] for r in rows]
        offsets = np.cumsum([0, *(len(p) // width for p in parts)]).astype(np.int64)
        return offsets, np.concatenate(parts).astype(np.int64)

    fact_begin, facts = column(tables.fact_begin, tables.facts)
    template_begin, templates = column(tables.template_begin, tables.templates)
    grounding_begin, groundings = column(tables.grounding_begin, tables.groundings)
    _, costs = column(tables.grounding_begin, tables.costs)
    _, arrivals = column(tables.grounding_begin, tables.arrivals)
    hold_begin, hold_facts = column(tables.hold_begin, tables.hold_facts, 2)
    colocated_begin, colocated = column(tables.colocated_begin, tables.colocated, 3)
    merge_begin, merges = column(tables.merge_begin, tables.merges, 2)
    idle_begin, idle = column(tables.idle_begin, tables.idle, 4)
    _, idle_codes = column(tables.grounding_begin, tables.idle_codes)
    swap_fact_begin, swap_facts = column(tables.robot_swap_fact_begin, tables.robot_swap_facts, 2)
    swap_template_begin, swap_templates = column(
        tables.robot_swap_template_begin, tables.robot_swap_templates, 2
    )
    away_begin, away = column(tables.away_begin, tables.away)
    forbid_begin, forbid = tables.forbid_begin, tables.forbid
    appear_begin, appear, variants = tables.appear_begin, tables.appear, tables.variants
    if len(variants):
        forbid_begin, forbid = column(forbid_begin, forbid)
        appear_begin, appear = column(appear_begin, appear)
        variants = np.asarray(variants).reshape(-1, 3)[rows].reshape(-1)
    # A kept row shares the kept row before it that it shared, or none.
    new_index = {r: k for k, r in enumerate(rows)}
    share = [new_index.get(int(tables.share[r]), k) for k, r in enumerate(rows)]
    share = [i if i < k else -1 for k, i in enumerate(share)]
    begin = tables.share_template_begin
    pairs = [
        tables.share_templates[2 * begin[r] : 2 * begin[r + 1]] if i >= 0 else np.zeros(0, int)
        for r, i in zip(rows, share, strict=True)
    ]
    share_begin = np.cumsum([0, *(len(p) // 2 for p in pairs)]).astype(np.int64)
    share_templates = np.concatenate(pairs).astype(np.int64)
    return dataclasses.replace(
        tables,
        objects=[tables.objects[r] for r in rows],
        fact_begin=fact_begin,
        facts=facts,
        template_begin=template_begin,
        templates=templates,
        grounding_begin=grounding_begin,
        groundings=groundings,
        costs=costs,
        arrivals=arrivals,
        hold_begin=hold_begin,
        hold_facts=hold_facts,
        colocated_begin=colocated_begin,
        colocated=colocated,
        merge_begin=merge_begin,
        merges=merges,
        idle_begin=idle_begin,
        idle=idle,
        idle_codes=idle_codes,
        fallback=np.zeros(len(rows), np.int64),
        clear_facts=np.asarray(tables.clear_facts)[rows],
        share=np.array(share, np.int64),
        share_template_begin=share_begin,
        share_templates=share_templates,
        robot_swap_fact_begin=swap_fact_begin,
        robot_swap_facts=swap_facts,
        robot_swap_template_begin=swap_template_begin,
        robot_swap_templates=swap_templates,
        away_begin=away_begin,
        away=away,
        forbid_begin=forbid_begin,
        forbid=forbid,
        variants=variants,
        appear_begin=appear_begin,
        appear=appear,
    )


@pytest.mark.parametrize("seed", [126, 252])
def test_a_pot_counts_through_the_water_it_creates(seed: int) -> None:
    """The goal names the water, which the pot's filling creates, and never the pot: the pot
    still gets a projection (with the water the goal names), and the boiling is charged to it."""
    (instance,) = datasets.load("asynchronous", seeds=[seed], tasks=["5_potato_soup"])
    env = instance.load()
    task = env.task
    view = _TaskView(task)
    pot = task.object_index["pot1"]
    assert pot in _projection_objects(task, view)
    tables = find_projections(task)
    row = tables.objects.index(pot)
    span = slice(int(tables.fact_begin[row]), int(tables.fact_begin[row + 1]))
    facts = {task.fact_name(int(f)) for f in tables.facts[span]}
    assert {"in(water1,bowl1)", "isboiling(water1)", "container_empty(bowl1)"} <= facts
    assert {f"exists(water{k})" for k in range(1, 5)} <= facts  # they pick the next water
    assert not any("water2" in name and "exists" not in name for name in facts)
    span = slice(int(tables.grounding_begin[row]), int(tables.grounding_begin[row + 1]))
    charged = {
        task.grounding_name(int(g))[0]: int(c)
        for g, c in zip(tables.groundings[span], tables.costs[span])
    }
    assert charged["boil-water"] == charged["fill-pot"] == charged["pick-up-container"] == 1
    assert charged["move"] == 2  # while the robot holds the pot
    # The pot adds to the bound, which stays within the steps to go along an optimal plan.
    others = _keep_rows(
        tables, [k for k, o in enumerate(tables.objects) if o != pot and not tables.fallback[k]]
    )
    plan = robotouille.plan(env)
    assert plan.length == instance.optimal_length
    assert bound(env) > bound(env, **_as_lists(others))
    assert_within_steps_to_go(env, plan)


def test_coarse_timers_let_a_pot_with_several_sinks_and_stoves_count() -> None:
    """Seed 84's potato soup has two sinks and three stoves: with every paused timer's exact
    progress the pot's projections outgrow their caps and add nothing; with coarse progress
    (projection.h, "Timers") they fit, and the bound stays within the steps to go."""
    (instance,) = datasets.load("asynchronous", seeds=[84], tasks=["5_potato_soup"])
    env = instance.load()
    assert bound(env) >= bound(env, limits={"exact_timers": True}) + 3
    plan = robotouille.plan(env)
    assert_within_steps_to_go(env, plan)


# Caps under which the patty's full row in _kitchen(..., last="stove") with a lettuce is only
# built with its two cooks (one per stove) led to a sink: predicted at 1,050 states from its
# fallback, over the upgrade cap, it fits the first cap with the sink (projection.h, "Repeated
# timers").
SINK_CAPS = {"max_states": 700, "upgrade_states": 1_040}


def test_a_full_row_too_large_for_its_repeated_timers_is_built_with_a_sink() -> None:
    """A patty between two stoves: its full row (the robot's position with the patty's facts) lists
    either cook, or both in either order, at any progress. Under SINK_CAPS, with the robot's
    position kept everywhere (no away robot), it fits only with the sink, and then counts the moves
    that the fallback row without the robot's position cannot: the bound rises to the optimum.
    ``sink_rows`` counts it, and ``coarse_rows`` where it is not built."""
    env = _kitchen([["lettuce"], ["patty"], [], [], []], ["lettuce", "patty"], last="stove")
    assert robotouille.plan(env).length == 10
    without = start_stats_keeping_positions(env, limits=SINK_CAPS | {"timer_sinks": False})
    assert without["initial_h"] == 9
    assert (without["coarse_rows"], without["sink_rows"]) == (1, 0)
    with_sink = start_stats_keeping_positions(env, limits=SINK_CAPS)
    assert with_sink["initial_h"] == 10
    assert (with_sink["coarse_rows"], with_sink["sink_rows"]) == (0, 1)
    # Without caps the row fits as it is, and is built without the sink.
    assert (
        start_stats(env)["abstract_states"]
        == start_stats(env, limits={"timer_sinks": False})["abstract_states"]
    )
    assert start_stats_keeping_positions(env)["sink_rows"] == 0


@generated_examples(12)
@given(
    lettuce_at=st.integers(0, 4),
    patty_at=st.integers(0, 4),
    robots=st.integers(1, 2),
    at_board=st.booleans(),
)
def test_sinks_for_repeated_timers_keep_the_optimum(
    lettuce_at: int, patty_at: int, robots: int, at_board: bool
) -> None:
    """In kitchens with two stoves, A* under SINK_CAPS (rows built with sinks where they fit
    no other way) finds the optimum that BFS finds: the sink never overestimates."""
    stacks: list[list[str]] = [[] for _ in range(5)]
    stacks[lettuce_at].append("lettuce")
    stacks[patty_at].append("patty")
    env = _kitchen(stacks, ["lettuce", "patty"], robots, last="stove", at_board=at_board)
    optimum = robotouille.plan(env, "bfs").length
    capped = _run(env, "astar", "projections", None, None, None, None, projection_limits=SINK_CAPS)
    assert capped.length == optimum
    replay(env, capped)


def test_a_row_that_fails_under_the_first_caps_is_tried_again_under_the_upgrade_caps() -> None:
    """Seed 210's soup (four sinks, four stoves, two robots): the pot's row without the
    robots' positions has about 126,000 states, over the first cap of 120,000. It has no
    coarser row to fall back on, so under a time limit it is tried again in the upgrade pass,
    and counts; without one it is not (the full rows of the other objects are upgraded in
    both)."""
    (instance,) = datasets.load("multi_agent", seeds=[210], tasks=["7_onion_potato_tomato_soup"])
    env = instance.load()
    untimed = {"upgrade_states": 150_000}
    assert bound(env, limits=untimed | {"upgrade_seconds": 60}) >= bound(env, limits=untimed) + 5


def test_a_full_row_larger_than_predicted_is_tried_again_under_the_upgrade_caps() -> None:
    """A full row is built in the first pass when its predicted size (its fallback's states times
    the robot's positions) fits the first caps; with arrival bits it can come out larger. It then
    goes to the upgrade pass like a row predicted too large. On asynchronous/9 seed 84, with the
    robot's position kept everywhere (no away robot), under a first cap of 44,000 states, the
    lettuce's row, predicted at 42,588, has 47,713: upgrades of up to 48,000 states build it (and no
    other row), and the bound rises."""
    (instance,) = datasets.load("asynchronous", seeds=[84], tasks=["9"])
    env = instance.load()
    first_cap = {"max_states": 44_000}
    assert bound_keeping_positions(
        env, first_cap | {"upgrade_states": 48_000}
    ) > bound_keeping_positions(env, first_cap | NO_UPGRADES)


def test_the_upgrade_caps_grow_with_the_time_limit() -> None:
    """A search whose upgrade share (half its time limit) is longer than the caps were sized for
    (kUpgradeCapSeconds, 2.5 s) raises its upgrade caps in proportion, up to 6 times: at 10 s, twice
    the 30,000 states given, so the lettuce's 47,713-state row of the test above is built (with the
    robot's position kept everywhere, as there). An upgrade share the caller names keeps the caps as
    given, and so does a memory budget too small for the construction the larger caps allow (400
    bytes per abstract state)."""
    (instance,) = datasets.load("asynchronous", seeds=[84], tasks=["9"])
    env = instance.load()

    def start(time_limit: float, limits: dict[str, float]) -> tuple[int, int]:
        stats = timed_start_stats(env, time_limit, limits, keep_positions=True)
        return stats.abstract_states, stats.initial_h

    caps = {"max_states": 44_000, "upgrade_states": 30_000}
    scaled = start(10, caps)
    assert scaled == start(10, caps | {"upgrade_states": 60_000, "upgrade_seconds": 5})
    kept = start(10, caps | {"upgrade_seconds": 5})
    assert scaled[0] > kept[0] and scaled[1] > kept[1]
    # At most 6 times: 10,000 states are 60,000 at 120 s, as at 30 s.
    assert start(120, caps | {"upgrade_states": 10_000}) == scaled
    # 2.4M states in all need 0.96 GB at 400 bytes each: 10 GB holds them 10 times over, so
    # the caps double as without a budget; 0.5 GB does not hold them once.
    for budget, expected in ((10**10, scaled), (5 * 10**8, kept)):
        stats = timed_start_stats(env, 10, caps, budget, keep_positions=True)
        assert (stats.abstract_states, stats.initial_h) == expected


def test_rows_with_many_key_combinations_fit_the_distance_tables() -> None:
    """Seed 252's three dishes on separate tables give 90 key combinations. A row keeps one
    distance column per distinct goal set, not per combination and role (270 for an onion),
    so every onion's row fits the distance tables' room; with a column per combination the
    third onion's no longer did, and the start bound was 26."""
    (instance,) = datasets.load(
        "asynchronous",
        seeds=[252],
        tasks=["9_onion_potato_soup_and_fried_onion_ring_lettuce_burger_and_onion_cheese_sandwich"],
    )
    assert bound(instance.load(), limits=NO_UPGRADES) >= 45


def _lift_entries(tables: ProjectionTables) -> dict[int, list[int]]:
    """The lift entries by lifted variable: their companion atoms."""
    entries: dict[int, list[int]] = {}
    k = 0
    while k < len(tables.lifts):
        var, _, count = tables.lifts[k : k + 3]
        entries[var] = tables.lifts[k + 3 : k + 3 + count]
        k += 3 + count
    return entries


def _companion_predicates(task: Any, atoms: list[int]) -> set[str]:
    names = [p.name for p in task.domain.predicates]
    return {names[int(task.fact_pred[task.goal_atoms[a][0]])] for a in atoms}


def test_a_top_that_must_come_off_its_stack_is_lifted() -> None:
    """The generated burger of seed 84 starts with its top bun on a stack, away from the patty:
    the top bun must come off and wait elsewhere while the patty joins the stack (projection.h,
    "Lifts"). The bound says so, and never exceeds the steps to go."""
    (instance,) = datasets.load("synchronous", seeds=[84], tasks=["3_burger"])
    env = instance.load()
    task = env.task
    tables = find_projections(task)
    variables = task.problem.goal.variables
    top = next(v for v in _lift_entries(tables) if variables[v].arg == "topbun")
    assert variables[top].candidates[0] == "topbun1"  # one of three top buns
    assert "item_at" in _companion_predicates(task, _lift_entries(tables)[top])
    unlifted = _as_lists(dataclasses.replace(tables, lifts=[]))
    plan = robotouille.plan(env, "astar", heuristic="lmcut")
    assert robotouille.plan(env).length == plan.length == instance.optimal_length
    assert plan.length >= bound(env) > bound(env, **unlifted)
    assert_within_steps_to_go(env, plan)


@needs_shared
def test_goal_items_leave_a_table_whose_bottom_item_is_missing() -> None:
    """The original synchronous/9 wants a burger and a sandwich on two of eight tables, and
    every table starts with an item on it. Wherever the burger goes, what lies there must leave
    before the bottom bun is put down, and come back (projection.h, "Lifts"): with that, the
    bound at the start is the optimum, 57 (found by A* with the bound before this argument, in
    213 s)."""
    env = robotouille.load(next((EXAMPLES / "synchronous").glob("9_*.json")))
    task = env.task
    tables = find_projections(task)
    entries = _lift_entries(tables)
    based = [v for v, atoms in entries.items() if "item_on" in _companion_predicates(task, atoms)]
    assert {task.problem.goal.variables[v].arg for v in based} >= {"cheese", "chicken"}
    plan = robotouille.plan(env)
    assert plan.length == 57
    assert bound(env) == 57 > bound(env, **_as_lists(dataclasses.replace(tables, lifts=[])))
    assert_within_steps_to_go(env, plan)


def test_a_goal_stacked_with_atop_says_where_each_item_goes() -> None:
    """The double cheeseburger's goal names the table only for the bottom bun and stacks the
    rest with atop. The implied goal adds "at that table" for every stacked item, so each
    item's projection carries it there; the goal states stay the same (checked on every state
    of an optimal plan), and the bound never exceeds the steps to go."""
    env = robotouille.load("synchronous/5_double_cheeseburger")
    task = env.task
    implied = implied_goal_task(task)
    added = implied.problem.goal.atoms[len(task.problem.goal.atoms) :]
    assert {a.predicate for a in added} == {"item_at"} and len(added) == 5
    assert implied.num_facts == task.num_facts
    assert implied_goal_task(implied) is implied  # nothing more to add
    plan = robotouille.plan(env)
    plain = bound(env, **_projection_tables(env))
    assert plan.length >= bound(env) > plain
    start = env.get_state()
    for action in plan.actions:
        same = [np.zeros(1, bool), np.zeros(1, bool)]
        _core.goal_reached(task.core, env._words, same[0])
        _core.goal_reached(implied.core, env._words, same[1])
        assert same[0][0] == same[1][0]
        env.step(action)
    _core.goal_reached(implied.core, env._words, same[1])
    assert env.goal_reached() and same[1][0]
    env.set_state(start)
    assert_within_steps_to_go(env, plan)


def test_two_stacks_on_many_tables_keep_their_implied_atoms() -> None:
    """A burger and a sandwich, each on a table of its own among 16: the two tables make 256
    key combinations. Each stack's items still learn their table (before, the implied atoms were
    dropped beyond 64 combinations, and with them 7 steps of the bound). One robot of
    multi_agent/8 seed 42, so that the rows stay small."""
    (instance,) = datasets.load("multi_agent", tasks=["8"], seeds=[42])
    layout = copy.deepcopy(instance.environment)
    gone = layout["players"].pop()
    layout["items"] = [i for i in layout["items"] if (i["x"], i["y"]) != (gone["x"], gone["y"])]
    env = robotouille.load(layout)
    implied = implied_goal_task(env.task)
    added = implied.problem.goal.atoms[len(env.task.problem.goal.atoms) :]
    tables = {a.args[1] for a in added}
    assert len(added) == 7 and all(a.predicate == "item_at" for a in added) and len(tables) == 2
    with_atoms = bound(env)
    with mock.patch.object(planning, "implied_goal_task", lambda task: task):
        without = bound(robotouille.load(layout))
    plan = robotouille.plan(env)
    assert (without, with_atoms, plan.length) == (40, 47, 49)
    replay(env, plan)


def test_no_goal_atoms_are_implied_without_the_stack_shapes() -> None:
    domain = json.loads(default_domain_path().read_text())
    stack = next(a for a in domain["action_defs"] if a["name"] == "stack")
    stack["precons"] = [p for p in stack["precons"] if p["predicate"] != "clear"]
    env = robotouille.load("synchronous/5_double_cheeseburger", domain)
    assert implied_goal_task(env.task) is env.task


def test_lifts_need_the_stack_shapes() -> None:
    env = robotouille.load("cheese_sandwich")
    assert _lift_shapes(env.task.domain) and _stack_shapes(env.task.domain)
    assert stations_hold_stacks(env.task, env.task.initial_bits)
    domain = json.loads(default_domain_path().read_text())
    pick = next(a for a in domain["action_defs"] if a["name"] == "pick-up-item")
    # An item picked from under another one breaks "a stack changes only at its top".
    pick["precons"] = [p for p in pick["precons"] if p["predicate"] != "clear"]
    env = robotouille.load("cheese_sandwich", domain)
    assert not _lift_shapes(env.task.domain) and not _stack_shapes(env.task.domain)
    assert find_projections(env.task).lifts == []


# From the bundled cheese sandwich's start: bread2 goes onto bread1, and the cheese onto bread2.
_BURY_BREAD2 = [
    "Move robot1 from table2 to table4",
    "Pick up bread2 from table4 using robot1",
    "Move robot1 from table4 to table2",
    "Stack bread2 on top of bread1 using robot1",
    "Move robot1 from table2 to table1",
    "Pick up cheese1 from table1 using robot1",
    "Move robot1 from table1 to table2",
    "Stack cheese1 on top of bread2 using robot1",
]


def _planner_bound(env: robotouille.Env, **changes: Any) -> int:
    """The bound the planner starts from at the env's state, with some tables replaced."""
    tables, projection_task = planner_tables(env)
    value: int = _start_stats(env, {**tables, **changes}, projection_task)["initial_h"]
    return value


def test_a_spare_bread_buried_under_the_cheese_leaves_the_table_and_comes_back() -> None:
    """bread1 lies on the table, bread2 on it and the cheese on top: bread2 cannot be the top
    slice where it lies, since the cheese must end below it (projection.h, "Buried objects"
    under "Lifts"). It must leave the table and come back, so its role costs its via distance:
    the bound rises from 3 to 8 (the optimum is 15), and stays within the steps to go."""
    env = robotouille.load("cheese_sandwich")
    for action in _BURY_BREAD2:
        env.step(action)
    tables = _projection_tables(env, implied=True)
    stacks = tables["lift_stacks"]
    pairs = {
        (env.task.objects[stacks[k + 1]].name, env.task.objects[stacks[k + 2]].name)
        for k in range(0, len(stacks), 3)
    }
    assert ("cheese1", "bread2") in pairs and ("bread2", "bread1") in pairs
    assert all(upper != lower for upper, lower in pairs)
    assert _planner_bound(env) == 8 > _planner_bound(env, lift_stacks=[]) == 3
    plan = robotouille.plan(env)
    assert plan.length == robotouille.plan(env, "bfs").length == 15
    assert_within_steps_to_go(env, plan)


@generated_examples(25)
@given(walk=st.lists(st.integers(0, 1_000), min_size=4, max_size=14))
def test_buried_breads_keep_the_optimum_of_random_cheese_sandwich_states(walk: list[int]) -> None:
    """From states a random walk reaches (breads and cheese stacked every which way), A* with
    the buried objects finds BFS's optimum, and the bound never exceeds it."""
    env = robotouille.load("cheese_sandwich")
    _check_optimum_after_walk(env, walk)


def test_lifts_with_two_robots_wait_for_a_robot_at_the_table() -> None:
    """With two robots the one at the table need not be the one holding the lifted item; the
    via states say only that a robot stands there without holding it. A* with the lifts still
    agrees with BFS, and with a robot whose hand is not proven there are none."""
    layout = json.loads(bundled_environment_path("cheese_sandwich").read_text())
    layout["players"].append({"name": "robot", "x": 3, "y": 1, "direction": [0, -1]})
    env = robotouille.load(layout)
    assert find_projections(implied_goal_task(env.task)).lifts
    assert robotouille.plan(env).length == robotouille.plan(env, "bfs").length
    domain = json.loads(default_domain_path().read_text())
    for action in domain["action_defs"]:  # hands that never empty: no one-hand invariant
        action["immediate_fx"] = [p for p in action["immediate_fx"] if p["predicate"] != "nothing"]
    unproven = robotouille.load(layout, domain).task
    assert find_projections(implied_goal_task(unproven)).lifts == []


def test_status_facts_leave_the_rows_so_a_chickens_cook_timers_commute() -> None:
    """multi_agent/6 seed 210 (optimum 37): each chicken can cook on five stoves, and every cook
    timer writes iscooking each pass (set on its stove, negated off it). With that fact in a
    chicken's row the order of its timers mattered and every order was a state: the row had
    126k states, over the first cap, so the chickens counted little. iscooking only keeps cook
    from repeating (a status fact): left out, the timers commute and the row is small."""
    (instance,) = datasets.load("multi_agent", seeds=[210], tasks=["6"])
    env = instance.load()
    task = env.task
    view = _TaskView(task)
    status = _status_facts(task, view)
    names = {task.fact_name(f) for f in status}
    assert {"iscooking(chicken1)", "iscooking(chicken2)"} <= names
    read = set().union(*view.pre_pos, *view.template_reads)
    assert status.isdisjoint(read) and status.isdisjoint(view.writers)
    tables = find_projections(task)
    assert status.isdisjoint(tables.facts.tolist())
    chicken = [k for k, o in enumerate(tables.objects) if env.task.objects[o].name == "chicken1"]
    coarse = _keep_rows(tables, chicken[1:])  # its fallback, without the robots' positions
    assert abstract_states(env, _as_lists(coarse)) < 20_000
    assert 36 <= bound(env) <= instance.optimal_length


def test_the_upgrade_pass_builds_the_two_robot_projections_the_first_caps_leave_out() -> None:
    """Two robots, their positions kept everywhere (no away robots), multiply an item's projection
    by their position pairs, so first caps of 30,000 states keep only the fallbacks (no positions)
    here; the upgrade pass builds the full rows, which raises the bound and keeps it within the
    steps to go. An upgrade predicted to end after upgrade_seconds is not started."""
    (instance,) = datasets.load("multi_agent", seeds=[168], tasks=["1_lettuce_burger"])
    env = instance.load()
    plan = robotouille.plan(env)
    assert plan.length == instance.optimal_length
    first_cap = {"max_states": 30_000}
    assert bound_keeping_positions(env, first_cap) > bound_keeping_positions(
        env, first_cap | NO_UPGRADES
    )
    tables = {**_projection_tables(env), **NO_AWAY}
    assert bound(env, limits=first_cap | {"upgrade_seconds": 1e-9}, **tables) == bound(
        env, limits=first_cap | NO_UPGRADES, **tables
    )
    for i, action in enumerate(plan.actions):
        if i % 8 == 0:
            assert bound(env, limits=first_cap) <= plan.length - i
        env.step(action)
    for limits, error in (
        ({"states": 1}, "unknown projection limit 'states'"),
        ({"upgrade_states": -1}, "projection limit 'upgrade_states' is negative"),
        ({"max_states": 1.5e5}, "projection limit 'max_states' is no integer"),
        ({"max_distance_entries": 1e9}, "projection limit 'max_distance_entries' is no integer"),
    ):
        with pytest.raises(ValueError, match=error):
            _core.search(env.task.core, env._words[0], env._counters[0], projection_limits=limits)


def test_the_distance_tables_room_caps_the_rows() -> None:
    """A row is kept only while the distance tables have room for its entries
    (max_distance_entries): with room for half of the abstract states the rows that would
    overflow it are left out, whole or coarse, and the bound is no higher."""
    (instance,) = datasets.load("multi_agent", seeds=[42], tasks=["1"])
    env = instance.load()
    roomy = _start_stats(env)
    assert roomy["coarse_rows"] == 0
    room = roomy["abstract_states"] // 2
    cramped = _start_stats(env, limits={"max_distance_entries": room})
    assert cramped["coarse_rows"] > 0 and cramped["abstract_states"] <= room
    assert cramped["initial_h"] <= roomy["initial_h"]


def test_upgrades_on_two_threads_build_the_rows_one_thread_builds() -> None:
    """The upgrade pass builds as many rows at once as the search has threads (projection.cc; the
    robots' positions kept everywhere, so that rows need upgrades). Without a time budget the rows
    that fit the caps are the same either way, so is the bound; a cap on the total holds though two
    rows are built at once; and a time limit shorter than construction stops it on two threads as on
    one."""
    (instance,) = datasets.load("multi_agent", seeds=[168], tasks=["1_lettuce_burger"])
    env = instance.load()
    first_cap = {"max_states": 30_000}
    one = start_stats_keeping_positions(env, limits=first_cap)
    two = start_stats_keeping_positions(env, limits=first_cap, threads=2)
    assert (two["abstract_states"], two["initial_h"]) == (one["abstract_states"], one["initial_h"])
    # More than one row was upgraded: the first caps alone keep far fewer states.
    before = start_stats_keeping_positions(env, limits=first_cap | NO_UPGRADES)["abstract_states"]
    assert one["abstract_states"] > 2 * before
    total = {"upgrade_total_states": (before + one["abstract_states"]) // 2}
    for threads in (1, 2):
        capped = start_stats_keeping_positions(env, limits=first_cap | total, threads=threads)
        assert before < capped["abstract_states"] <= total["upgrade_total_states"]
    tables, task = planner_tables(env)
    status, _, _ = _core.search(
        env.task.core,
        env._words[0],
        env._counters[0],
        lmcut=False,
        projections={**tables, **NO_AWAY},
        projection_task=task,
        time_limit=0.05,
        threads=2,
    )
    assert status == "time_limit"


def test_rows_waiting_for_a_shared_row_do_not_change_what_two_threads_build() -> None:
    """On two threads a row whose shared row is still being built waits aside while the upgrades
    after it start, and in the first pass a row whose shared row failed starts ahead of its turn
    (projection.cc). With a small first cap, multi_agent/6 seed 42 has three such rows among its
    upgrades (lettuce2's, bread2's and chicken2's, which share lettuce1's, bread1's and
    chicken1's); what is built, and so the bound, is what one thread builds."""
    (instance,) = datasets.load(
        "multi_agent", seeds=[42], tasks=["6_double_lettuce_chicken_burger"]
    )
    env = instance.load()
    limits = {"max_states": 10_000, "upgrade_seconds": 60}
    one = start_stats_keeping_positions(env, limits=limits)
    two = start_stats_keeping_positions(env, limits=limits, threads=2)
    assert (two["abstract_states"], two["initial_h"]) == (one["abstract_states"], one["initial_h"])
    assert one["abstract_states"] > 3 * start_stats_keeping_positions(
        env, limits=limits | NO_UPGRADES
    )["abstract_states"]


def test_a_row_waits_for_its_shared_row_while_that_rows_fallback_is_retried() -> None:
    """With a first cap of 1,000, both chickens' fallbacks of multi_agent/6 seed 42 (2,512
    states each) fail and are retried under the upgrade caps, chicken2's first; its full row,
    the follow-up of that retry, shares chicken1's, the follow-up of the other. It waits for it
    (projection.cc) instead of being built on its own, which took the caps' room: what is built
    is what a first cap of 10,000 builds, where the fallbacks need no retry, on one thread (which
    built 627,947 abstract states here, against 380,633) or two."""
    (instance,) = datasets.load(
        "multi_agent", seeds=[42], tasks=["6_double_lettuce_chicken_burger"]
    )
    env = instance.load()
    expected = start_stats_keeping_positions(
        env, limits={"max_states": 10_000, "upgrade_seconds": 60}
    )
    for threads in (1, 2):
        got = start_stats_keeping_positions(
            env, limits={"max_states": 1_000, "upgrade_seconds": 60}, threads=threads
        )
        assert (got["abstract_states"], got["initial_h"]) == (
            expected["abstract_states"],
            expected["initial_h"],
        )


def test_a_row_just_over_the_first_cap_is_retried_under_the_upgrade_caps() -> None:
    """The pot of multi_agent/7 seed 210 (its row without the robots' positions) has 126,432
    abstract states, just over the first cap of 120,000. Its enumeration had expanded most of
    the states it found, so the upgrade pass predicts a size within the upgrade caps and builds
    it (projection.cc, retry_size): the start bound rises from 19 to 27. Retries are planned
    by time, so without a time budget for upgrades there are none."""
    (instance,) = datasets.load("multi_agent", seeds=[210], tasks=["7_onion_potato_tomato_soup"])
    env = instance.load()
    retried = start_stats(env, limits={"upgrade_seconds": 60})
    untimed = start_stats(env, limits={"upgrade_seconds": 0})
    assert retried["abstract_states"] - untimed["abstract_states"] > 120_000
    assert retried["initial_h"] > untimed["initial_h"]
    # On two threads too (a retry is an upgrade like the others).
    on_two = start_stats(env, limits={"upgrade_seconds": 60}, threads=2)
    assert (on_two["abstract_states"], on_two["initial_h"]) == (
        retried["abstract_states"],
        retried["initial_h"],
    )


def test_a_row_built_with_a_helper_thread_bounds_as_one_built_alone() -> None:
    """On two threads the last upgrades of multi_agent/7 seed 210 (its pot's retried fallback,
    then the pot's full row), each started while nothing else is built, are enumerated by both
    threads together (projection.cc, build_row). The bound of the start and of 40 states along
    random walks is what one thread's tables give."""
    (instance,) = datasets.load("multi_agent", seeds=[210], tasks=["7_onion_potato_tomato_soup"])
    env = instance.load()
    tables, task = planner_tables(env)
    rng = random.Random(3)
    words, counters = [env._words[0].copy()], [env._counters[0].copy()]
    for _ in range(40):
        walker = instance.load()
        for _ in range(rng.randrange(40)):
            actions = walker.valid_actions()
            if not actions or walker.goal_reached():
                break
            walker.step(rng.choice(actions))
        words.append(walker._words[0].copy())
        counters.append(walker._counters[0].copy())
    rows = (env.task.core, np.stack(words), np.stack(counters), tables, task)
    limits = {"upgrade_seconds": 60}
    alone = _core.projection_bounds(*rows, incremental=False, projection_limits=limits)
    together = _core.projection_bounds(
        *rows, incremental=False, projection_limits={**limits, "threads": 2}
    )
    assert list(together) == list(alone)
    untimed = _core.projection_bounds(*rows)  # no retries: the pot's row fails
    assert alone[0] > untimed[0]  # the pot's rows were built


def test_a_row_that_outgrows_its_cap_while_helpers_enumerate_it_fails_as_alone() -> None:
    """The pot's full row of multi_agent/7 seed 210 is predicted at 758,592 states and has more:
    under an upgrade cap of 800,000 it starts and goes over the cap, on two threads while both
    enumerate it. The build stops cleanly and the bound is one thread's (lower than with a cap
    it fits)."""
    (instance,) = datasets.load("multi_agent", seeds=[210], tasks=["7_onion_potato_tomato_soup"])
    env = instance.load()
    tables, task = planner_tables(env)
    rows = (env.task.core, env._words[:1], env._counters[:1], tables, task)

    def start(cap: int, threads: int) -> int:
        limits = {"upgrade_seconds": 60, "upgrade_states": cap, "threads": threads}
        return int(_core.projection_bounds(*rows, projection_limits=limits)[0])

    over = start(800_000, 2)
    assert over == start(800_000, 1)
    assert over < start(1_000_000, 2)


def test_a_retried_rows_cap_grows_as_the_upgrade_caps_do() -> None:
    """The upgrade caps that grow with the time limit grow a retry's cap as far as they grow on
    one thread: the pot of the test above (126,432 states), retried under an upgrade cap of
    100,000 states, is built by a 20 s search, whose retries may have 400,000, as it is when the
    caps and the share are named (no scaling); a retry cap named below it leaves it out."""
    (instance,) = datasets.load("multi_agent", seeds=[210], tasks=["7_onion_potato_tomato_soup"])
    env = instance.load()
    held = timed_start_stats(env, 20, {"upgrade_states": 100_000, "retry_states": 100_000})
    scaled = timed_start_stats(env, 20, {"upgrade_states": 100_000})
    assert scaled.abstract_states - held.abstract_states > 120_000
    doubled = {"upgrade_states": 200_000, "upgrade_total_states": 4_800_000}
    named = timed_start_stats(env, 20, doubled | {"upgrade_seconds": 8})
    assert named.abstract_states - held.abstract_states > 120_000


# Caps named in full (no scaling, a share no build reaches) under which multi_agent/10 seed
# 126's pots' row without the robots' positions fails under the first cap (120,000 states) and
# again under the retry cap (600,000), and is then built with the sink (47,440 states).
FOLLOW_UP_CAPS = {
    "max_states": 120_000,
    "max_total_states": 1_200_000,
    "upgrade_states": 1_200_000,
    "upgrade_total_states": 1_070_000,
    "retry_states": 600_000,
    "upgrade_seconds": 60,
}


def test_a_retried_fallback_built_with_the_sink_is_followed_by_its_full_row_with_it() -> None:
    """A fallback built as a retry gets its full row as an upgrade; where the retry needed the
    sink, that row is predicted (332,080 states) and built (372,531) with the sink too, and
    counts as a row with a sink, not a coarse one. (Built without it, the row is far larger
    than predicted; it failed after 1.3M states under a 30 s search's caps.)"""
    (instance,) = datasets.load(
        "multi_agent", seeds=[126], tasks=["10_potato_tomato_chicken_soup_potato_cheese_onion_soup"]
    )
    env = instance.load()
    stats = start_stats(env, limits=FOLLOW_UP_CAPS)
    # Both pots' full rows (twins) with the sink; the other two objects' full rows stay coarse.
    assert (stats["coarse_rows"], stats["sink_rows"]) == (4, 2)
    assert stats["abstract_states"] == 933_175
    # With no room for the pots' retry, neither it nor its full row is built.
    no_room = start_stats(env, limits=FOLLOW_UP_CAPS | {"upgrade_total_states": 700_000})
    assert (no_room["coarse_rows"], no_room["sink_rows"]) == (6, 0)
    assert stats["initial_h"] > no_room["initial_h"]


def test_goal_items_leave_for_the_bottom_only_under_the_stack_shapes() -> None:
    """An item put down on a station that need not be empty breaks "one stack per station":
    the bottom-item companions go, the top's stay."""
    name = "synchronous/9_onion_cheese_burger_and_lettuce_tomato_chicken_sandwich"
    domain = json.loads(default_domain_path().read_text())
    place = next(a for a in domain["action_defs"] if a["name"] == "place-item")
    place["precons"] = [p for p in place["precons"] if p["predicate"] != "station_empty"]
    env = robotouille.load(name, domain)
    assert _lift_shapes(env.task.domain) and not _stack_shapes(env.task.domain)
    entries = _lift_entries(find_projections(env.task))
    assert entries
    assert all(_companion_predicates(env.task, a) == {"item_at"} for a in entries.values())


def test_a_restored_state_without_one_stack_per_station_is_planned_without_lifts() -> None:
    """set_state accepts a state where a station with an item is also empty; the lifts' argument
    does not hold there, so the planner leaves them out, and A* still agrees with BFS."""
    env = robotouille.load("cheese_sandwich")
    task = env.task
    state = env.get_state()
    words = state.words.copy()
    occupied = next(
        f
        for f in range(task.num_facts)
        if task.fact_name(f).startswith("item_on(") and task.initial_bits[f]
    )
    station = task.fact_name(occupied).split(",")[1].rstrip(")")
    fact = next(
        f for f in range(task.num_facts) if task.fact_name(f) == f"station_empty({station})"
    )
    words[fact >> 6] |= np.uint64(1) << np.uint64(fact & 63)
    env.set_state(dataclasses.replace(state, words=words))
    bits = np.unpackbits(env._words[0].view(np.uint8), bitorder="little").astype(bool)
    assert not stations_hold_stacks(task, bits)
    assert robotouille.plan(env).length == robotouille.plan(env, "bfs").length


def test_malformed_tables_are_rejected_with_a_clear_error() -> None:
    env = robotouille.load("cheese_sandwich")
    good = _projection_tables(env)
    assert good["share"] == [-1, -1, -1, -1, 2, 3]  # bread2's rows read bread1's
    for field, value in (
        ("facts", [10**7] * len(good["facts"])),
        ("costs", [5] * len(good["costs"])),
        ("fact_begin", good["fact_begin"][:-1]),
        ("key_vars", [10**6]),
        ("fallback", [1] * len(good["fallback"])),
        ("arrivals", [-1] * len(good["arrivals"])),
        ("arrivals", [1]),
        ("colocated", [10**7] * len(good["colocated"])),
        ("lifts", [0]),
        ("lifts", [0, 10**6, 0]),
        ("lifts", [10**6, 0, 0]),
        ("lift_stacks", [1]),  # not triples
        ("lift_stacks", [10**7, 0, 0]),  # a fact out of range
        ("lift_stacks", [0, 0, 10**6]),  # an object out of range
        ("share", [0] * len(good["share"])),  # itself, not an earlier row
        ("share", [-1, -1, -1, -1, 3, 3]),  # a full row sharing a fallback
        ("share", [-1]),
        ("share_templates", [1, 2]),
        ("hand_over_places", [1]),
        ("hand_over_places", [0, 10**7, 10**7]),
        ("hand_over_places", [-1, 0, 0]),
        ("free_hands", [10**7]),
        ("free_hands", [-2]),
        ("clear_facts", [0]),
        ("clear_facts", [10**7] * len(good["clear_facts"])),
        ("clearing", [1]),  # cut short
        ("clearing", [0, 1, 0, 1, 10**7, 0, 0]),  # an item's fact out of range
        ("clearing", [0, 0, 1, 0, 0, 0, 1, 5]),  # a station out of range
        ("clearing", [0, 0, 1, 0, 0, 0, 0]),  # a requirement without stations
        ("clearing", [0, 0, 1, 0, 0, 1, 10**6, 1, 0]),  # a template out of range
        ("clearing", [0, 0, 0, 7]),  # runs on
        ("clearing", [0, 1, 0, 0, 1, 10**6, 0, 0]),  # a covering object out of range
        ("clearing", [0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 3, 0, 0, 0]),  # a park's requirement
        ("clearing", [0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 10**6, 0, 0]),  # its variable
        ("clearing", [0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 10**6, 0, 0]),  # robot
        ("clearing", [0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 10**6, 0]),  # object
    ):
        bad = copy.deepcopy(good)
        bad[field] = value
        with pytest.raises(ValueError, match="projection tables"):
            bound(env, **bad)
    # A row of more facts than an abstract state holds (the task has fewer: some repeat).
    bad = copy.deepcopy(good)
    first = bad["fact_begin"][1]
    bad["facts"] = [f % env.task.num_facts for f in range(MAX_FACTS + 1)] + bad["facts"][first:]
    bad["fact_begin"] = [0] + [b - first + MAX_FACTS + 1 for b in bad["fact_begin"][1:]]
    with pytest.raises(ValueError, match=f"more than {MAX_FACTS} facts"):
        bound(env, **bad)
    del good["groundings"]
    with pytest.raises(ValueError, match="groundings"):
        bound(env, **good)


@pytest.mark.parametrize(
    ("dataset", "task"),
    [
        ("synchronous", "5_double_cheeseburger"),  # two cheeses, two patties
        ("asynchronous", "4_onion_cheese_burger_and_fried_onion"),  # onions with timers
        ("asynchronous", "6_onion_soup"),  # three onions, added to a pot
        ("", "two robots"),  # the breads' rows with both robots and their arrivals
    ],
)
def test_shared_rows_bound_exactly_as_rows_built_apart(dataset: str, task: str) -> None:
    """A row whose object a task automorphism swaps with an earlier row's reads that row's
    tables (projection.h, "Shared rows"): the bound equals the one with every row built apart
    along an optimal plan, timers running included, and fewer states are built."""
    if dataset:
        (instance,) = datasets.load(dataset, seeds=[42], tasks=[task])
        env = instance.load()
    else:
        env = _two_robot_cheese_sandwich()
    found = find_projections(env.task)
    shared = _as_lists(found)
    assert any(i >= 0 for i in shared["share"])
    rows = len(found.objects)
    apart = {
        **shared,
        "share": [-1] * rows,
        "share_template_begin": [0] * (rows + 1),
        "share_templates": [],
    }
    assert abstract_states(env, shared) < abstract_states(env, apart)
    plan = robotouille.plan(env)
    timers_seen = False
    for i, action in enumerate(plan.actions):
        if i % 5 == 0:
            assert bound(env, **shared) == bound(env, **apart) <= plan.length - i
            timers_seen = timers_seen or int(env._counters[0][1]) > 0
        env.step(action)
    assert timers_seen or dataset != "asynchronous"


NO_ROBOT_SWAP = {"robot_swap_fact_begin": [], "robot_swap_facts": []}
ALL_ROWS = {"max_states": 10**7, "max_total_states": 10**7}


@pytest.mark.parametrize(
    ("task", "seed"),
    [
        ("", 0),  # the two-robot cheese sandwich: arrivals for both robots
        ("7_onion_potato_tomato_soup", 126),  # a pot's templates, filled and boiled
    ],
)
def test_the_robot_swap_bounds_exactly_as_the_whole_rows(task: str, seed: int) -> None:
    """Rows that swapping the two robots maps onto themselves keep one state of each pair
    (projection.h, "Robot swap"): the bound equals the one over the whole rows along an optimal
    plan, timers running included, with fewer abstract states (under caps that every row fits,
    so that both build the same rows)."""
    if task:
        (instance,) = datasets.load("multi_agent", seeds=[seed], tasks=[task])
        env = instance.load()
    else:
        env = _two_robot_cheese_sandwich()
    found = find_projections(env.task)
    swapped = _as_lists(found)
    assert found.robot_swap_slots.tolist() == [0, 1]
    assert len(found.robot_swap_facts) > 0
    whole = {**swapped, **NO_ROBOT_SWAP}
    assert start_stats(env, limits=ALL_ROWS, **swapped)["abstract_states"] < 0.8 * start_stats(
        env, limits=ALL_ROWS, **whole
    )["abstract_states"]
    plan = robotouille.plan(env, time_limit=120)
    timers_seen = False
    for i, action in enumerate(plan.actions):
        if i % 4 == 0:
            assert (
                bound(env, limits=ALL_ROWS, **swapped)
                == bound(env, limits=ALL_ROWS, **whole)
                <= plan.length - i
            )
            timers_seen = timers_seen or int(env._counters[0][1]) > 0
        env.step(action)
    assert timers_seen or not task


def test_malformed_robot_swap_tables_are_rejected() -> None:
    env = _two_robot_cheese_sandwich()
    good = _as_lists(find_projections(env.task))
    row = next(r for r in range(len(good["objects"])) if good["robot_swap_fact_begin"][r + 1])
    begin = good["robot_swap_fact_begin"][row]
    pairs = good["robot_swap_facts"]
    for field, value in (
        ("robot_swap_slots", [0, 0]),
        ("robot_swap_slots", [0]),
        ("robot_swap_fact_begin", good["robot_swap_fact_begin"][:-1]),
        # A fact mapped onto itself.
        ("robot_swap_facts", [*pairs[: 2 * begin + 1], pairs[2 * begin], *pairs[2 * begin + 2 :]]),
        ("robot_swap_facts", [10**7] * len(pairs)),
    ):
        bad = copy.deepcopy(good)
        bad[field] = value
        with pytest.raises(ValueError, match="projection tables"):
            bound(env, **bad)


def _away_rows(tables: ProjectionTables) -> list[int]:
    """The rows that place some robot anywhere while it is away (projection.h, "Away robots")."""
    begin = tables.away_begin
    return [r for r in range(len(tables.objects)) if begin[r + 1] > begin[r]]


def _bounds_with_and_without_away(env: robotouille.Env) -> tuple[dict[str, Any], dict[str, Any]]:
    """start_stats at the env's state with the planner's tables, and with every robot's
    position kept, both under caps that every row fits (so that both build the same rows)."""
    tables, task = planner_tables(env)
    return (
        _start_stats(env, tables, task, limits=ALL_ROWS),
        _start_stats(env, {**tables, **NO_AWAY}, task, limits=ALL_ROWS),
    )


# Tasks with away robots: (dataset, task, seed), or ("", "", 0) for the two-robot cheese sandwich.
AWAY_CASES = pytest.mark.parametrize(
    ("dataset", "task", "seed"),
    [
        ("", "", 0),  # the two-robot cheese sandwich
        ("multi_agent", "7_onion_potato_tomato_soup", 126),  # a pot's templates, two robots
        ("asynchronous", "9", 84),  # one robot, idling, lifts and parks
    ],
)


def _away_case(dataset: str, task: str, seed: int) -> robotouille.Env:
    """An AWAY_CASES task in its initial state."""
    if not dataset:
        return _two_robot_cheese_sandwich()
    (instance,) = datasets.load(dataset, seeds=[seed], tasks=[task])
    return instance.load()


@AWAY_CASES
def test_away_robots_bound_exactly_as_the_robots_kept_everywhere(
    dataset: str, task: str, seed: int
) -> None:
    """Where a robot neither holds the object nor stands where it could pick it up, its row
    keeps one place for it (projection.h, "Away robots"): along an optimal plan the bound
    equals the one with every robot's position kept, with far fewer abstract states."""
    env = _away_case(dataset, task, seed)
    tables = find_projections(env.task)
    colocated = tables.colocated_begin
    full_rows = [r for r in range(len(tables.objects)) if not tables.fallback[r]]
    assert _away_rows(tables) == [r for r in full_rows if colocated[r + 1] > colocated[r]]
    placed, kept = _bounds_with_and_without_away(env)
    assert placed["abstract_states"] < 0.5 * kept["abstract_states"]
    plan = robotouille.plan(env, time_limit=120)
    for i, action in enumerate(plan.actions):
        if i % 5 == 0:
            placed, kept = _bounds_with_and_without_away(env)
            assert placed["initial_h"] == kept["initial_h"] <= plan.length - i
        env.step(action)


@generated_examples(25)
@given(walk=st.lists(st.integers(0, 1_000), min_size=2, max_size=20))
def test_away_robots_keep_the_bound_of_two_robots_in_every_state(walk: list[int]) -> None:
    """From states a random walk of two robots reaches, the bound with away robots placed
    equals the one with every robot's position kept."""
    env = _two_robot_lettuce_sandwich()
    for pick in walk:
        actions = env.valid_actions()
        env.step(actions[pick % len(actions)])
    placed, kept = _bounds_with_and_without_away(env)
    assert placed["initial_h"] == kept["initial_h"]


def _bounds_in_turn(env: robotouille.Env, picks: list[int]) -> tuple[list[int], list[int]]:
    """The planner's bound (its tables built at the env's state) of a row of states: at each
    state the picks lead through (each pick an index into the valid actions), the state, then
    every successor in the order of the valid actions (siblings one after another, most of them
    a robot's move), as A* evaluates them. Returns the bounds evaluated one after another as the
    search does (reusing what the state before found), and each evaluated afresh."""
    tables, task = planner_tables(env)
    words, counters = [], []
    for pick in [*picks, None]:
        here = env.get_state()
        words.append(env._words[0].copy())
        counters.append(env._counters[0].copy())
        actions = [] if env.goal_reached() else env.valid_actions()
        for action in actions:
            env.step(action)
            words.append(env._words[0].copy())
            counters.append(env._counters[0].copy())
            env.set_state(here)
        if pick is None or not actions:
            break
        env.step(actions[pick % len(actions)])
    rows = (env.task.core, np.stack(words), np.stack(counters), tables, task)
    return (
        _core.projection_bounds(*rows, incremental=True),
        _core.projection_bounds(*rows, incremental=False),
    )


@AWAY_CASES
def test_each_bound_in_a_row_of_states_depends_only_on_its_own_state(
    dataset: str, task: str, seed: int
) -> None:
    """evaluate() reuses, for each row, what the previous state's evaluation found where the
    row's facts did not change, or changed only where robots that stay away from its object
    stand (projection.h, "Away robots"): along an optimal plan, with every successor of each
    state, the bounds equal those computed afresh."""
    env = _away_case(dataset, task, seed)
    plan = robotouille.plan(env, time_limit=60)
    start = env.get_state()
    picks = []
    for action in plan.actions:
        actions = env.valid_actions()
        picks.append(actions.index(action))
        env.step(action)
    env.set_state(start)
    reused, afresh = _bounds_in_turn(env, picks)
    assert reused == afresh
    assert len(reused) > 5 * plan.length  # the successors too


@generated_examples(25)
@given(walk=st.lists(st.integers(0, 1_000), min_size=1, max_size=12))
def test_each_bound_along_a_random_walk_of_two_robots_depends_only_on_its_own_state(
    walk: list[int],
) -> None:
    """As above, along a random walk of two robots."""
    reused, afresh = _bounds_in_turn(_two_robot_lettuce_sandwich(), walk)
    assert reused == afresh


def test_a_robot_is_kept_where_a_step_needs_it_at_some_stations_only() -> None:
    """Stacking onto an item that no longer needs the item at the robot's station, but only
    works at tables: where the robot stands while away then decides whether it can stack onto
    the item, so no row that sees those stacks places it; nor does any row where a robot cannot
    move to every station. A* still finds BFS's optimum."""
    domain = json.loads(default_domain_path().read_text())
    stack = next(a for a in domain["action_defs"] if a["name"] == "stack")
    stack["precons"] = [
        p for p in stack["precons"] if not (p["predicate"] == "item_at" and p["params"][0] == "i2")
    ] + [{"predicate": "istable", "params": ["s1"], "is_true": True}]
    layout = json.loads(bundled_environment_path("cheese_sandwich").read_text())
    layout["players"].append({"name": "robot", "x": 3, "y": 1, "direction": [0, -1]})
    env = robotouille.load(layout, domain)
    task = env.task
    tables = find_projections(task)
    stacking = set()
    for r in range(len(tables.objects)):
        name = task.objects[tables.objects[r]].name
        for g in tables.groundings[tables.grounding_begin[r] : tables.grounding_begin[r + 1]]:
            action, args = task.grounding_name(int(g))
            if action == "stack" and args[2] == name and not tables.fallback[r]:
                stacking.add(r)
    assert stacking and not stacking & set(_away_rows(tables))
    assert stacking <= set(_away_rows(find_projections(robotouille.load(layout).task)))
    assert robotouille.plan(env).length == robotouille.plan(env, "bfs").length
    move = next(a for a in domain["action_defs"] if a["name"] == "move")
    move["precons"].append({"predicate": "istable", "params": ["s2"], "is_true": True})
    assert not _away_rows(find_projections(robotouille.load(layout, domain).task))


def test_malformed_away_tables_are_rejected() -> None:
    env = _two_robot_cheese_sandwich()
    good = _as_lists(find_projections(env.task))
    row = next(r for r in range(len(good["objects"])) if good["away_begin"][r + 1])
    begin, end = good["away_begin"][row], good["away_begin"][row + 1]
    away = good["away"]
    first = begin + 1  # the row's first triple
    other_robot = away[first + 1]  # a position of the other slot's robot, named for slot 0
    last_slot = next(k for k in range(first, end, 3) if away[k] == 1)
    for field, value in (
        ("away_begin", good["away_begin"][:-1]),
        ("away", [*away[:end], 0, *away[end:]]),  # not a mask and triples
        ("away", [*away[:first], 7, *away[first + 1 :]]),  # no slot of the row
        ("away", [*away[: first + 1], 10**7, *away[first + 2 :]]),  # a fact out of range
        ("away", [*away[: first + 2], -1, *away[first + 3 :]]),  # a station out of range
        ("away", [*away[: last_slot + 1], other_robot, *away[last_slot + 2 :]]),  # two robots
    ):
        bad = copy.deepcopy(good)
        bad[field] = value
        with pytest.raises(ValueError, match="projection tables"):
            bound(env, **bad)


def _soup_with_two_pots() -> dict[str, Any]:
    """The bundled multi_agent/10 kitchen with one robot and only its potato cheese onion soup:
    either of two pots can make the water."""
    layout: dict[str, Any] = json.loads(
        bundled_environment_path(
            "multi_agent/10_potato_tomato_chicken_soup_potato_cheese_onion_soup"
        ).read_text()
    )
    layout["goal"] = [atom for atom in layout["goal"] if min(atom["ids"]) >= 7]  # the second soup
    kept: set[str] = set()
    items = []
    for item in layout["items"]:
        if item["name"] in {"potato", "cheese", "onion"} - kept:
            kept.add(item["name"])
            items.append(item)
    layout["items"] = items
    layout["players"] = layout["players"][:1]
    return layout


def test_each_pot_pays_for_the_water_it_makes() -> None:
    """With two pots, each pot's plain row lets the other make and pour the water for free; its
    variants (one per set of waters it makes) do not, and the bound takes the cheapest way to
    share the waters out. The plan found with them is as long as the plan found without. A
    variant keeps only the goal's water, so without the pool's order (projection.h, "Created
    objects in order") it would let the robot add an ingredient to a later water at the pot,
    which frees its hand there and spares the arrival before the pot's first pick (28)."""
    layout = _soup_with_two_pots()
    env = robotouille.load(layout)
    task = planning._implied_task(env)
    tables = find_projections(task)
    variant_rows = np.flatnonzero(np.asarray(tables.variants).reshape(-1, 3)[:, 0] >= 0)
    assert sorted({task.objects[tables.objects[r]].name for r in variant_rows}) == [
        "pot1",
        "pot2",
    ]
    forbidden = {
        task.fact_name(int(f))
        for r in variant_rows
        for f in tables.forbid[tables.forbid_begin[r] : tables.forbid_begin[r + 1]]
    }
    assert forbidden == {"in(water1,pot1)", "in(water1,pot2)"}
    with_variants = bound(env)
    with mock.patch("robotouille.projections._creator_groups", return_value=[]):
        plain_env = robotouille.load(layout)
        plain = bound(plain_env)
        plain_plan = robotouille.plan(plain_env)
    assert (plain, with_variants) == (17, 29)
    assert bound(env, limits={"existence_order": False}) == 28
    plan = robotouille.plan(env)
    assert plan.length == plain_plan.length == 30
    replay(robotouille.load(layout), plan)
    assert_within_steps_to_go(env, plan)


def _two_potato_soups() -> dict[str, Any]:
    """The bundled multi_agent/10 kitchen with one robot and both soups, each of water and a
    potato only: either pot can make either water, or one pot both, one after the other."""
    layout: dict[str, Any] = json.loads(
        bundled_environment_path(
            "multi_agent/10_potato_tomato_chicken_soup_potato_cheese_onion_soup"
        ).read_text()
    )
    kept = {"potato", "water", "bowl", "table"}
    layout["goal"] = [atom for atom in layout["goal"] if set(atom["args"]) <= kept]
    layout["items"] = [item for item in layout["items"] if item["name"] == "potato"]
    layout["players"] = layout["players"][:1]
    return layout


def test_a_pots_two_waters_cost_at_least_one_of_them() -> None:
    """Under caps that build a pot's row for both waters only as its coarse fallback (6 at the
    start, against 8 in the full row for either water alone), the pair still reads 8: a plan
    that makes both waters maps into the row of each. The bound stays within the steps to go
    along an optimal plan, under those caps and the default ones."""
    layout = _two_potato_soups()
    env = robotouille.load(layout)
    small = {"max_states": 40_000, "upgrade_states": 40_000}
    # 13 with the fallback read alone; 15 without the pool's order (projection.h, "Created
    # objects in order"): the robot could free its hand at the pot by adding the potato to a
    # third water, which no state of the row has, and pick the pot up with no arrival.
    assert bound(env, limits=small) == 16
    assert bound(env, limits={**small, "existence_order": False}) == 15
    plan = robotouille.plan(env)
    assert plan.length == 32
    words, counters = [], []
    for action in [*plan.structured, None]:
        words.append(env._words[0].copy())
        counters.append(env._counters[0].copy())
        if action is not None:
            env.step(action)
    assert env.goal_reached()
    tables, task = planner_tables(robotouille.load(layout))
    for limits in (small, None):
        bounds = _core.projection_bounds(
            env.task.core,
            np.stack(words),
            np.stack(counters),
            tables,
            task,
            projection_limits=limits,
        )
        assert bounds[0] == (16 if limits else bound(robotouille.load(layout)))
        assert all(0 <= b <= plan.length - i for i, b in enumerate(bounds))


def test_plan_actions_replay_where_two_valid_actions_share_a_text() -> None:
    """The optimal plan fills one pot twice and boils both waters in it: "Boil pot2's
    contents ..." then names two valid actions, and env.step takes the first. Plan.actions
    gives such a step in its structured form, so that the plan replays; every other step is
    its text."""
    layout = _two_potato_soups()
    plan = robotouille.plan(robotouille.load(layout))
    kinds = {type(action) for action in plan.actions}
    assert kinds == {str, tuple}
    for action, structured in zip(plan.actions, plan.structured, strict=True):
        assert isinstance(action, str) or action == structured
    replay(robotouille.load(layout), plan)
    replay(robotouille.load(layout), plan, structured=True)
    # Its texts alone do not reach the goal: the first boil is taken twice.
    env = robotouille.load(layout)
    for structured in plan.structured:
        env.step(_core.action_text(env.task.core, env.task.grounding_id(*structured)))
    assert not env.goal_reached()


def test_projection_bounds_rejects_unknown_limits() -> None:
    env = robotouille.load(_two_potato_soups())
    tables, task = planner_tables(env)
    words, counters = env._words[:1].copy(), env._counters[:1].copy()
    with pytest.raises(ValueError, match="unknown projection limit 'max_rows'"):
        _core.projection_bounds(
            env.task.core, words, counters, tables, task, projection_limits={"max_rows": 1}
        )


def test_malformed_creator_tables_are_rejected() -> None:
    env = robotouille.load(_soup_with_two_pots())
    task = planning._implied_task(env)
    good = _as_lists(find_projections(task))
    rows = len(good["objects"])
    variant_row = next(r for r in range(rows) if good["variants"][3 * r] >= 0)
    plain_row = next(r for r in range(rows) if good["variants"][3 * r] < 0)
    inside = good["facts"][good["fact_begin"][variant_row]]
    at = good["forbid_begin"][variant_row]
    for field, value in (
        ("variants", good["variants"][:-1]),  # not a triple per row
        ("forbid_begin", good["forbid_begin"][:-1]),
        ("forbid", [*good["forbid"][:at], inside, *good["forbid"][at + 1 :]]),  # in the row
        ("forbid", [*good["forbid"][:at], 10**7, *good["forbid"][at + 1 :]]),  # out of range
        # A plain row with a variant's label: that variant twice.
        (
            "variants",
            [
                *good["variants"][: 3 * plain_row],
                *good["variants"][3 * variant_row : 3 * variant_row + 3],
                *good["variants"][3 * plain_row + 3 :],
            ],
        ),
        ("variants", [-1, -1, 0] * rows),  # forbidden facts without variants
    ):
        bad = copy.deepcopy(good)
        bad[field] = value
        with pytest.raises(ValueError, match="projection tables"):
            start_stats(env, **bad)
