"""The pure-Python reference interpreter replays the original engine's recorded trajectories.

The traces in ``shared/oracle/traces`` were recorded with the original Robotouille engine, which
has the end-of-step skip bug (reference §1.9), so they are replayed with ``skip_quirk=True`` and
must match exactly: true predicates, valid actions (as a list for one robot, as a multiset for
several), observation text, special effects with their counters, goal checks, rejected invalid
attempts and the ``done`` flag of every step.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from robotouille.domain import Domain, load_domain
from robotouille.errors import InvalidActionError
from robotouille.problem import Problem, load_problem
from robotouille.testing.reference import ReferenceEnv


def _shared_dir() -> Path:
    env = os.environ.get("ROBOTOUILLE_SHARED")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "shared"


SHARED = _shared_dir()
TRACES = SHARED / "oracle" / "traces"
REFERENCE = SHARED / "reference" / "robotouille"
DOMAIN_FILE = REFERENCE / "domain" / "robotouille.json"
EXAMPLES = REFERENCE / "environments" / "env_generator" / "examples"

if not (TRACES.is_dir() and DOMAIN_FILE.is_file()):
    pytest.skip(f"recorded traces not found under {SHARED}", allow_module_level=True)

TRACE_FILES = sorted(TRACES.glob("*/*/*.jsonl"))


@cache
def _domain() -> Domain:
    return load_domain(DOMAIN_FILE)


@cache
def _problem(dataset: str, name: str) -> Problem:
    folder = EXAMPLES if dataset == "examples" else EXAMPLES / dataset
    return load_problem(folder / f"{name}.json", _domain())


def _snapshot(env: ReferenceEnv) -> tuple[Any, ...]:
    return (
        env.objects(),
        env.true_predicates(),
        env.special_effects(),
        env.current_player,
        env.goal_reached(),
        env.observation(),
    )


def _check_state(env: ReferenceEnv, header: dict[str, Any], rec: dict[str, Any]) -> None:
    where = f"t={rec['t']}"
    multi = len(header["players"]) > 1
    expected_objects = [tuple(o) for o in rec.get("objects", header["objects"])]
    assert env.objects() == expected_objects, where
    assert env.current_player == rec["current_player"], where
    assert set(env.true_predicates()) == set(rec["true_predicates"]), where
    assert env.special_effects() == rec["special_effects"], where

    texts = env.valid_actions()
    groundings = [[name, list(args)] for name, args in env.valid_groundings()]
    if multi:
        assert Counter(texts) == Counter(rec["valid_actions_str"]), where
        assert sorted(map(json.dumps, groundings)) == sorted(
            map(json.dumps, rec["valid_actions"])
        ), where
    else:
        assert texts == rec["valid_actions_str"], where
        assert groundings == rec["valid_actions"], where

    obs = env.observation()
    objects_part, _, rest = obs.partition("\n\nValid Actions:\n")
    assert objects_part == rec["obs_objects"], where
    if multi:
        actions_part, _, goal = rest.partition("\n\nGoal: ")
        assert Counter(actions_part.split("\n")) == Counter(rec["valid_actions_str"]), where
        assert goal == header["goal_description"], where
    else:
        assert obs == (
            rec["obs_objects"]
            + "\n\nValid Actions:\n"
            + "\n".join(rec["valid_actions_str"])
            + "\n\nGoal: "
            + header["goal_description"]
        ), where
    assert env.goal_reached() == rec["goal_reached"], where


def _check_invalid_attempt(env: ReferenceEnv, rec: dict[str, Any]) -> None:
    attempt = rec["invalid_attempt"]
    assert attempt["state_unchanged"]
    (structured,) = [a for a in attempt["actions"] if a is not None]
    name, args = structured[0], tuple(structured[1])
    assert (name, args) not in env.valid_groundings(), f"t={rec['t']}"
    text = attempt["action_str"]
    before = _snapshot(env)
    if text in env.valid_actions():
        # Another grounding with the same text is valid (templates may omit parameters), so
        # the text alone does not name the rejected action; the structured check above did.
        return
    with pytest.raises(InvalidActionError):
        env.step(text)
    assert _snapshot(env) == before, f"t={rec['t']}: a rejected action changed the state"


def _apply_step(env: ReferenceEnv, rec: dict[str, Any]) -> None:
    step = rec["step"]
    where = f"t={rec['t']}"
    if step["mode"] == "joint":
        env.mode = "simultaneous"
        try:
            _, done, info = env.step(step["actions_str"])
        finally:
            env.mode = "centralized"
        assert info["skipped"] == [], where
    else:
        assert step["mode"] == "current_player_slot", where
        (text,) = [a for a in step["actions_str"] if a is not None]
        _, done, info = env.step(text)
        assert info["skipped"] == [], where
    assert done == step["done"], where


@pytest.mark.parametrize(
    "trace",
    [
        pytest.param(p, id=str(p.relative_to(TRACES).with_suffix("")), marks=pytest.mark.golden)
        for p in TRACE_FILES
    ],
)
def test_replay_matches_recorded_trace(trace: Path) -> None:
    lines = trace.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["record"] == "header"
    domain = _domain()
    assert {a.name: list(a.params) for a in domain.actions} == header["action_params"]
    name = header["env"].split("/")[-1]
    problem = _problem(header["dataset"], name)
    assert list(problem.players) == header["players"]
    assert problem.goal_description == header["goal_description"]

    env = ReferenceEnv(domain, problem, skip_quirk=True)
    env.reset()
    for i, line in enumerate(lines[1:]):
        rec = json.loads(line)
        assert rec["record"] == "state"
        assert rec["t"] == i
        _check_state(env, header, rec)
        if rec.get("invalid_attempt"):
            _check_invalid_attempt(env, rec)
        if rec["step"] is None:
            assert i == len(lines) - 2
            break
        _apply_step(env, rec)


def test_trace_files_present() -> None:
    assert TRACE_FILES, f"no trace files under {TRACES}"


# -- decision D1: the skip quirk (reference Appendix B.2) -----------------------------------

SKIP_QUIRK_ENV = {
    "width": 5,
    "height": 5,
    "stations": [
        {"name": "stove", "x": 0, "y": 1},
        {"name": "stove", "x": 1, "y": 1},
        {"name": "board", "x": 2, "y": 1},
        {"name": "fryer", "x": 3, "y": 1},
    ],
    "items": [
        {"name": "chicken", "x": 0, "y": 1, "stack-level": 0, "predicates": ["iscookable"]},
        {"name": "chicken", "x": 1, "y": 1, "stack-level": 0, "predicates": ["iscookable"]},
        {
            "name": "potato",
            "x": 2,
            "y": 1,
            "stack-level": 0,
            "predicates": ["iscuttable", "isfryableifcut"],
        },
    ],
    "players": [{"name": "robot", "x": 0, "y": 0, "direction": [0, 1]}],
    "goal_description": "x",
    "goal": [{"predicate": "iscooked", "args": ["chicken"], "ids": [1]}],
}

SKIP_QUIRK_PLAN = [
    "Cook chicken1 on stove1 using robot1",
    "Move robot1 from stove1 to stove2",
    "Cook chicken2 on stove2 using robot1",
] + ["Do nothing"] * 4


def _cooked_after(skip_quirk: bool) -> dict[str, int]:
    problem = load_problem(SKIP_QUIRK_ENV, _domain())
    env = ReferenceEnv(_domain(), problem, skip_quirk=skip_quirk)
    env.reset()
    cooked: dict[str, int] = {}
    for t, action in enumerate(SKIP_QUIRK_PLAN, start=1):
        env.step(action)
        for item in ("chicken1", "chicken2"):
            if f"iscooked({item})" in env.true_predicates():
                cooked.setdefault(item, t)
    return cooked


def test_skip_quirk_delays_second_cook() -> None:
    assert _cooked_after(skip_quirk=True) == {"chicken1": 4, "chicken2": 7}


def test_every_timer_ticks_every_step_without_quirk() -> None:
    assert _cooked_after(skip_quirk=False) == {"chicken1": 4, "chicken2": 6}


# -- other behaviour the traces do not exercise ------------------------------------------------

TWO_ROBOTS_ENV = {
    "width": 4,
    "height": 3,
    "stations": [
        {"name": "table", "x": 0, "y": 1},
        {"name": "table", "x": 1, "y": 1},
        {"name": "table", "x": 2, "y": 1, "id": "target"},
    ],
    "items": [{"name": "bread", "x": 0, "y": 1, "stack-level": 0}],
    "players": [
        {"name": "robot", "x": 0, "y": 0, "direction": [0, 1]},
        {"name": "robot", "x": 1, "y": 0, "direction": [0, 1]},
    ],
    "goal_description": "Put the bread on the third table",
    "goal": [{"predicate": "item_on", "args": ["bread", "table"], "ids": [1, "target"]}],
}


def _two_robots(mode: str) -> ReferenceEnv:
    env = ReferenceEnv(_domain(), load_problem(TWO_ROBOTS_ENV, _domain()), mode=mode)
    env.reset()
    return env


def test_centralized_lists_every_robot_and_rotates() -> None:
    env = _two_robots("centralized")
    assert env.valid_actions() == [
        "Move robot1 from table1 to table3",
        "Move robot2 from table2 to table3",
        "Pick up bread1 from table1 using robot1",
        "Do nothing",
    ]
    assert env.valid_actions("robot2") == ["Move robot2 from table2 to table3", "Do nothing"]
    assert env.current_player == "robot1"
    env.step("Move robot2 from table2 to table3")  # any robot may act
    assert env.current_player == "robot2"


def test_turn_based_only_current_robot_acts() -> None:
    env = _two_robots("turn_based")
    assert env.valid_actions() == [
        "Move robot1 from table1 to table3",
        "Pick up bread1 from table1 using robot1",
        "Do nothing",
    ]
    before = env.true_predicates()
    with pytest.raises(InvalidActionError, match="robot1's turn"):
        env.step("Move robot2 from table2 to table3")
    assert env.true_predicates() == before
    env.step("Do nothing")
    assert env.current_player == "robot2"
    assert env.valid_actions() == ["Move robot2 from table2 to table3", "Do nothing"]


def test_simultaneous_conflict_becomes_reported_no_op() -> None:
    env = _two_robots("simultaneous")
    _, done, info = env.step(
        ["Move robot1 from table1 to table3", "Move robot2 from table2 to table3"]
    )
    assert not done
    assert info["skipped"] == ["Move robot2 from table2 to table3"]
    assert "loc(robot1,table3)" in env.true_predicates()
    assert "loc(robot2,table2)" in env.true_predicates()
    # An entry that is not valid for its robot at the start of the step is an error.
    before = env.true_predicates()
    with pytest.raises(InvalidActionError):
        env.step([None, "Move robot2 from table2 to table3"])
    with pytest.raises(InvalidActionError):
        env.step(["Move robot2 from table2 to table1", None])  # robot2's action in robot1's slot
    assert env.true_predicates() == before
    env.step([None, "Move robot2 from table2 to table1"])
    assert "loc(robot2,table1)" in env.true_predicates()


def test_invalid_action_names_first_unmet_precondition() -> None:
    env = _two_robots("centralized")
    before = (env.true_predicates(), env.current_player)
    with pytest.raises(InvalidActionError, match=r"precondition vacant\(table2\) is false"):
        env.step("Move robot1 from table1 to table2")
    with pytest.raises(InvalidActionError, match="no action has this text"):
        env.step("Dance")
    assert (env.true_predicates(), env.current_player) == before


@pytest.mark.parametrize(
    ("goal", "holds"),
    [
        # Two breads (distinct), both at the same table: true.
        ([("item_at", ["bread", "table"], [1, 2]), ("item_at", ["bread", "table"], [3, 2])], True),
        # Two different tables: false, both breads are at table1.
        ([("item_at", ["bread", "table"], [1, 2]), ("item_at", ["bread", "table"], [3, 4])], False),
        # One bread on top of another bread: true (bread2 on bread1).
        ([("atop", ["bread", "bread"], [1, 2])], True),
        # Numeric ids resolve by first occurrence across args: the table's id 2 names bread
        # variable 2, an item in a station slot, so the item_at atom can never hold.
        ([("atop", ["bread", "bread"], [1, 2]), ("item_at", ["bread", "table"], [1, 2])], False),
        # A name with no entity gets synthesized candidates that do not exist: false.
        ([("item_at", ["cheese", "table"], [1, 2])], False),
        # Fewer candidates than ids: false.
        ([("clear", ["bread"], [1]), ("clear", ["bread"], [2]), ("clear", ["bread"], [3])], False),
    ],
)
def test_goal_matcher(goal: list[tuple[str, list[str], list[int]]], holds: bool) -> None:
    env_doc = {
        "width": 3,
        "height": 3,
        "stations": [{"name": "table", "x": 0, "y": 1}, {"name": "table", "x": 1, "y": 1}],
        "items": [
            {"name": "bread", "x": 0, "y": 1, "stack-level": 0},
            {"name": "bread", "x": 0, "y": 1, "stack-level": 1},
        ],
        "players": [{"name": "robot", "x": 1, "y": 0, "direction": [0, 1]}],
        "goal_description": "x",
        "goal": [{"predicate": p, "args": a, "ids": i} for p, a, i in goal],
    }
    env = ReferenceEnv(_domain(), load_problem(env_doc, _domain()))
    assert env.goal_reached() is holds


def _domain_doc() -> dict[str, Any]:
    return json.loads(DOMAIN_FILE.read_text(encoding="utf-8"))


def test_durations_from_config() -> None:
    doc = _domain_doc()
    (cook,) = [a for a in doc["action_defs"] if a["name"] == "cook"]
    (delayed,) = cook["sfx"][0]["sfx"]
    assert delayed["type"] == "delayed"
    delayed["duration"] = {"config": "cook_time"}
    domain = load_domain(doc)
    env_doc = {
        "width": 3,
        "height": 3,
        "config": {"cook_time": {"patty": 5, "default": 2}},
        "stations": [{"name": "stove", "x": 0, "y": 1}, {"name": "stove", "x": 1, "y": 1}],
        "items": [
            {"name": "patty", "x": 0, "y": 1, "stack-level": 0, "predicates": ["iscookable"]},
            {"name": "chicken", "x": 1, "y": 1, "stack-level": 0, "predicates": ["iscookable"]},
        ],
        "players": [{"name": "robot", "x": 0, "y": 0, "direction": [0, 1]}],
        "goal_description": "x",
        "goal": [{"predicate": "iscooked", "args": ["patty"], "ids": [1]}],
    }
    env = ReferenceEnv(domain, load_problem(env_doc, domain))
    env.reset()
    env.step("Cook patty1 on stove1 using robot1")
    env.step("Move robot1 from stove1 to stove2")
    env.step("Cook chicken1 on stove2 using robot1")
    done_at: dict[str, int] = {}
    for t in range(4, 9):
        env.step("Do nothing")
        for item in ("patty1", "chicken1"):
            if f"iscooked({item})" in env.true_predicates():
                done_at.setdefault(item, t)
    # Visible N steps after the action: patty (N=5) at 1+5, chicken (default N=2) at 3+2.
    assert done_at == {"patty1": 6, "chicken1": 5}


def test_deletion_removes_object_and_its_atoms() -> None:
    doc = _domain_doc()
    doc["action_defs"].insert(
        -1,
        {
            "name": "discard",
            "precons": [{"predicate": "has_item", "params": ["p1", "i1"], "is_true": True}],
            "immediate_fx": [{"predicate": "nothing", "params": ["p1"], "is_true": True}],
            "sfx": [
                {
                    "type": "deletion",
                    "param": "i1",
                    # Mentions the deleted object: a no-op once it is gone.
                    "fx": [{"predicate": "has_item", "params": ["p1", "i1"], "is_true": False}],
                    "sfx": [],
                }
            ],
            "language_description": "Discard {i1} using {p1}",
        },
    )
    domain = load_domain(doc)
    env = ReferenceEnv(domain, load_problem(TWO_ROBOTS_ENV, domain))
    env.reset()
    env.step("Pick up bread1 from table1 using robot1")
    obs, _, _ = env.step("Discard bread1 using robot1")
    assert "bread1" not in [name for name, _ in env.objects()]
    assert not any("bread1" in atom for atom in env.true_predicates())
    assert "nothing(robot1)" in env.true_predicates()
    assert "Item bread1:" not in obs
    assert env.special_effects() == []
    assert not env.goal_reached()
