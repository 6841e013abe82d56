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
    eff: list[list[int]]
    eff_value: list[list[int]]
    template_writes: list[set[int]]
    mutable_facts: list[int]
    writers: dict[int, list[int]]  # per fact, the groundings whose effects write it

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
        # Per grounding (filled on first use): the facts it makes true, the facts it needs and
        # deletes, and the facts it needs (its effects applied in order: the last write wins).
        self._effects: dict[int, tuple[set[int], set[int], set[int]]] = {}

    def effects(self, g: int) -> tuple[set[int], set[int], set[int]]:
        found = self._effects.get(g)
        if found is None:
            final = dict(zip(self.view.eff[g], self.view.eff_value[g]))
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
        for g in sorted({g for f in group for g in self.view.writers.get(f, [])}):
            added, consumed, needed = self.effects(g)
            made = added & group
            if not made:
                continue
            required = needed & group
            if len(required) >= 2:
                continue  # needs two facts of the group: never applies
            if len(made) > 1:
                return g
            if made & required or consumed & group:
                continue  # the count does not grow
            return g
        return None

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


__all__ = ["MAX_SLOTS", "disjoint_groups", "mutex_groups_by_object", "union"]
