"""At-most-one invariants (python/robotouille/invariants.py) and the projections' use of them.

What must hold: every reported fact set has at most one true fact in every reachable state
(checked along random walks of the engine), a set that some action can break is not reported,
and the projections that drop the abstract states violating them stay admissible (checked along
an optimal plan, and by test_planning's hypothesis test on random domains) while getting
smaller and stronger where items pile up in a projection.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from typing import Any

import numpy as np
import pytest

import robotouille
from robotouille import _core, datasets, symmetry
from robotouille.domains import default_domain_path
from robotouille.invariants import _Synthesis, union
from robotouille.planning import _as_lists, _packing_tables, _projection_tables
from robotouille.projections import (
    _TaskView,
    find_projections,
    implied_goal_task,
    object_invariants,
)

from .test_projections import (
    EXAMPLES,
    NO_AWAY,
    NO_UPGRADES,
    assert_within_steps_to_go,
    bound,
    needs_shared,
)


def groups_of(env: robotouille.Env) -> list[set[str]]:
    task = env.task
    found = union(object_invariants(task).values())
    return [{task.fact_name(f) for f in group} for group in found]


def no_invariants(env: robotouille.Env) -> dict[str, list[int]]:
    tables = find_projections(env.task)
    rows = len(tables.objects)
    return _as_lists(
        dataclasses.replace(
            tables, mutex_begin=[0], mutex_facts=[], merge_begin=[0] * (rows + 1), merges=[]
        )
    )


@pytest.mark.parametrize(
    ("dataset", "task", "seed"),
    [
        ("multi_agent", "1_lettuce_burger", 84),
        ("synchronous", "3_burger", 84),
        ("asynchronous", "5_potato_soup", 126),
        ("asynchronous", "3_tomato_burger_and_fries", 42),
    ],
)
def test_invariants_hold_along_random_walks(dataset: str, task: str, seed: int) -> None:
    (instance,) = datasets.load(dataset, seeds=[seed], tasks=[task])
    env = instance.load()
    compiled = env.task
    groups = union(object_invariants(compiled).values())
    assert groups
    words = np.repeat(env._words[:1], 32, axis=0)
    counters = np.repeat(env._counters[:1], 32, axis=0)
    for chunk in range(40):
        _core.random_rollout(
            compiled.core, words, counters, 5, 1000 * chunk, env._words[0], env._counters[0]
        )
        bits = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")
        for group in groups:
            assert (bits[:, group].sum(axis=1) <= 1).all(), [compiled.fact_name(f) for f in group]


def test_what_is_on_top_of_a_bun_is_one_thing_at_a_time() -> None:
    (instance,) = datasets.load("multi_agent", seeds=[84], tasks=["1_lettuce_burger"])
    groups = groups_of(instance.load())
    top = {
        "clear(bottombun1)",
        "atop(bread1,bottombun1)",
        "atop(patty1,bottombun1)",
        "has_item(robot1,bottombun1)",
        "has_item(robot2,bottombun1)",
    }
    assert any(top <= group for group in groups)
    under = {"item_on(bottombun1,table1)", "atop(bottombun1,bread1)", "has_item(robot2,bottombun1)"}
    assert any(under <= group for group in groups)


def test_a_set_that_an_action_can_break_is_not_reported() -> None:
    """A stack that leaves the lower item clear lets two items lie on it."""
    domain = json.loads(default_domain_path().read_text())
    stack = next(a for a in domain["action_defs"] if a["name"] == "stack")
    stack["immediate_fx"] = [
        e for e in stack["immediate_fx"] if (e["predicate"], e["params"]) != ("clear", ["i2"])
    ]
    env = robotouille.load("cheese_sandwich", domain)

    def on_bread(group: set[str]) -> bool:  # the set of what can be on top of bread1
        return "clear(bread1)" in group and any(
            re.fullmatch(r"atop\((?!bread1,)\w+,bread1\)", name) for name in group
        )

    assert not any(on_bread(group) for group in groups_of(env))
    assert any(on_bread(group) for group in groups_of(robotouille.load("cheese_sandwich")))


def test_invariants_keep_the_projections_of_a_crowded_kitchen() -> None:
    """Two robots and ten items, their positions kept everywhere (no away robots, which make
    the rows small enough either way): without the invariants, items pile up on the buns in
    their projections, which then exceed the first cap and are lost (11 at the start instead of
    18).
    (The upgrade pass would retry them under its larger caps, at a cost in time; it is left out
    here, and so are the sinks that would then let the patty's rows fit (projection.h,
    "Repeated timers"). So is the clearing term, which adds 3 to both: both stoves are
    covered.)"""
    (instance,) = datasets.load("multi_agent", seeds=[84], tasks=["1_lettuce_burger"])
    env = instance.load()
    limits = NO_UPGRADES | {"timer_sinks": False}
    kept = bound(env, limits=limits, **{**_projection_tables(env), "clearing": [], **NO_AWAY})
    lost = bound(env, limits=limits, **{**no_invariants(env), "clearing": [], **NO_AWAY})
    assert kept >= 18 > 11 >= lost


def test_a_start_state_that_breaks_a_listed_invariant_switches_it_off() -> None:
    """The tables come from the task's start; a search may start anywhere. A listed set that the
    start state breaks (here a bogus one: the cheese's place and its being clear, both true at
    the start and at every goal) is ignored; used, it would make the goal unreachable."""
    env = robotouille.load("cheese_sandwich")
    task = env.task
    tables = find_projections(task)
    cheese = task.object_index["cheese1"]
    row = tables.objects.index(cheese)
    both = [
        int(f)
        for f in tables.facts[tables.fact_begin[row] : tables.fact_begin[row + 1]]
        if task.initial_bits[f]
        and re.fullmatch(r"item_at\(cheese1,\w+\)|clear\(cheese1\)", task.fact_name(int(f)))
    ]
    assert len(both) == 2
    bogus = copy.deepcopy(_projection_tables(env))
    bogus["mutex_begin"] = [0, 2]
    bogus["mutex_facts"] = both
    assert (
        bound(env, **bogus)
        == bound(env, **no_invariants(env))
        == bound(env, **_projection_tables(env))
    )


def test_malformed_invariant_tables_are_rejected() -> None:
    env = robotouille.load("cheese_sandwich")
    good = _projection_tables(env)
    for begin, facts in (([0, 1], [10**7]), ([0, 5], [1]), ([1, 0], [])):
        bad = copy.deepcopy(good)
        bad["mutex_begin"], bad["mutex_facts"] = begin, facts
        with pytest.raises(ValueError, match="projection tables"):
            bound(env, **bad)


@pytest.mark.parametrize(
    ("task", "seed"), [("1_lettuce_sandwich", 126), ("0_cheese_sandwich", 252)]
)
def test_with_invariants_the_bound_never_exceeds_the_steps_to_go(task: str, seed: int) -> None:
    """Generated instances whose start bound the invariants raise (at the first caps, with the
    robot's position kept everywhere: without invariants the projections with the robot's position
    then need the larger caps of the upgrade pass): at every state of an optimal plan the bound
    stays within the steps to go, and the plan is as long as the manifest's."""
    (instance,) = datasets.load("synchronous", seeds=[seed], tasks=[task])
    env = instance.load()
    plan = robotouille.plan(env)
    assert plan.length == instance.optimal_length
    with_invariants = bound(env, limits=NO_UPGRADES, **{**_projection_tables(env), **NO_AWAY})
    assert with_invariants > bound(env, limits=NO_UPGRADES, **{**no_invariants(env), **NO_AWAY})
    assert_within_steps_to_go(env, plan)


