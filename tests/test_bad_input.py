"""Bad input: malformed domain and environment files, and invalid actions (decision D8).

Every malformed file must give a :class:`robotouille.SpecError` naming the file, the JSON path
and the problem -- never another exception, a hang or a half-built env. Invalid actions raise
:class:`robotouille.InvalidActionError` (or give ``info["feedback"]``) and leave the state as it
was.

The tests start from our own domain and the ``cheese_sandwich`` task and apply one mutation each.
"""

from __future__ import annotations

import contextlib
import copy
import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robotouille
from robotouille import InvalidActionError, SpecError

# Hypothesis imports libcst to print a patch when a test fails; libcst triggers a
# DeprecationWarning, which ``filterwarnings = error`` turns into an INTERNALERROR that hides the
# failing example. Import it once here with that warning silenced.
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.simplefilter("ignore", DeprecationWarning)
    import hypothesis.extra._patching  # noqa: F401

REPO = Path(__file__).resolve().parents[1]
DOMAIN_FILE = REPO / "domains" / "robotouille" / "domain.json"
ENV_FILE = REPO / "domains" / "robotouille" / "tasks" / "cheese_sandwich.json"

DOMAIN: dict[str, Any] = json.loads(DOMAIN_FILE.read_text(encoding="utf-8"))
ENV: dict[str, Any] = json.loads(ENV_FILE.read_text(encoding="utf-8"))

P = {p["name"]: i for i, p in enumerate(DOMAIN["predicate_defs"])}
A = {a["name"]: i for i, a in enumerate(DOMAIN["action_defs"])}
N_PRED = len(DOMAIN["predicate_defs"])
N_ACT = len(DOMAIN["action_defs"])

DOMAIN_DICT = "<domain dict>"
ENV_DICT = "<environment dict>"

Mutation = Callable[[dict[str, Any]], None]


def _get(doc: Any, path: str) -> Any:
    """The value at a JSON path such as ``action_defs[5].sfx[0]`` (keys without dots)."""
    cur = doc
    for part in path.replace("[", ".[").split("."):
        if not part:
            continue
        cur = cur[int(part[1:-1])] if part.startswith("[") else cur[part]
    return cur


def _set(path: str, value: Any) -> Mutation:
    """A mutation that sets the member or element at ``path`` to ``value``."""
    parent, _, last = path.rpartition(".")
    if last.endswith("]") and "[" in last:
        parent = f"{parent}.{last[: last.index('[')]}" if parent else last[: last.index("[")]
        last = last[last.index("[") :]

    def apply(doc: dict[str, Any]) -> None:
        container = _get(doc, parent)
        if last.startswith("["):
            container[int(last[1:-1])] = copy.deepcopy(value)
        else:
            container[last] = copy.deepcopy(value)

    return apply


def _del(path: str) -> Mutation:
    """A mutation that removes the member ``path`` (an object key)."""
    parent, _, last = path.rpartition(".")

    def apply(doc: dict[str, Any]) -> None:
        del _get(doc, parent)[last]

    return apply


def _append(path: str, value_of: Callable[[dict[str, Any]], Any]) -> Mutation:
    """A mutation that appends ``value_of(doc)`` to the array at ``path``."""

    def apply(doc: dict[str, Any]) -> None:
        _get(doc, path).append(copy.deepcopy(value_of(doc)))

    return apply


def _then(*mutations: Mutation) -> Mutation:
    def apply(doc: dict[str, Any]) -> None:
        for m in mutations:
            m(doc)

    return apply


def _raises_spec_error(call: Callable[[], Any]) -> SpecError:
    with pytest.raises(SpecError) as info:
        call()
    return info.value


def _check(err: SpecError, source: str, path: str, fragment: str) -> None:
    assert err.source == source, str(err)
    assert err.path == path, str(err)
    assert fragment in err.problem, str(err)
    # The message names all three.
    assert source in str(err) and path in str(err) and fragment in str(err)


# -- files -------------------------------------------------------------------------------------


FILE_CASES = [
    ("not_json", b"{ this is not json", "invalid JSON at line 1"),
    ("truncated", b'{"object_types": ["station"', "invalid JSON"),
    ("empty", b"", "invalid JSON"),
    ("array", b"[1, 2, 3]", "must hold a JSON object"),
    ("string", b'"domain"', "must hold a JSON object"),
    ("null", b"null", "must hold a JSON object"),
    ("not_utf8", b'{"name": "\xff\xfe"}', "UTF-8"),
]


@pytest.mark.parametrize(
    ("content", "fragment"), [c[1:] for c in FILE_CASES], ids=[c[0] for c in FILE_CASES]
)
@pytest.mark.parametrize("which", ["domain", "environment"])
def test_bad_file(tmp_path: Path, which: str, content: bytes, fragment: str) -> None:
    bad = tmp_path / f"{which}.json"
    bad.write_bytes(content)
    if which == "domain":
        err = _raises_spec_error(lambda: robotouille.load(ENV_FILE, bad))
    else:
        err = _raises_spec_error(lambda: robotouille.load(bad, DOMAIN_FILE))
    _check(err, str(bad), "", fragment)
    assert str(err).startswith(f"{bad}: ")


@pytest.mark.parametrize("which", ["domain", "environment"])
def test_missing_file(tmp_path: Path, which: str) -> None:
    missing = tmp_path / "no_such_file.json"
    if which == "domain":
        err = _raises_spec_error(lambda: robotouille.load(ENV_FILE, missing))
    else:
        err = _raises_spec_error(lambda: robotouille.load(missing, DOMAIN_FILE))
    _check(err, str(missing), "", f"cannot read {which} file")


