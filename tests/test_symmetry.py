"""Symmetry reduction in the planner: which objects are interchangeable, and that reducing by
them changes neither optimal lengths nor the replayability of plans.

Soundness rests on find_symmetries proving each transposition an automorphism of the task; the
tests check the classes it finds on bundled and original files, that it refuses objects that
differ (static facts, goal constants, robots outside centralized mode), that the C++ side rejects
malformed tables, and that searches with and without reduction agree (here, on the original
files, and on random problems in test_planning's hypothesis test).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import robotouille
from robotouille import _core
from robotouille.domains import bundled_environment_path
from robotouille.planning import _symmetry_tables
from robotouille.symmetry import find_symmetries

from .conftest import SHARED
from .test_planning import BFS_FILES, replay

EXAMPLES = SHARED / "reference" / "robotouille" / "environments" / "env_generator" / "examples"
needs_shared = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="../shared is not available")


def names(env: robotouille.Env, mode_fixed: set[int] | None = None) -> list[list[str]]:
    tables = find_symmetries(env.task, fixed_objects=mode_fixed)
    return [[env.task.objects[o].name for o in cls] for cls in tables.classes]


def cheese_sandwich_doc() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(bundled_environment_path("cheese_sandwich").read_text())
    return doc


def test_interchangeable_tables_and_breads_of_the_bundled_task() -> None:
    env = robotouille.load("cheese_sandwich")
    classes = names(env)
    assert ["bread1", "bread2"] in classes
    assert any(all(n.startswith("table") for n in cls) and len(cls) >= 2 for cls in classes)
    assert all(not n.startswith("robot") for cls in classes for n in cls)  # one robot


def test_an_object_with_other_static_facts_is_not_interchangeable() -> None:
    doc = cheese_sandwich_doc()
    breads = [item for item in doc["items"] if item["name"] == "bread"]
    assert len(breads) == 2
    breads[0]["predicates"] = [*breads[0].get("predicates", []), "iscuttable"]
    env = robotouille.load(doc)
    assert not any("bread1" in cls or "bread2" in cls for cls in names(env))


def test_goal_constants_and_robots_outside_centralized_mode_stay_fixed() -> None:
    env = robotouille.load("cheese_sandwich")
    table = next(cls for cls in names(env) if cls[0].startswith("table"))
    pinned = env.task.object_index[table[0]]
    assert all(table[0] not in cls for cls in names(env, {pinned}))
    if EXAMPLES.is_dir():
        two = EXAMPLES / "multi_agent" / "1_lettuce_burger.json"
        central = robotouille.load(two, mode="centralized")
        turns = robotouille.load(two, mode="turn_based")
        assert ["robot1", "robot2"] in names(central)
        robots = set(turns._robot_objects)
        assert all("robot1" not in cls for cls in names(turns, robots))
        assert "robot1" not in json.dumps(_symmetry_tables(turns)["class_objects"])


def test_malformed_tables_are_rejected_with_a_clear_error() -> None:
    env = robotouille.load("cheese_sandwich")
    good = _symmetry_tables(env)
    for field, value in (
        ("class_objects", [10**6] * len(good["class_objects"])),
        ("pair_facts", [-1] * len(good["pair_facts"])),
        ("fact_pred", good["fact_pred"][:-1]),
    ):
        bad = copy.deepcopy(good)
        bad[field] = value
        with pytest.raises(ValueError, match="symmetry tables"):
            _core.search(env.task.core, env._words[0], env._counters[0], symmetry=bad)
    del good["pair_templates"]
    with pytest.raises(ValueError, match="pair_templates"):
        _core.search(env.task.core, env._words[0], env._counters[0], symmetry=good)


def test_reduction_stores_fewer_states_and_keeps_the_optimum() -> None:
    env = robotouille.load("cheese_sandwich")
    for algorithm in ("bfs", "astar"):
        full = robotouille.plan(env, algorithm, symmetry=False)  # type: ignore[arg-type]
        reduced = robotouille.plan(env, algorithm)  # type: ignore[arg-type]
        assert reduced.length == full.length
        assert reduced.stats.stored < full.stats.stored
        replay(env, reduced)
        env.reset()


@needs_shared
@pytest.mark.parametrize("name", BFS_FILES)
def test_bfs_with_and_without_reduction_agree_on_the_original_files(name: str) -> None:
    env = robotouille.load(EXAMPLES / name)
    full = robotouille.plan(env, "bfs", symmetry=False)
    reduced = robotouille.plan(env, "bfs")
    assert reduced.length == full.length
    assert reduced.stats.stored <= full.stats.stored
    replay(env, reduced)


@needs_shared
def test_plans_found_from_a_mid_episode_state_replay_with_created_objects() -> None:
    # Soup: a pot is filled (creating water) and things cook while the robot works; the plan is
    # computed after a few steps, so the start state is not the initial one.
    env = robotouille.load(EXAMPLES / "asynchronous" / "5_potato_soup.json")
    first = robotouille.plan(env)
    for action in first.actions[:6]:
        env.step(action)
    rest = robotouille.plan(env)
    assert rest.length == first.length - 6
    replay(env, rest)
