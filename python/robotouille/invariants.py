"""At-most-one invariants: sets of facts of which no reachable state has two true.

A projection checks only the preconditions inside its own facts, so it reaches abstract states
that no real state maps to. In a kitchen with many items the worst of these pile items up: a
bottom bun's projection keeps ``clear(bottombun)`` and ``atop(x, bottombun)`` for every item x
that is not itself projected, and unstacking a projected item (whose ``atop`` fact belongs to
its own projection) sets ``clear(bottombun)`` without removing anything, so any number of items
end up "on" the bun. Two robots and a dozen items take such a projection past its size cap, and
the bound loses it. A fact set that provably has at most one true fact in every reachable state
removes those states: every real state, and so every real step, stays inside the invariant, so a
projection that drops the abstract states violating it still maps every real plan to a
projected plan of no greater cost (see ``projection.h``).

Candidates are built per object in the manner of invariant synthesis for planning tasks: a
*slot* is a predicate with the object at one argument position (``atop(*, o)``), a candidate
is a set of slots, and its facts are every mutable fact that fills one of them. A candidate
holds when at most one of its facts is true at the start, no special effect writes any of them,
and every grounding that makes one true either needs two of them (so it never applies) or needs
and deletes another one of them. A candidate that fails on a grounding grows by the slots of
what that grounding needs and deletes, up to :data:`MAX_SLOTS` slots.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import numpy as np
import numpy.typing as npt

MAX_SLOTS = 4
"""A candidate invariant has at most this many slots (predicate, argument position)."""


class TaskView(Protocol):
    """What the synthesis reads of a task (``projections._TaskView`` provides it)."""

    pre_pos: list[list[int]]
    final: list[dict[int, int]]  # per grounding, the value each written fact ends with
    # The same as arrays: CSR (begin, facts) of the preconditions, and of the effects in order
    # (begin, facts, values).
    pre_pos_csr: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]
    eff_csr: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]
    template_writes: list[set[int]]
    mutable_facts: list[int]

    def args(self, fact: int) -> list[int]: ...


Slot = tuple[int, int]  # (predicate, argument position)


class _Synthesis:
    def __init__(
        self, view: TaskView, fact_pred: npt.NDArray[np.int64], initial: npt.NDArray[np.bool_]
    ) -> None:
        self.view = view
        self.fact_pred = fact_pred
        self.initial = initial
        self.written_by_templates = set().union(*view.template_writes)
        self.slot_facts: dict[tuple[int, Slot], list[int]] = {}
        for f in view.mutable_facts:
            for position, o in enumerate(view.args(f)):
                self.slot_facts.setdefault((o, (int(fact_pred[f]), position)), []).append(f)
        # Per grounding, as CSR rows for first_violation's counts: the facts it makes true, needs,
        # needs and deletes, and needs and makes true; per fact (CSR), the groundings after
        # which it is true (only they can make it true).
        pre_begin, pre_facts = view.pre_pos_csr
        eff_begin, eff_facts, eff_values = view.eff_csr
        num_facts = int(
            max(len(initial), pre_facts.max(initial=-1) + 1, eff_facts.max(initial=-1) + 1)
        )
        groundings = len(pre_begin) - 1
        # Keys grounding * num_facts + fact, in grounding order: each needed fact once (a list
        # may name one twice; sorted), each written fact with the value it ends with (the last
        # write).
        needed_keys = sorted_unique(_pair_keys(pre_begin, num_facts) + pre_facts)
        final = _last_of_each(eff_begin, eff_facts, num_facts)
        final_keys = _pair_keys(eff_begin, num_facts)[final] + eff_facts[final]
        makes_true = eff_values[final] != 0
        # (A search in the sorted keys: np.isin sorts both sides, several times slower here.)
        is_needed = np.zeros(len(final_keys), bool)
        if len(needed_keys):
            at = np.minimum(np.searchsorted(needed_keys, final_keys), len(needed_keys) - 1)
            is_needed = needed_keys[at] == final_keys
        added_keys = final_keys[makes_true]
        self._csr = [
            _csr_of(keys, num_facts, groundings)
            for keys in (
                added_keys,
                needed_keys,
                final_keys[~makes_true & is_needed],
                final_keys[makes_true & is_needed],
            )
        ]
        # The same pairs keyed fact * groundings + grounding (a stable sort keeps each fact's
        # groundings in order).
        added_facts, adding = added_keys % num_facts, added_keys // num_facts
        by_fact = np.argsort(added_facts, kind="stable")
        self._adders = _csr_of(
            added_facts[by_fact] * groundings + adding[by_fact], groundings, num_facts
        )
        self._in_group = np.zeros(num_facts, bool)
        self._making = np.zeros(groundings, bool)
        # Per grounding (filled on first use): the facts it makes true, the facts it needs and
        # deletes, and the facts it needs (its effects applied in order: the last write wins).
        self._effects: dict[int, tuple[set[int], set[int], set[int]]] = {}

    def effects(self, g: int) -> tuple[set[int], set[int], set[int]]:
        found = self._effects.get(g)
        if found is None:
            final = self.view.final[g]
            needed = set(self.view.pre_pos[g])
            added = {f for f, v in final.items() if v}
            consumed = {f for f in needed if final.get(f) == 0}
            found = self._effects[g] = (added, consumed, needed)
        return found

    def facts(self, o: int, slots: Iterable[Slot]) -> set[int]:
        return {f for s in slots for f in self.slot_facts.get((o, s), [])}

    def first_violation(self, group: set[int]) -> int | None:
        """A grounding that may make a second fact of ``group`` true (-1: another reason)."""
        if sum(bool(self.initial[f]) for f in group) > 1 or group & self.written_by_templates:
            return -1
        members = list(group)
        begin, adders = self._adders
        for f in members:
            self._making[adders[begin[f] : begin[f + 1]]] = True
        candidates = np.flatnonzero(self._making)  # (in order, each once)
        self._making[candidates] = False
        if not len(candidates):
            return None
        # Per grounding that makes a fact of the group true, in order, how many facts of the
        # group it makes true, needs, needs and deletes, and needs and makes true.
        self._in_group[members] = True
        made, required, consumed, kept = (
            _row_counts(begin, values, candidates, self._in_group) for begin, values in self._csr
        )
        self._in_group[members] = False
        # One that needs two facts of the group never applies; one that makes two true, or
        # makes one true while it neither needs that one nor deletes another, grows the count.
        grows = (required < 2) & ((made > 1) | ((kept == 0) & (consumed == 0)))
        return int(candidates[np.argmax(grows)]) if grows.any() else None

    def groups(self, o: int) -> list[set[int]]:
        """The maximal invariant candidates about ``o`` (each with at least two facts)."""
        slots = sorted({s for (obj, s) in self.slot_facts if obj == o})
        seen: set[frozenset[Slot]] = set()
        holding: list[frozenset[Slot]] = []
        frontier = [frozenset([s]) for s in slots]
        while frontier:
            candidate = frontier.pop()
            if candidate in seen:
                continue
            seen.add(candidate)
            group = self.facts(o, candidate)
            g = self.first_violation(group)
            if g is None:
                holding.append(candidate)
                continue
            if g < 0 or len(candidate) >= MAX_SLOTS:
                continue
            # Grow by the slots of what the failing grounding needs and deletes about o.
            for f in self.effects(g)[1]:
                for position, obj in enumerate(self.view.args(f)):
                    slot = (int(self.fact_pred[f]), position)
                    if obj == o and slot not in candidate:
                        frontier.append(candidate | {slot})
        maximal = [c for c in holding if not any(c < d for d in holding)]
        out = [self.facts(o, c) for c in maximal]
        return [g for g in out if len(g) >= 2]


def _pair_keys(begin: npt.NDArray[np.int64], width: int) -> npt.NDArray[np.int64]:
    """Per value of a CSR table, its row times ``width``."""
    return np.repeat(np.arange(len(begin) - 1, dtype=np.int64), np.diff(begin)) * width


def _last_of_each(
    begin: npt.NDArray[np.int64], values: npt.NDArray[np.int64], width: int
) -> npt.NDArray[np.int64]:
    """The positions in a CSR table of each row's last occurrence of each value, in order."""
    keys = _pair_keys(begin, width) + values
    order = np.argsort(keys, kind="stable")  # equal keys in their order: the last is the last
    ordered = keys[order]
    return np.sort(order[np.append(ordered[1:] != ordered[:-1], True)])