def test_directory_is_not_a_file(tmp_path: Path) -> None:
    err = _raises_spec_error(lambda: robotouille.load(tmp_path, DOMAIN_FILE))
    _check(err, str(tmp_path), "", "cannot read environment file")


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    """A mistake inside a file is reported with the file's path as the source."""
    env = copy.deepcopy(ENV)
    del env["players"]
    env_path = tmp_path / "env.json"
    env_path.write_text(json.dumps(env), encoding="utf-8")
    err = _raises_spec_error(lambda: robotouille.load(env_path, DOMAIN_FILE))
    _check(err, str(env_path), "players", "required key is missing")

    domain = copy.deepcopy(DOMAIN)
    domain["action_defs"][A["cook"]]["precons"][2]["predicate"] = "iscokable"
    domain_path = tmp_path / "domain.json"
    domain_path.write_text(json.dumps(domain), encoding="utf-8")
    err = _raises_spec_error(lambda: robotouille.load(ENV_FILE, domain_path))
    _check(
        err,
        str(domain_path),
        f"action_defs[{A['cook']}].precons[2].predicate",
        "unknown predicate 'iscokable'",
    )
    assert str(err) == (
        f"{domain_path}: action_defs[{A['cook']}].precons[2].predicate: "
        "unknown predicate 'iscokable'"
    )


# -- domain ------------------------------------------------------------------------------------

COOK = f"action_defs[{A['cook']}]"
CUT = f"action_defs[{A['cut']}]"
MOVE = f"action_defs[{A['move']}]"
FILL = f"action_defs[{A['fill-pot']}]"
CREATION = f"{FILL}.sfx[0].sfx[0].sfx[0]"
LOC = f"predicate_defs[{P['loc']}]"
ISTABLE = f"predicate_defs[{P['istable']}]"

