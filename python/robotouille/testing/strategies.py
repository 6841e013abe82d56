"""Hypothesis strategies: random small domains and environments in the file formats.

The generated documents are meant for differential tests of the compiled engine against the
reference interpreter (:mod:`robotouille.testing.reference`), so they are small but use every
feature of the formats:

* domains with 2-4 object types (always ``station`` and ``player``), the predicates the
  environment format derives from positions (``loc``, ``vacant``, ``item_at``, ...; reference
  spec §2.7), one ``is<name>`` predicate per entity name, and 2-6 random unary or binary
  predicates, listed in random order;
* 2-6 random actions whose preconditions and immediate effects mention up to three typed
  placeholders, with special effects of all five kinds (delayed, repetitive, conditional,
  creation, deletion) nested up to depth 3, with and without durations (decision D2), plus a
  ``wait``-like action without preconditions so that some action is always valid, and in
  half the domains the cooking domain's ``move``;
* environments on small grids with 2-5 stations, 1-2 robots facing a station (or nothing),
  stacks of items, held items and containers, meals in containers, extra entity predicates,
  wildcard names, entity ids, a ``config`` block and a goal with numeric variables, string ids,
  synthesized names of objects that do not exist yet and type words.

Every pair drawn by :func:`domains_and_environments` loads with
:func:`robotouille.domain.load_domain` and :func:`robotouille.problem.load_problem`.

Hypothesis is a test dependency: import this module only from tests.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")
Draw = Callable[[st.SearchStrategy[Any]], Any]
Json = dict[str, Any]

OPTIONAL_TYPES: tuple[str, ...] = ("item", "container", "meal", "tool")
"""Object types a generated domain may have besides ``station`` and ``player``."""

KINDS: dict[str, tuple[str, ...]] = {
    "station": ("table", "stove", "sink"),
    "player": ("robot", "chef"),
    # "bun" is a substring of "topbun1": goal args match entities by substring (reference §5.2).
    "item": ("bun", "topbun", "patty"),
    "container": ("pot", "bowl"),
    "meal": ("water", "soup"),
    "tool": ("knife", "whisk"),
}
"""Entity base names per object type (each becomes an ``is<name>`` predicate)."""

CREATED_BASES: tuple[str, ...] = ("blob", "goo")
"""Fresh base names for objects that creation effects make."""

EFFECT_TYPES: tuple[str, ...] = ("delayed", "repetitive", "conditional", "creation", "deletion")
"""The five special-effect kinds."""

CONFIG_KEYS: tuple[str, ...] = ("speed", "effort")
"""Keys that durations may name (``{"config": key}``, decision D2)."""

MAX_PARAMS = 3
"""Most grounded placeholders per generated action (bounds the number of groundings)."""

MAX_DEPTH = 3
"""Deepest nesting of special effects (a top-level effect has depth 1)."""

_PREFIX = {"station": "s", "player": "p", "item": "i", "container": "c", "meal": "m", "tool": "t"}


def _derived_predicates(types: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The predicates the environment format derives from positions, for these types."""
    out: list[tuple[str, tuple[str, ...]]] = [
        ("loc", ("player", "station")),
        ("vacant", ("station",)),
        ("nothing", ("player",)),
        ("station_empty", ("station",)),
    ]
    if "item" in types:
        out += [
            ("item_at", ("item", "station")),
            ("item_on", ("item", "station")),
            ("atop", ("item", "item")),
            ("clear", ("item",)),
            ("has_item", ("player", "item")),
        ]
    if "container" in types:
        out += [
            ("container_at", ("container", "station")),
            ("container_empty", ("container",)),
            ("has_container", ("player", "container")),
        ]
        if "meal" in types:
            out.append(("in", ("meal", "container")))
    return out


def _predicate_def(name: str, types: Sequence[str]) -> Json:
    """A predicate definition with a language template for every argument position."""
    if len(types) == 1:
        descriptors = {"0": f"{{0}} is {name}"}
    else:
        descriptors = {"0": f"{{0}} {name} {{1}}", "1": f"{{1}} is {name} of {{0}}"}
    return {"name": name, "param_types": list(types), "language_descriptors": descriptors}


@dataclass
class _Vocabulary:
    """What the actions of a domain being generated may mention."""

    types: tuple[str, ...]
    predicates: list[tuple[str, tuple[str, ...]]]
    creations: list[tuple[str, str]]  # (base name, type) that creation effects may make


