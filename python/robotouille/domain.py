"""Domain files: predicates with language descriptors and action schemas with special effects.

The format is the original Robotouille domain JSON (reference spec §1), read generically: nothing
about cooking is assumed. Two optional keys extend it (decision D2): a ``delayed`` effect may carry
``"duration": N`` or ``"duration": {"config": "<key>"}`` and a ``repetitive`` effect
``"repetitions": N`` or ``"repetitions": {"config": "<key>"}``. A ``config`` reference is looked up
in the environment's ``config`` block by the base name of the effect's ``param`` object, then its
``"default"``, then 3. Files without these keys behave like the original (3 and 3).

Every problem is reported as a :class:`~robotouille.errors.SpecError` naming the file and JSON path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ._json import Cursor, JsonSource, read_json

EFFECT_TYPES = ("delayed", "repetitive", "conditional", "creation", "deletion")
DEFAULT_DURATION = 3
_TEMPLATE_FIELD = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Literal:
    """A predicate over placeholders, required (or set) to be ``is_true``."""

    predicate: str
    params: tuple[str, ...]
    is_true: bool


@dataclass(frozen=True)
class Duration:
    """How many steps a delayed effect waits, or how many times a repetitive effect must run.

    Exactly one of ``value`` and ``config_key`` is set.
    """

    value: int | None = None
    config_key: str | None = None


@dataclass(frozen=True)
class CreatedObject:
    """The object a creation effect makes: base name, type, and the placeholder it binds."""

    name: str
    type: str
    param: str


@dataclass(frozen=True)
class SpecialEffectDef:
    """A special effect of an action (reference spec §1.4), possibly with nested effects."""

    type: str
    param: str
    fx: tuple[Literal, ...]
    sfx: tuple[SpecialEffectDef, ...]
    conditions: tuple[Literal, ...] = ()
    created: CreatedObject | None = None
    duration: Duration | None = None


@dataclass(frozen=True)
class PredicateDef:
    """A predicate signature with one language template per argument position."""

    name: str
    param_types: tuple[str, ...]
    descriptors: dict[int, str]


@dataclass(frozen=True)
class ActionDef:
    """An action schema.

    ``params`` lists the grounded placeholders in canonical order (decision D4: first appearance
    in ``precons``, then ``immediate_fx``, then the ``param`` of each top-level special effect).
    ``param_types`` maps every placeholder used anywhere in the action (nested effects and
    created objects included) to its object type.
    """

    name: str
    params: tuple[str, ...]
    param_types: dict[str, str]
    precons: tuple[Literal, ...]
    immediate_fx: tuple[Literal, ...]
    sfx: tuple[SpecialEffectDef, ...]
    language_description: str

    def all_special_effects(self) -> list[SpecialEffectDef]:
        """Every special effect of the action, nested ones included, each before its own."""
        out: list[SpecialEffectDef] = []
        pending = list(reversed(self.sfx))
        while pending:
            effect = pending.pop()
            out.append(effect)
            pending.extend(reversed(effect.sfx))
        return out


@dataclass(frozen=True)
class Domain:
    """A parsed domain: object types, predicates and actions, all in file order."""

    name: str
    object_types: tuple[str, ...]
    predicates: tuple[PredicateDef, ...]
    actions: tuple[ActionDef, ...]
    source: str
    predicate_index: dict[str, int] = field(repr=False, compare=False, default_factory=dict)

    def predicate(self, name: str) -> PredicateDef:
        """The predicate definition called ``name`` (KeyError if there is none)."""
        return self.predicates[self.predicate_index[name]]


def load_domain(source: JsonSource) -> Domain:
    """Reads and validates a domain file.

    Args:
        source: Path of a domain JSON file, or the already-parsed document.

    Returns:
        The parsed domain.

    Raises:
        SpecError: The file is malformed; the message names the file, JSON path and problem.
    """
    doc, label = read_json(source, "domain")
    root = Cursor(label, "", doc)
    types_cur = root.key("object_types")
    object_types = tuple(c.str() for c in types_cur.items())
    if not object_types:
        raise types_cur.error("a domain needs at least one object type")
    for i, t in enumerate(object_types):
        if t in object_types[:i]:
            raise types_cur.items()[i].error(f"object type {t!r} is listed twice")

    predicates: list[PredicateDef] = []
    index: dict[str, int] = {}
    for cur in root.key("predicate_defs").items():
        pred = _read_predicate(cur, object_types)
        if pred.name in index:
            raise cur.key("name").error(f"predicate {pred.name!r} is defined twice")
        index[pred.name] = len(predicates)
        predicates.append(pred)

    actions: list[ActionDef] = []
    names: set[str] = set()
    created: dict[str, tuple[str, str]] = {}  # created base name -> (type, JSON path)
    for cur in root.key("action_defs").items():
        action = _ActionReader(cur, predicates, index, object_types, created).read()
        if action.name in names:
            raise cur.key("name").error(f"action {action.name!r} is defined twice")
        names.add(action.name)
        actions.append(action)

    name = root.key("name", required=False, default="domain").value
    return Domain(
        name=str(name),
        object_types=object_types,
        predicates=tuple(predicates),
        actions=tuple(actions),
        source=label,
        predicate_index=index,
    )


def _read_predicate(cur: Cursor, object_types: tuple[str, ...]) -> PredicateDef:
    name = cur.key("name").str()
    types_cur = cur.key("param_types")
    param_types = []
    for tc in types_cur.items():
        t = tc.str()
        if t not in object_types:
            raise tc.error(f"unknown object type {t!r} (object_types: {list(object_types)})")
        param_types.append(t)
    if not param_types:
        # Observations describe objects through their predicates, one template per argument.
        raise types_cur.error("a predicate needs at least one parameter")
    descriptors: dict[int, str] = {}
    desc_cur = cur.key("language_descriptors")
    if not isinstance(desc_cur.value, dict):
        raise desc_cur.error("expected an object mapping argument positions to templates")
    for key in desc_cur.value:
        kc = desc_cur.key(key)
        if not _is_position(key, len(param_types)):
            raise kc.error(f"key {key!r} is not an argument position of {name!r}")
        template = kc.str()
        for m in _TEMPLATE_FIELD.finditer(template):
            if not _is_position(m.group(1), len(param_types)):
                raise kc.error(f"template field {{{m.group(1)}}} is not an argument position")
        descriptors[int(key)] = template
    for k in range(len(param_types)):
        if k not in descriptors:
            raise desc_cur.error(f"no template for argument position {k}")
    return PredicateDef(name=name, param_types=tuple(param_types), descriptors=descriptors)


def _is_position(text: object, arity: int) -> bool:
    """Whether ``text`` is the decimal (ASCII) string of an argument position below ``arity``."""
    return (
        isinstance(text, str) and text.isascii() and text.isdecimal() and int(text) < arity
    )


class _ActionReader:
    """Reads one action definition, typing its placeholders as it goes."""

    def __init__(
        self,
        cur: Cursor,
        predicates: list[PredicateDef],
        index: dict[str, int],
        object_types: tuple[str, ...],
        created: dict[str, tuple[str, str]],
    ) -> None:
        self.cur = cur
        self.predicates = predicates
        self.index = index
        self.object_types = object_types
        self.created = created
        self.types: dict[str, str] = {}
        self.where: dict[str, str] = {}
        self.params: list[str] = []

    def read(self) -> ActionDef:
        cur = self.cur
        name = cur.key("name").str()
        precons = self._literals(cur.key("precons", required=False, default=[]), grounded=True)
        immediate = self._literals(
            cur.key("immediate_fx", required=False, default=[]), grounded=True
        )
        sfx_cur = cur.key("sfx", required=False, default=[])
        # Top-level special-effect params are grounded parameters too (reference §1.3).
        for ec in sfx_cur.items():
            pc = ec.key("param")
            param = pc.str()
            if param not in self.types:
                raise pc.error(
                    f"special effect param {param!r} is not bound by the action's "
                    "preconditions or immediate effects, so its type is unknown"
                )
            self._add_param(param)
        bound = set(self.params)
        sfx = tuple(self._effect(ec, bound) for ec in sfx_cur.items())
        desc_cur = cur.key("language_description")
        description = desc_cur.str()
        for m in _TEMPLATE_FIELD.finditer(description):
            if m.group(1) not in bound:
                raise desc_cur.error(f"template field {{{m.group(1)}}} is not a parameter")
        return ActionDef(
            name=name,
            params=tuple(self.params),
            param_types=dict(self.types),
            precons=precons,
            immediate_fx=immediate,
            sfx=sfx,
            language_description=description,
        )

    def _add_param(self, p: str) -> None:
        if p not in self.params:
            self.params.append(p)

    def _literals(self, cur: Cursor, *, grounded: bool, bound: set[str] | None = None) -> tuple[
        Literal, ...
    ]:
        out: dict[tuple[str, tuple[str, ...]], bool] = {}
        for lc in cur.items():
            lit = self._literal(lc, grounded=grounded, bound=bound)
            # Later duplicates overwrite the value but keep the first position (reference §1.3).
            out[(lit.predicate, lit.params)] = lit.is_true
        return tuple(Literal(p, a, v) for (p, a), v in out.items())

    def _literal(self, cur: Cursor, *, grounded: bool, bound: set[str] | None) -> Literal:
        pc = cur.key("predicate")
        pname = pc.str()
        if pname not in self.index:
            raise pc.error(f"unknown predicate {pname!r}")
        pred = self.predicates[self.index[pname]]
        params_cur = cur.key("params")
        params = tuple(c.str() for c in params_cur.items())
        if len(params) != len(pred.param_types):
            raise params_cur.error(
                f"{pname!r} takes {len(pred.param_types)} argument(s), got {len(params)}"
            )
        if len(set(params)) != len(params):
            raise params_cur.error(
                f"a placeholder is repeated in {pname}{params}; groundings use distinct objects, "
                "so this literal could never be grounded"
            )
        for i, (p, t) in enumerate(zip(params, pred.param_types)):
            here = f"{params_cur.path}[{i}]"
            if p in self.types:
                if self.types[p] != t:
                    raise params_cur.items()[i].error(
                        f"placeholder {p!r} is a {self.types[p]} (at {self.where[p]}) but "
                        f"{pname!r} expects a {t} at position {i}"
                    )
            elif bound is not None:
                raise params_cur.items()[i].error(
                    f"placeholder {p!r} is not bound: it does not occur in the action's "
                    "preconditions, immediate effects or top-level special-effect params"
                )
            else:
                self.types[p] = t
                self.where[p] = here
            if grounded:
                self._add_param(p)
            if bound is not None and p not in bound:
                raise params_cur.items()[i].error(f"placeholder {p!r} is not bound here")
        return Literal(pname, params, cur.key("is_true").bool())

    def _effect(self, cur: Cursor, bound: set[str]) -> SpecialEffectDef:
        tc = cur.key("type")
        etype = tc.str()
        if etype not in EFFECT_TYPES:
            raise tc.error(f"unknown special effect type {etype!r} (one of {list(EFFECT_TYPES)})")
        pc = cur.key("param")
        param = pc.str()
        if param not in bound:
            raise pc.error(f"special effect param {param!r} is not bound in this action")
        created = None
        inner = bound
        if etype == "creation":
            oc = cur.key("created_obj")
            ctype_cur = oc.key("type")
            ctype = ctype_cur.str()
            if ctype not in self.object_types:
                raise ctype_cur.error(f"unknown object type {ctype!r}")
            cparam_cur = oc.key("param")
            cparam = cparam_cur.str()
            if cparam in bound:
                raise cparam_cur.error(f"created placeholder {cparam!r} is already bound")
            if cparam in self.types and self.types[cparam] != ctype:
                raise cparam_cur.error(f"placeholder {cparam!r} is already a {self.types[cparam]}")
            self.types[cparam] = ctype
            self.where[cparam] = cparam_cur.path
            cname_cur = oc.key("name")
            cname = cname_cur.str()
            if any(ch.isdigit() for ch in cname):
                raise cname_cur.error(
                    f"created objects are named by a base name without digits, got {cname!r}"
                )
            other_type, other_path = self.created.setdefault(cname, (ctype, ctype_cur.path))
            if other_type != ctype:
                raise ctype_cur.error(
                    f"{cname!r} objects are also created as {other_type} (at {other_path}); "
                    "one name cannot be two types"
                )
            created = CreatedObject(cname, ctype, cparam)
            inner = bound | {cparam}
        elif cur.has("created_obj"):
            raise cur.key("created_obj").error("only creation effects create objects")
        fx = self._literals(cur.key("fx", required=False, default=[]), grounded=False, bound=inner)
        # The created object is bound in the creation's own fx only: nested effects are
        # instantiated before the object exists, so they may not mention it.
        sfx = tuple(
            self._effect(ec, bound) for ec in cur.key("sfx", required=False, default=[]).items()
        )
        conditions: tuple[Literal, ...] = ()
        if etype == "conditional":
            conditions = self._literals(
                cur.key("conditions", required=False, default=[]), grounded=False, bound=bound
            )
        elif cur.has("conditions") and cur.value["conditions"]:
            raise cur.key("conditions").error("only conditional effects have conditions")
        duration = None
        dkey = {"delayed": "duration", "repetitive": "repetitions"}.get(etype)
        if dkey is not None and cur.has(dkey):
            duration = _read_duration(cur.key(dkey))
        for other in ("duration", "repetitions"):
            if other != dkey and cur.has(other):
                raise cur.key(other).error(f"a {etype} effect has no {other!r}")
        return SpecialEffectDef(etype, param, fx, sfx, conditions, created, duration)


def _read_duration(cur: Cursor) -> Duration:
    value: Any = cur.value
    if isinstance(value, dict):
        key = cur.key("config").str()
        extra = set(value) - {"config"}
        if extra:
            raise cur.error(f"unexpected keys {sorted(extra)}; expected {{'config': <key>}}")
        return Duration(config_key=key)
    n = cur.int()
    if n < 1:
        raise cur.error(f"must be at least 1, got {n}")
    return Duration(value=n)