# (id, mutation, path, message fragment)
DOMAIN_CASES: list[tuple[str, Mutation, str, str]] = [
    # top level
    ("missing_object_types", _del(".object_types"), "object_types", "required key is missing"),
    (
        "missing_predicate_defs",
        _del(".predicate_defs"),
        "predicate_defs",
        "required key is missing",
    ),
    ("missing_action_defs", _del(".action_defs"), "action_defs", "required key is missing"),
    (
        "object_types_not_array",
        _set("object_types", "station"),
        "object_types",
        "expected a JSON array",
    ),
    ("object_types_empty", _set("object_types", []), "object_types", "at least one object type"),
    (
        "object_type_twice",
        _append("object_types", lambda d: "item"),
        "object_types[5]",
        "listed twice",
    ),
    (
        "object_type_not_string",
        _set("object_types[1]", 7),
        "object_types[1]",
        "expected a non-empty string",
    ),
    (
        "predicate_defs_not_array",
        _set("predicate_defs", {}),
        "predicate_defs",
        "expected a JSON array",
    ),
    ("action_defs_not_array", _set("action_defs", None), "action_defs", "expected a JSON array"),
    # predicate definitions
    (
        "predicate_not_object",
        _set("predicate_defs[3]", "isfryer"),
        "predicate_defs[3]",
        "expected a JSON object",
    ),
    (
        "predicate_without_name",
        _del(f"{ISTABLE}.name"),
        f"{ISTABLE}.name",
        "required key is missing",
    ),
    (
        "unknown_object_type",
        _set(f"{LOC}.param_types[1]", "stationn"),
        f"{LOC}.param_types[1]",
        "unknown object type 'stationn'",
    ),
    (
        "param_types_not_array",
        _set(f"{LOC}.param_types", "player"),
        f"{LOC}.param_types",
        "expected a JSON array",
    ),
    (
        "predicate_without_parameters",
        _append(
            "predicate_defs",
            lambda d: {"name": "raining", "param_types": [], "language_descriptors": {}},
        ),
        f"predicate_defs[{N_PRED}].param_types",
        "a predicate needs at least one parameter",
    ),
    (
        "duplicate_predicate",
        _append("predicate_defs", lambda d: d["predicate_defs"][P["loc"]]),
        f"predicate_defs[{N_PRED}].name",
        "predicate 'loc' is defined twice",
    ),
    (
        "descriptors_not_object",
        _set(f"{LOC}.language_descriptors", ["{0} is at {1}"]),
        f"{LOC}.language_descriptors",
        "expected an object",
    ),
    (
        "descriptor_key_out_of_range",
        _set(f"{ISTABLE}.language_descriptors.1", "{0} is a table"),
        f"{ISTABLE}.language_descriptors.1",
        "key '1' is not an argument position of 'istable'",
    ),
    (
        "descriptor_key_not_a_number",
        _set(f"{ISTABLE}.language_descriptors.first", "x"),
        f"{ISTABLE}.language_descriptors.first",
        "not an argument position",
    ),
    (
        "descriptor_key_superscript",
        _set(f"{ISTABLE}.language_descriptors.\u00b2", "x"),
        f"{ISTABLE}.language_descriptors.\u00b2",
        "not an argument position",
    ),
    (
        "descriptor_missing_position",
        _del(f"{LOC}.language_descriptors.1"),
        f"{LOC}.language_descriptors",
        "no template for argument position 1",
    ),
    (
        "descriptor_field_out_of_range",
        _set(f"{LOC}.language_descriptors.0", "{0} is at {2}"),
        f"{LOC}.language_descriptors.0",
        "template field {2} is not an argument position",
    ),
    (
        "descriptor_field_named",
        _set(f"{LOC}.language_descriptors.0", "{p1} is at {1}"),
        f"{LOC}.language_descriptors.0",
        "template field {p1}",
    ),
    (
        "descriptor_not_string",
        _set(f"{LOC}.language_descriptors.0", 3),
        f"{LOC}.language_descriptors.0",
        "expected a non-empty string",
    ),
    # action definitions
    (
        "action_not_object",
        _set(f"action_defs[{A['wait']}]", "wait"),
        f"action_defs[{A['wait']}]",
        "expected a JSON object",
    ),
    ("action_without_name", _del(f"{MOVE}.name"), f"{MOVE}.name", "required key is missing"),
    (
        "duplicate_action",
        _append("action_defs", lambda d: d["action_defs"][A["move"]]),
        f"action_defs[{N_ACT}].name",
        "action 'move' is defined twice",
    ),
    ("precons_not_array", _set(f"{MOVE}.precons", {}), f"{MOVE}.precons", "expected a JSON array"),
    (
        "literal_not_object",
        _set(f"{MOVE}.precons[0]", "loc"),
        f"{MOVE}.precons[0]",
        "expected a JSON object",
    ),
    (
        "unknown_predicate_in_precons",
        _set(f"{COOK}.precons[2].predicate", "iscokable"),
        f"{COOK}.precons[2].predicate",
        "unknown predicate 'iscokable'",
    ),
    (
        "unknown_predicate_in_immediate_fx",
        _set(f"{MOVE}.immediate_fx[3].predicate", "vacnt"),
        f"{MOVE}.immediate_fx[3].predicate",
        "unknown predicate 'vacnt'",
    ),
    (
        "unknown_predicate_in_sfx_fx",
        _set(f"{COOK}.sfx[0].fx[0].predicate", "is_cooking"),
        f"{COOK}.sfx[0].fx[0].predicate",
        "unknown predicate 'is_cooking'",
    ),
    (
        "unknown_predicate_in_nested_sfx_fx",
        _set(f"{COOK}.sfx[0].sfx[0].fx[1].predicate", "x"),
        f"{COOK}.sfx[0].sfx[0].fx[1].predicate",
        "unknown predicate 'x'",
    ),
    (
        "unknown_predicate_in_conditions",
        _set(f"{CUT}.sfx[1].conditions[1].predicate", "is_cut"),
        f"{CUT}.sfx[1].conditions[1].predicate",
        "unknown predicate 'is_cut'",
    ),
    (
        "predicate_not_string",
        _set(f"{MOVE}.precons[1].predicate", ["vacant"]),
        f"{MOVE}.precons[1].predicate",
        "expected a non-empty string",
    ),
    (
        "literal_without_params",
        _del(f"{MOVE}.precons[1].params"),
        f"{MOVE}.precons[1].params",
        "required key is missing",
    ),
    (
        "literal_without_is_true",
        _del(f"{MOVE}.precons[1].is_true"),
        f"{MOVE}.precons[1].is_true",
        "required key is missing",
    ),
    (
        "is_true_not_bool",
        _set(f"{MOVE}.precons[1].is_true", "true"),
        f"{MOVE}.precons[1].is_true",
        "expected true or false",
    ),
    (
        "arity_too_many",
        _set(f"{MOVE}.precons[1].params", ["s2", "s1"]),
        f"{MOVE}.precons[1].params",
        "'vacant' takes 1 argument(s), got 2",
    ),
    (
        "arity_too_few",
        _set(f"{COOK}.precons[3].params", ["i1"]),
        f"{COOK}.precons[3].params",
        "'item_on' takes 2 argument(s), got 1",
    ),
    (
        "arity_in_sfx_fx",
        _set(f"{COOK}.sfx[0].sfx[0].fx[0].params", []),
        f"{COOK}.sfx[0].sfx[0].fx[0].params",
        "'iscooked' takes 1 argument(s), got 0",
    ),
    (
        "placeholder_not_string",
        _set(f"{MOVE}.precons[1].params[0]", 2),
        f"{MOVE}.precons[1].params[0]",
        "expected a non-empty string",
    ),
    # p1 is typed player by loc(p1, s1); vacant wants a station.
    (
        "type_mismatch_between_literals",
        _set(f"{MOVE}.precons[1].params", ["p1"]),
        f"{MOVE}.precons[1].params[0]",
        "placeholder 'p1' is a player",
    ),
    (
        "type_mismatch_in_immediate_fx",
        _set(f"{MOVE}.immediate_fx[0].params", ["s2", "p1"]),
        f"{MOVE}.immediate_fx[0].params[0]",
        "'loc' expects a player at position 0",
    ),
    (
        "type_mismatch_in_conditions",
        _set(f"{COOK}.sfx[0].conditions[0].params", ["s1", "i1"]),
        f"{COOK}.sfx[0].conditions[0].params[0]",
        "placeholder 's1' is a station",
    ),
    (
        "repeated_placeholder",
        _set(f"{CUT}.precons[2].params", ["i1", "i1"]),
        f"{CUT}.precons[2].params",
        "a placeholder is repeated",
    ),
    (
        "unbound_placeholder_in_sfx_fx",
        _set(f"{COOK}.sfx[0].fx[0].params", ["i9"]),
        f"{COOK}.sfx[0].fx[0].params[0]",
        "placeholder 'i9' is not bound",
    ),
    (
        "unbound_placeholder_in_conditions",
        _set(f"{COOK}.sfx[0].conditions[0].params", ["i1", "s9"]),
        f"{COOK}.sfx[0].conditions[0].params[1]",
        "placeholder 's9' is not bound",
    ),
    # special effects
    (
        "sfx_not_array",
        _set(f"{COOK}.sfx", {"type": "conditional"}),
        f"{COOK}.sfx",
        "expected a JSON array",
    ),
    (
        "sfx_not_object",
        _set(f"{COOK}.sfx[0]", "conditional"),
        f"{COOK}.sfx[0]",
        "expected a JSON object",
    ),
    (
        "unknown_sfx_type",
        _set(f"{COOK}.sfx[0].type", "conditionnal"),
        f"{COOK}.sfx[0].type",
        "unknown special effect type 'conditionnal'",
    ),
    (
        "nested_unknown_sfx_type",
        _set(f"{COOK}.sfx[0].sfx[0].type", "later"),
        f"{COOK}.sfx[0].sfx[0].type",
        "unknown special effect type 'later'",
    ),
    (
        "sfx_without_type",
        _del(f"{COOK}.sfx[0].type"),
        f"{COOK}.sfx[0].type",
        "required key is missing",
    ),
    (
        "sfx_without_param",
        _del(f"{COOK}.sfx[0].param"),
        f"{COOK}.sfx[0].param",
        "required key is missing",
    ),
    (
        "sfx_param_unbound",
        _set(f"{COOK}.sfx[0].param", "x1"),
        f"{COOK}.sfx[0].param",
        "special effect param 'x1' is not bound",
    ),
    (
        "nested_sfx_param_unbound",
        _set(f"{COOK}.sfx[0].sfx[0].param", "x1"),
        f"{COOK}.sfx[0].sfx[0].param",
        "special effect param 'x1' is not bound",
    ),
    (
        "deeply_nested_sfx_param_unbound",
        _set(f"{CREATION}.param", "m1"),
        f"{CREATION}.param",
        "special effect param 'm1' is not bound",
    ),
    (
        "sfx_param_not_string",
        _set(f"{CUT}.sfx[1].param", None),
        f"{CUT}.sfx[1].param",
        "expected a non-empty string",
    ),
    (
        "created_obj_unknown_type",
        _set(f"{CREATION}.created_obj.type", "liquid"),
        f"{CREATION}.created_obj.type",
        "unknown object type 'liquid'",
    ),
    (
        "created_obj_missing",
        _del(f"{CREATION}.created_obj"),
        f"{CREATION}.created_obj",
        "required key is missing",
    ),
    (
        "created_obj_without_name",
        _del(f"{CREATION}.created_obj.name"),
        f"{CREATION}.created_obj.name",
        "required key is missing",
    ),
    (
        "created_obj_not_object",
        _set(f"{CREATION}.created_obj", "water"),
        f"{CREATION}.created_obj",
        "expected a JSON object",
    ),
    (
        "created_obj_name_with_digits",
        _set(f"{CREATION}.created_obj.name", "water2"),
        f"{CREATION}.created_obj.name",
        "base name without digits, got 'water2'",
    ),
    (
        "created_obj_name_two_types",
        _append(
            "action_defs",
            lambda d: {
                "name": "make-ice",
                "precons": [{"predicate": "isrobot", "params": ["p1"], "is_true": True}],
                "sfx": [
                    {
                        "type": "creation",
                        "param": "p1",
                        "created_obj": {"name": "water", "type": "item", "param": "i1"},
                        "fx": [{"predicate": "clear", "params": ["i1"], "is_true": True}],
                    }
                ],
                "language_description": "Make ice using {p1}",
            },
        ),
        f"action_defs[{N_ACT}].sfx[0].created_obj.type",
        f"'water' objects are also created as meal (at {CREATION}.created_obj.type)",
    ),
    (
        "created_param_already_bound",
        _set(f"{CREATION}.created_obj.param", "c1"),
        f"{CREATION}.created_obj.param",
        "created placeholder 'c1' is already bound",
    ),
    (
        "created_obj_on_delayed",
        _set(f"{COOK}.sfx[0].sfx[0].created_obj", {"name": "water", "type": "meal", "param": "m1"}),
        f"{COOK}.sfx[0].sfx[0].created_obj",
        "only creation effects create objects",
    ),
    (
        "conditions_on_delayed",
        _set(
            f"{COOK}.sfx[0].sfx[0].conditions",
            [{"predicate": "iscookable", "params": ["i1"], "is_true": True}],
        ),
        f"{COOK}.sfx[0].sfx[0].conditions",
        "only conditional effects have conditions",
    ),
    (
        "duration_zero",
        _set(f"{COOK}.sfx[0].sfx[0].duration", 0),
        f"{COOK}.sfx[0].sfx[0].duration",
        "must be at least 1, got 0",
    ),
    (
        "duration_negative",
        _set(f"{COOK}.sfx[0].sfx[0].duration", -2),
        f"{COOK}.sfx[0].sfx[0].duration",
        "must be at least 1, got -2",
    ),
    (
        "duration_string",
        _set(f"{COOK}.sfx[0].sfx[0].duration", "3"),
        f"{COOK}.sfx[0].sfx[0].duration",
        "expected an integer, got the string '3'",
    ),
    (
        "duration_float",
        _set(f"{COOK}.sfx[0].sfx[0].duration", 2.5),
        f"{COOK}.sfx[0].sfx[0].duration",
        "expected an integer",
    ),
    (
        "duration_bool",
        _set(f"{COOK}.sfx[0].sfx[0].duration", True),
        f"{COOK}.sfx[0].sfx[0].duration",
        "expected an integer, got a boolean",
    ),
    (
        "duration_config_not_string",
        _set(f"{COOK}.sfx[0].sfx[0].duration", {"config": 3}),
        f"{COOK}.sfx[0].sfx[0].duration.config",
        "expected a non-empty string",
    ),
    (
        "duration_config_missing",
        _set(f"{COOK}.sfx[0].sfx[0].duration", {"key": "cook_time"}),
        f"{COOK}.sfx[0].sfx[0].duration.config",
        "required key is missing",
    ),
    (
        "duration_config_extra_key",
        _set(f"{COOK}.sfx[0].sfx[0].duration", {"config": "cook_time", "default": 3}),
        f"{COOK}.sfx[0].sfx[0].duration",
        "unexpected keys ['default']",
    ),
    (
        "repetitions_zero",
        _set(f"{CUT}.sfx[0].repetitions", 0),
        f"{CUT}.sfx[0].repetitions",
        "must be at least 1, got 0",
    ),
    (
        "repetitions_string",
        _set(f"{CUT}.sfx[0].repetitions", "three"),
        f"{CUT}.sfx[0].repetitions",
        "expected an integer",
    ),
    (
        "repetitions_config_not_string",
        _set(f"{CUT}.sfx[0].repetitions", {"config": 3}),
        f"{CUT}.sfx[0].repetitions.config",
        "expected a non-empty string",
    ),
    (
        "duration_on_repetitive",
        _set(f"{CUT}.sfx[0].duration", 3),
        f"{CUT}.sfx[0].duration",
        "a repetitive effect has no 'duration'",
    ),
    (
        "repetitions_on_delayed",
        _set(f"{COOK}.sfx[0].sfx[0].repetitions", 3),
        f"{COOK}.sfx[0].sfx[0].repetitions",
        "a delayed effect has no 'repetitions'",
    ),
    (
        "duration_on_conditional",
        _set(f"{COOK}.sfx[0].duration", 3),
        f"{COOK}.sfx[0].duration",
        "a conditional effect has no 'duration'",
    ),
    # language description
    (
        "description_field_not_a_parameter",
        _set(f"{MOVE}.language_description", "Move {p1} from {s1} to {s3}"),
        f"{MOVE}.language_description",
        "template field {s3} is not a parameter",
    ),
    (
        "description_field_numeric",
        _set(f"{MOVE}.language_description", "Move {0}"),
        f"{MOVE}.language_description",
        "template field {0} is not a parameter",
    ),
    (
        "description_missing",
        _del(f"{MOVE}.language_description"),
        f"{MOVE}.language_description",
        "required key is missing",
    ),
    (
        "description_not_string",
        _set(f"{MOVE}.language_description", None),
        f"{MOVE}.language_description",
        "expected a non-empty string",
    ),
]