def test_distractors_on_a_bun_share_one_bit() -> None:
    """In the bun's projection, which distractor lies on the bun is one bit, "some item"; the
    projected items (patty, lettuce) keep their own facts. That lets the projection with the
    robots' positions (kept everywhere: no away robots) fit under its cap, and the bound
    rises."""
    (instance,) = datasets.load("multi_agent", seeds=[84], tasks=["1_lettuce_burger"])
    env = instance.load()
    task = env.task
    tables = find_projections(task)
    row = tables.objects.index(task.object_index["bottombun1"])
    pairs = tables.merges[2 * tables.merge_begin[row] : 2 * tables.merge_begin[row + 1]]
    merged = {task.fact_name(int(f)) for f in pairs}
    assert {"atop(bread1,bottombun1)", "atop(cheese2,bottombun1)"} <= merged
    assert not any(name.startswith(("atop(patty1,", "atop(lettuce1,")) for name in merged)
    unmerged = _as_lists(
        dataclasses.replace(
            tables, merge_begin=np.zeros(len(tables.objects) + 1, np.int64), merges=[]
        )
    )
    assert bound(env, **{**_projection_tables(env), **NO_AWAY}) > bound(
        env, **{**unmerged, **NO_AWAY}
    )


def test_malformed_merge_tables_are_rejected() -> None:
    env = robotouille.load("cheese_sandwich")
    good = _projection_tables(env)
    rows = len(good["objects"])
    first, second = good["facts"][0], good["facts"][1]  # of the first row
    for begin, merges in (
        ([0] + [1] * rows, [10**7, first]),  # not a fact of its row
        ([0] + [1] * rows, [first, first]),  # its own representative
        ([0] + [2] * rows, [first, second, second, first]),  # a representative merged away
        ([0, 5] + [5] * (rows - 1), [first, second]),  # offsets past the pairs
    ):
        bad = copy.deepcopy(good)
        bad["merge_begin"], bad["merges"] = begin, merges
        with pytest.raises(ValueError, match="projection tables"):
            bound(env, **bad)