class _ActionBuilder:
    """Draws one random action, typing its placeholders consistently as it goes."""

    def __init__(self, draw: Draw, vocab: _Vocabulary, name: str) -> None:
        self.draw = draw
        self.vocab = vocab
        self.name = name
        self.types: dict[str, str] = {}  # grounded placeholders, in order of first appearance
        self.created = itertools.count(1)

    def literal(
        self,
        *,
        available: Mapping[str, str],
        allow_new: bool,
        truth: float,
        required: tuple[str, str] | None = None,
    ) -> Json | None:
        """Draws a literal over placeholders, or ``None`` if the drawn predicate cannot be filled.

        Args:
            available: Placeholders the literal may use, with their types.
            allow_new: Whether new grounded placeholders may be introduced (up to MAX_PARAMS).
            truth: Probability that ``is_true`` is true.
            required: A ``(placeholder, type)`` that must occur in the literal (a creation's
                created object).

        Returns:
            The literal in the file format, or ``None``.
        """
        draw = self.draw
        preds = self.vocab.predicates
        if required is not None:
            preds = [p for p in preds if required[1] in p[1]]
            if not preds:
                return None
        pred, ptypes = _pick(draw, preds)
        params: list[str | None] = [None] * len(ptypes)
        added: dict[str, str] = {}
        if required is not None:
            positions = [i for i, t in enumerate(ptypes) if t == required[1]]
            params[_pick(draw, positions)] = required[0]
        for i, t in enumerate(ptypes):
            if params[i] is not None:
                continue
            options = [p for p, pt in available.items() if pt == t and p not in params]
            if allow_new and len(self.types) + len(added) < MAX_PARAMS:
                k = 1 + sum(1 for pt in [*self.types.values(), *added.values()] if pt == t)
                options.append(f"{_PREFIX.get(t, 'x')}{k}")
            if not options:
                return None
            choice = _pick(draw, options)
            params[i] = choice
            if choice not in available:
                added[choice] = t
        # Only a literal that is used registers its new placeholders.
        self.types.update(added)
        return {
            "predicate": pred,
            "params": params,
            "is_true": draw(_biased(truth)),
        }

    def literals(
        self, *, max_size: int, available: Mapping[str, str], allow_new: bool, truth: float
    ) -> list[Json]:
        """Draws up to ``max_size`` literals (see :meth:`literal`)."""
        out = []
        for _ in range(self.draw(_ints(0, max_size))):
            lit = self.literal(available=available, allow_new=allow_new, truth=truth)
            if lit is not None:
                out.append(lit)
        return out

    def effect(self, depth: int) -> Json:
        """Draws a special effect over the action's grounded placeholders.

        Args:
            depth: 1 for a top-level effect; nested effects are drawn down to MAX_DEPTH.

        Returns:
            The special effect in the file format.
        """
        draw = self.draw
        bound = dict(self.types)
        etype = _pick(draw, EFFECT_TYPES)
        effect: Json = {"type": etype, "param": _pick(draw, list(bound))}
        fx: list[Json] = []
        if etype == "creation":
            base, ctype = _pick(draw, self.vocab.creations)
            cparam = f"new{next(self.created)}"
            effect["created_obj"] = {"name": base, "type": ctype, "param": cparam}
            if f"is{base}" in dict(self.vocab.predicates) and draw(_biased(0.7)):
                fx.append({"predicate": f"is{base}", "params": [cparam], "is_true": True})
            for _ in range(draw(_ints(0, 2))):
                lit = self.literal(
                    available=bound, allow_new=False, truth=0.7, required=(cparam, ctype)
                )
                if lit is not None:
                    fx.append(lit)
        fx += self.literals(max_size=2, available=bound, allow_new=False, truth=0.6)
        effect["fx"] = _shuffled(draw, fx)
        if etype == "conditional":
            effect["conditions"] = self.literals(
                max_size=2, available=bound, allow_new=False, truth=0.6
            )
        elif etype in ("delayed", "repetitive"):
            key = "duration" if etype == "delayed" else "repetitions"
            kind = _pick(draw, ["none", "none", "value", "config"])
            if kind == "value":
                effect[key] = draw(_ints(1, 4 if etype == "delayed" else 3))
            elif kind == "config":
                effect[key] = {"config": _pick(draw, CONFIG_KEYS)}
        nested = []
        if depth < MAX_DEPTH:
            count = draw(_ints(0, 2 if depth == 1 else 1))
            nested = [self.effect(depth + 1) for _ in range(count)]
        if nested or draw(_biased(0.5)):
            effect["sfx"] = nested
        return effect

    def build(self) -> Json:
        """Draws the whole action."""
        draw = self.draw
        precons: list[Json] = []
        if draw(_biased(0.6)):
            # Most actions belong to a robot at a station, as in the cooking domain.
            precons.append({"predicate": "loc", "params": ["p1", "s1"], "is_true": True})
            self.types.update({"p1": "player", "s1": "station"})
        precons += self.literals(max_size=3, available=self.types, allow_new=True, truth=0.6)
        precons = _shuffled(draw, precons)
        immediate = self.literals(max_size=3, available=self.types, allow_new=True, truth=0.5)
        sfx = []
        if self.types:
            sfx = [self.effect(1) for _ in range(draw(_ints(0, 2)))]
        shown = [p for p in self.types if draw(_biased(0.9))]
        description = " ".join([self.name.capitalize(), *(f"{{{p}}}" for p in shown)])
        action: Json = {
            "name": self.name,
            "precons": precons,
            "immediate_fx": immediate,
            "language_description": description,
        }
        if sfx or draw(_biased(0.5)):
            action["sfx"] = sfx
        return action