@pytest.mark.parametrize(
    ("mutate", "path", "fragment"), [c[1:] for c in DOMAIN_CASES], ids=[c[0] for c in DOMAIN_CASES]
)
def test_bad_domain(mutate: Mutation, path: str, fragment: str) -> None:
    domain = copy.deepcopy(DOMAIN)
    mutate(domain)
    err = _raises_spec_error(lambda: robotouille.load(copy.deepcopy(ENV), domain))
    _check(err, DOMAIN_DICT, path, fragment)


def test_domain_dict_with_non_string_descriptor_key() -> None:
    """Parsed dicts handed in directly may have keys JSON cannot express."""
    domain = copy.deepcopy(DOMAIN)
    domain["predicate_defs"][0]["language_descriptors"] = {0: "{0} is a table"}
    err = _raises_spec_error(lambda: robotouille.load(ENV, domain))
    _check(err, DOMAIN_DICT, f"{ISTABLE}.language_descriptors.0", "not an argument position")


def test_source_of_the_wrong_kind() -> None:
    with pytest.raises(TypeError, match="must be a file path or a dict, got list"):
        robotouille.load([ENV], DOMAIN_FILE)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be a file path or a dict, got int"):
        robotouille.load(3, DOMAIN_FILE)  # type: ignore[arg-type]