def test_facts_that_one_grounding_writes_two_of_keep_their_own_bits() -> None:
    """A swap of the top item for the one in hand makes one "on the bun" fact true before it
    makes the other false: one bit for both would end false. Such facts are not merged (the
    invariants themselves still hold)."""
    domain = json.loads(default_domain_path().read_text())

    def lit(predicate: str, *params: str, value: bool = True) -> dict[str, object]:
        return {"predicate": predicate, "params": list(params), "is_true": value}

    domain["action_defs"].append(
        {
            "name": "swap-top",
            "precons": [
                lit("has_item", "p1", "i3"),
                lit("clear", "i1"),
                lit("atop", "i1", "i2"),
                lit("loc", "p1", "s1"),
                lit("item_at", "i1", "s1"),
                lit("item_at", "i2", "s1"),
            ],
            "immediate_fx": [
                lit("atop", "i3", "i2"),
                lit("item_at", "i3", "s1"),
                lit("clear", "i3"),
                lit("has_item", "p1", "i3", value=False),
                lit("atop", "i1", "i2", value=False),
                lit("clear", "i1", value=False),
                lit("item_at", "i1", "s1", value=False),
                lit("has_item", "p1", "i1"),
            ],
            "sfx": [],
            "language_description": "Swap {i1} on {i2} for {i3} using {p1}",
        }
    )
    (instance,) = datasets.load("multi_agent", seeds=[84], tasks=["1_lettuce_burger"])
    task = instance.load(domain).task
    tables = find_projections(task)
    merged = {task.fact_name(int(f)) for f in tables.merges}
    assert not any(re.fullmatch(r"atop\(\w+,bottombun1\)", name) for name in merged)
    assert any("atop(bread1,bottombun1)" in group for group in groups_of(instance.load(domain)))


def _search(env: robotouille.Env, **kwargs: Any) -> tuple[str, list[list[int]], dict[str, Any]]:
    result: tuple[str, list[list[int]], dict[str, Any]] = _core.search(
        env.task.core, env._words[0], env._counters[0], **kwargs
    )
    return result


@needs_shared
def test_packing_each_invariant_as_an_index_saves_bytes_and_changes_no_plan() -> None:
    env = robotouille.load(EXAMPLES / "asynchronous/5_potato_soup.json")
    packing = _packing_tables(env)
    assert len(packing["group_begin"]) > 1
    plain = _search(env, algorithm="bfs")
    packed = _search(env, algorithm="bfs", packing=packing)
    assert packed[0] == plain[0] == "solved"
    assert len(packed[1]) == len(plain[1]) == 19
    assert packed[2]["stored"] == plain[2]["stored"]
    assert packed[2]["state_bytes"] < plain[2]["state_bytes"]


