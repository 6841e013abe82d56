"""Environment (problem) files: entities on a grid, naming, initial predicates and the goal.

Follows the original loader exactly (reference spec §2 and §5): entity lists are stable-sorted by
``(x, y)``, numbered per base name (``table1``, ``table2``, ...), collected type by type in the
domain's ``object_types`` order, and the initial true predicates are derived from positions. The
goal is kept in its variable form (decision D5) and never expanded into a disjunction.

The derivation rules of §2.7 name the predicates they produce (``loc``, ``vacant``, ``item_at``,
...); they belong to the environment file format, and an environment that needs one the domain
lacks is rejected with an error that says so.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Any

from ._json import Cursor, JsonSource, read_json
from .domain import Domain
from .errors import SpecError

Atom = tuple[str, tuple[str, ...]]


@dataclass(frozen=True)
class Entity:
    """One entry of an entity list, after sorting and numbering."""

    name: str
    base: str
    type: str
    x: int
    y: int
    predicates: tuple[str, ...]
    id: str | None
    stack_level: int | None
    direction: tuple[int, int] | None
    path: str


@dataclass(frozen=True)
class GoalVar:
    """A goal variable: a numeric id under one goal arg, with its candidate object names.

    Candidates may name objects that do not exist yet (synthesized names such as ``water1``).
    Variables with the same ``group`` (the same goal arg) take pairwise distinct values.
    """

    arg: str
    id: str
    group: int
    candidates: tuple[str, ...]


@dataclass(frozen=True)
class GoalAtom:
    """A goal predicate; each argument is a constant object name or a variable index."""

    predicate: str
    args: tuple[str | int, ...]


@dataclass(frozen=True)
class Goal:
    """A goal in variable form: it holds iff some injective assignment makes every atom true."""

    atoms: tuple[GoalAtom, ...]
    variables: tuple[GoalVar, ...]


@dataclass(frozen=True)
class ObjectInfo:
    """An object of the initial state: numbered name, type and base name."""

    name: str
    type: str
    base: str


@dataclass(frozen=True)
class Problem:
    """A parsed, named environment with its initial state and goal."""

    source: str
    width: int
    height: int
    config: dict[str, Any]
    entities: dict[str, tuple[Entity, ...]]
    objects: tuple[ObjectInfo, ...]
    initial_true: frozenset[Atom]
    goal_description: str
    goal: Goal
    players: tuple[str, ...]


def base_name(name: str) -> str:
    """The name up to its first digit (the original's ``trim_item_ID``)."""
    for i, ch in enumerate(name):
        if ch.isdigit():
            return name[:i]
    return name


def load_problem(
    source: JsonSource, domain: Domain, *, wildcard_seed: int = 0
) -> Problem:
    """Reads and validates an environment file against a domain.

    Args:
        source: Path of an environment JSON file, or the already-parsed document.
        domain: The domain the environment is played in.
        wildcard_seed: Seed for resolving wildcard entity names (``"station"``, ``"item"``, ...).
            The original draws them from an unseeded RNG; we draw them reproducibly.

    Returns:
        The parsed problem.

    Raises:
        SpecError: The file is malformed or does not fit the domain.
    """
    doc, label = read_json(source, "environment")
    return _ProblemReader(Cursor(label, "", doc), domain, wildcard_seed).read()


class _ProblemReader:
    def __init__(self, root: Cursor, domain: Domain, wildcard_seed: int) -> None:
        self.root = root
        self.domain = domain
        self.rng = random.Random(wildcard_seed)
        self.true: set[Atom] = set()

    def read(self) -> Problem:
        root, domain = self.root, self.domain
        width = root.key("width").int()
        height = root.key("height").int()
        config_cur = root.key("config", required=False, default={})
        if not isinstance(config_cur.value, dict):
            raise config_cur.error("expected a JSON object")
        entities: dict[str, tuple[Entity, ...]] = {}
        for t in domain.object_types:
            required = t in ("station", "player")
            cur = root.key(t + "s", required=required, default=[])
            ents = self._read_entities(cur, t)
            if required and not ents:
                raise cur.error(f"at least one {t} is required")
            entities[t] = ents
        self.entities = entities
        names: dict[str, str] = {}
        objects = []
        for t in domain.object_types:
            for e in entities[t]:
                if e.name in names:
                    raise SpecError(
                        root.source, e.path, f"object name {e.name!r} is also a {names[e.name]}"
                    )
                names[e.name] = t
                objects.append(ObjectInfo(e.name, t, e.base))
        self.object_types = names
        self._derive_initial_state()
        desc = root.key("goal_description").value
        if not isinstance(desc, str):
            raise root.key("goal_description").error("expected a string")
        goal = self._read_goal(root.key("goal"))
        return Problem(
            source=root.source,
            width=width,
            height=height,
            config=dict(config_cur.value),
            entities=entities,
            objects=tuple(objects),
            initial_true=frozenset(self.true),
            goal_description=desc,
            goal=goal,
            players=tuple(e.name for e in entities.get("player", ())),
        )

    # -- entities ---------------------------------------------------------------------------

    def _kind_names(self, type_name: str) -> list[str]:
        """Base names the domain knows for a type: ``X`` for each unary ``isX`` over it."""
        return [
            p.name[2:]
            for p in self.domain.predicates
            if p.name.startswith("is") and p.param_types == (type_name,) and len(p.name) > 2
        ]

    def _read_entities(self, cur: Cursor, type_name: str) -> tuple[Entity, ...]:
        raw: list[tuple[str, Cursor]] = []
        for ec in cur.items():
            name = ec.key("name").str()
            if name == type_name:  # wildcard (reference §2.3)
                choices = self._kind_names(type_name)
                if not choices:
                    raise ec.key("name").error(
                        f"wildcard {type_name!r} cannot be resolved: the domain has no "
                        f"'is<name>' predicate over {type_name!r}"
                    )
                name = self.rng.choice(choices)
            raw.append((name, ec))
        # Stable sort by (x, y), then number per base name in that order (reference §2.4).
        keyed = []
        for name, ec in raw:
            keyed.append(((ec.key("x").int(), ec.key("y").int()), name, ec))
        keyed.sort(key=lambda k: k[0])
        counts: dict[str, int] = {}
        out = []
        for (x, y), name, ec in keyed:
            base = base_name(name)
            if base != name:
                raise ec.key("name").error(
                    f"entity names are base names without digits, got {name!r}"
                )
            counts[base] = counts.get(base, 0) + 1
            preds_cur = ec.key("predicates", required=False, default=[])
            preds = tuple(pc.str() for pc in preds_cur.items())
            ident = ec.key("id", required=False).value
            if ident is not None and not isinstance(ident, (str, int)):
                raise ec.key("id").error("expected a string")
            level = None
            if ec.has("stack-level"):
                level = ec.key("stack-level").int()
            direction = None
            if type_name == "player":
                dc = ec.key("direction")
                d = dc.items()
                if len(d) != 2:
                    raise dc.error("expected [dx, dy]")
                direction = (d[0].int(), d[1].int())
            out.append(
                Entity(
                    name=f"{base}{counts[base]}",
                    base=base,
                    type=type_name,
                    x=x,
                    y=y,
                    predicates=preds,
                    id=None if ident is None else str(ident),
                    stack_level=level,
                    direction=direction,
                    path=ec.path,
                )
            )
        return tuple(out)

    # -- initial state (reference §2.7) -----------------------------------------------------

    def _add(self, pred: str, args: tuple[str, ...], why: str) -> None:
        domain = self.domain
        if pred not in domain.predicate_index:
            raise SpecError(self.root.source, why, f"the domain has no predicate {pred!r}")
        pdef = domain.predicate(pred)
        if len(pdef.param_types) != len(args):
            raise SpecError(
                self.root.source, why, f"predicate {pred!r} does not take {len(args)} argument(s)"
            )
        for a, t in zip(args, pdef.param_types):
            if self.object_types[a] != t:
                raise SpecError(
                    self.root.source,
                    why,
                    f"{pred}({', '.join(args)}): {a} is a {self.object_types[a]}, not a {t}",
                )
        self.true.add((pred, args))

    def _derive_initial_state(self) -> None:
        ents = self.entities
        stations = ents.get("station", ())
        items = ents.get("item", ())
        players = ents.get("player", ())
        containers = ents.get("container", ())
        meals = ents.get("meal", ())
        for group in ents.values():
            for e in group:
                self._add("is" + e.base, (e.name,), e.path + ".name")
                for k, pred in enumerate(e.predicates):
                    self._add(pred, (e.name,), f"{e.path}.predicates[{k}]")
        for c in containers:
            inside = [m for m in meals if (m.x, m.y) == (c.x, c.y)]
            for m in inside:
                self._add("in", (m.name, c.name), m.path)
            if not inside:
                self._add("container_empty", (c.name,), c.path)
        station_at: dict[tuple[int, int], Entity] = {}
        for s in stations:
            station_at.setdefault((s.x, s.y), s)
            facing = [
                p for p in players if p.direction and (p.x + p.direction[0], p.y + p.direction[1])
                == (s.x, s.y)
            ]
            for p in facing:
                self._add("loc", (p.name, s.name), p.path)
            if not facing:
                self._add("vacant", (s.name,), s.path)
            here_items = [i for i in items if (i.x, i.y) == (s.x, s.y)]
            here_containers = [c for c in containers if (c.x, c.y) == (s.x, s.y)]
            for i in here_items:
                self._add("item_at", (i.name, s.name), i.path)
            for c in here_containers:
                self._add("container_at", (c.name, s.name), c.path)
            if not here_items and not here_containers:
                self._add("station_empty", (s.name,), s.path)
        held: set[str] = set()
        for p in players:
            item = next((i for i in items if (i.x, i.y) == (p.x, p.y)), None)
            container = next((c for c in containers if (c.x, c.y) == (p.x, p.y)), None)
            if item is not None:
                self._add("has_item", (p.name, item.name), item.path)
                held.add(item.name)
            elif container is not None:
                self._add("has_container", (p.name, container.name), container.path)
                held.add(container.name)
            else:
                self._add("nothing", (p.name,), p.path)
        stacks: dict[str, list[Entity]] = {}
        for i in items:
            station = station_at.get((i.x, i.y))
            if station is None:
                if i.name not in held:
                    raise SpecError(
                        self.root.source,
                        i.path,
                        f"item {i.name} at ({i.x}, {i.y}) is on no station and no player holds it",
                    )
                continue
            if i.stack_level is None:
                raise SpecError(
                    self.root.source, i.path, "an item on a station needs a 'stack-level'"
                )
            stacks.setdefault(station.name, []).append(i)
        for c in containers:
            if (c.x, c.y) not in station_at and c.name not in held:
                raise SpecError(
                    self.root.source,
                    c.path,
                    f"container {c.name} at ({c.x}, {c.y}) is on no station and no player holds it",
                )
        for s in stations:
            stack = sorted(stacks.get(s.name, []), key=lambda i: i.stack_level or 0)
            if not stack:
                continue
            self._add("item_on", (stack[0].name, s.name), stack[0].path)
            for below, above in itertools.pairwise(stack):
                self._add("atop", (above.name, below.name), above.path)
            self._add("clear", (stack[-1].name,), stack[-1].path)

    # -- goal (reference §5.2, decision D5) -------------------------------------------------

    def _arg_type(self, arg: str, cur: Cursor) -> str:
        if arg in self.domain.object_types:
            return arg
        for t, group in self.entities.items():
            if any(e.base == arg for e in group):
                return t
        pred = "is" + arg
        if pred in self.domain.predicate_index:
            types = self.domain.predicate(pred).param_types
            if len(types) == 1:
                return types[0]
        raise cur.error(
            f"goal arg {arg!r} is neither an object type nor a name of any entity or kind "
            "known to the domain"
        )

    def _read_goal(self, cur: Cursor) -> Goal:
        domain = self.domain
        combo: dict[str, tuple[list[str], list[str]]] = {}  # arg -> (entity names, ids)
        raw_atoms: list[tuple[str, list[tuple[str, str, bool]]]] = []
        for gc in cur.items():
            pc = gc.key("predicate")
            pred = pc.str()
            if pred not in domain.predicate_index:
                raise pc.error(f"unknown predicate {pred!r}")
            param_types = domain.predicate(pred).param_types
            arity = len(param_types)
            args_cur = gc.key("args")
            ids_cur = gc.key("ids")
            args = args_cur.items()
            ids = ids_cur.items()
            if len(args) != arity:
                raise args_cur.error(f"{pred!r} takes {arity} argument(s), got {len(args)}")
            if len(ids) != len(args):
                raise ids_cur.error(f"expected {len(args)} id(s), one per arg, got {len(ids)}")
            parts: list[tuple[str, str, bool]] = []
            for pos, (ac, ic) in enumerate(zip(args, ids)):
                arg = ac.str()
                if isinstance(ic.value, bool) or not isinstance(ic.value, (int, str)):
                    raise ic.error("expected a number or a string")
                ident = str(ic.value)
                arg_type = self._arg_type(arg, ac)
                if arg_type != param_types[pos]:
                    raise ac.error(
                        f"{arg!r} is a {arg_type}, but {pred!r} expects a {param_types[pos]} "
                        f"at position {pos}"
                    )
                field = self.entities.get(arg_type, ())
                if ident.isdigit():
                    if arg not in combo:
                        combo[arg] = ([e.name for e in field if arg in e.name], [])
                    if ident not in combo[arg][1]:
                        combo[arg][1].append(ident)
                    parts.append((arg, ident, True))
                else:
                    match = next((e for e in field if e.id == ident), None)
                    if match is None:
                        raise ic.error(f"id {ident!r} names no {arg_type} entity of this file")
                    parts.append((arg, match.name, False))
            raw_atoms.append((pred, parts))
        variables: list[GoalVar] = []
        first_var: dict[str, int] = {}
        for group, (arg, (ents, var_ids)) in enumerate(combo.items()):
            candidates = (
                tuple(ents) if ents else tuple(f"{arg}{k}" for k in range(1, len(var_ids) + 1))
            )
            for var_id in var_ids:
                # A numeric id resolves to its first occurrence across all args (reference §13 #5).
                first_var.setdefault(var_id, len(variables))
                variables.append(GoalVar(arg, var_id, group, candidates))
        atoms = tuple(
            GoalAtom(pred, tuple(first_var[v] if is_var else v for _, v, is_var in parts))
            for pred, parts in raw_atoms
        )
        return Goal(atoms=atoms, variables=tuple(variables))