def test_path_with_nul_character() -> None:
    err = _raises_spec_error(lambda: robotouille.load("env\0.json", DOMAIN_FILE))
    _check(err, "env\0.json", "", "cannot read environment file")


def test_unmutated_inputs_load() -> None:
    """The baseline the mutations start from is valid (otherwise every case is vacuous)."""
    env = robotouille.load(copy.deepcopy(ENV), copy.deepcopy(DOMAIN))
    assert env.valid_actions()


# -- environment -------------------------------------------------------------------------------

GOAL_ITEM_ON = {"predicate": "item_on", "args": ["bread", "table"], "ids": [1, 2]}

# (id, mutation, path, message fragment)
ENV_CASES: list[tuple[str, Mutation, str, str]] = [
    ("missing_players", _del(".players"), "players", "required key is missing"),
    ("empty_players", _set("players", []), "players", "at least one player is required"),
    ("players_not_array", _set("players", {"name": "robot"}), "players", "expected a JSON array"),
    ("missing_stations", _del(".stations"), "stations", "required key is missing"),
    ("empty_stations", _set("stations", []), "stations", "at least one station is required"),
    ("items_not_array", _set("items", "bread"), "items", "expected a JSON array"),
    ("missing_width", _del(".width"), "width", "required key is missing"),
    ("missing_height", _del(".height"), "height", "required key is missing"),
    ("width_string", _set("width", "5"), "width", "expected an integer, got the string '5'"),
    ("entity_not_object", _set("stations[1]", "table"), "stations[1]", "expected a JSON object"),
    (
        "entity_without_name",
        _del("stations[1].name"),
        "stations[1].name",
        "required key is missing",
    ),
    ("entity_without_x", _del("items[2].x"), "items[2].x", "required key is missing"),
    (
        "non_integer_x",
        _set("stations[2].x", 2.5),
        "stations[2].x",
        "expected an integer, got the number 2.5",
    ),
    ("string_y", _set("players[0].y", "1"), "players[0].y", "expected an integer"),
    ("bool_x", _set("items[0].x", True), "items[0].x", "expected an integer, got a boolean"),
    (
        "player_without_direction",
        _del("players[0].direction"),
        "players[0].direction",
        "required key is missing",
    ),
    (
        "direction_too_short",
        _set("players[0].direction", [0]),
        "players[0].direction",
        "expected [dx, dy]",
    ),
    (
        "direction_not_array",
        _set("players[0].direction", "down"),
        "players[0].direction",
        "expected a JSON array",
    ),
    (
        "direction_not_integers",
        _set("players[0].direction", [0, "-1"]),
        "players[0].direction[1]",
        "expected an integer",
    ),
    (
        "name_with_digits",
        _set("stations[0].name", "table1"),
        "stations[0].name",
        "entity names are base names without digits, got 'table1'",
    ),
    (
        "name_starting_with_digit",
        _set("items[1].name", "2bread"),
        "items[1].name",
        "without digits",
    ),
    (
        "unknown_entity_name",
        _set("stations[3].name", "tabel"),
        "stations[3].name",
        "the domain has no predicate 'istabel'",
    ),
    (
        "entity_in_wrong_list",
        _set("items[0].name", "table"),
        "items[0]",
        "object name 'table1' is also a station",
    ),
    (
        "station_name_in_items",
        _set("items[1].name", "stove"),
        "items[1].name",
        "isstove(stove1): stove1 is a item, not a station",
    ),
    (
        "item_on_no_station",
        _then(_set("items[1].x", 3), _set("items[1].y", 3)),
        "items[1]",
        "item bread2 at (3, 3) is on no station and no player holds it",
    ),
    (
        "item_without_stack_level",
        _del("items[0].stack-level"),
        "items[0]",
        "an item on a station needs a 'stack-level'",
    ),
    (
        "stack_level_string",
        _set("items[0].stack-level", "0"),
        "items[0].stack-level",
        "expected an integer",
    ),
    (
        "container_on_no_station",
        _then(_set("containers", [{"name": "pot", "x": 3, "y": 3}]), _set("meals", [])),
        "containers[0]",
        "container pot1 at (3, 3) is on no station and no player holds it",
    ),
    (
        "predicates_not_array",
        _set("items[0].predicates", "iscookable"),
        "items[0].predicates",
        "expected a JSON array",
    ),
    (
        "unknown_entity_predicate",
        _set("items[0].predicates", ["iscookable", "iscokable"]),
        "items[0].predicates[1]",
        "the domain has no predicate 'iscokable'",
    ),
    (
        "entity_predicate_wrong_arity",
        _set("items[2].predicates", ["item_on"]),
        "items[2].predicates[0]",
        "predicate 'item_on' does not take 1 argument(s)",
    ),
    (
        "entity_predicate_wrong_type",
        _set("stations[4].predicates", ["iscooked"]),
        "stations[4].predicates[0]",
        "table4 is a station, not a item",
    ),
    (
        "entity_predicate_not_string",
        _set("stations[4].predicates", [None]),
        "stations[4].predicates[0]",
        "expected a non-empty string",
    ),
    ("id_not_string", _set("items[0].id", [1]), "items[0].id", "expected a string"),
    ("config_not_object", _set("config", [3]), "config", "expected a JSON object"),
    ("missing_goal", _del(".goal"), "goal", "required key is missing"),
    ("goal_not_array", _set("goal", GOAL_ITEM_ON), "goal", "expected a JSON array"),
    ("goal_entry_not_object", _set("goal[0]", "item_on"), "goal[0]", "expected a JSON object"),
    (
        "missing_goal_description",
        _del(".goal_description"),
        "goal_description",
        "required key is missing",
    ),
    (
        "goal_description_not_string",
        _set("goal_description", ["cheese"]),
        "goal_description",
        "expected a string",
    ),
    (
        "unknown_goal_predicate",
        _set("goal[1].predicate", "atopp"),
        "goal[1].predicate",
        "unknown predicate 'atopp'",
    ),
    ("goal_without_ids", _del("goal[2].ids"), "goal[2].ids", "required key is missing"),
    (
        "goal_ids_too_short",
        _set("goal[1].ids", [3]),
        "goal[1].ids",
        "expected 2 id(s), one per arg, got 1",
    ),
    ("goal_ids_too_long", _set("goal[0].ids", [1, 2, 3]), "goal[0].ids", "expected 2 id(s)"),
    (
        "goal_args_wrong_arity",
        _then(_set("goal[0].args", ["bread"]), _set("goal[0].ids", [1])),
        "goal[0].args",
        "'item_on' takes 2 argument(s), got 1",
    ),
    (
        "goal_id_names_no_entity",
        _set("goal[0].ids", ["the_bread", 2]),
        "goal[0].ids[0]",
        "id 'the_bread' names no item entity",
    ),
    (
        "goal_id_names_entity_of_other_type",
        _then(_set("stations[0].id", "t"), _set("goal[0].ids", ["t", 2])),
        "goal[0].ids[0]",
        "id 't' names no item entity",
    ),
    (
        "goal_id_float",
        _set("goal[0].ids[1]", 2.0),
        "goal[0].ids[1]",
        "expected a number or a string",
    ),
    (
        "goal_id_null",
        _set("goal[0].ids[1]", None),
        "goal[0].ids[1]",
        "expected a number or a string",
    ),
    (
        "goal_arg_unknown",
        _set("goal[0].args[0]", "bred"),
        "goal[0].args[0]",
        "goal arg 'bred' is neither an object type nor a name",
    ),
    (
        "goal_arg_not_string",
        _set("goal[0].args[0]", 1),
        "goal[0].args[0]",
        "expected a non-empty string",
    ),
    (
        "goal_arg_wrong_type",
        _set("goal[0].args", ["table", "bread"]),
        "goal[0].args[0]",
        "'table' is a station, but 'item_on' expects a item at position 0",
    ),
    (
        "goal_wildcard_wrong_type",
        _set("goal[2].args[1]", "station"),
        "goal[2].args[1]",
        "'station' is a station, but 'atop' expects a item at position 1",
    ),
    # Durations read from the config block are checked when the task is compiled.
    (
        "config_duration_zero",
        _set("config", {"cook_time": {"patty": 0}}),
        "config.cook_time.patty",
        "expected a positive integer, got 0",
    ),
    (
        "config_duration_default_string",
        _set("config.cook_time", {"default": "3"}),
        "config.cook_time.default",
        "expected a positive integer, got '3'",
    ),
    (
        "config_duration_negative",
        _set("config.num_cuts", -1),
        "config.num_cuts",
        "expected a positive integer, got -1",
    ),
    (
        "config_duration_float",
        _set("config.num_cuts", {"bread": 1.5}),
        "config.num_cuts.bread",
        "expected a positive integer, got 1.5",
    ),
    (
        "config_duration_list",
        _set("config.num_cuts", [3]),
        "config.num_cuts",
        "expected a positive integer",
    ),
]