def sorted_unique(values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The distinct values, ascending: np.unique by a plain sort.

    (numpy 2's np.unique of integers hashes first; on the arrays of grounding-fact pairs that the
    tables are built from, hundreds of thousands of them, it took several times as long.)
    """
    ordered = np.sort(values)
    return ordered[np.append(True, ordered[1:] != ordered[:-1])] if len(ordered) else ordered


def _csr_of(
    keys: npt.NDArray[np.int64], width: int, rows: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """A CSR table from sorted keys row * width + value."""
    begin = np.zeros(rows + 1, np.int64)
    np.cumsum(np.bincount(keys // width, minlength=rows), out=begin[1:])
    return begin, keys % width


def _row_counts(
    begin: npt.NDArray[np.int64],
    values: npt.NDArray[np.int64],
    rows: npt.NDArray[np.int64],
    mask: npt.NDArray[np.bool_],
) -> npt.NDArray[np.int64]:
    """Per row of the CSR table (in ``rows``' order), how many of its values ``mask`` marks."""
    _, owner, at = csr_positions(begin, rows)
    return np.bincount(owner[mask[values[at]]], minlength=len(rows))


def csr_positions(
    begin: npt.NDArray[np.int64], rows: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The rows ``rows`` of a CSR table with offsets ``begin``, laid out one after another.

    Returns:
        Per row its length; per output place the index into ``rows`` of its row, and its position
        in the table's values.
    """
    lengths = begin[rows + 1] - begin[rows]
    owner = np.repeat(np.arange(len(rows)), lengths)
    # (Each row's start in values less its start in the output: one gather per value.)
    at = (begin[rows] - (np.cumsum(lengths) - lengths))[owner] + np.arange(len(owner))
    return lengths, owner, at


def disjoint_groups(groups: Iterable[list[int]], smallest: int = 3) -> list[list[int]]:
    """Disjoint sets from ``groups``, largest first: each keeps the facts no earlier one took.

    A subset of an at-most-one set is one too; sets left with fewer than ``smallest`` facts are
    dropped (packing them as an index would not save space).
    """
    taken: set[int] = set()
    out: list[list[int]] = []
    for group in sorted(groups, key=lambda g: (-len(g), g)):
        rest = [f for f in group if f not in taken]
        if len(rest) >= smallest:
            out.append(rest)
            taken.update(rest)
    return out


def mutex_groups_by_object(
    view: TaskView,
    fact_pred: npt.NDArray[np.int64],
    initial: npt.NDArray[np.bool_],
    objects: Iterable[int],
) -> dict[int, list[list[int]]]:
    """Per object, its at-most-one fact sets, proven as the module docstring says.

    Args:
        view: The task's actions and facts.
        fact_pred: Per fact, its predicate.
        initial: The start state's facts.
        objects: The objects to find invariants about (those that always exist).

    Returns:
        Per object, its fact sets, each sorted.
    """
    synthesis = _Synthesis(view, fact_pred, initial)
    return {o: [sorted(group) for group in synthesis.groups(o)] for o in objects}


def union(groups_per_object: Iterable[list[list[int]]]) -> list[list[int]]:
    """The fact sets of several objects together, without duplicates, in order."""
    found = {tuple(group) for groups in groups_per_object for group in groups}
    return [list(group) for group in sorted(found)]


__all__ = [
    "MAX_SLOTS",
    "csr_positions",
    "disjoint_groups",
    "mutex_groups_by_object",
    "sorted_unique",
    "union",
]
