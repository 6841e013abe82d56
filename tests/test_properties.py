"""Property tests: the compiled engine against the pure-Python reference interpreter.

Random small domains and environments (``robotouille.testing.strategies``: all five special
effect kinds, nested up to depth 3, durations, creation and deletion, goals with variables) are
loaded both by ``robotouille.load`` and by ``ReferenceEnv``; random action sequences (valid
actions drawn from the reference, sometimes an invalid one) are stepped in lockstep in the three
modes of decision D3, and after every step both must agree on the true predicates, the valid
actions (as lists, in canonical order), the observation text, the goal, the objects, the current
robot and the rejection of invalid actions (state unchanged). Creation beyond the engine's pool
(decision D7) must raise ``CapacityError`` exactly when the reference creates an object the pool
does not hold.

Properties of the engine alone: fact bits beyond ``num_facts`` stay zero, ``get_state`` /
``set_state`` round trips reproduce the observation, and replaying the same actions after
``reset`` reproduces the same states bit for bit.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robotouille
from robotouille import CapacityError, InvalidActionError
from robotouille.domain import load_domain
from robotouille.problem import load_problem
from robotouille.testing.reference import ReferenceEnv
from robotouille.testing.strategies import domains_and_environments

MODES = ("centralized", "turn_based", "simultaneous")
MIN_STEPS = 4
MAX_STEPS = 30
NONSENSE = "Juggle the moon"

SETTINGS = settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)

Action = str | list[str | None]


@dataclass
class Episode:
    """An engine environment and the reference interpreter of the same problem."""

    env: robotouille.Env
    ref: ReferenceEnv
    mode: str
    accepted: list[Action] = field(default_factory=list)
    states: list[robotouille.EnvState] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)


def _start(case: tuple[dict[str, Any], dict[str, Any]], mode: str, pool_size: int) -> Episode:
    domain_doc, env_doc = case
    domain = load_domain(domain_doc)
    problem = load_problem(env_doc, domain)
    ref = ReferenceEnv(domain, problem, mode=mode)
    env = robotouille.load(env_doc, domain_doc, mode=mode, pool_size=pool_size)  # type: ignore[arg-type]
    ep = Episode(env, ref, mode)
    ep.states.append(env.get_state())
    ep.observations.append(env.observation())
    return ep


def _padding_is_zero(env: robotouille.Env) -> None:
    words = env.get_state().words
    bits = np.unpackbits(words.view(np.uint8), bitorder="little")
    assert not bits[env.task.num_facts :].any(), "fact bits beyond num_facts are set"


def _diff(engine: str | list[str], reference: str | list[str]) -> str:
    """A unified diff, reference -> engine, of two texts or lists of lines."""
    a = reference.splitlines() if isinstance(reference, str) else reference
    b = engine.splitlines() if isinstance(engine, str) else engine
    return "\n" + "\n".join(difflib.unified_diff(a, b, "reference", "engine", lineterm=""))


def _assert_same(ep: Episode, where: str) -> None:
    env, ref = ep.env, ep.ref
    assert env.objects() == ref.objects(), f"{where}: {env.objects()} != {ref.objects()}"
    engine_true, ref_true = set(env.true_predicates()), set(ref.true_predicates())
    assert engine_true == ref_true, (
        f"{where}: only engine {sorted(engine_true - ref_true)}, "
        f"only reference {sorted(ref_true - engine_true)}"
    )
    valid = ref.valid_actions()
    assert env.valid_actions() == valid, f"{where}: {_diff(env.valid_actions(), valid)}"
    for robot in env.robots:
        mine = ref.valid_actions(robot)
        theirs = env.valid_actions(robot)
        assert theirs == mine, f"{where}, {robot}: {_diff(theirs, mine)}"
    assert env.observation() == ref.observation(), (
        f"{where}: {_diff(env.observation(), ref.observation())}"
    )
    assert env.goal_reached() == ref.goal_reached(), f"{where}: goal {env.goal_reached()}"
    assert env.current_robot == ref.current_player, where
    _padding_is_zero(env)


def _snapshot(ep: Episode) -> tuple[Any, ...]:
    state = ep.env.get_state()
    return (
        state.words.tobytes(),
        state.counters.tobytes(),
        ep.env.observation(),
        ep.ref.observation(),
        ep.ref.special_effects(),
        ep.ref.current_player,
    )


def _invalid_text(data: st.DataObject, ep: Episode, valid: list[str]) -> str:
    """The text of some grounding that is not valid here (or a text no action has)."""
    texts = sorted({g.text for g in ep.ref._groundings()} - set(valid))
    return data.draw(st.sampled_from([*texts, NONSENSE]), label="invalid action")


def _draw_action(data: st.DataObject, ep: Episode) -> Action:
    ref = ep.ref
    # Repeating the last action lets repetitive effects complete and re-activates instances.
    if ep.accepted and data.draw(st.integers(0, 3), label="repeat?") == 0:
        last = ep.accepted[-1]
        if isinstance(last, str) and last in ref.valid_actions():
            return last
        if isinstance(last, list) and all(
            a is None or a in ref.valid_actions(r) for a, r in zip(last, ep.env.robots)
        ):
            return last
    if ep.mode == "simultaneous":
        entries: list[str | None] = []
        for robot in ep.env.robots:
            valid = ref.valid_actions(robot)
            roll = data.draw(st.integers(0, 19), label=f"kind of {robot}'s action")
            if roll == 0:
                entries.append(None)
            elif roll == 1:
                entries.append(_invalid_text(data, ep, valid))
            else:
                entries.append(data.draw(st.sampled_from(valid), label=f"{robot}'s action"))
        return entries
    valid = ref.valid_actions()
    if data.draw(st.integers(0, 9), label="kind of action") == 0:
        return _invalid_text(data, ep, valid)
    return data.draw(st.sampled_from(valid), label="action")


def _pool_names(env: robotouille.Env) -> set[str]:
    return {o.name for o in env.task.objects}


def _step(ep: Episode, action: Action, where: str) -> bool:
    """Steps both; returns False when the episode must stop (the engine's pool ran out)."""
    env, ref = ep.env, ep.ref
    before = _snapshot(ep)
    ref_error: InvalidActionError | None = None
    ref_out: tuple[str, bool, dict[str, Any]] | None = None
    try:
        ref_out = ref.step(action)
    except InvalidActionError as exc:
        ref_error = exc
    try:
        _, reward, terminated, truncated, info = env.step(action)
    except CapacityError:
        assert ref_error is None, f"{where}: CapacityError for an invalid action"
        beyond = {name for name, _ in ref.objects()} - _pool_names(env)
        assert beyond, f"{where}: CapacityError, but the reference stayed within the pool"
        state = env.get_state()
        assert (state.words.tobytes(), state.counters.tobytes()) == before[:2], where
        return False
    except InvalidActionError:
        assert ref_error is not None, f"{where}: the engine rejected {action!r}"
        assert _snapshot(ep) == before, f"{where}: a rejected action changed the state"
        return True
    assert ref_error is None, f"{where}: the engine accepted {action!r}: {ref_error}"
    assert ref_out is not None
    _, done, ref_info = ref_out
    assert terminated == done, where
    assert reward == (1.0 if done else 0.0), where
    assert not truncated, where
    assert info["valid_actions"] == ref.valid_actions(), where
    if ep.mode == "simultaneous":
        assert info["skipped"] == ref_info["skipped"], where
    _assert_same(ep, where)
    ep.accepted.append(action)
    ep.states.append(env.get_state())
    ep.observations.append(env.observation())
    return True


def _check_engine_alone(data: st.DataObject, ep: Episode) -> None:
    env = ep.env
    # get_state / set_state round trip, to a random earlier state and back to the last one.
    k = data.draw(st.integers(0, len(ep.states) - 1), label="state to restore")
    env.set_state(ep.states[k])
    assert env.observation() == ep.observations[k]
    env.set_state(ep.states[-1])
    assert env.observation() == ep.observations[-1]
    # Determinism: the same actions from a reset give the same states, bit for bit.
    obs, _ = env.reset()
    assert obs == ep.observations[0]
    for i, action in enumerate(ep.accepted, start=1):
        env.step(action)
        state = env.get_state()
        assert np.array_equal(state.words, ep.states[i].words), f"replay step {i}"
        assert np.array_equal(state.counters, ep.states[i].counters), f"replay step {i}"
        assert env.observation() == ep.observations[i], f"replay step {i}"
        _padding_is_zero(env)


# Hypothesis' failure report imports libcst, which triggers this warning (an error under our
# filterwarnings) and would hide the falsifying example behind an INTERNALERROR.
@pytest.mark.filterwarnings("ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning")
@SETTINGS
@given(
    case=domains_and_environments(),
    mode=st.sampled_from(MODES),
    pool_size=st.sampled_from([8, 8, 8, 2, 0]),
    data=st.data(),
)
def test_engine_matches_reference(
    case: tuple[dict[str, Any], dict[str, Any]], mode: str, pool_size: int, data: st.DataObject
) -> None:
    ep = _start(case, mode, pool_size)
    _assert_same(ep, "initial state")
    steps = data.draw(st.integers(MIN_STEPS, MAX_STEPS), label="steps")
    for t in range(1, steps + 1):
        action = _draw_action(data, ep)
        if not _step(ep, action, f"step {t} ({action!r})"):
            break
    _check_engine_alone(data, ep)


# -- fixed disagreements, as explicit examples -----------------------------------------------


def _pred(name: str, *types: str) -> dict[str, Any]:
    descriptors = {
        str(k): f"{{{k}}} {name} " + " ".join(f"{{{j}}}" for j in range(len(types)))
        for k in range(len(types))
    }
    return {"name": name, "param_types": list(types), "language_descriptors": descriptors}


def _lit(pred: str, *params: str, value: bool = True) -> dict[str, Any]:
    return {"predicate": pred, "params": list(params), "is_true": value}


def _action(name: str, text: str, precons: list[Any], sfx: list[Any], fx: Any = ()) -> Any:
    return {
        "name": name,
        "precons": precons,
        "immediate_fx": list(fx),
        "sfx": sfx,
        "language_description": text,
    }


WAIT = _action("wait", "Do nothing", [], [])


def _tool_domain(
    *actions: dict[str, Any],
    types: tuple[str, ...] = ("station", "player", "tool"),
    extra: tuple[dict[str, Any], ...] = (),
) -> dict[str, Any]:
    """A domain with a table, robots and tools (knife, whisk; creation makes blob, goo)."""
    return {
        "object_types": list(types),
        "predicate_defs": [
            _pred("loc", "player", "station"),
            _pred("vacant", "station"),
            _pred("nothing", "player"),
            _pred("station_empty", "station"),
            _pred("istable", "station"),
            _pred("isrobot", "player"),
            _pred("isknife", "tool"),
            _pred("iswhisk", "tool"),
            _pred("isblob", "tool"),
            _pred("isgoo", "tool"),
            _pred("hot", "player"),
            _pred("rel", "tool", "tool"),
            *extra,
        ],
        "action_defs": [*actions, WAIT],
    }


def _tool_env(tools: tuple[str, ...] = ("knife",), robots: int = 1) -> dict[str, Any]:
    return {
        "width": 4,
        "height": 3,
        "stations": [{"name": "table", "x": k, "y": 0} for k in range(2)],
        "players": [{"name": "robot", "x": k, "y": 1, "direction": [0, -1]} for k in range(robots)],
        "tools": [{"name": t, "x": 3, "y": 2} for t in tools],
        "goal_description": "Make a blob",
        "goal": [{"predicate": "isblob", "args": ["blob"], "ids": [1]}],
    }


def _creation(base: str, fx: list[Any], sfx: Any = (), param: str = "p1") -> dict[str, Any]:
    return {
        "type": "creation",
        "param": param,
        "created_obj": {"name": base, "type": "tool", "param": "new"},
        "fx": fx,
        "sfx": list(sfx),
    }


def _run_script(
    domain: dict[str, Any],
    env: dict[str, Any],
    actions: list[Action],
    *,
    mode: str = "centralized",
    pool_size: int = 4,
) -> Episode:
    ep = _start((domain, env), mode, pool_size)
    _assert_same(ep, "initial state")
    for t, action in enumerate(actions, start=1):
        assert _step(ep, action, f"step {t} ({action!r})")
    return ep


MAKE = _action(
    "make", "Make with {p1}", [_lit("isrobot", "p1")], [_creation("blob", [_lit("isblob", "new")])]
)


def test_where_the_created_object_occurs_is_part_of_the_effect_identity() -> None:
    # Before the fix, rel(new, t1) and rel(t1, new) compiled to one template (equal fact columns
    # without the created term), so "B knife1" set rel(blob1,knife1).
    domain = _tool_domain(
        _action(
            "a",
            "A {t1}",
            [_lit("isknife", "t1")],
            [_creation("blob", [_lit("rel", "new", "t1")], param="t1")],
        ),
        _action(
            "b",
            "B {t1}",
            [_lit("isknife", "t1")],
            [_creation("blob", [_lit("rel", "t1", "new")], param="t1")],
        ),
    )
    ep = _run_script(domain, _tool_env(), ["B knife1", "A knife1"])
    assert {"rel(knife1,blob1)", "rel(blob2,knife1)"} <= set(ep.env.true_predicates())


def test_created_objects_can_be_deleted() -> None:
    drop = _action(
        "drop", "Drop {t1}", [_lit("isblob", "t1")], [{"type": "deletion", "param": "t1", "fx": []}]
    )
    ep = _run_script(
        _tool_domain(MAKE, drop),
        _tool_env(),
        ["Make with robot1", "Make with robot1", "Drop blob1", "Make with robot1"],
    )
    assert [name for name, _ in ep.env.objects()][-2:] == ["blob2", "blob3"]


def test_a_type_without_objects_and_an_empty_pool_compiles() -> None:
    # The created literal shiny(new) has no fact at all when no tool can ever exist; as the
    # last predicate, its fact index was out of range and the task was rejected.
    make = _action(
        "make",
        "Make with {p1}",
        [_lit("isrobot", "p1")],
        [_creation("blob", [_lit("shiny", "new")])],
    )
    domain = _tool_domain(make, extra=(_pred("shiny", "tool"),))
    ep = _run_script(domain, _tool_env(tools=()), [], pool_size=0)
    with pytest.raises(CapacityError):
        ep.env.step("Make with robot1")


def test_a_creation_that_never_completes_creates_and_labels_an_object_every_step() -> None:
    never = {"type": "conditional", "param": "p1", "conditions": [_lit("hot", "p1")], "fx": []}
    domain = _tool_domain(
        _action(
            "make",
            "Make with {p1}",
            [_lit("isrobot", "p1")],
            [_creation("blob", [_lit("isblob", "new")], [never])],
        )
    )
    ep = _run_script(
        domain, _tool_env(), ["Make with robot1", "Do nothing", "Make with robot1"], pool_size=8
    )
    blobs = [p for p in ep.env.true_predicates() if p.startswith("isblob")]
    assert blobs == [f"isblob(blob{k})" for k in range(1, 6)]


def test_an_object_without_true_predicates_keeps_the_newline_after_its_header() -> None:
    domain = _tool_domain(
        _action("make", "Make with {p1}", [_lit("isrobot", "p1")], [_creation("goo", [])])
    )
    ep = _run_script(domain, _tool_env(), ["Make with robot1"])
    assert "\n\nTool goo1:\n\n\nValid Actions:\n" in ep.env.observation()


def test_a_simultaneous_action_over_an_object_deleted_earlier_in_the_step_is_skipped() -> None:
    domain = _tool_domain(
        # No precondition mentions the robots, so only their existence makes "zap" valid.
        _action(
            "zap",
            "{p1} zaps {p2}",
            [],
            [{"type": "deletion", "param": "p2", "fx": []}],
            fx=[_lit("hot", "p1"), _lit("hot", "p2")],
        ),
    )
    ep = _run_script(
        domain,
        _tool_env(robots=2),
        [["robot1 zaps robot2", "robot2 zaps robot1"]],
        mode="simultaneous",
    )
    assert [name for name, _ in ep.env.objects()] == ["table1", "table2", "robot1", "knife1"]


def test_a_simultaneous_entry_must_be_valid_at_the_start_of_the_step() -> None:
    # robot2's "cook" becomes valid only through robot1's "warm" in the same step: the engine
    # used to apply it; both now reject the step and leave the state unchanged.
    warm = _action(
        "warm",
        "{p1} warms {p2}",
        [_lit("isrobot", "p1"), _lit("isrobot", "p2")],
        [],
        fx=[_lit("hot", "p2")],
    )
    cook = _action(
        "cook", "{p1} cooks", [_lit("hot", "p1")], [], fx=[_lit("hot", "p1", value=False)]
    )
    domain = _tool_domain(warm, cook)
    ep = _run_script(
        domain, _tool_env(robots=2), [["robot1 warms robot2", "robot2 cooks"]], mode="simultaneous"
    )
    assert ep.accepted == []


def test_deletions_of_different_objects_are_different_instances() -> None:
    # Same arg (the robot), same fx; only the deleted station differs.
    later = {
        "type": "delayed",
        "param": "p1",
        "fx": [],
        "sfx": [{"type": "deletion", "param": "s1", "fx": []}],
    }
    domain = _tool_domain(
        _action(
            "clear", "{p1} clears {s1}", [_lit("isrobot", "p1"), _lit("istable", "s1")], [later]
        ),
    )
    ep = _run_script(
        domain,
        _tool_env(),
        ["robot1 clears table1", "robot1 clears table2", "Do nothing", "Do nothing", "Do nothing"],
    )
    assert [t for t, _ in ep.env.objects() if t.startswith("table")] == []


# -- object order follows creation order (decision D7: created objects are appended) -----------


def test_objects_of_two_creation_groups_are_listed_in_creation_order() -> None:
    domain = _tool_domain(
        MAKE,
        _action(
            "brew",
            "Brew with {p1}",
            [_lit("isrobot", "p1")],
            [_creation("goo", [_lit("isgoo", "new")])],
        ),
    )
    _run_script(domain, _tool_env(), ["Make with robot1", "Brew with robot1", "Make with robot1"])


def test_a_recreated_initial_name_is_appended() -> None:
    drop = _action(
        "drop", "Drop {t1}", [_lit("isblob", "t1")], [{"type": "deletion", "param": "t1", "fx": []}]
    )
    _run_script(
        _tool_domain(MAKE, drop),
        _tool_env(tools=("blob", "knife")),
        ["Drop blob1", "Make with robot1"],
    )
