"""Interchangeable objects of a compiled task, for symmetry reduction in the planner.

Two objects are interchangeable when swapping them everywhere maps the task onto itself: every
grounding onto a grounding of the same action with the swapped preconditions and effects, every
special-effect template onto a template of the same shape, the static facts onto themselves and
the goal's candidate sets onto themselves. Then a state and its swapped copy have the same
optimal distance to the goal, so the search may store one representative per orbit
(``cpp/include/robotouille/symmetry.h``).

Candidates are objects of one type and base name (``table1`` ... ``table8``) that always exist;
created or deletable objects, objects named by a goal constant and, outside centralized mode,
robots (their order is the turn and joint-action order) are never swapped. Each candidate is
checked against its class's first member, and joins the class only when that transposition is
an automorphism; transpositions with one common member generate every permutation of the class,
so every permutation the planner applies is an automorphism.

What the C++ canonicalizer receives: the classes, and for every ordered pair ``(i, j)``, ``i <
j``, of members of a class the facts (of non-static predicates) and the templates that the
transposition exchanges.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .compile import CompiledTask
from .invariants import csr_positions, sorted_unique

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class SymmetryTables:
    """Flat tables for ``_core.search`` (see the module docstring).

    Attributes:
        classes: The classes of interchangeable objects (object indices), each of size >= 2.
        class_begin: CSR offsets of ``class_objects``.
        class_objects: The members of every class, class after class.
        pair_fact_begin: CSR offsets, one row per (class, i, j) in row-major k x k order per
            class (rows with ``i >= j`` are empty).
        pair_facts: Exchanged fact pairs ``(f, f')``, flattened.
        pair_template_begin: As ``pair_fact_begin``, for templates.
        pair_templates: Exchanged template pairs ``(t, t')``, flattened, both directions, each
            row sorted by ``t``.
        fact_pred: Per fact, its predicate for facts a class member can appear in and whose
            predicate is not static, else -1.
        template_orbit: Per template, a representative of its orbit under the classes.
        template_object_begin: CSR offsets of ``template_objects``.
        template_objects: Per template, the class members its literals mention.
    """

    classes: list[list[int]]
    class_begin: IntArray
    class_objects: IntArray
    pair_fact_begin: IntArray
    pair_facts: IntArray
    pair_template_begin: IntArray
    pair_templates: IntArray
    fact_pred: IntArray
    template_orbit: IntArray
    template_object_begin: IntArray
    template_objects: IntArray


class _Checker:
    """Builds and verifies the fact, grounding and template maps of object transpositions."""

    def __init__(self, task: CompiledTask) -> None:
        self.task = task
        self.num_facts = task.num_facts
        self.num_templates = len(task.template_first)
        self.fact_pred = task.fact_pred
        width = task.fact_args.shape[1]
        self.strides = np.zeros((len(task.domain.predicates), width), np.int64)
        for k, strides in enumerate(task.pred_strides):
            self.strides[k, : len(strides)] = strides
        self.pred_base = np.asarray(task.pred_base, np.int64)
        static_facts = ~task.fact_mutable & task.initial_bits[: task.num_pred_facts]
        self.static_true = set(np.flatnonzero(static_facts).tolist())
        # Groundings by (action, args), encoded as one integer each, for vectorized lookups.
        args = task.grounding_args
        radix = len(task.objects) + 1
        self.radix_powers = radix ** np.arange(args.shape[1], dtype=np.int64)
        self.keys = task.action_of * radix ** args.shape[1] + (args + 1) @ self.radix_powers
        self.key_order = np.argsort(self.keys, kind="stable")
        self.sorted_keys = self.keys[self.key_order]
        # Per object, the groundings naming it, ascending: from one stable sort of the (grounding,
        # object) pairs by object rather than a pass over every grounding per object. (Pairs come
        # grounding by grounding, so a grounding that names an object twice is listed twice in a
        # row.)
        naming, slot = np.nonzero(args >= 0)
        named = args[naming, slot]
        order = np.argsort(named, kind="stable")
        named, naming = named[order], naming[order]
        once = (np.diff(named, prepend=-1) != 0) | (np.diff(naming, prepend=-1) != 0)
        named, naming = named[once], naming[once]
        starts = np.flatnonzero(np.diff(named, prepend=-1))
        self.mentions = dict(zip(named[starts].tolist(), np.split(naming, starts[1:])))
        self._verified: dict[tuple[int, int], tuple[IntArray, IntArray] | None] = {}

    def fact_map(self, a: int, b: int) -> IntArray:
        """The fact permutation of swapping objects a and b."""
        task = self.task
        perm = np.arange(self.num_facts, dtype=np.int64)
        args = task.fact_args
        rows = np.flatnonzero(((args == a) | (args == b)).any(axis=1))
        swapped = args[rows].copy()
        swapped[args[rows] == a] = b
        swapped[args[rows] == b] = a
        preds = self.fact_pred[rows]
        pos = np.where(swapped >= 0, task.typepos[np.maximum(swapped, 0)], 0)
        perm[rows] = self.pred_base[preds] + (self.strides[preds] * pos).sum(axis=1)
        return perm

    def _swapped_groundings(self, a: int, b: int) -> tuple[IntArray, IntArray] | None:
        """The groundings that name a or b, and their images under the swap (or None)."""
        task = self.task
        empty = np.zeros(0, np.int64)
        rows = sorted_unique(
            np.concatenate([self.mentions.get(a, empty), self.mentions.get(b, empty)])
        )
        swapped = task.grounding_args[rows].copy()
        swapped[task.grounding_args[rows] == a] = b
        swapped[task.grounding_args[rows] == b] = a
        radix = len(task.objects) + 1
        keys = task.action_of[rows] * radix ** swapped.shape[1] + (swapped + 1) @ self.radix_powers
        at = np.minimum(np.searchsorted(self.sorted_keys, keys), len(self.sorted_keys) - 1)
        if not (self.sorted_keys[at] == keys).all():
            return None
        return rows, self.key_order[at]

    def grounding_map(self, a: int, b: int) -> IntArray | None:
        """The grounding permutation of swapping a and b, or None (see :meth:`verify`)."""
        found = self._swapped_groundings(a, b)
        if found is None:
            return None
        perm = np.arange(len(self.task.action_of), dtype=np.int64)
        perm[found[0]] = found[1]
        return perm

    def verify(self, a: int, b: int) -> tuple[IntArray, IntArray] | None:
        """(fact map, template map) when swapping a and b is an automorphism, else None.

        Computed once per pair (the maps are read-only): the symmetries, the shared rows and the
        robot swaps ask about many of the same pairs.
        """
        pair = (min(a, b), max(a, b))
        if pair not in self._verified:
            found = self._verify(a, b)
            if found is not None:
                for array in found:
                    array.flags.writeable = False
            self._verified[pair] = found
        return self._verified[pair]

    def _verify(self, a: int, b: int) -> tuple[IntArray, IntArray] | None:
        task = self.task
        facts = self.fact_map(a, b)
        if {int(facts[f]) for f in self.static_true} != self.static_true:
            return None
        swap = {a: b, b: a}
        found = self._swapped_groundings(a, b)
        if found is None:
            return None
        rows, images = found
        for (begin, values), ordered in (
            (task.pre_pos, False),
            (task.pre_neg, False),
            (task.eff_fact, True),
        ):
            mine = _rows(begin, values, rows, ordered, facts)
            theirs = _rows(begin, values, images, ordered, None)
            if not np.array_equal(mine, theirs):
                return None
        eff_begin = task.eff_fact[0]
        if not np.array_equal(
            _rows(eff_begin, task.eff_value[1], rows, True, None),
            _rows(eff_begin, task.eff_value[1], images, True, None),
        ):
            return None
        sfx_begin, sfx = task.sfx_templates
        count = len(rows)
        mine_t = _rows(sfx_begin, sfx, rows, True, None)
        theirs_t = _rows(sfx_begin, sfx, images, True, None)
        if not np.array_equal(mine_t[:count], theirs_t[:count]):
            return None
        mine_t, theirs_t = mine_t[count:], theirs_t[count:]
        pairs = np.unique(np.stack([mine_t, theirs_t], axis=1), axis=0)
        if len(np.unique(pairs[:, 0])) != len(pairs):
            return None
        templates = np.arange(self.num_templates, dtype=np.int64)
        templates[pairs[:, 0]] = pairs[:, 1]
        if len(set(templates.tolist())) != self.num_templates:
            return None
        for t in np.flatnonzero(templates != np.arange(self.num_templates)).tolist():
            if not self._same_template(t, int(templates[t]), facts, swap):
                return None
        return facts, templates

    def _same_template(self, t: int, u: int, facts: IntArray, swap: dict[int, int]) -> bool:
        """Whether template u is template t with the swap applied."""
        task = self.task
        nodes = task.nodes
        count = task.template_count[t]
        if task.template_count[u] != count:
            return False
        first_t, first_u = task.template_first[t], task.template_first[u]
        for i in range(count):
            n, m = first_t + i, first_u + i
            if (nodes.type[n], nodes.goal[n], nodes.create_group[n]) != (
                nodes.type[m],
                nodes.goal[m],
                nodes.create_group[m],
            ):
                return False
            deleted = nodes.delete_object[n]
            if swap.get(deleted, deleted) != nodes.delete_object[m]:
                return False
            kids, begin = nodes.children, nodes.child_begin
            children_n = [c - first_t for c in kids[begin[n] : begin[n + 1]]]
            children_m = [c - first_u for c in kids[begin[m] : begin[m + 1]]]
            if children_n != children_m:
                return False
            span_n = range(nodes.fx_begin[n], nodes.fx_begin[n + 1])
            span_m = range(nodes.fx_begin[m], nodes.fx_begin[m + 1])
            if len(span_n) != len(span_m) or nodes.cond_begin[n] - nodes.fx_begin[n] != (
                nodes.cond_begin[m] - nodes.fx_begin[m]
            ):
                return False
            for i_lit, j_lit in zip(span_n, span_m):
                if not self._same_literal(i_lit, j_lit, nodes.create_group[n], facts):
                    return False
        return True

    def _same_literal(self, i: int, j: int, group: int, facts: IntArray) -> bool:
        lits = self.task.literals
        if (lits.value[i], lits.created_stride[i]) != (lits.value[j], lits.created_stride[j]):
            return False
        guards_i = lits.guards[lits.guard_begin[i] : lits.guard_begin[i + 1]]
        guards_j = lits.guards[lits.guard_begin[j] : lits.guard_begin[j + 1]]
        if guards_i != guards_j:  # exists facts of created/deleted objects, never swapped
            return False
        stride = lits.created_stride[i]
        if stride == 0:
            return int(facts[lits.fact[i]]) == lits.fact[j]
        # A literal about the object a creation makes: complete it with a pool object (pool
        # objects are never swapped) to map it as a whole fact.
        slot = self.task.group_slots[group][0]
        offset = stride * int(self.task.typepos[slot])
        return int(facts[lits.fact[i] + offset]) == lits.fact[j] + offset


def _rows(
    begin: IntArray, values: IntArray, rows: IntArray, ordered: bool, facts: IntArray | None
) -> IntArray:
    """The lengths of CSR rows ``rows``, then their values, row after row.

    Each row's values are mapped through ``facts`` when given, and sorted unless ``ordered``.
    """
    lengths, row_id, at = csr_positions(begin, rows)
    picked = values[at]
    if facts is not None:
        picked = facts[picked]
    if not ordered and len(picked):
        # One sort of the keys row * width + value (values are facts, not negative): a third
        # of np.lexsort's time on the two keys.
        width = int(picked.max()) + 1
        keys = row_id * width + picked
        keys.sort()
        picked = keys - row_id * width
    return np.concatenate([lengths, picked])


def _candidate_groups(task: CompiledTask, fixed: set[int]) -> list[list[int]]:
    groups: dict[tuple[str, str], list[int]] = {}
    for o in range(task.num_initial_objects):
        info = task.objects[o]
        if task.may_vanish[o] or o in fixed:
            continue
        groups.setdefault((info.type, info.base), []).append(o)
    return [members for members in groups.values() if len(members) > 1]


def _goal_fixed(task: CompiledTask) -> tuple[set[int], list[set[int]]]:
    """Objects that goal constants name, and each goal variable's candidate set."""
    constants = {val for _, args in task.goal_atoms for is_var, val, _, _ in args if not is_var}
    return constants, [set(c) for c in task.goal_candidates]


def _checker(task: CompiledTask) -> _Checker:
    """The task's checker, built once (its tables take a moment).

    A task that shares another's dynamics (``_dynamics_source``: the same facts, groundings,
    effects, templates and start; only the goal differs) shares its checker, which reads only
    those.
    """
    source: CompiledTask = task.__dict__.get("_dynamics_source", task)
    checker = source.__dict__.get("_swap_checker")
    if checker is None:
        checker = source.__dict__["_swap_checker"] = _Checker(source)
    return checker


def object_swap(task: CompiledTask, a: int, b: int) -> tuple[IntArray, IntArray, IntArray] | None:
    """The fact, template and grounding maps of swapping objects a and b, or None.

    None unless :func:`find_symmetries` would accept the swap: an automorphism of the task, its
    goal included.

    Args:
        task: The compiled task.
        a: An object.
        b: Another object, of a's type and base name.

    Returns:
        The three permutations (each an involution), or None when the swap is not accepted.
    """
    constants, candidate_sets = _goal_fixed(task)
    info_a, info_b = task.objects[a], task.objects[b]
    if (
        a == b
        or (info_a.type, info_a.base) != (info_b.type, info_b.base)
        or {a, b} & constants
        or task.may_vanish[a]
        or task.may_vanish[b]
        or a >= task.num_initial_objects
        or b >= task.num_initial_objects
    ):
        return None
    checker = _checker(task)
    found = _accepted_swap(checker, candidate_sets, a, b)
    groundings = checker.grounding_map(a, b) if found is not None else None
    return None if found is None or groundings is None else (*found, groundings)


def _accepted_swap(
    checker: _Checker, candidate_sets: list[set[int]], a: int, b: int
) -> tuple[IntArray, IntArray] | None:
    """(fact map, template map) of swapping a and b, or None.

    None unless the swap keeps every goal variable's candidate set and is an automorphism of the
    task.
    """
    swap = {a: b, b: a}
    if any({swap.get(c, c) for c in s} != s for s in candidate_sets):
        return None
    return checker.verify(a, b)


def find_symmetries(task: CompiledTask, *, fixed_objects: set[int] | None = None) -> SymmetryTables:
    """Classes of interchangeable objects of ``task`` and the tables the planner applies.

    Args:
        task: The compiled task.
        fixed_objects: Objects that must never be swapped (e.g. the robots in turn-based and
            simultaneous mode, whose order matters).

    Returns:
        The tables (with no classes when nothing is interchangeable).
    """
    constants, candidate_sets = _goal_fixed(task)
    fixed = set(constants) | set(fixed_objects or ())
    checker = _checker(task)
    classes: list[list[int]] = []
    generators: list[list[tuple[IntArray, IntArray]]] = []
    for members in _candidate_groups(task, fixed):
        pending = list(members)
        while len(pending) > 1:
            first, rest = pending[0], pending[1:]
            cls, maps, left = [first], [], []
            for o in rest:
                found = _accepted_swap(checker, candidate_sets, first, o)
                if found is None:
                    left.append(o)
                else:
                    cls.append(o)
                    maps.append(found)
            if len(cls) > 1:
                classes.append(cls)
                generators.append(maps)
            pending = left
    return _tables(task, checker, classes, generators)


def _tables(
    task: CompiledTask,
    checker: _Checker,
    classes: list[list[int]],
    generators: list[list[tuple[IntArray, IntArray]]],
) -> SymmetryTables:
    num_templates = checker.num_templates
    mutable_fact = np.zeros(checker.num_facts, bool)
    mutable_fact[: task.num_pred_facts] = task.fact_mutable
    fact_begin, fact_pairs = [0], []
    tmpl_begin, tmpl_pairs = [0], []
    orbit = np.arange(num_templates, dtype=np.int64)

    def find(t: int) -> int:
        while orbit[t] != t:
            orbit[t] = orbit[orbit[t]]
            t = int(orbit[t])
        return t

    for cls, maps in zip(classes, generators):
        k = len(cls)
        # Transposition (0, x) for x >= 1 is maps[x - 1]; (i, j) = (0, i)(0, j)(0, i).
        fact_maps = [np.arange(checker.num_facts, dtype=np.int64)] + [m[0] for m in maps]
        tmpl_maps = [np.arange(num_templates, dtype=np.int64)] + [m[1] for m in maps]
        for _, tm in maps:
            for t in np.flatnonzero(tm != np.arange(num_templates)).tolist():
                ra, rb = find(t), find(int(tm[t]))
                if ra != rb:
                    orbit[max(ra, rb)] = min(ra, rb)
        for i in range(k):
            for j in range(k):
                if i < j:
                    if i == 0:
                        fm, tm = fact_maps[j], tmpl_maps[j]
                    else:
                        fm = fact_maps[i][fact_maps[j][fact_maps[i]]]
                        tm = tmpl_maps[i][tmpl_maps[j][tmpl_maps[i]]]
                    moved = np.flatnonzero((fm != np.arange(len(fm))) & mutable_fact)
                    lower = moved[moved < fm[moved]]
                    fact_pairs.append(np.stack([lower, fm[lower]], axis=1).ravel())
                    tmoved = np.flatnonzero(tm != np.arange(num_templates))
                    tmpl_pairs.append(np.stack([tmoved, tm[tmoved]], axis=1).ravel())
                else:
                    fact_pairs.append(np.zeros(0, np.int64))
                    tmpl_pairs.append(np.zeros(0, np.int64))
                fact_begin.append(fact_begin[-1] + len(fact_pairs[-1]) // 2)
                tmpl_begin.append(tmpl_begin[-1] + len(tmpl_pairs[-1]) // 2)
    members = sorted(o for cls in classes for o in cls)
    member_set = set(members)
    fact_pred = np.full(checker.num_facts, -1, np.int64)
    if members:
        mentions = np.isin(task.fact_args, members).any(axis=1)
        keep = mentions & mutable_fact[: task.num_pred_facts]
        fact_pred[: task.num_pred_facts][keep] = checker.fact_pred[keep]
    tobj_begin, tobjs = [0], []
    lits, nodes = task.literals, task.nodes
    for t in range(num_templates):
        found: set[int] = set()
        first = task.template_first[t]
        for n in range(first, first + task.template_count[t]):
            if nodes.delete_object[n] in member_set:
                found.add(nodes.delete_object[n])
            for i in range(nodes.fx_begin[n], nodes.fx_begin[n + 1]):
                if lits.created_stride[i] == 0 and lits.fact[i] < task.num_pred_facts:
                    found.update(int(o) for o in task.fact_args[lits.fact[i]] if o in member_set)
        tobjs.extend(sorted(found))
        tobj_begin.append(len(tobjs))
    for t in range(num_templates):
        orbit[t] = find(t)

    def flat(parts: list[IntArray]) -> IntArray:
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

    return SymmetryTables(
        classes=classes,
        class_begin=np.cumsum([0] + [len(c) for c in classes]).astype(np.int64),
        class_objects=np.array([o for c in classes for o in c], np.int64),
        pair_fact_begin=np.array(fact_begin, np.int64),
        pair_facts=flat(fact_pairs),
        pair_template_begin=np.array(tmpl_begin, np.int64),
        pair_templates=flat(tmpl_pairs),
        fact_pred=fact_pred,
        template_orbit=orbit,
        template_object_begin=np.array(tobj_begin, np.int64),
        template_objects=np.array(tobjs, np.int64),
    )


def task_symmetries(task: CompiledTask) -> SymmetryTables:
    """``find_symmetries(task)`` with nothing fixed (centralized mode), computed once per task."""
    found: SymmetryTables | None = task.__dict__.get("_symmetries")
    if found is None:
        found = task.__dict__["_symmetries"] = find_symmetries(task)
    return found


def closed_groups(groups: list[list[int]], tables: SymmetryTables) -> list[list[int]]:
    """The fact sets of ``groups`` that the tables' permutations keep within the kept sets.

    A set is dropped while some swap of a class's first member with another maps it onto
    facts that no kept set contains; those swaps generate every permutation the tables allow,
    so each permutation maps a kept set into a kept set. Symmetry reduction stores images of
    reachable states: an at-most-one set that holds in every reachable state holds in those
    images only when its own images hold in every reachable state too.

    Args:
        groups: Fact sets (e.g. at-most-one invariants).
        tables: Interchangeable objects and the facts their swaps exchange.

    Returns:
        The kept sets, in their order.
    """
    swaps: list[dict[int, int]] = []
    class_row = 0  # the pair rows of a class of k members: k x k, row-major
    for members in tables.classes:
        for row in range(class_row + 1, class_row + len(members)):  # pairs (0, j)
            begin, end = tables.pair_fact_begin[row], tables.pair_fact_begin[row + 1]
            pairs = tables.pair_facts[2 * begin : 2 * end].reshape(-1, 2).tolist()
            swap = {a: b for a, b in pairs}  # noqa: C416 (the pairs are lists)
            swaps.append(swap | {b: a for a, b in pairs})
        class_row += len(members) ** 2
    kept = [frozenset(g) for g in groups]
    alive = [True] * len(kept)
    changed = True
    while changed:
        changed = False
        containing: dict[int, list[int]] = {}
        for k, group in enumerate(kept):
            if alive[k]:
                for f in group:
                    containing.setdefault(f, []).append(k)
        for k, group in enumerate(kept):
            if not alive[k]:
                continue
            for swap in swaps:
                image = [swap.get(f, f) for f in group]
                holders = set(containing.get(image[0], []))
                for f in image[1:]:
                    holders.intersection_update(containing.get(f, []))
                if not holders:
                    alive[k] = False
                    changed = True
                    break
    return [list(g) for g, a in zip(groups, alive) if a]


__all__ = [
    "SymmetryTables",
    "closed_groups",
    "find_symmetries",
    "object_swap",
    "task_symmetries",
]