@functools.cache
def _ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    """``st.integers(lo, hi)``, built once (building strategies dominates generation time)."""
    return st.integers(lo, hi)


@functools.cache
def _biased(p: float) -> st.SearchStrategy[bool]:
    """True with probability about ``p`` (in steps of 1/10)."""
    k = round(p * 10)
    return _ints(0, 9).map(lambda v: v < k)


def _pick(draw: Draw, options: Sequence[T]) -> T:
    """One of ``options`` (shrinks towards the first)."""
    return options[draw(_ints(0, len(options) - 1))]


def _subset(draw: Draw, options: Sequence[T], min_size: int, max_size: int) -> list[T]:
    """Between ``min_size`` and ``max_size`` distinct elements of ``options``, in random order."""
    size = draw(_ints(min_size, min(max_size, len(options))))
    pool = list(options)
    return [pool.pop(draw(_ints(0, len(pool) - 1))) for _ in range(size)]


def _shuffled(draw: Draw, items: Sequence[T]) -> list[T]:
    """A random permutation of ``items`` (shrinks towards the given order)."""
    pool = list(items)
    return [pool.pop(draw(_ints(0, len(pool) - 1))) for _ in range(len(pool))]


def _literal(predicate: str, *params: str, is_true: bool = True) -> Json:
    return {"predicate": predicate, "params": list(params), "is_true": is_true}


_MOVE: Json = {
    "name": "move",
    "precons": [_literal("loc", "p1", "s1"), _literal("vacant", "s2")],
    "immediate_fx": [
        _literal("loc", "p1", "s2"),
        _literal("loc", "p1", "s1", is_true=False),
        _literal("vacant", "s1"),
        _literal("vacant", "s2", is_true=False),
    ],
    "language_description": "Move {p1} from {s1} to {s2}",
}


@st.composite
def domains(draw: Draw, max_creation_groups: int = 2) -> Json:
    """A random small domain document (reference spec §1, decision D2 durations).

    Args:
        draw: Hypothesis' draw function (supplied by ``st.composite``).
        max_creation_groups: How many different (base name, type) pairs creation effects may
            make (the engine keeps one object pool per pair, and must still list created objects
            in creation order).

    Returns:
        The domain as a JSON-compatible dict.
    """
    extras = _subset(draw, OPTIONAL_TYPES, 0, 2)
    types = tuple(_shuffled(draw, ["station", "player", *extras]))
    predicates = _derived_predicates(types)
    for t in types:
        kinds = _subset(draw, KINDS[t], 1, len(KINDS[t]))
        predicates += [(f"is{k}", (t,)) for k in kinds]
    # Objects that creation effects make: a fresh base name, or a kind the type already has.
    creations: list[tuple[str, str]] = []
    bases = _subset(draw, CREATED_BASES, 1, max(1, max_creation_groups))
    for base in bases:
        ctype = _pick(draw, types)
        existing = [p[2:] for p, ts in predicates if p.startswith("is") and ts == (ctype,)]
        # An existing kind only if the type keeps another one for its entities (see
        # _DomainInfo.entity_kinds).
        if len(existing) >= 2 and draw(_biased(0.3)):
            base = _pick(draw, existing)
        else:
            predicates.append((f"is{base}", (ctype,)))
        if (base, ctype) not in creations:
            creations.append((base, ctype))
    for k in range(draw(_ints(2, 6))):
        arity = draw(_ints(1, 2))
        ptypes = tuple(_pick(draw, types) for _ in range(arity))
        predicates.append((f"prop{k}" if arity == 1 else f"rel{k}", ptypes))
    predicates = _shuffled(draw, predicates)
    vocab = _Vocabulary(types=types, predicates=list(predicates), creations=creations)
    actions = [_ActionBuilder(draw, vocab, f"act{k}").build() for k in range(draw(_ints(2, 6)))]
    wait = {"name": "wait", "precons": [], "immediate_fx": [], "language_description": "Do nothing"}
    actions.insert(draw(_ints(0, len(actions))), wait)
    if draw(_biased(0.5)):
        # The cooking domain's move, whose shape the planner's relocation pruning looks for.
        actions.insert(draw(_ints(0, len(actions))), _MOVE)
    return {
        "version": "1.0.0",
        "name": "random",
        "object_types": list(types),
        "predicate_defs": [_predicate_def(n, ts) for n, ts in predicates],
        "action_defs": actions,
    }