def test_packing_refuses_a_set_that_is_no_invariant_and_malformed_tables() -> None:
    env = robotouille.load("cheese_sandwich")
    task = env.task
    true_at_start = [
        f for f in range(task.num_facts) if task.fact_mutable[f] and task.initial_bits[f]
    ]
    with pytest.raises(RuntimeError, match="two facts of one invariant"):
        _search(env, packing={"group_begin": [0, 3], "group_facts": true_at_start[:3]})
    for bad in (
        {"group_begin": [0, 5], "group_facts": [1, 2]},
        {"group_begin": [0, 1], "group_facts": [10**7]},
        {"group_begin": [0]},
    ):
        with pytest.raises(ValueError, match="packing"):
            _search(env, packing=bad)


@pytest.mark.parametrize(
    "names",
    [
        # A fact that stays true, and one a move makes true beside it.
        ("item_at(cheese1,table1)", "loc(robot1,table1)", "loc(robot1,board1)"),
        # Two facts that one move makes true at once.
        ("loc(robot1,table1)", "vacant(table2)", "loc(robot1,board1)"),
    ],
)
def test_packing_refuses_a_successor_with_two_facts_of_a_set(names: tuple[str, ...]) -> None:
    """A successor is packed from its parent's bits and the facts that changed: a set whose
    start has one fact true, and a step that makes a second one true, is still caught."""
    env = robotouille.load("cheese_sandwich")
    task = env.task
    facts = [next(f for f in range(task.num_facts) if task.fact_name(f) == n) for n in names]
    packing = {"group_begin": [0, 3], "group_facts": facts}
    with pytest.raises(RuntimeError, match="two facts of one invariant"):
        _search(env, algorithm="bfs", packing=packing)
    # With the task's own invariants the same search solves.
    assert _search(env, algorithm="bfs", packing=_packing_tables(env))[0] == "solved"


def test_a_restored_state_that_breaks_an_invariant_is_planned_without_them() -> None:
    """set_state accepts any state of the task, also one no step reaches (here, a cheese on a
    bread that is clear too): the planner then neither packs nor prunes by the invariants, and
    A* still agrees with BFS."""
    env = robotouille.load("cheese_sandwich")
    task = env.task
    state = env.get_state()
    words = state.words.copy()
    for name in ("clear(bread1)", "atop(cheese1,bread1)"):
        fact = next(f for f in range(task.num_facts) if task.fact_name(f) == name)
        words[fact >> 6] |= np.uint64(1) << np.uint64(fact & 63)
    env.set_state(dataclasses.replace(state, words=words))
    assert robotouille.plan(env).length == robotouille.plan(env, "bfs").length


class _PlainChecks:
    """first_violation with sets, one grounding at a time: the obviously correct version."""

    def __init__(self, view: Any, initial: np.ndarray) -> None:
        self.initial = initial
        self.written = set().union(*view.template_writes)
        self.effects = []  # per grounding: what it makes true, needs, needs and deletes
        for g, final in enumerate(view.final):
            needed = set(view.pre_pos[g])
            added = {f for f, value in final.items() if value}
            self.effects.append((added, needed, {f for f in needed if final.get(f) == 0}))

    def first_violation(self, group: set[int]) -> int | None:
        if sum(bool(self.initial[f]) for f in group) > 1 or group & self.written:
            return -1
        for g, (added, needed, consumed) in enumerate(self.effects):
            made, required = added & group, needed & group
            if not made or len(required) >= 2:
                continue  # makes none true, or needs two: never grows the count
            if len(made) > 1 or not (made & required or consumed & group):
                return g
        return None