@pytest.mark.parametrize(
    ("mutate", "path", "fragment"), [c[1:] for c in ENV_CASES], ids=[c[0] for c in ENV_CASES]
)
def test_bad_environment(mutate: Mutation, path: str, fragment: str) -> None:
    env = copy.deepcopy(ENV)
    mutate(env)
    err = _raises_spec_error(lambda: robotouille.load(env, copy.deepcopy(DOMAIN)))
    _check(err, ENV_DICT, path, fragment)


def test_empty_goal_is_reached_at_once() -> None:
    """An empty goal is the empty conjunction: it holds (reference §5.2), it is no error."""
    env_doc = copy.deepcopy(ENV)
    env_doc["goal"] = []
    env = robotouille.load(env_doc, copy.deepcopy(DOMAIN))
    assert env.goal_reached()
    _, reward, terminated, _, _ = env.step("Do nothing")
    assert terminated and reward == 1.0


def test_environment_file_path_as_source() -> None:
    """The bundled file itself loads; a path object and a string give the same env."""
    a = robotouille.load(ENV_FILE, DOMAIN_FILE)
    b = robotouille.load(str(ENV_FILE), str(DOMAIN_FILE))
    assert a.observation() == b.observation()


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"mode": "bogus"}, "mode must be one of"),
        ({"invalid_action": "ignore"}, "invalid_action must be"),
        ({"max_steps": 0}, "max_steps must be a positive integer"),
        ({"max_steps": "3"}, "max_steps must be a positive integer"),
        ({"pool_size": -1}, "pool_size must be a non-negative integer"),
        ({"pool_size": "3"}, "pool_size must be a non-negative integer"),
    ],
)
def test_bad_load_arguments(kwargs: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        robotouille.load(copy.deepcopy(ENV), copy.deepcopy(DOMAIN), **kwargs)


# -- invalid actions (decision D8) -------------------------------------------------------------

INVALID_ACTIONS: list[tuple[str, Any, str]] = [
    ("unknown_text", "Fly robot1 to the moon", "no action has this text"),
    ("empty_text", "", "no action has this text"),
    ("index_too_large", 99, "index out of range: there are 6 valid actions"),
    ("index_negative", -1, "index out of range"),
    ("numpy_index_too_large", np.int64(6), "index out of range"),
    # robot1 is at table2: picking up bread2 from table4 is well formed but not possible.
    (
        "precondition_fails",
        "Pick up bread2 from table4 using robot1",
        "precondition loc(robot1,table4) is false",
    ),
    (
        "precondition_fails_padded",
        "  Move robot1 from table1 to table3 ",
        "precondition loc(robot1,table1) is false",
    ),
    (
        "static_precondition_fails",
        ("cook", ("table2", "bread1", "robot1")),
        "precondition isstove(table2) is false",
    ),
    ("float", 1.5, "an action is its text, an index"),
    ("none", None, "an action is its text, an index"),
    ("bool", True, "an action is its text, an index"),
    ("dict", {"action": "wait"}, "an action is its text, an index"),
    ("bytes", b"Do nothing", "an action is its text, an index"),
    ("tuple_unknown_action", ("fly", ("robot1",)), "unknown action 'fly'"),
    ("tuple_wrong_arity", ("move", ("robot1", "table2")), "move takes 3 arguments"),
    (
        "tuple_unknown_object",
        ("move", ("robot1", "table2", "table9")),
        "'table9' is not a station object",
    ),
    (
        "tuple_object_of_wrong_type",
        ("move", ("robot1", "table2", "bread1")),
        "'bread1' is not a station object",
    ),
    (
        "tuple_repeated_object",
        ("move", ("robot1", "table2", "table2")),
        "an action's arguments must be distinct objects",
    ),
    (
        "tuple_precondition_fails",
        ("pick-up-item", ("robot1", "bread2", "table4")),
        "precondition loc(robot1,table4) is false",
    ),
    (
        "tuple_args_as_list",
        ("move", ["robot1", "table1", "table3"]),
        "precondition loc(robot1,table1) is false",
    ),
    (
        "list_with_invalid_action",
        ["Do nothing", "Fly robot1 to the moon"],
        "no action has this text",
    ),
]


def _snapshot(env: robotouille.Env) -> tuple[Any, ...]:
    s = env.get_state()
    return (
        s.words.tobytes(),
        s.counters.tobytes(),
        s.steps,
        s.done,
        env.observation(),
        tuple(env.valid_actions()),
        tuple(env.true_predicates()),
        env.steps,
    )


@pytest.fixture(scope="module")
def make_env() -> Callable[[str], robotouille.Env]:
    def make(invalid_action: str) -> robotouille.Env:
        return robotouille.load(
            copy.deepcopy(ENV), copy.deepcopy(DOMAIN), invalid_action=invalid_action
        )  # type: ignore[arg-type]

    return make


@pytest.mark.parametrize("after_a_step", [False, True], ids=["initial", "after_step"])
@pytest.mark.parametrize(
    ("action", "fragment"), [c[1:] for c in INVALID_ACTIONS], ids=[c[0] for c in INVALID_ACTIONS]
)
def test_invalid_action_raises(
    make_env: Callable[[str], robotouille.Env],
    action: Any,
    fragment: str,
    after_a_step: bool,
) -> None:
    env = make_env("raise")
    if after_a_step:
        env.step("Do nothing")  # time has passed; the failing actions still fail
    before = _snapshot(env)
    with pytest.raises(InvalidActionError) as info:
        env.step(action)
    err = info.value
    assert fragment in err.reason, str(err)
    if not isinstance(action, list):  # a list names its offending entry
        assert err.action is action or err.action == action
        assert repr(action) in str(err)
    assert fragment in str(err)
    assert isinstance(err, robotouille.RobotouilleError) and isinstance(err, ValueError)
    assert _snapshot(env) == before
    # The env still works afterwards.
    env.step("Do nothing")
    assert env.steps == before[-1] + 1


@pytest.mark.parametrize(
    ("action", "fragment"), [c[1:] for c in INVALID_ACTIONS], ids=[c[0] for c in INVALID_ACTIONS]
)
def test_invalid_action_feedback(
    make_env: Callable[[str], robotouille.Env], action: Any, fragment: str
) -> None:
    env = make_env("feedback")
    env.step("Do nothing")
    before = _snapshot(env)
    obs, reward, terminated, truncated, info = env.step(action)
    assert fragment in info["feedback"], info["feedback"]
    assert obs == before[4] == env.observation()
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["valid_actions"] == list(before[5])
    assert env.steps == 1
    assert _snapshot(env) == before


def test_feedback_does_not_advance_time() -> None:
    """Repeated invalid actions in feedback mode never advance steps or timers."""
    env = robotouille.load(
        copy.deepcopy(ENV), copy.deepcopy(DOMAIN), invalid_action="feedback", max_steps=2
    )
    before = _snapshot(env)
    for _ in range(5):
        _, _, _, truncated, info = env.step("Pick up bread2 from table4 using robot1")
        assert "feedback" in info and not truncated
    assert _snapshot(env) == before
    _, _, _, truncated, info = env.step("Do nothing")
    assert "feedback" not in info and env.steps == 1 and not truncated


def test_valid_action_has_no_feedback() -> None:
    env = robotouille.load(copy.deepcopy(ENV), copy.deepcopy(DOMAIN), invalid_action="feedback")
    _, _, _, _, info = env.step("Pick up bread1 from table2 using robot1")
    assert "feedback" not in info
    assert env.steps == 1


@pytest.mark.parametrize(
    "action",
    [("move", 5), ("move", None), ("move", [["robot1"], "table1", "table3"])],
    ids=["int_args", "none_args", "unhashable_arg"],
)
def test_invalid_tuple_args_shape(action: Any) -> None:
    env = robotouille.load(copy.deepcopy(ENV), copy.deepcopy(DOMAIN))
    before = _snapshot(env)
    with pytest.raises(InvalidActionError):
        env.step(action)
    assert _snapshot(env) == before


# -- fuzzing -----------------------------------------------------------------------------------

Path_ = tuple[str | int, ...]


def _all_paths(doc: Any, prefix: Path_ = ()) -> list[Path_]:
    out: list[Path_] = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.append((*prefix, k))
            out.extend(_all_paths(v, (*prefix, k)))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.append((*prefix, i))
            out.extend(_all_paths(v, (*prefix, i)))
    return out


def _strings(doc: Any) -> set[str]:
    if isinstance(doc, dict):
        return set(doc) | {s for v in doc.values() for s in _strings(v)}
    if isinstance(doc, list):
        return {s for v in doc for s in _strings(v)}
    return {doc} if isinstance(doc, str) else set()


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=6),
    st.sampled_from([0.5, 1e9, -1e9, 2**40]),
    st.text(max_size=6),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