@dataclass
class _DomainInfo:
    """What an environment generator needs to know about a domain document."""

    types: tuple[str, ...]
    kinds: dict[str, list[str]]  # is<kind> predicates per type
    entity_kinds: dict[str, list[str]]  # the kinds entities may have
    wildcards: set[str]  # types whose entities may be named by the type (wildcard)
    unary: dict[str, list[str]]  # unary predicates per type
    predicates: list[tuple[str, tuple[str, ...]]]
    config_keys: list[str]

    @classmethod
    def of(cls, domain: Json) -> _DomainInfo:
        types = tuple(domain["object_types"])
        preds = [(p["name"], tuple(p["param_types"])) for p in domain["predicate_defs"]]
        kinds: dict[str, list[str]] = {t: [] for t in types}
        unary: dict[str, list[str]] = {t: [] for t in types}
        for name, ts in preds:
            if len(ts) == 1:
                unary[ts[0]].append(name)
                if name.startswith("is") and len(name) > 2:
                    kinds[ts[0]].append(name[2:])
        keys: set[str] = set()

        def walk(effects: Sequence[Json]) -> None:
            for e in effects:
                for k in ("duration", "repetitions"):
                    if isinstance(e.get(k), dict):
                        keys.add(e[k]["config"])
                walk(e.get("sfx", []))

        for a in domain["action_defs"]:
            walk(a.get("sfx", []))
        entity_kinds = {t: list(kinds[t]) for t in types}
        wildcards = set(types)
        return cls(types, kinds, entity_kinds, wildcards, unary, preds, sorted(keys))


