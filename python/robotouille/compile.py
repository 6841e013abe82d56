"""Compilation of a (domain, problem) pair into the flat integer task the C++ core runs.

This is the single hand-off point between Python and C++: after :func:`compile_task`, only numbers
cross the boundary.

Fact space
    Objects are the problem's objects in object order, then a bounded pool of objects that creation
    effects may create (decision D7: ``<base><k>`` for the next free suffixes, e.g. ``water1``).
    Predicate ``p`` owns facts ``base[p] .. base[p] + prod(len(type lists))``: the fact of
    ``p(o_1..o_k)`` is ``base[p] + sum(stride[p][i] * typepos[o_i])``, a mixed-radix index over
    each argument's position in its type's object list (leftmost slowest). Fact order is therefore
    the original's predicate-table order (reference §2.6), so observations list lines in fact order.
    Tuples that repeat an object are holes that are never true. After the predicate facts come
    hidden ``exists`` facts, one per object that may be created or deleted.

Groundings
    Actions are grounded in canonical order (D4) with numpy. Static predicates (no effect writes
    them and no deletion can clear them) are evaluated here: groundings whose static preconditions
    fail are dropped, and the static literals of the others are not checked at run time.

Special effects
    Each grounded top-level special effect is interned by the original's identity (reference §1.6):
    equal instances share one *template*, a tree of *nodes* with one counter each, so progress is
    kept across repeated actions exactly as in the original.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _core
from .domain import ActionDef, Domain, Literal, SpecialEffectDef
from .errors import SpecError
from .problem import GoalAtom, ObjectInfo, Problem, base_name

IntArray = npt.NDArray[np.int64]

DEFAULT_POOL_SIZE = 4
"""Objects each creation group may create when the caller does not say (decision D7)."""

_EFFECT_CODES = {"delayed": 0, "repetitive": 1, "conditional": 2, "creation": 3, "deletion": 4}


@dataclass
class _Literals:
    """Flat effect/condition literal table shared by all nodes."""

    fact: list[int] = field(default_factory=list)
    value: list[int] = field(default_factory=list)
    created_stride: list[int] = field(default_factory=list)
    guard_begin: list[int] = field(default_factory=lambda: [0])
    guards: list[int] = field(default_factory=list)

    def add(self, fact: int, value: bool, created_stride: int, guards: Sequence[int]) -> None:
        self.fact.append(fact)
        self.value.append(int(value))
        self.created_stride.append(created_stride)
        self.guards.extend(guards)
        self.guard_begin.append(len(self.guards))


@dataclass
class _Nodes:
    """Flat special-effect node table (one counter per node)."""

    type: list[int] = field(default_factory=list)
    goal: list[int] = field(default_factory=list)
    fx_begin: list[int] = field(default_factory=lambda: [0])
    cond_begin: list[int] = field(default_factory=list)
    child_begin: list[int] = field(default_factory=lambda: [0])
    children: list[int] = field(default_factory=list)
    delete_object: list[int] = field(default_factory=list)
    create_group: list[int] = field(default_factory=list)


class CompiledTask:
    """A compiled task: name tables for the Python side and the C++ ``_core.Task``.

    Attributes:
        domain: The domain.
        problem: The problem.
        objects: All objects, the pool included, in object order.
        num_initial_objects: How many of ``objects`` exist initially (the pool follows).
        core: The immutable C++ task.
        action_of: ``(G,)`` action index of each grounding.
        grounding_args: ``(G, P)`` object indices of each grounding's params (-1 padded).
        owner: ``(G,)`` object index of the robot a grounding belongs to, -1 for none.
        initial_words: ``(W,)`` uint64 initial fact bits.
        fact_pred: ``(num_pred_facts,)`` the predicate of each predicate fact.
        fact_mutable: ``(num_pred_facts,)`` whether that predicate is not static.
        initial_counters: ``(C,)`` int32 initial counters.
    """

    def __init__(self, domain: Domain, problem: Problem, *, pool_size: int | None = None) -> None:
        self.domain = domain
        self.problem = problem
        self.pool_size = DEFAULT_POOL_SIZE if pool_size is None else pool_size
        if isinstance(self.pool_size, bool) or not isinstance(self.pool_size, int) or (
            self.pool_size < 0
        ):
            raise ValueError(f"pool_size must be a non-negative integer, got {self.pool_size!r}")
        self._grounding_ids: dict[tuple[str, tuple[str, ...]], int] | None = None
        self.deletable_types = {a.param_types[e.param] for a, e in self._effects("deletion")}
        self.static = self._static_predicates()
        self._init_objects()
        self._init_facts()
        self._ground()
        self._compile_goal()
        self._build_core()

    # -- objects and facts ------------------------------------------------------------------

    def _effects(self, kind: str) -> list[tuple[ActionDef, SpecialEffectDef]]:
        """Every special effect of type ``kind`` (nested ones included) with its action."""
        return [
            (a, e) for a in self.domain.actions for e in a.all_special_effects() if e.type == kind
        ]

    def _static_predicates(self) -> set[str]:
        """Predicates no effect writes and no deletion can clear: fixed for the whole episode."""
        written: set[str] = set()
        for a in self.domain.actions:
            written.update(lit.predicate for lit in a.immediate_fx)
            written.update(lit.predicate for e in a.all_special_effects() for lit in e.fx)
        for p in self.domain.predicates:
            if self.deletable_types & set(p.param_types):
                written.add(p.name)
        return {p.name for p in self.domain.predicates} - written

    def _init_objects(self) -> None:
        problem = self.problem
        objects = list(problem.objects)
        self.num_initial_objects = len(objects)
        # Creation groups: one per (created base name, type), with a pool of future objects.
        # A creation can make another action applicable (through the objects it creates), so
        # groups are collected to a fixpoint.
        self.groups: list[tuple[str, str]] = []
        grew = True
        while grew:
            grew = False
            for action, effect in self._effects("creation"):
                assert effect.created is not None
                key = (effect.created.name, effect.created.type)
                if key not in self.groups and self._may_apply(action):
                    self.groups.append(key)
                    grew = True
        self.group_slots: list[list[int]] = []
        names = {o.name for o in objects}
        pool: list[ObjectInfo] = []
        for name, type_name in self.groups:
            existing = [i for i, o in enumerate(objects) if o.base == name]
            for i in existing:
                if objects[i].type != type_name:
                    raise SpecError(
                        problem.source,
                        "",
                        f"object {objects[i].name} is a {objects[i].type}, but the domain "
                        f"creates {name!r} objects of type {type_name}",
                    )
            slots = list(existing)
            for k in range(len(existing) + 1, len(existing) + self.pool_size + 1):
                obj = ObjectInfo(f"{name}{k}", type_name, name)
                if obj.name in names:
                    raise SpecError(problem.source, "", f"object name {obj.name!r} is taken")
                names.add(obj.name)
                slots.append(len(objects) + len(pool))
                pool.append(obj)
            self.group_slots.append(slots)
        self.objects: list[ObjectInfo] = objects + pool
        self.object_index = {o.name: i for i, o in enumerate(self.objects)}
        types = list(self.domain.object_types)
        self.type_index = {t: i for i, t in enumerate(types)}
        self.object_type = np.array([self.type_index[o.type] for o in self.objects], np.int64)
        self.typepos = np.zeros(len(self.objects), np.int64)
        self.type_objects: dict[str, IntArray] = {}
        for t in types:
            members = np.flatnonzero(self.object_type == self.type_index[t])
            self.type_objects[t] = members
            self.typepos[members] = np.arange(len(members))
        self.may_vanish = np.array(
            [
                i >= self.num_initial_objects or o.type in self.deletable_types
                for i, o in enumerate(self.objects)
            ],
            bool,
        )

    def _may_apply(self, action: ActionDef) -> bool:
        """Cheap reachability test: every param has a candidate passing unary static precons.

        Candidates are the initial objects and, for types some known creation group makes,
        a future object (on which every static predicate is false).
        """
        problem = self.problem
        pooled_types = {t for _, t in self.groups}
        for p in action.params:
            t = action.param_types[p]
            statics = [
                lit
                for lit in action.precons
                if lit.params == (p,) and lit.predicate in self.static
            ]
            initial = [
                o.name
                for o in problem.objects
                if o.type == t
                and all(
                    ((lit.predicate, (o.name,)) in problem.initial_true) == lit.is_true
                    for lit in statics
                )
            ]
            future = t in pooled_types and not any(lit.is_true for lit in statics)
            if not initial and not future:
                return False
        return True

    def _init_facts(self) -> None:
        domain = self.domain
        self.pred_base: list[int] = []
        self.pred_strides: list[list[int]] = []
        total = 0
        for p in domain.predicates:
            sizes = [len(self.type_objects[t]) for t in p.param_types]
            strides = [int(np.prod(sizes[i + 1 :], dtype=np.int64)) for i in range(len(sizes))]
            self.pred_base.append(total)
            self.pred_strides.append(strides)
            total += int(np.prod(sizes, dtype=np.int64))
        self.num_pred_facts = total
        # Per predicate fact: its predicate, and whether some effect can change it.
        self.fact_pred = np.repeat(
            np.arange(len(domain.predicates)), np.diff([*self.pred_base, total])
        ).astype(np.int64)
        static = np.array([p.name in self.static for p in domain.predicates], bool)
        self.fact_mutable = ~static[self.fact_pred]
        self.exists_fact = np.full(len(self.objects), -1, np.int64)
        vanishing = np.flatnonzero(self.may_vanish)
        self.exists_fact[vanishing] = total + np.arange(len(vanishing))
        self.num_facts = total + len(vanishing)
        self.num_words = max(1, (self.num_facts + 63) // 64)
        init = np.zeros(self.num_facts, bool)
        for pred, args in self.problem.initial_true:
            init[self.fact_of(pred, [self.object_index[a] for a in args])] = True
        init[self.exists_fact[vanishing[vanishing < self.num_initial_objects]]] = True
        self.initial_bits = init

    def fact_of(self, pred: str, args: Sequence[int]) -> int:
        """The fact index of ``pred(args)`` (object indices; types must match)."""
        k = self.domain.predicate_index[pred]
        strides = self.pred_strides[k]
        return self.pred_base[k] + sum(s * int(self.typepos[a]) for s, a in zip(strides, args))

    def _fact_column(self, pred: str, columns: Sequence[IntArray]) -> IntArray:
        k = self.domain.predicate_index[pred]
        out = np.full(len(columns[0]) if columns else 1, self.pred_base[k], np.int64)
        for stride, col in zip(self.pred_strides[k], columns):
            out = out + stride * self.typepos[col]
        return out

    # -- grounding --------------------------------------------------------------------------

    def _ground(self) -> None:
        G_action: list[IntArray] = []
        G_args: list[IntArray] = []
        self.max_params = max((len(a.params) for a in self.domain.actions), default=0)
        pre_pos: list[IntArray] = []
        pre_neg: list[IntArray] = []
        eff_fact: list[IntArray] = []
        eff_value: list[IntArray] = []
        sfx_templates: list[IntArray] = []
        self.literals = _Literals()
        self.nodes = _Nodes()
        self.template_first: list[int] = []
        self.template_count: list[int] = []
        # Per template: the object its top-level special effect is about (its ``param``).
        self.template_param: list[int] = []
        self._template_ids: dict[tuple[Any, ...], int] = {}
        self._signatures: dict[tuple[Any, ...], int] = {}
        self._goal_cache: dict[str, IntArray] = {}
        for ai, action in enumerate(self.domain.actions):
            rows = self._enumerate(action)
            n = len(rows)
            G_action.append(np.full(n, ai, np.int64))
            padded = np.full((n, self.max_params), -1, np.int64)
            padded[:, : rows.shape[1]] = rows
            G_args.append(padded)
            col = {p: rows[:, i] for i, p in enumerate(action.params)}
            pos_cols: list[IntArray] = []
            neg_cols: list[IntArray] = []
            for lit in action.precons:
                if lit.predicate in self.static:
                    continue
                facts = self._fact_column(lit.predicate, [col[p] for p in lit.params])
                (pos_cols if lit.is_true else neg_cols).append(facts)
            for p in action.params:
                ex = self.exists_fact[col[p]]
                if (ex >= 0).any():
                    pos_cols.append(ex)
            pre_pos.append(_matrix(pos_cols, n))
            pre_neg.append(_matrix(neg_cols, n))
            e_f = [
                self._fact_column(lit.predicate, [col[p] for p in lit.params])
                for lit in action.immediate_fx
            ]
            eff_fact.append(_matrix(e_f, n))
            eff_value.append(
                np.tile(
                    np.array([int(lit.is_true) for lit in action.immediate_fx], np.int64), (n, 1)
                )
            )
            t_cols = [self._intern_templates(action, d, col, n) for d in action.sfx]
            sfx_templates.append(_matrix(t_cols, n))
        self.action_of = np.concatenate(G_action) if G_action else np.zeros(0, np.int64)
        self.grounding_args = (
            np.concatenate(G_args) if G_args else np.zeros((0, self.max_params), np.int64)
        )
        self.num_groundings = len(self.action_of)
        self.pre_pos = _csr(pre_pos)
        self.pre_neg = _csr(pre_neg)
        self.eff_fact = _csr(eff_fact)
        self.eff_value = _csr(eff_value)
        self.sfx_templates = _csr(sfx_templates)
        player_type = self.type_index.get("player")
        self.owner = np.full(self.num_groundings, -1, np.int64)
        if player_type is not None:
            args = self.grounding_args
            for j in range(args.shape[1] - 1, -1, -1):
                column = args[:, j]
                is_player = (column >= 0) & (
                    self.object_type[np.maximum(column, 0)] == player_type
                )
                self.owner[is_player] = column[is_player]

    def _enumerate(self, action: ActionDef) -> IntArray:
        params = action.params
        if not params:
            return np.zeros((1, 0), np.int64)
        cands = [self.type_objects[action.param_types[p]] for p in params]
        static_lits = [lit for lit in action.precons if lit.predicate in self.static]
        for lit in static_lits:
            if len(lit.params) == 1:
                k = params.index(lit.params[0])
                facts = self._fact_column(lit.predicate, [cands[k]])
                cands[k] = cands[k][self.initial_bits[facts] == lit.is_true]
        grids = np.meshgrid(*cands, indexing="ij")
        rows = np.stack([g.ravel() for g in grids], axis=1).astype(np.int64)
        for i, j in itertools.combinations(range(len(params)), 2):
            if action.param_types[params[i]] == action.param_types[params[j]]:
                rows = rows[rows[:, i] != rows[:, j]]
        for lit in static_lits:
            if len(lit.params) != 1:
                cols = [rows[:, params.index(p)] for p in lit.params]
                facts = self._fact_column(lit.predicate, cols)
                rows = rows[self.initial_bits[facts] == lit.is_true]
        return rows

    # -- special effects --------------------------------------------------------------------

    def _goal_column(self, effect: SpecialEffectDef, objects: IntArray) -> IntArray:
        """Per-row goal counter of a delayed/repetitive effect (decision D2)."""
        dur = effect.duration
        if dur is None or (dur.value is None and dur.config_key is None):
            values = np.full(len(objects), 3, np.int64)
        elif dur.value is not None:
            values = np.full(len(objects), dur.value, np.int64)
        else:
            key = dur.config_key
            assert key is not None
            if key not in self._goal_cache:
                self._goal_cache[key] = self._config_durations(key)
            values = self._goal_cache[key][objects]
        return values + 1 if effect.type == "delayed" else values

    def _config_durations(self, key: str) -> IntArray:
        config = self.problem.config
        out = np.full(len(self.objects), 3, np.int64)
        if key not in config:
            return out
        entry = config[key]

        def check(v: Any, path: str) -> int:
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise SpecError(
                    self.problem.source, path, f"expected a positive integer, got {v!r}"
                )
            return v

        if isinstance(entry, dict):
            # Every value is checked, also those of names that no object of this task has.
            values = {name: check(v, f"config.{key}.{name}") for name, v in entry.items()}
            default = values.get("default", 3)
            for i, o in enumerate(self.objects):
                out[i] = values.get(base_name(o.name), default)
        else:
            out[:] = check(entry, f"config.{key}")
        return out

    def _signature(self, effect: SpecialEffectDef) -> int:
        """Interns the ungrounded shape of an effect tree (what identity compares besides facts)."""

        def shape(e: SpecialEffectDef) -> tuple[Any, ...]:
            created = (
                None if e.created is None else (e.created.name, e.created.type, e.created.param)
            )
            cp = None if e.created is None else e.created.param
            return (
                e.type,
                e.param,
                # Where the created object occurs is part of the shape: rel(new, x) and
                # rel(x, new) can have equal fact columns without the created term.
                tuple(
                    (lit.predicate, lit.is_true, lit.params.index(cp) if cp in lit.params else -1)
                    for lit in e.fx
                ),
                tuple((lit.predicate, lit.is_true) for lit in e.conditions),
                created,
                tuple(shape(s) for s in e.sfx),
            )

        key = shape(effect)
        return self._signatures.setdefault(key, len(self._signatures))

    def _intern_templates(
        self, action: ActionDef, effect: SpecialEffectDef, col: dict[str, IntArray], n: int
    ) -> IntArray:
        """Template id per grounding row for one top-level special effect of ``action``."""
        arg = col[effect.param]
        preorder: list[SpecialEffectDef] = []

        def walk(e: SpecialEffectDef) -> None:
            preorder.append(e)
            for s in e.sfx:
                walk(s)

        walk(effect)
        key_cols: list[IntArray] = [arg]
        per_node: list[dict[str, Any]] = []
        for e in preorder:
            info: dict[str, Any] = {}
            cp = e.created.param if e.created is not None else None
            fx = e.fx
            if e.created is not None and not len(self.type_objects[e.created.type]):
                # Nothing of this type can ever be created (an empty pool): its literals have
                # no facts and are never applied.
                fx = tuple(lit for lit in fx if cp not in lit.params)
            info["fx"] = [(lit, *self._effect_literal_columns(lit, col, cp)) for lit in fx]
            info["cond"] = [
                (lit, *self._effect_literal_columns(lit, col, None)) for lit in e.conditions
            ]
            for lits in (info["fx"], info["cond"]):
                key_cols.extend(f for _, f, _, _ in lits)
            if e.type in ("delayed", "repetitive"):
                info["goal"] = self._goal_column(e, col[e.param])
                key_cols.append(info["goal"])
            if e.type == "deletion":
                info["delete"] = col[e.param]
                key_cols.append(info["delete"])
            per_node.append(info)
        sig = self._signature(effect)
        keys = np.stack(key_cols, axis=1) if key_cols else np.zeros((n, 0), np.int64)
        out = np.empty(n, np.int64)
        for r in range(n):
            k = (sig, keys[r].tobytes())
            t = self._template_ids.get(k)
            if t is None:
                t = self._emit_template(preorder, per_node, r)
                self.template_param.append(int(arg[r]))
                self._template_ids[k] = t
            out[r] = t
        return out

    def _effect_literal_columns(
        self, lit: Literal, col: dict[str, IntArray], created_param: str | None
    ) -> tuple[IntArray, int, list[IntArray]]:
        """(fact column without the created term, created stride, guard exists-fact columns)."""
        k = self.domain.predicate_index[lit.predicate]
        strides = self.pred_strides[k]
        n = len(next(iter(col.values()))) if col else 1
        fact = np.full(n, self.pred_base[k], np.int64)
        cstride = 0
        guards = []
        for stride, p in zip(strides, lit.params):
            if p == created_param:
                cstride = stride
                continue
            fact = fact + stride * self.typepos[col[p]]
            ex = self.exists_fact[col[p]]
            if (ex >= 0).any():
                guards.append(ex)
        return fact, cstride, guards

    def _emit_template(
        self, preorder: list[SpecialEffectDef], per_node: list[dict[str, Any]], r: int
    ) -> int:
        nodes, lits = self.nodes, self.literals
        first = len(nodes.type)
        index_of = {id(e): first + i for i, e in enumerate(preorder)}
        for e, info in zip(preorder, per_node):
            nodes.type.append(_EFFECT_CODES[e.type])
            nodes.goal.append(int(info["goal"][r]) if "goal" in info else 0)
            # Node n's effect literals are [fx_begin[n], cond_begin[n]), its conditions
            # [cond_begin[n], fx_begin[n + 1]).
            for lit, f, cs, guards in info["fx"]:
                lits.add(int(f[r]), lit.is_true, cs, [int(g[r]) for g in guards if g[r] >= 0])
            nodes.cond_begin.append(len(lits.fact))
            for lit, f, cs, _ in info["cond"]:
                lits.add(int(f[r]), lit.is_true, cs, [])
            nodes.fx_begin.append(len(lits.fact))
            nodes.children.extend(index_of[id(s)] for s in e.sfx)
            nodes.child_begin.append(len(nodes.children))
            nodes.delete_object.append(int(info["delete"][r]) if "delete" in info else -1)
            if e.created is not None:
                nodes.create_group.append(self.groups.index((e.created.name, e.created.type)))
            else:
                nodes.create_group.append(-1)
        self.template_first.append(first)
        self.template_count.append(len(preorder))
        return len(self.template_first) - 1

    # -- goal -------------------------------------------------------------------------------

    def _compile_goal(self) -> None:
        goal = self.problem.goal
        n_obj = len(self.objects)
        virtual: dict[str, int] = {}

        def value_of(name: str) -> int:
            if name in self.object_index:
                return self.object_index[name]
            return virtual.setdefault(name, n_obj + len(virtual))

        self.goal_candidates = [[value_of(c) for c in v.candidates] for v in goal.variables]
        self.goal_var_group = [v.group for v in goal.variables]
        atoms: list[tuple[int, list[tuple[int, int, int, int]]]] = []
        for atom in goal.atoms:
            k = self.domain.predicate_index[atom.predicate]
            pdef = self.domain.predicates[k]
            args = []
            for a, t, stride in zip(atom.args, pdef.param_types, self.pred_strides[k]):
                is_var = isinstance(a, int)
                val = a if isinstance(a, int) else value_of(a)
                args.append((int(is_var), val, int(self.type_index[t]), stride))
            atoms.append((self.pred_base[k], args))
        self.goal_atoms = atoms
        # Assign variables most-constrained first: the next variable is the one that completes
        # the most atoms, so failing partial assignments are cut early.
        order: list[int] = []
        remaining = set(range(len(goal.variables)))
        atom_vars = [{v for isv, v, _, _ in args if isv} for _, args in atoms]
        assigned: set[int] = set()
        while remaining:

            def score(v: int) -> tuple[int, int, int]:
                done = sum(1 for s in atom_vars if v in s and s <= assigned | {v})
                touch = sum(1 for s in atom_vars if v in s)
                return (done, touch, -v)

            best = max(remaining, key=score)
            order.append(best)
            assigned.add(best)
            remaining.discard(best)
        self.goal_order = order
        level_of = {v: i for i, v in enumerate(order)}
        self.goal_atom_level = [max((level_of[v] for v in s), default=-1) for s in atom_vars]

    # -- C++ task ---------------------------------------------------------------------------

    def _build_core(self) -> None:
        def i32(x: Any) -> npt.NDArray[np.int32]:
            return np.ascontiguousarray(np.asarray(x, dtype=np.int64).astype(np.int32).ravel())

        # Rendering: one template per (predicate, argument position); per object, its lines.
        templates: list[tuple[list[str], list[int]]] = []
        template_pred: list[int] = []
        tpl_index: dict[tuple[int, int], int] = {}
        for k, p in enumerate(self.domain.predicates):
            for pos in range(len(p.param_types)):
                tpl_index[(k, pos)] = len(templates)
                templates.append(_split_template(p.descriptors[pos], numeric=True))
                template_pred.append(k)
        max_arity = max((len(p.param_types) for p in self.domain.predicates), default=0)
        fact_args = np.full((self.num_pred_facts, max(1, max_arity)), -1, np.int64)
        line_obj, line_fact, line_tpl = [], [], []
        holes: list[IntArray] = []
        for k, p in enumerate(self.domain.predicates):
            lists = [self.type_objects[t] for t in p.param_types]
            if not lists:
                continue
            grids = np.meshgrid(*lists, indexing="ij")
            cols = [g.ravel() for g in grids]
            facts = self.pred_base[k] + np.arange(len(cols[0]))
            for i, c in enumerate(cols):
                fact_args[facts, i] = c
            distinct = np.ones(len(facts), bool)
            for i, j in itertools.combinations(range(len(cols)), 2):
                distinct &= cols[i] != cols[j]
            holes.append(facts[~distinct])
            for pos, c in enumerate(cols):
                line_obj.append(c[distinct])
                line_fact.append(facts[distinct])
                line_tpl.append(np.full(int(distinct.sum()), tpl_index[(k, pos)], np.int64))
        lo = np.concatenate(line_obj) if line_obj else np.zeros(0, np.int64)
        lf = np.concatenate(line_fact) if line_fact else np.zeros(0, np.int64)
        lt = np.concatenate(line_tpl) if line_tpl else np.zeros(0, np.int64)
        order = np.lexsort((lf, lo))
        lo, lf, lt = lo[order], lf[order], lt[order]
        line_begin = np.searchsorted(lo, np.arange(len(self.objects) + 1))
        self.fact_args = fact_args

        # Facts mentioning each object that a deletion may remove (created objects included:
        # a created object of a deletable type can be deleted again).
        deletable = self.deletable_types
        del_begin = [0]
        del_facts: list[int] = []
        for o in range(len(self.objects)):
            if self.may_vanish[o] and self.objects[o].type in deletable:
                mention = np.flatnonzero((fact_args == o).any(axis=1))
                del_facts.extend(int(f) for f in mention)
                del_facts.append(int(self.exists_fact[o]))
            del_begin.append(len(del_facts))

        action_templates = [
            _split_template(a.language_description, names=a.params) for a in self.domain.actions
        ]
        goal_cand_begin = np.cumsum([0] + [len(c) for c in self.goal_candidates])
        atom_arg_begin = np.cumsum([0] + [len(args) for _, args in self.goal_atoms])
        atom_args = [x for _, args in self.goal_atoms for x in args]
        atom_args_arr = np.array(atom_args, np.int64).reshape(-1, 4)
        type_labels = [t[:1].upper() + t[1:] for t in self.domain.object_types]

        self.core = _core.Task(
            num_facts=self.num_facts,
            num_objects=len(self.objects),
            num_players=len(self.problem.players),
            fact_args_width=int(fact_args.shape[1]),
            object_type=i32(self.object_type),
            typepos=i32(self.typepos),
            exists_fact=i32(self.exists_fact),
            pre_pos_begin=i32(self.pre_pos[0]),
            pre_pos=i32(self.pre_pos[1]),
            pre_neg_begin=i32(self.pre_neg[0]),
            pre_neg=i32(self.pre_neg[1]),
            eff_begin=i32(self.eff_fact[0]),
            eff_fact=i32(self.eff_fact[1]),
            eff_value=i32(self.eff_value[1]),
            sfx_begin=i32(self.sfx_templates[0]),
            sfx_template=i32(self.sfx_templates[1]),
            owner=i32(self.owner),
            fact_hint=i32(self.initial_bits),
            template_first=i32(self.template_first),
            template_count=i32(self.template_count),
            node_type=i32(self.nodes.type),
            node_goal=i32(self.nodes.goal),
            node_fx_begin=i32(self.nodes.fx_begin),
            node_cond_begin=i32([*self.nodes.cond_begin, len(self.literals.fact)]),
            node_child_begin=i32(self.nodes.child_begin),
            node_children=i32(self.nodes.children),
            node_delete_object=i32(self.nodes.delete_object),
            node_create_group=i32(self.nodes.create_group),
            lit_fact=i32(self.literals.fact),
            lit_value=i32(self.literals.value),
            lit_created_stride=i32(self.literals.created_stride),
            lit_guard_begin=i32(self.literals.guard_begin),
            lit_guards=i32(self.literals.guards),
            group_slot_begin=i32(np.cumsum([0] + [len(s) for s in self.group_slots])),
            group_slots=i32([s for slots in self.group_slots for s in slots]),
            delete_fact_begin=i32(del_begin),
            delete_facts=i32(del_facts),
            goal_var_group=i32(self.goal_var_group),
            goal_cand_begin=i32(goal_cand_begin),
            goal_candidates=i32([c for cs in self.goal_candidates for c in cs]),
            goal_order=i32(self.goal_order),
            goal_atom_base=i32([b for b, _ in self.goal_atoms]),
            goal_atom_level=i32(self.goal_atom_level),
            goal_atom_arg_begin=i32(atom_arg_begin),
            goal_atom_args=i32(atom_args_arr),
            object_names=[o.name for o in self.objects],
            object_labels=[type_labels[int(t)] for t in self.object_type],
            line_begin=i32(line_begin),
            line_fact=i32(lf),
            line_template=i32(lt),
            fact_args=i32(fact_args),
            text_templates=templates,
            template_pred=i32(template_pred),
            hole_facts=i32(np.concatenate(holes) if holes else []),
            action_of=i32(self.action_of),
            grounding_args=i32(self.grounding_args),
            action_templates=action_templates,
            goal_description=self.problem.goal_description,
        )
        words = np.zeros(self.core.num_words, np.uint64)
        bits = np.flatnonzero(self.initial_bits)
        np.bitwise_or.at(
            words, bits // 64, np.left_shift(np.uint64(1), (bits % 64).astype(np.uint64))
        )
        self.initial_words = words
        self.initial_counters = np.zeros(self.core.num_counters, np.int32)

    # -- decoding for the Python side -------------------------------------------------------

    def fact_name(self, fact: int) -> str:
        """``pred(a,b)`` for a predicate fact, ``exists(o)`` for a hidden existence fact."""
        if fact >= self.num_pred_facts:
            o = int(np.flatnonzero(self.exists_fact == fact)[0])
            return f"exists({self.objects[o].name})"
        k = int(self.fact_pred[fact])
        arity = len(self.domain.predicates[k].param_types)
        args = ",".join(self.objects[int(o)].name for o in self.fact_args[fact, :arity])
        return f"{self.domain.predicates[k].name}({args})"

    def grounding_name(self, g: int) -> tuple[str, tuple[str, ...]]:
        """(action name, argument names in the action's canonical param order)."""
        action = self.domain.actions[int(self.action_of[g])]
        args = self.grounding_args[g, : len(action.params)]
        return action.name, tuple(self.objects[int(o)].name for o in args)

    def grounding_id(self, action: str, args: Sequence[str]) -> int | None:
        """The grounding of ``action(args)`` (args in canonical param order), if compiled.

        Groundings whose static preconditions fail are not compiled; they give ``None``.
        """
        if self._grounding_ids is None:
            # Every grounding's grounding_name at once, from lists: tens of thousands of
            # groundings on the multi-agent tasks, and a plan's replay asks for a few.
            names = [o.name for o in self.objects]
            actions = [(a.name, len(a.params)) for a in self.domain.actions]
            self._grounding_ids = {
                (actions[a][0], tuple(names[o] for o in row[: actions[a][1]])): g
                for g, (a, row) in enumerate(
                    zip(self.action_of.tolist(), self.grounding_args.tolist(), strict=True)
                )
            }
        return self._grounding_ids.get((action, tuple(args)))

    def explain(self, action: str, args: Sequence[str], words: npt.NDArray[np.uint64]) -> str:
        """Why ``action(args)`` is not a valid grounding in ``words``."""
        names = [a.name for a in self.domain.actions]
        if action not in names:
            return f"unknown action {action!r}"
        adef = self.domain.actions[names.index(action)]
        if len(args) != len(adef.params):
            return f"{action} takes {len(adef.params)} arguments ({', '.join(adef.params)})"
        objs = []
        for p, a in zip(adef.params, args):
            o = self.object_index.get(a)
            if o is None or self.objects[o].type != adef.param_types[p]:
                return f"{a!r} is not a {adef.param_types[p]} object"
            objs.append(o)
        if len(set(objs)) != len(objs):
            return "an action's arguments must be distinct objects"
        return self._unmet(adef, objs, words) or "not valid in this state"

    def unmet_precondition(self, g: int, words: npt.NDArray[np.uint64]) -> str | None:
        """The first precondition of grounding ``g`` that fails in ``words``, as text."""
        action = self.domain.actions[int(self.action_of[g])]
        return self._unmet(action, [int(o) for o in self.grounding_args[g]], words)

    def _unmet(
        self, action: ActionDef, objs: Sequence[int], words: npt.NDArray[np.uint64]
    ) -> str | None:
        binding = dict(zip(action.params, objs))
        for p, o in binding.items():
            ex = int(self.exists_fact[o])
            if ex >= 0 and not _bit(words, ex):
                return f"{self.objects[o].name} does not exist (needed for {p})"
        for lit in action.precons:
            fact = self.fact_of(lit.predicate, [binding[p] for p in lit.params])
            if _bit(words, fact) != lit.is_true:
                name = self.fact_name(fact)
                return f"precondition {name} is {'false' if lit.is_true else 'true'}"
        return None


def _bit(words: npt.NDArray[np.uint64], fact: int) -> bool:
    return bool((int(words[fact >> 6]) >> (fact & 63)) & 1)


def _matrix(columns: Sequence[IntArray], n: int) -> IntArray:
    """Stacks per-literal columns into an ``(n, L)`` matrix; -1 entries are dropped by _csr."""
    if not columns:
        return np.zeros((n, 0), np.int64)
    return np.stack(columns, axis=1).astype(np.int64)


def _csr(blocks: Sequence[IntArray]) -> tuple[IntArray, IntArray]:
    """Row-wise concatenation of matrices into (indptr, values), dropping -1 entries."""
    indptrs = [np.zeros(1, np.int64)]
    values = []
    offset = 0
    for m in blocks:
        if m.size == 0:
            counts = np.zeros(m.shape[0], np.int64)
        else:
            keep = m >= 0
            counts = keep.sum(axis=1)
            values.append(m[keep])
        indptrs.append(offset + np.cumsum(counts))
        offset += int(counts.sum())
    flat = np.concatenate(values) if values else np.zeros(0, np.int64)
    return np.concatenate(indptrs), flat


def _split_template(
    template: str, *, numeric: bool = False, names: Sequence[str] = ()
) -> tuple[list[str], list[int]]:
    """Splits ``"Move {p1} to {s2}"`` into literal pieces and argument slots."""
    pieces: list[str] = []
    slots: list[int] = []
    last = 0
    for m in re.finditer(r"\{(\w+)\}", template):
        field_name = m.group(1)
        slot = int(field_name) if numeric else list(names).index(field_name)
        pieces.append(template[last : m.start()])
        slots.append(slot)
        last = m.end()
    pieces.append(template[last:])
    return pieces, slots


def compile_task(domain: Domain, problem: Problem, *, pool_size: int | None = None) -> CompiledTask:
    """Compiles a domain and problem into a :class:`CompiledTask`.

    Args:
        domain: The domain.
        problem: The problem, loaded against ``domain``.
        pool_size: How many objects each creation group may create (decision D7);
            defaults to :data:`DEFAULT_POOL_SIZE`.

    Returns:
        The compiled task, including the C++ ``_core.Task``.
    """
    return CompiledTask(domain, problem, pool_size=pool_size)


__all__ = ["DEFAULT_POOL_SIZE", "CompiledTask", "GoalAtom", "compile_task"]