def _names(doc: dict[str, Any]) -> st.SearchStrategy[str]:
    """Strings that occur in the doc (names, keys, placeholders) and a few more."""
    return st.sampled_from(sorted(_strings(doc) | _strings(DOMAIN) | {"default", "config"}))


def _replacements(doc: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Arbitrary small JSON values, and strings that already occur in the doc."""
    return st.one_of(_JSON, _names(doc), _names(doc).map(lambda s: [s]))


def _mutated(doc: dict[str, Any], paths: list[Path_]) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out = copy.deepcopy(doc)
        path = draw(st.sampled_from(paths))
        parent = out
        for part in path[:-1]:
            parent = parent[part]
        last = path[-1]
        if draw(st.booleans()):
            del parent[last]
        elif isinstance(parent, dict) and draw(st.integers(0, 5)) == 0:
            # Add a member, often one that is valid elsewhere ("duration", "stack-level", ...).
            parent[draw(_names(doc))] = draw(_replacements(doc))
        elif draw(st.integers(0, 4)) == 0:
            # Reuse a value from elsewhere in the document (a well-typed but misplaced value).
            other = draw(st.sampled_from(paths))
            source: Any = doc
            for part in other:
                source = source[part]
            parent[last] = copy.deepcopy(source)
        else:
            parent[last] = draw(_replacements(doc))
        return out

    return build()


_FUZZ = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _load_or_spec_error(env: dict[str, Any], domain: dict[str, Any]) -> None:
    try:
        loaded = robotouille.load(env, domain)
    except SpecError as exc:
        assert exc.source in (ENV_DICT, DOMAIN_DICT)
        assert str(exc).startswith(exc.source)
        return
    # A mutation that still loads must give a working env.
    loaded.observation()
    actions = loaded.valid_actions()
    if actions:
        loaded.step(0)
    loaded.goal_reached()


@_FUZZ
@given(_mutated(ENV, _all_paths(ENV)))
def test_fuzz_environment(env: dict[str, Any]) -> None:
    _load_or_spec_error(env, copy.deepcopy(DOMAIN))


@_FUZZ
@given(_mutated(DOMAIN, _all_paths(DOMAIN)))
def test_fuzz_domain(domain: dict[str, Any]) -> None:
    _load_or_spec_error(copy.deepcopy(ENV), domain)