@pytest.mark.parametrize(
    ("dataset", "task", "seed"),
    [("multi_agent", "1_lettuce_burger", 84), ("asynchronous", "5_potato_soup", 126)],
)
def test_the_counted_violation_check_agrees_with_plain_sets(
    dataset: str, task: str, seed: int
) -> None:
    """The synthesis checks a candidate by counting, per grounding that makes one of its facts
    true, the facts it makes true, needs, deletes and keeps (arrays, for tens of thousands of
    groundings). On every candidate the synthesis tries, and on random unions of an object's
    slots, it finds the grounding the plain set version finds."""
    (instance,) = datasets.load(dataset, seeds=[seed], tasks=[task])
    compiled = instance.load().task
    view = _TaskView(compiled)
    synthesis = _Synthesis(view, compiled.fact_pred, compiled.initial_bits)
    counted = synthesis.first_violation
    tried: list[set[int]] = []

    def recording(group: set[int]) -> int | None:
        tried.append(group)
        return counted(group)

    synthesis.first_violation = recording  # type: ignore[method-assign]
    objects = [o for o in range(len(compiled.objects)) if not compiled.may_vanish[o]]
    for o in objects:
        synthesis.groups(o)
    rng = np.random.default_rng(seed)
    for _ in range(200):
        o = int(rng.choice(objects))
        slots = sorted({s for (obj, s) in synthesis.slot_facts if obj == o})
        size = min(len(slots), int(rng.integers(1, 4)))
        picked = rng.choice(len(slots), size=size, replace=False)
        tried.append(synthesis.facts(o, [slots[k] for k in picked]))
    plain = _PlainChecks(view, compiled.initial_bits)
    found = [counted(group) for group in tried]
    assert len(tried) > 200 and None in found and any(g is not None and g >= 0 for g in found)
    for group, g in zip(tried, found):
        assert g == plain.first_violation(group), sorted(group)


def test_a_task_with_implied_goal_atoms_shares_its_sources_invariants_and_swaps() -> None:
    """implied_goal_task changes only the goal, so its invariants and object swap checks are its
    source's: worked out once, from whichever task asks first, and the same as worked out for
    the source alone."""
    env = robotouille.load("synchronous/5_double_cheeseburger")
    implied = implied_goal_task(env.task)
    assert implied is not env.task
    found = object_invariants(implied)  # the implied task asks first
    assert object_invariants(env.task) is found
    alone = robotouille.load("synchronous/5_double_cheeseburger").task
    assert object_invariants(alone) == found
    checker = symmetry._checker(implied)
    assert symmetry._checker(env.task) is checker
    pairs = list(checker._verified)
    assert pairs and all(checker.verify(*pair) is checker._verified[pair] for pair in pairs)


class _RandomView:
    """A made-up task view: groundings with random preconditions (a fact may be listed twice)
    and effects (a fact may be written twice: the last write wins)."""

    def __init__(self, rng: np.random.Generator, facts: int, groundings: int) -> None:
        self.pre_pos = [
            rng.integers(0, facts, int(rng.integers(0, 4))).tolist() for _ in range(groundings)
        ]
        self.eff = [rng.integers(0, facts, int(rng.integers(0, 5))).tolist() for _ in self.pre_pos]
        self.eff_value = [rng.integers(0, 2, len(e)).tolist() for e in self.eff]
        self.final = [dict(zip(e, v)) for e, v in zip(self.eff, self.eff_value)]

        def csr(rows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
            begin = np.cumsum([0, *(len(r) for r in rows)]).astype(np.int64)
            return begin, np.array([x for r in rows for x in r], np.int64)

        self.pre_pos_csr = csr(self.pre_pos)
        begin, written = csr(self.eff)
        self.eff_csr = (begin, written, csr(self.eff_value)[1])
        self.template_writes = [{int(rng.integers(0, facts))}]
        self.mutable_facts = list(range(facts))

    def args(self, fact: int) -> list[int]:
        return [0]


def test_the_counted_violation_check_agrees_with_plain_sets_on_random_groundings() -> None:
    """Every branch of the check (a grounding that needs two facts of the group, makes two true,
    keeps the one it needs, deletes another, or grows the count) on made-up groundings."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        facts = int(rng.integers(2, 9))
        view = _RandomView(rng, facts, int(rng.integers(1, 40)))
        initial = rng.random(facts) < 0.2
        synthesis = _Synthesis(view, np.zeros(facts, np.int64), initial)
        plain = _PlainChecks(view, initial)
        for _ in range(30):
            group = set(rng.choice(facts, int(rng.integers(1, facts + 1)), replace=False).tolist())
            assert synthesis.first_violation(group) == plain.first_violation(group)