@st.composite
def environments(draw: Draw, domain: Json) -> Json:
    """A random small environment document for ``domain`` (reference spec §2, §5).

    Args:
        draw: Hypothesis' draw function (supplied by ``st.composite``).
        domain: A domain document, typically drawn from :func:`domains`.

    Returns:
        The environment as a JSON-compatible dict.
    """
    info = _DomainInfo.of(domain)
    width = draw(_ints(3, 5))
    height = draw(_ints(3, 4))
    cells = [(x, y) for x in range(width) for y in range(height)]
    n_stations = draw(_ints(2, 5))
    station_cells = _subset(draw, cells, n_stations, n_stations)
    steps = [(0, 1), (0, -1), (1, 0), (-1, 0)]

    def near(c: tuple[int, int]) -> list[tuple[int, int]]:
        return [d for d in steps if (c[0] + d[0], c[1] + d[1]) in station_cells]

    free = [c for c in cells if c not in station_cells]
    adjacent = [c for c in free if near(c)]
    player_cells: list[tuple[int, int]] = []
    for _ in range(draw(_ints(1, 2))):
        options = [c for c in (adjacent if draw(_biased(0.9)) else free) if c not in player_cells]
        options = options or [c for c in free if c not in player_cells]
        player_cells.append(_pick(draw, options))

    def entity(type_name: str, x: int, y: int) -> Json:
        wildcard = type_name in info.wildcards and draw(_biased(0.1))
        name = type_name if wildcard else _pick(draw, info.entity_kinds[type_name])
        ent: Json = {"name": name, "x": x, "y": y}
        extra = [p for p in info.unary[type_name] if not p.startswith("is")]
        if extra and draw(_biased(0.4)):
            ent["predicates"] = _subset(draw, extra, 0, 2)
        if draw(_biased(0.2)):
            ent["id"] = _pick(draw, ["a", "b", "c"])
        return ent

    doc: Json = {"version": "1.0.0", "width": width, "height": height}
    stations = [entity("station", x, y) for x, y in station_cells]
    players = []
    holding: dict[int, bool] = {}
    for k, (x, y) in enumerate(player_cells):
        ent = entity("player", x, y)
        dirs = near((x, y))
        facing = dirs if dirs and draw(_biased(0.9)) else steps
        ent["direction"] = list(_pick(draw, facing))
        players.append(ent)
        holding[k] = False

    def place(type_name: str, levels: dict[tuple[int, int], int] | None) -> Json:
        free_hands = [k for k, held in holding.items() if not held]
        if free_hands and draw(_biased(0.25)):
            k = _pick(draw, free_hands)
            holding[k] = True
            ent = entity(type_name, *player_cells[k])
            if levels is not None and draw(_biased(0.3)):
                ent["stack-level"] = 0
            return ent
        x, y = _pick(draw, station_cells)
        ent = entity(type_name, x, y)
        if levels is not None:
            level = levels.get((x, y), 0)
            ent["stack-level"] = draw(_ints(0, 3)) if draw(_biased(0.1)) else level
            levels[(x, y)] = level + 1
        return ent

    lists: dict[str, list[Json]] = {"station": stations, "player": players}
    if "item" in info.types:
        levels: dict[tuple[int, int], int] = {}
        lists["item"] = [place("item", levels) for _ in range(draw(_ints(0, 4)))]
    if "container" in info.types:
        lists["container"] = [place("container", None) for _ in range(draw(_ints(0, 2)))]
    if "meal" in info.types:
        spots = [(c["x"], c["y"]) for c in lists.get("container", [])]
        meals = []
        for _ in range(draw(_ints(0, 3))):
            in_container = spots and draw(_biased(0.6))
            x, y = _pick(draw, spots if in_container else cells)
            meals.append(entity("meal", x, y))
        lists["meal"] = meals
    if "tool" in info.types:
        lists["tool"] = [entity("tool", *_pick(draw, cells)) for _ in range(draw(_ints(0, 2)))]
    for t, ents in lists.items():
        if ents or t in ("station", "player") or draw(_biased(0.5)):
            doc[t + "s"] = _shuffled(draw, ents)
    if info.config_keys and draw(_biased(0.8)):
        config: Json = {}
        for key in info.config_keys:
            if draw(_biased(0.3)):
                config[key] = draw(_ints(1, 4))
            elif draw(_biased(0.8)):
                per = {k: draw(_ints(1, 4)) for k in _subset(draw, _all_kinds(info), 0, 3)}
                if draw(_biased(0.7)):
                    per["default"] = draw(_ints(1, 4))
                config[key] = per
        doc["config"] = config
    doc["goal_description"] = _pick(draw, ["Make a mess", "Tidy up", ""])
    doc["goal"] = _goal(draw, info, lists)
    return doc


def _all_kinds(info: _DomainInfo) -> list[str]:
    return [k for t in info.types for k in info.kinds[t]]


def _goal(draw: Draw, info: _DomainInfo, lists: Mapping[str, list[Json]]) -> list[Json]:
    """1-3 goal atoms with variables, entity-id references and type words."""
    goal = []
    for _ in range(draw(_ints(1, 3))):
        pred, ptypes = _pick(draw, info.predicates)
        args: list[str] = []
        ids: list[int | str] = []
        for t in ptypes:
            with_id = [e for e in lists.get(t, []) if "id" in e]
            if with_id and draw(_biased(0.2)):
                # A reference to the entity with this id, under any name of its type.
                ent = _pick(draw, with_id)
                args.append(_pick(draw, [*info.kinds[t], t]))
                ids.append(ent["id"])
                continue
            # A kind (possibly one without entities: synthesized names), or the type word.
            args.append(_pick(draw, info.kinds[t]) if draw(_biased(0.9)) else t)
            number = draw(_ints(1, 3))
            ids.append(str(number) if draw(_biased(0.2)) else number)
        goal.append({"predicate": pred, "args": args, "ids": ids})
    return goal


@st.composite
def domains_and_environments(draw: Draw, max_creation_groups: int = 2) -> tuple[Json, Json]:
    """A random domain and a random environment for it.

    Args:
        draw: Hypothesis' draw function (supplied by ``st.composite``).
        max_creation_groups: See :func:`domains`.

    Returns:
        ``(domain document, environment document)``.
    """
    domain = draw(domains(max_creation_groups))
    return domain, draw(environments(domain))


__all__ = [
    "CONFIG_KEYS",
    "CREATED_BASES",
    "EFFECT_TYPES",
    "KINDS",
    "MAX_DEPTH",
    "MAX_PARAMS",
    "OPTIONAL_TYPES",
    "domains",
    "domains_and_environments",
    "environments",
]
