"""Our own domain file, its equivalence with the original, and the bundled-file helpers."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from robotouille import domains
from robotouille.domain import Domain, Duration, SpecialEffectDef, load_domain
from robotouille.problem import load_problem

REPO = Path(__file__).resolve().parents[1]
OUR_DOMAIN = REPO / "domains" / "robotouille" / "domain.json"
CHEESE_SANDWICH = REPO / "domains" / "robotouille" / "tasks" / "cheese_sandwich.json"

# Where each duration of our domain comes from (decision D2).
EXPECTED_DURATIONS = {
    ("cook", "delayed"): "cook_time",
    ("fry", "delayed"): "fry_time",
    ("fill-pot", "delayed"): "fill_time",
    ("boil-water", "delayed"): "boil_time",
    ("cut", "repetitive"): "num_cuts",
}


def _shared_dir() -> Path:
    env = os.environ.get("ROBOTOUILLE_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared"


def _original_domain_path() -> Path:
    path = _shared_dir() / "reference" / "robotouille" / "domain" / "robotouille.json"
    if not path.is_file():
        pytest.skip(f"original domain file not available ({path})")
    return path


def _walk(effects: tuple[SpecialEffectDef, ...]) -> list[SpecialEffectDef]:
    out: list[SpecialEffectDef] = []
    for e in effects:
        out.append(e)
        out.extend(_walk(e.sfx))
    return out


def _strip_durations(value: Any) -> Any:
    """A copy of a parsed domain value with every Duration field removed (set to None)."""
    if isinstance(value, SpecialEffectDef):
        return dataclasses.replace(
            value, duration=None, sfx=tuple(_strip_durations(e) for e in value.sfx)
        )
    if isinstance(value, tuple):
        return tuple(_strip_durations(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: _strip_durations(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.init
        }
        return dataclasses.replace(value, **changes)
    return value


@pytest.fixture(scope="module")
def ours() -> Domain:
    return load_domain(OUR_DOMAIN)


# -- (a) our domain loads -------------------------------------------------------------------


def test_our_domain_loads(ours: Domain) -> None:
    assert ours.name == "robotouille"
    assert ours.object_types == ("station", "item", "player", "container", "meal")
    assert len(ours.predicates) == 42
    assert [a.name for a in ours.actions] == [
        "move", "pick-up-item", "place-item", "pick-up-container", "place-container", "cook",
        "cut", "fry", "fill-pot", "boil-water", "add-to", "fill-bowl", "stack", "unstack", "wait",
    ]  # fmt: skip


def test_our_domain_file_keys() -> None:
    doc = json.loads(OUR_DOMAIN.read_text(encoding="utf-8"))
    assert doc["version"] == "1.0.0"
    assert doc["name"] == "robotouille"
    assert "input_json" not in doc


def test_every_duration_is_a_config_reference(ours: Domain) -> None:
    found: dict[tuple[str, str], str] = {}
    for action in ours.actions:
        for effect in _walk(action.sfx):
            if effect.type in ("delayed", "repetitive"):
                assert effect.duration is not None, (action.name, effect.type)
                assert effect.duration.value is None
                assert effect.duration.config_key is not None
                found[(action.name, effect.type)] = effect.duration.config_key
            else:
                assert effect.duration is None
    assert found == EXPECTED_DURATIONS


# -- (b) semantically equal to the original ----------------------------------------------------


def test_same_semantics_as_original(ours: Domain) -> None:
    original = load_domain(_original_domain_path())
    assert ours.object_types == original.object_types

    assert [p.name for p in ours.predicates] == [p.name for p in original.predicates]
    for mine, theirs in zip(ours.predicates, original.predicates, strict=True):
        assert mine.param_types == theirs.param_types, mine.name
        assert mine.descriptors == theirs.descriptors, mine.name

    # The original has no durations at all (they are engine constants there).
    for action in original.actions:
        assert all(e.duration is None for e in _walk(action.sfx)), action.name

    assert [a.name for a in ours.actions] == [a.name for a in original.actions]
    for mine, theirs in zip(ours.actions, original.actions, strict=True):
        mine_s, theirs_s = _strip_durations(mine), _strip_durations(theirs)
        assert mine_s.params == theirs_s.params, mine.name
        assert mine_s.param_types == theirs_s.param_types, mine.name
        assert mine_s.precons == theirs_s.precons, mine.name
        assert mine_s.immediate_fx == theirs_s.immediate_fx, mine.name
        assert mine_s.sfx == theirs_s.sfx, mine.name
        assert mine_s.language_description == theirs_s.language_description, mine.name
        assert mine_s == theirs_s, mine.name

    assert _strip_durations(ours.predicates) == original.predicates
    assert _strip_durations(ours.actions) == original.actions


def test_strip_durations_removes_them(ours: Domain) -> None:
    stripped = _strip_durations(ours.actions)
    assert all(e.duration is None for a in stripped for e in _walk(a.sfx))
    cook = next(a for a in ours.actions if a.name == "cook")
    assert _walk(cook.sfx)[1].duration == Duration(config_key="cook_time")


# -- (c) the bundled copy is findable ----------------------------------------------------------


def test_default_domain_path_is_our_domain() -> None:
    # From a checkout it is the repo's file; from an installed wheel, the packaged copy of it.
    path = domains.default_domain_path()
    assert path.read_bytes() == OUR_DOMAIN.read_bytes()
    load_domain(path)


def test_default_domain_path_prefers_package_data(tmp_path: Path) -> None:
    # Reproduce the installed layout: robotouille/domains.py next to robotouille/_data/domains/.
    pkg = tmp_path / "site-packages" / "robotouille"
    data = pkg / "_data" / "domains" / "robotouille"
    (data / "tasks").mkdir(parents=True)
    shutil.copy(domains.__file__, pkg / "domains.py")
    shutil.copy(OUR_DOMAIN, data / "domain.json")
    shutil.copy(CHEESE_SANDWICH, data / "tasks" / "cheese_sandwich.json")
    spec = importlib.util.spec_from_file_location("_installed_domains", pkg / "domains.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.default_domain_path() == (data / "domain.json").resolve()
    assert module.list_bundled_environments() == ["cheese_sandwich"]
    assert (
        module.bundled_environment_path("cheese_sandwich")
        == (data / "tasks" / "cheese_sandwich.json").resolve()
    )


def test_missing_bundle_is_reported(tmp_path: Path) -> None:
    pkg = tmp_path / "a" / "b" / "robotouille"
    pkg.mkdir(parents=True)
    shutil.copy(domains.__file__, pkg / "domains.py")
    spec = importlib.util.spec_from_file_location("_bare_domains", pkg / "domains.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(FileNotFoundError, match="bundled domain file not found"):
        module.default_domain_path()


def test_bundled_environments() -> None:
    names = domains.list_bundled_environments()
    assert "cheese_sandwich" in names
    assert names == sorted(names)
    path = domains.bundled_environment_path("cheese_sandwich")
    assert path.read_bytes() == CHEESE_SANDWICH.read_bytes()
    assert domains.bundled_environment_path("cheese_sandwich.json") == path


@pytest.mark.parametrize("name", ["no_such_task", "", "../domain", "tasks/cheese_sandwich"])
def test_unknown_environment_lists_available(name: str) -> None:
    with pytest.raises(FileNotFoundError, match=r"available: .*cheese_sandwich"):
        domains.bundled_environment_path(name)


# -- the bundled default task ------------------------------------------------------------------


def test_cheese_sandwich_task_loads(ours: Domain) -> None:
    problem = load_problem(domains.bundled_environment_path("cheese_sandwich"), ours)
    assert (problem.width, problem.height) == (5, 5)
    assert problem.goal_description == "Prepare a cheese sandwich on a table"
    assert problem.config == {"num_cuts": {"default": 3}, "cook_time": {"default": 3}}
    assert problem.players == ("robot1",)
    # Entity lists are sorted by (x, y) before numbering, so the cheese at (0, 2) comes first.
    assert [o.name for o in problem.objects] == [
        "table1", "table2", "board1", "table3", "table4", "cheese1", "bread1", "bread2", "robot1",
    ]  # fmt: skip
    true = problem.initial_true
    for atom in [
        ("loc", ("robot1", "table2")),
        ("nothing", ("robot1",)),
        ("item_on", ("bread1", "table2")),
        ("item_on", ("bread2", "table4")),
        ("item_on", ("cheese1", "table1")),
        ("station_empty", ("board1",)),
        ("station_empty", ("table3",)),
        ("isboard", ("board1",)),
    ]:
        assert atom in true, atom
    assert [a.predicate for a in problem.goal.atoms] == ["item_on", "atop", "atop"]
    # bread {1, 4}, table {2}, cheese {3}
    assert sorted((v.arg, v.id) for v in problem.goal.variables) == [
        ("bread", "1"), ("bread", "4"), ("cheese", "3"), ("table", "2"),
    ]  # fmt: skip


def test_cheese_sandwich_layout_differs_from_original() -> None:
    original = (
        _shared_dir()
        / "reference/robotouille/environments/env_generator/examples/synchronous"
        / "0_cheese_sandwich.json"
    )
    if not original.is_file():
        pytest.skip(f"original environment not available ({original})")
    ours_doc = json.loads(CHEESE_SANDWICH.read_text(encoding="utf-8"))
    theirs = json.loads(original.read_text(encoding="utf-8"))

    def layout(doc: dict[str, Any]) -> list[tuple[str, int, int]]:
        keys = ("stations", "items", "players")
        return sorted((e["name"], e["x"], e["y"]) for k in keys for e in doc.get(k, []))

    assert layout(ours_doc) != layout(theirs)
    assert ours_doc["goal"] == theirs["goal"]
