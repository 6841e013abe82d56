"""Exact optimal planning: :func:`plan`, :func:`optimal_length` and :func:`plan_many`.

The search runs in C++ over the full engine state (facts, timers, active effects, created objects),
so delays are exact: waiting, overlapping work with cooking and pausing a timer are part of the
state space. ``"bfs"`` is breadth-first search; ``"astar"`` (the default) is A* with an admissible
bound: by default the projection bound (exact per-object projections under a cost partition, see
:mod:`robotouille.projections`), maxed with a critical-path time bound where the task has delayed
effects and that bound exceeds the projections' at the start. States are reduced by symmetry over
interchangeable objects (:mod:`robotouille.symmetry`), and in centralized mode a robot that just
moved is not offered another move or a wait (moving straight on and waiting, or waiting first,
reaches the same state in as many steps; see ``search.h``). Both return plans with the fewest
steps. Plans start from the env's current state, so ``optimal_length(env)`` mid-episode is the
number of steps still to go.

``"agenda"`` is for tasks too large to solve optimally: it reaches the goal's atoms a few at a
time, each stage an optimal A* plan, and returns a plan that is not necessarily optimal, whose
length bounds the optimum from above (and proves the goal reachable). So does weighted A*
(``weight`` above 1), whose plan is also at most ``weight`` times the optimum.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import fractions
import functools
import gc
import numbers
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from . import _core
from .compile import CompiledTask, compile_task
from .domain import Domain
from .env import Env, EnvState
from .errors import CapacityError, InvalidActionError, SearchLimitError, UnsolvableError
from .invariants import disjoint_groups, union
from .problem import Goal, GoalAtom
from .projections import (
    PLACE_PREDICATES,
    _only_actions_write,
    find_projections,
    implied_goal_task,
    move_literals,
    object_invariants,
    stations_hold_stacks,
    template_footprint,
    touch_pairs,
)
from .symmetry import find_symmetries, task_symmetries

Algorithm = Literal["astar", "bfs", "agenda"]
Heuristic = Literal["projections", "lmcut", "time", "all"]
_ALGORITHMS = ("astar", "bfs", "agenda")
_HEURISTICS = ("projections", "lmcut", "time", "all")
AGENDA_STAGE_STATES = 1_000_000
"""States one stage of the ``"agenda"`` algorithm may store before it counts as failed."""
AGENDA_OPTIMAL_STAGE_STATES = 100_000
"""States an agenda stage's optimal A* may store before the stage is planned with weighted A*
(:data:`AGENDA_STAGE_WEIGHT`) under :data:`AGENDA_STAGE_STATES` instead."""
AGENDA_STAGE_WEIGHT = 2
"""The weight w of an agenda stage's second try, A* with f = g + w h: a plan at most w times
the stage's optimum, found with far fewer states (multi_agent/10 seed 126: "a soup in a bowl",
13 steps or more, stored a million states unfinished; with w = 2, 17 steps after storing
4,463)."""
AGENDA_STAGE_PROJECTION_LIMITS: dict[str, float] = {
    "max_states": 20_000,
    "max_total_states": 200_000,
    "upgrade_total_states": 0,
}
"""Smaller caps on the projection bound's tables for the agenda's stages, which are short: on
multi_agent/8 building the default tables took 7-10 s per stage, most of the agenda's time."""
WEIGHT_DENOMINATOR = 64
"""The largest denominator of a weight (:func:`plan`): the search counts f layers in units of 1
over it, so a weight is taken as the nearest fraction with a denominator up to this."""
AGENDA_POLISH_STRIDE = 4
"""Steps the agenda's polishing moves back along its plan between two searches."""
_UPGRADE_SHARE = 0.5
"""The share of a search's time limit that building larger projections may take
(``kUpgradeShare`` in projection.h)."""
PROGRESS_EVERY = 1.0
"""Seconds between two progress reports of a search (see :func:`plan`)."""
RESTART_AFTER_SECONDS = 5.0
"""Seconds after which an A* search without a time limit, whose bound left rows coarse
(``SearchStats.coarse_rows``), starts over with the bound a search of
:data:`RESTART_PLANNED_SECONDS` builds (see :func:`plan`)."""
RESTART_PLANNED_SECONDS = 20.0
"""The time limit whose bound a restarted search builds (half of it for larger rows, under caps
grown with it), with no limit on the search itself. On the original multi_agent/10 the default
caps leave the pots' row for both soups out: the search then took 13.5 minutes and 7.2 GB;
with this bound it takes 6-7 s, and 12-13 s with the try before (benchmarks/README.md)."""
LONG_RESTART_AFTER_SECONDS = 60.0
"""Seconds after which an A* search without a time limit, whose bound still left rows coarse or
built them with a sink (``SearchStats.sink_rows``), starts over with the bound of a long search
(:data:`LONG_PLANNED_SECONDS`; see :func:`plan`)."""
LONG_PLANNED_SECONDS = 300.0
"""The time limit whose bound that restart builds: the shortest whose caps take half of the
memory planned for (``kLongUpgradeSeconds`` in projection.h), with up to 2.5 minutes for larger
rows, or the time those caps take to build where that is longer (at 10 us per abstract state on
one thread, ``kLongSecondsPerState``: caps planned for more than about 12 GB). On
multi_agent/10 seed 420 its rows without sinks raise the start bound from 43 to 55 (the optimum
is 58) in about 70 s on two threads (benchmarks/README.md)."""
DEFAULT_MEMORY_SHARE = 0.5
"""Without ``max_memory_bytes``, a search's budget is this share of the physical memory, divided
among the searches running at once (:func:`plan_many`): a search too large for the machine
turns to partial expansion at half of it and stops with :class:`SearchLimitError` at all of it,
where it would otherwise run the machine out of memory and be killed. A long search's bound
is planned for the budget: half of it for construction, at 400 bytes per abstract state (not
counted in the budget); the rows it keeps take about 240 bytes per state while the search
runs."""

Progress = Callable[["SearchStats"], None]


@dataclass(frozen=True)
class SearchStats:
    """What a search did.

    Attributes:
        expanded: States expanded.
        generated: Successors generated (including duplicates).
        stored: Distinct states stored.
        bytes: Memory held by the search's tables when it ended.
        state_bytes: Bytes of one packed state.
        pruned: Successors dropped as dead ends (or because a creation pool ran out).
        deferred: Expansions that left successors out to save memory (A* near its memory
            budget); each such state is expanded again when they fall due, so ``expanded``
            counts it again.
        initial_h: The heuristic's bound at the start state (0 for BFS).
        abstract_states: States of the projection bound's abstractions (0 without it).
        coarse_rows: Objects of the projection bound whose whole row (with the robots'
            positions) was not built for lack of time or room: a coarser row, or none, stands
            in for it (0 without the bound). A larger time limit may build them.
        sink_rows: Objects of the projection bound whose whole row was built with a sink: its
            repeated timers (a pot filled at two sinks, say) lead to one abstract state that
            reads 0, which keeps the row small but its bound weak. A long search under a memory
            budget builds them without where they fit.
        bound: A lower bound on the optimal length that the search proved: the A* layer (f
            value) it was searching, every layer below it searched without a goal, or the BFS
            depth it was expanding, every state up to it tested (0 for weighted A* and the
            agenda, which prove none).
        seconds: Wall-clock time of the call: the search, and building the bound's and the
            symmetry's tables (in Python once per task, then cached; in C++ per search).
        restarts: Times the search started over with a larger bound (see :func:`plan`); the
            counts above then add up all tries, ``bytes`` is the largest try's, and the bound's
            figures are the last try's.
    """

    expanded: int
    generated: int
    stored: int
    bytes: int
    state_bytes: int
    pruned: int
    deferred: int
    initial_h: int
    abstract_states: int
    coarse_rows: int
    sink_rows: int
    bound: int
    seconds: float
    restarts: int = 0

    def __str__(self) -> str:
        deferred = f" ({self.deferred:,} deferring)" if self.deferred else ""
        plural = "" if self.restarts == 1 else "s"
        restarted = f", {self.restarts} restart{plural}" if self.restarts else ""
        return (
            f"{self.expanded:,} expanded{deferred}, {self.generated:,} generated, "
            f"{self.stored:,} stored ({self.state_bytes} B/state packed, "
            f"{self.bytes / 2**20:.1f} MiB), {self.seconds:.3f} s{restarted}"
        )


@dataclass(frozen=True)
class Plan:
    """A plan: optimal, unless its algorithm is ``"agenda"`` or its weight is above 1.

    Attributes:
        actions: One entry per step, replayable with ``env.step`` from the state the plan was
            computed for: an action text, or in ``simultaneous`` mode a list with one action
            text (or ``None``) per robot. Where a step's text also names a valid action listed
            before it (two waters in one pot: "Boil pot1's contents ..." for either), which
            ``env.step`` would take instead, the entry is the step's structured form.
        structured: The same steps as ``(action name, arguments)`` tuples (``None`` for no
            action), also replayable with ``env.step``; unambiguous even where two groundings
            share a text.
        length: The number of steps (``len(actions)``), minimal for ``"astar"`` (with weight
            1) and ``"bfs"``.
        algorithm: ``"astar"``, ``"bfs"`` or ``"agenda"``.
        mode: The env's mode (decision D3).
        stats: The search statistics.
        weight: A*'s weight w (see :func:`plan`), as the fraction it searched with: the plan is
            at most w times the optimum. 1 for A*'s optimal plans, for BFS's, and for the
            agenda's (which has no such guarantee).
    """

    actions: list[Any]
    structured: list[Any]
    length: int
    algorithm: str
    mode: str
    stats: SearchStats
    weight: fractions.Fraction = fractions.Fraction(1)


class _ProgressLine:
    """Reports a running search on stderr.

    One line rewritten in place on a terminal, else a line per report; nothing for a search
    that ends before its first report.
    """

    def __init__(self, algorithm: str, weighted: bool = False) -> None:
        self.name = {"astar": "A*", "bfs": "BFS", "agenda": "agenda stage"}[algorithm]
        # Weighted A* proves no bound (SearchStats.bound stays 0): its line leaves it out.
        self.layer = "depth" if algorithm == "bfs" else None if weighted else "bound"
        self.in_place = sys.stderr.isatty()
        self.width = 0

    def __call__(self, stats: SearchStats) -> None:
        if stats.expanded == 0 and stats.restarts:
            line = (
                f"{self.name}: building a larger bound's tables (restart {stats.restarts}), "
                f"{stats.seconds:.0f} s"
            )
        elif stats.expanded == 0:
            line = f"{self.name}: building the bound's tables, {stats.seconds:.0f} s"
        else:
            layer = f"{self.layer} {stats.bound}, " if self.layer else ""
            line = (
                f"{self.name}: {layer}{stats.expanded:,} expanded, "
                f"{stats.stored:,} stored, {stats.bytes / 2**20:,.0f} MiB, {stats.seconds:.0f} s"
            )
        if self.in_place:
            print(f"\r{line.ljust(self.width)}", end="", file=sys.stderr, flush=True)
            self.width = max(self.width, len(line))
        else:
            print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        """Ends the line in place, if one was printed."""
        if self.in_place and self.width:
            print(file=sys.stderr, flush=True)


def _check(algorithm: str, heuristic: str, limits: dict[str, Any]) -> None:
    if algorithm not in _ALGORITHMS:
        raise ValueError(f"algorithm must be one of {_ALGORITHMS}, got {algorithm!r}")
    if heuristic not in _HEURISTICS:
        raise ValueError(f"heuristic must be one of {_HEURISTICS}, got {heuristic!r}")
    _check_positive(limits)


def _check_positive(limits: dict[str, Any]) -> None:
    """ValueError for a limit that is neither None nor a positive number."""
    for name, value in limits.items():
        if value is not None and (isinstance(value, bool) or value <= 0):
            raise ValueError(f"{name} must be positive or None, got {value!r}")


def _weight_ratio(weight: Any) -> fractions.Fraction:
    """A* weight as the fraction the search takes (:data:`WEIGHT_DENOMINATOR`).

    Raises ValueError where it is not a finite number of at least 1.
    """
    real = isinstance(weight, numbers.Real) and not isinstance(weight, bool)
    if not real or not 1 <= float(weight) <= 64:  # (NaN fails the comparison)
        raise ValueError(f"weight must be a number from 1 to 64, got {weight!r}")
    # Never below 1: 1 itself is a candidate, and nearer to a weight of at least 1.
    return fractions.Fraction(float(weight)).limit_denominator(WEIGHT_DENOMINATOR)


def _check_threads(threads: Any) -> None:
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive integer, got {threads!r}")


def _as_lists(tables: Any) -> dict[str, list[int]]:
    """A frozen dataclass of int arrays and lists as the dict of int lists ``_core`` takes."""
    return {
        field.name: np.asarray(getattr(tables, field.name)).astype(int).ravel().tolist()
        for field in dataclasses.fields(tables)
        if field.name != "classes"
    }


_collector_lock = threading.Lock()
_collector_pauses = 0  # preparations under way (plan_many's threads take turns at them)
_collector_was_enabled = False


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pauses Python's cyclic garbage collector while a search's tables are built.

    The preparation allocates hundreds of thousands of lists, sets and dicts (per grounding,
    per row), most of which the task keeps. Their allocation kept triggering full collections
    that walked every object alive, the tables of every task loaded before included, and found
    nothing to free: 6% of the preparation's instructions on multi_agent/8 alone, about a seventh
    of its CPU time where 27 multi-agent tasks are prepared in one process (benchmarks/README.md,
    "Preparation in Python, second round"). Reference counting still frees everything
    meanwhile; only cycles wait for the next collection. Nested and concurrent pauses
    (plan_many's threads) end when the last one does, and the collector is enabled again only if
    it was when the first began.
    """
    global _collector_pauses, _collector_was_enabled
    with _collector_lock:
        if _collector_pauses == 0:
            _collector_was_enabled = gc.isenabled()
            gc.disable()
        _collector_pauses += 1
    try:
        yield
    finally:
        with _collector_lock:
            _collector_pauses -= 1
            if _collector_pauses == 0 and _collector_was_enabled:
                gc.enable()


def _cached_tables(
    env: Env, key: tuple[Any, ...], build: Callable[[], Any]
) -> dict[str, list[int]]:
    """``build()``'s tables as int lists, kept on the env's task under ``key``.

    ``build`` returns a dict of int lists or a dataclass of arrays.
    """
    cache: dict[tuple[Any, ...], dict[str, list[int]]] = env.task.__dict__.setdefault(
        "_planner_tables", {}
    )
    if key not in cache:
        tables = build()
        cache[key] = tables if isinstance(tables, dict) else _as_lists(tables)
    return cache[key]


def _symmetry_tables(env: Env) -> dict[str, list[int]]:
    """The symmetry tables of the env's task in its mode, computed once per task and mode.

    Outside centralized mode the robots are never swapped: their order is the turn order and
    the order in which a joint action is applied.
    """
    fixed = () if env.mode == "centralized" else tuple(env._robot_objects)
    return _cached_tables(
        env,
        ("symmetry", fixed),
        lambda: find_symmetries(env.task, fixed_objects=set(fixed))
        if fixed
        else task_symmetries(env.task),
    )


def _relocation_shape(domain: Domain) -> str | None:
    """The domain's move action, if it has the shape relocation pruning rests on (search.h).

    The move ``(p, x, y)`` needs exactly ``loc(p, x)`` and ``vacant(y)`` and only moves ``p``:
    it makes ``loc(p, y)`` and ``vacant(x)`` true and ``loc(p, x)`` and ``vacant(y)`` false.
    No special effect reads or writes ``loc`` or ``vacant``, and a wait (no parameters,
    preconditions or effects) exists. (That no deletion removes their objects is a property of
    the compiled task: :func:`_relocation_tables` checks it.)
    """
    if not any(
        not a.params and not a.precons and not a.immediate_fx and not a.sfx for a in domain.actions
    ):
        return None
    if not _only_actions_write(domain, PLACE_PREDICATES) or any(
        lit.predicate in PLACE_PREDICATES
        for action in domain.actions
        for effect in action.all_special_effects()
        for lit in effect.conditions
    ):
        return None
    for action in domain.actions:
        if action.sfx or len(action.params) != 3 or len(set(action.params)) != 3:
            continue
        p, x, y = action.params
        needs, writes = move_literals(p, x, y)
        if set(action.precons) == needs and set(action.immediate_fx) == writes:
            return action.name
    return None


def _relocation_tables(env: Env) -> list[int]:
    """Per grounding, the robot it only relocates, or -1; empty where pruning does not apply.

    Relocation pruning (search.h) skips a robot's moves and the no-ops right after its move.
    It needs centralized mode, the move shape of :func:`_relocation_shape`, no deletion of an
    object ``loc`` or ``vacant`` names, and for every robot a move x -> z wherever it has moves
    x -> y and y -> z (x != z).
    """
    if env.mode != "centralized":
        return []

    def build() -> dict[str, list[int]]:
        task = env.task
        name = _relocation_shape(task.domain)
        if name is None:  # checked first: without the shape, loc and vacant may not exist
            return {"robot": []}
        named_types = {
            t for p in PLACE_PREDICATES for t in task.domain.predicate(p).param_types
        }
        if task.deletable_types & named_types:
            return {"robot": []}
        action = next(i for i, a in enumerate(task.domain.actions) if a.name == name)
        robot = np.full(len(task.action_of), -1, dtype=np.int64)
        moves: dict[int, set[tuple[int, int]]] = {}
        for g in np.flatnonzero(task.action_of == action):
            r, x, y = (int(v) for v in task.grounding_args[g][:3])
            robot[g] = r
            moves.setdefault(r, set()).add((x, y))
        for pairs in moves.values():
            # Every two moves x -> y -> z (z not x) need the move x -> z.
            reach: dict[int, set[int]] = {}
            for x, y in pairs:
                reach.setdefault(x, set()).add(y)
            if any(reach.get(y, set()) - ys - {x} for x, ys in reach.items() for y in ys):
                return {"robot": []}
        return {"robot": robot.tolist()}

    return _cached_tables(env, ("relocations",), build)["robot"]


def _special_effect_facts(task: CompiledTask) -> set[int] | None:
    """Every fact a special effect may read or write, or None where one deletes objects."""
    facts: set[int] = set()
    for t in range(len(task.template_first)):
        footprint = template_footprint(task, t)
        if footprint.deletes:
            return None
        facts |= footprint.writes | footprint.reads
    return facts


def _commuting_tables(env: Env) -> list[int]:
    """Per grounding, the robot whose moves (and the no-ops) are not expanded after it, or -1.

    Commutation pruning (search.h) needs relocation pruning and exactly two robots. A grounding
    of robot s commutes with the other robot's moves when it is no move and no no-op, starts
    no special effect, and its facts (preconditions and effects) are none that a special
    effect reads or writes and none that a move of the other robot reads or writes: then that
    move, or a wait, and the grounding give the same state in either order, whatever the
    timers do between them. Empty where the pruning does not apply.
    """
    relocated = _relocation_tables(env)
    robots = list(env._robot_objects)
    if not relocated or len(robots) != 2:
        return []

    def build() -> dict[str, list[int]]:
        task = env.task
        effect_facts = _special_effect_facts(task)
        if effect_facts is None:
            return {"robot": []}
        # The (grounding, fact) pairs as arrays: the multi-agent tasks have tens of thousands
        # of groundings, too many for a set each.
        grounding, fact = touch_pairs(task)
        size = int(max(fact.max(initial=-1), max(effect_facts, default=-1))) + 1
        owner = np.asarray(task.owner, np.int64)
        moving = np.asarray(relocated, np.int64)
        # Per robot r, the facts that r's moves or a special effect read or write.
        effects_touch = np.zeros(size, bool)
        effects_touch[list(effect_facts)] = True
        conflicts: dict[int, np.ndarray] = {}
        for r in robots:
            conflicts[r] = effects_touch.copy()
            conflicts[r][fact[moving[grounding] == r]] = True
        # Candidates: no move, some effect, no special effect started.
        candidate = (moving < 0) & (np.diff(task.eff_fact[0]) > 0)
        candidate &= np.diff(task.sfx_templates[0]) == 0
        commuting = np.full(len(moving), -1, np.int64)
        for s, r in ((robots[0], robots[1]), (robots[1], robots[0])):
            conflicting = conflicts[r][fact] & (owner[grounding] == s)
            meets = np.bincount(grounding, weights=conflicting, minlength=len(moving)) > 0
            commuting[candidate & (owner == s) & ~meets] = r
        return {"robot": commuting.tolist()}

    return _cached_tables(env, ("commuting",), build)["robot"]


def _breaks(bits: np.ndarray, begin: list[int], facts: list[int]) -> bool:
    """Whether the state's fact bits have two true facts in one of the sets (CSR)."""
    return any(int(bits[facts[begin[k] : begin[k + 1]]].sum()) > 1 for k in range(len(begin) - 1))


def _packing_tables(env: Env) -> dict[str, list[int]]:
    """Disjoint at-most-one fact sets of the env's task, computed once per task.

    A stored state keeps an index per set instead of a bit per fact: fewer bytes per state.
    """

    def build() -> dict[str, list[int]]:
        groups = disjoint_groups(union(object_invariants(env.task).values()))
        begin = np.cumsum([0, *(len(g) for g in groups)]).tolist()
        return {"group_begin": begin, "group_facts": [f for g in groups for f in g]}

    return _cached_tables(env, ("packing",), build)


def _projection_tables(env: Env, implied: bool = False) -> dict[str, list[int]]:
    """The projection bound's tables of the env's task, computed once per task.

    With ``implied``, built for :func:`_implied_task` (the goal with its implied atoms).
    """
    task = _implied_task(env) if implied else env.task
    return _cached_tables(env, ("projections", implied), lambda: find_projections(task))


def _implied_task(env: Env) -> CompiledTask:
    """:func:`implied_goal_task` of the env's task, computed once per task."""
    found = env.task.__dict__.get("_implied_goal_task")
    if found is None:
        found = env.task.__dict__["_implied_goal_task"] = implied_goal_task(env.task)
    return found


def _one_of_each(bits: np.ndarray, begin: list[int], facts: list[int]) -> bool:
    """Whether the state's fact bits have exactly one true fact in each of the sets (CSR)."""
    return all(int(bits[facts[begin[k] : begin[k + 1]]].sum()) == 1 for k in range(len(begin) - 1))


def _bound_tables(env: Env, bits: np.ndarray) -> tuple[dict[str, list[int]] | None, Any]:
    """The projection tables for a search from a state with these fact bits, and their task.

    The task is the core of the one the tables were built for, or None for the env's own. The
    bound's move charges rest on every robot with a proven hand holding exactly one thing (a
    free hand counts), the implied goal atoms, the lifts, clearing and idling on every station
    holding one stack, and idling on the robot standing at one place, as in every state
    reachable from the task's start. A state restored with set_state may break that: then the
    bound does without them, or, where a hand breaks, without the projections (None, None).
    """
    no_idling: dict[str, list[int]] = {"idle_begin": [], "idle": [], "idle_codes": []}
    projection_task = None
    if stations_hold_stacks(env.task, bits.astype(bool)):
        task = _implied_task(env)
        tables = _projection_tables(env, implied=True)
        projection_task = None if task is env.task else task.core
    else:
        tables = {
            **_projection_tables(env),
            **{"lifts": [], "lift_stacks": [], "clearing": []},
            **no_idling,
        }
    # (The implied task has the same dynamics, so the same hands.)
    if not _one_of_each(bits, tables["hand_group_begin"], tables["hand_groups"]):
        return None, None
    if not _one_of_each(bits, tables["idle_group_begin"], tables["idle_groups"]):
        tables = {**tables, **no_idling}
    return tables, projection_task


def _start_stats(
    env: Env,
    tables: dict[str, Any] | None = None,
    projection_task: Any = None,
    *,
    limits: dict[str, float] | None = None,
    threads: int = 1,
) -> dict[str, Any]:
    """Statistics of a search from the env's state that stops after its first state.

    They describe the projection bound's construction (``abstract_states``, ``initial_h``,
    ``seconds``). With ``tables`` None, the tables the planner uses there; else the given ones,
    for ``projection_task`` (a task core, or None for the env's own). For tests and benchmarks.
    """
    if tables is None:
        bits = np.unpackbits(env._words[0].view(np.uint8), bitorder="little")
        tables, projection_task = _bound_tables(env, bits)
        if tables is None:
            raise ValueError("the env's state breaks the bound's invariants: no projections")
    _, _, stats = _core.search(
        env.task.core,
        env._words[0],
        env._counters[0],
        mode=env.mode,
        robots=list(env._robot_objects),
        lmcut=False,
        max_states=1,
        projections=tables,
        projection_task=projection_task,
        projection_limits=limits,
        threads=threads,
    )
    result: dict[str, Any] = stats
    return result


def _run(
    env: Env,
    algorithm: str,
    heuristic: str,
    max_states: int | None,
    max_memory_bytes: int | None,
    time_limit: float | None,
    cancel: Callable[[], bool] | None,
    symmetry: bool = True,
    projection_limits: dict[str, float] | None = None,
    weight: float | fractions.Fraction = 1,
    *,
    progress: Progress | None = None,
    threads: int = 1,
    partial_slack: int | None = None,
    partial_from_bytes: int | None = None,
) -> Plan:
    core = env.task.core
    ratio = _weight_ratio(weight)
    # The tables are built in Python once per task; the time limit covers that too.
    started = time.perf_counter()
    with _collector_paused():
        symmetry_tables = _symmetry_tables(env) if symmetry else None
        # The invariants hold in every state reachable from the task's start. A state restored
        # with set_state may be another one: then neither the packing nor the projections use them.
        bits = np.unpackbits(env._words[0].view(np.uint8), bitorder="little")
        projection_tables, projection_task = (
            _bound_tables(env, bits)
            if algorithm == "astar" and heuristic in ("projections", "all")
            else (None, None)
        )
        # (After the projections, which find the invariants it reads with the task view they build.)
        packing = _packing_tables(env)
        if projection_tables is not None and _breaks(
            bits, projection_tables["mutex_begin"], projection_tables["mutex_facts"]
        ):
            rows = len(projection_tables["objects"])
            projection_tables = {
                **projection_tables,
                "mutex_begin": [0],
                "mutex_facts": [],
                "merge_begin": [0] * (rows + 1),
                "merges": [],
            }
        packing_tables = (
            None if _breaks(bits, packing["group_begin"], packing["group_facts"]) else packing
        )
    preparing = time.perf_counter() - started
    if time_limit is not None and preparing >= time_limit:
        nothing: dict[str, Any] = {f.name: 0 for f in dataclasses.fields(SearchStats)}
        raise SearchLimitError("time_limit", SearchStats(**{**nothing, "seconds": preparing}))
    status, steps, raw = _core.search(
        core,
        env._words[0],
        env._counters[0],
        algorithm=algorithm,
        mode=env.mode,
        lmcut=heuristic in ("lmcut", "all"),
        robots=list(env._robot_objects),
        max_states=int(max_states or 0),
        max_memory_bytes=int(max_memory_bytes or 0),
        time_limit=float(time_limit - preparing) if time_limit is not None else 0.0,
        cancel=cancel,
        symmetry=symmetry_tables,
        projections=projection_tables,
        packing=packing_tables,
        projection_task=projection_task,
        projection_limits=projection_limits,
        relocations=_relocation_tables(env),
        commuting=_commuting_tables(env),
        weight=ratio.numerator,
        weight_denominator=ratio.denominator,
        progress=(
            None
            if progress is None
            else lambda so_far: progress(
                SearchStats(**{**so_far, "seconds": so_far["seconds"] + preparing})
            )
        ),
        progress_every=PROGRESS_EVERY,
        threads=threads,
        **{
            name: value
            for name, value in (
                ("partial_slack", partial_slack),
                ("partial_from_bytes", partial_from_bytes),
            )
            if value is not None
        },
    )
    stats = SearchStats(**{**raw, "seconds": raw["seconds"] + preparing})
    if status == "unsolvable":
        raise UnsolvableError(stats)
    if status != "solved":
        raise SearchLimitError(status, stats)
    name = env.task.grounding_name
    if env.mode == "simultaneous":
        steps = _without_idle_entries(env, steps)
        structured: list[Any] = [[None if g < 0 else name(g) for g in step] for step in steps]
    else:
        structured = [name(step[0]) for step in steps]
    actions = _replayable_actions(env, structured)
    return Plan(actions, structured, len(actions), algorithm, env.mode, stats, ratio)


class _Restart(Exception):
    """Raised from a progress report to start a search over (see :func:`_restarting_run`)."""

    def __init__(self, stats: SearchStats, stage: int) -> None:
        super().__init__("restart")
        self.stats = stats
        self.stage = stage  # the index in _restarting_run's stages of the try to make next


def _after(first: SearchStats, then: SearchStats, seconds: float) -> SearchStats:
    """The statistics of a search started over: ``then``'s try after ``first``'s.

    The counts of both tries added up, the memory of the larger, the bound's figures of the
    second, ``seconds`` (the wall-clock time of both), and one restart more than both had.
    """
    added = ("expanded", "generated", "stored", "pruned", "deferred")
    return dataclasses.replace(
        then,
        **{name: getattr(first, name) + getattr(then, name) for name in added},
        bytes=max(first.bytes, then.bytes),
        seconds=seconds,
        restarts=first.restarts + then.restarts + 1,
    )


def _physical_memory() -> int:
    """This machine's physical memory in bytes, or 0 where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return 0


def _planned_memory(
    max_memory_bytes: int | None, searches_at_once: int, bound_memory_bytes: int | None = None
) -> dict[str, float]:
    """The projection limits that plan a long search's bound for memory it may take.

    ``bound_memory_bytes`` where given (see :func:`plan`), whatever the budget; else nothing
    where the search has a memory budget (its caps are planned for that); else
    the default budget of each of the searches running at once (:func:`_memory_budget`; nothing
    where the system does not say how much memory there is).
    """
    if bound_memory_bytes is not None:
        return {"planned_memory_bytes": int(bound_memory_bytes)}
    if max_memory_bytes is not None:
        return {}
    planned = _memory_budget(None, searches_at_once)
    return {"planned_memory_bytes": planned} if planned else {}


def _memory_budget(max_memory_bytes: int | None, searches_at_once: int) -> int | None:
    """A search's memory budget: ``max_memory_bytes``, or the default where that is None.

    The default is :data:`DEFAULT_MEMORY_SHARE` of the physical memory divided among the
    searches running at once, or None where the system does not say how much memory it has.
    """
    if max_memory_bytes is not None:
        return max_memory_bytes
    return int(_physical_memory() * DEFAULT_MEMORY_SHARE) // max(1, searches_at_once) or None


def _long_bound_limits(
    max_memory_bytes: int | None, searches_at_once: int, bound_memory_bytes: int | None = None
) -> dict[str, float]:
    """The projection limits of an untimed search's last restart (see :func:`_restarting_run`).

    Those a search limited to :data:`LONG_PLANNED_SECONDS` builds under, with
    :func:`_planned_memory`.
    """
    return {
        "planned_seconds": LONG_PLANNED_SECONDS,
        **_planned_memory(max_memory_bytes, searches_at_once, bound_memory_bytes),
    }


def _restarting_run(
    env: Env,
    algorithm: str,
    heuristic: str,
    max_states: int | None,
    max_memory_bytes: int | None,
    time_limit: float | None,
    cancel: Callable[[], bool] | None,
    symmetry: bool = True,
    projection_limits: dict[str, float] | None = None,
    weight: float | fractions.Fraction = 1,
    *,
    progress: Progress | None = None,
    threads: int = 1,
    searches_at_once: int = 1,
    bound_memory_bytes: int | None = None,
) -> Plan:
    """:func:`_run`, starting over with a larger bound where the one it has is too coarse.

    Without a time limit the bound's construction has no time to plan for, so it keeps to its
    first caps, which fit most tasks. A search without one (and with the default caps) starts
    over, keeping its counts:

    1. with the bound a search of :data:`RESTART_PLANNED_SECONDS` builds, once it has run
       :data:`RESTART_AFTER_SECONDS` while its bound left rows coarse
       (``SearchStats.coarse_rows``): on the original multi_agent/10 the first caps leave out
       the pots' rows for both soups;
    2. with the bound of a long search (:func:`_long_bound_limits`), once a try has run
       :data:`LONG_RESTART_AFTER_SECONDS` while its bound left rows coarse or built them with a
       sink (``SearchStats.sink_rows``): the rows of a pot filled at two sinks, on most
       generated instances of multi_agent/10.

    A search with a time limit of :data:`LONG_PLANNED_SECONDS` or more and without a memory
    budget plans its bound's caps for the memory of :func:`_planned_memory` (with a budget, for
    that). ``bound_memory_bytes`` (:func:`plan`) replaces either where the long bound is built.

    ``searches_at_once``: the searches running at once, this one among them
    (:func:`plan_many`), which share the memory planned for.
    """

    def attempt(limits: dict[str, float] | None, report: Progress | None) -> Plan:
        return _run(
            env,
            algorithm,
            heuristic,
            max_states,
            max_memory_bytes,
            time_limit,
            cancel,
            symmetry,
            limits,
            weight,
            progress=report,
            threads=threads,
        )

    if projection_limits is not None:
        return attempt(projection_limits, progress)
    if time_limit is not None:
        long = time_limit >= LONG_PLANNED_SECONDS
        planned = (
            _planned_memory(max_memory_bytes, searches_at_once, bound_memory_bytes) if long else {}
        )
        return attempt(planned or None, progress)
    started = time.perf_counter()
    stages: list[dict[str, float] | None] = [
        None,
        {"planned_seconds": RESTART_PLANNED_SECONDS},
        _long_bound_limits(max_memory_bytes, searches_at_once, bound_memory_bytes),
    ]
    stage = 0
    before: SearchStats | None = None  # the tries so far, added up (seconds: their wall time)

    def watch(so_far: SearchStats) -> None:
        if progress is not None:
            if before is None:
                progress(so_far)
            else:
                seconds = before.seconds + so_far.seconds
                if so_far.expanded == 0:  # building the bound's tables again
                    restarts = before.restarts + 1
                    progress(dataclasses.replace(so_far, seconds=seconds, restarts=restarts))
                else:
                    shifted = _after(before, so_far, seconds)
                    progress(dataclasses.replace(shifted, bytes=so_far.bytes))
        if stage == 0 and so_far.coarse_rows > 0 and so_far.seconds >= RESTART_AFTER_SECONDS:
            raise _Restart(so_far, 1)
        rough = so_far.coarse_rows + so_far.sink_rows > 0
        if stage < 2 and rough and so_far.seconds >= LONG_RESTART_AFTER_SECONDS:
            raise _Restart(so_far, 2)

    while True:
        try:
            found = attempt(stages[stage], watch)
        except _Restart as restart:
            wall = time.perf_counter() - started
            tried = restart.stats
            before = (
                dataclasses.replace(tried, seconds=wall)
                if before is None
                else _after(before, tried, wall)
            )
            stage = restart.stage
            continue
        except (SearchLimitError, UnsolvableError) as failed:
            if before is None:
                raise
            wall = time.perf_counter() - started
            total = _after(before, failed.stats, wall)  # type: ignore[arg-type]
            if isinstance(failed, SearchLimitError):
                raise SearchLimitError(failed.limit, total) from None
            raise UnsolvableError(total) from None
        if before is None:
            return found
        return dataclasses.replace(
            found, stats=_after(before, found.stats, time.perf_counter() - started)
        )


def _replayable_actions(env: Env, structured: Sequence[Any]) -> list[Any]:
    """A plan's steps as ``env.step`` replays them from the env's state.

    Each step is its action's text, or its structured form where that text also names a valid
    action listed before it. Texts leave out arguments that are mostly determined by the
    others, so two valid actions can share one: with two waters in one pot (filled twice before
    the first filling ends), "Boil pot1's contents ..." boils either, and ``env.step`` takes the
    first listed, as the original's agents do. The planner may need the other (reference
    semantics, §3.4).
    """
    walker = Env(env.task, mode=env.mode)
    walker.set_state(env.get_state())
    joint = env.mode == "simultaneous"
    actions: list[Any] = []
    for step in structured:
        if joint:
            robots: list[str | None] = list(walker.robots)
        else:
            turn = walker.mode == "turn_based" and bool(walker.robots)
            robots = [walker.current_robot if turn else None]
        entries: list[Any] = []
        for entry, robot in zip(step if joint else [step], robots, strict=True):
            if entry is None:
                entries.append(None)
                continue
            grounding = _grounding(env, entry)
            text = walker._text(grounding)
            entries.append(text if walker._resolve_one(text, robot) == grounding else entry)
        actions.append(entries if joint else entries[0])
        walker.step(step)
    return actions


def _replay_joint(
    walker: Env,
    start: EnvState,
    steps: Sequence[list[Any]],
    ready: Callable[[int], bool] | None = None,
) -> list[EnvState] | None:
    """The states after each joint step replayed from ``start``, or None where one fails.

    ``walker`` is in ``simultaneous`` mode; the steps have structured entries. A step fails
    where an entry is invalid or skipped, or where ``ready(k)`` is false before step k.
    """
    walker.set_state(start)
    after = []
    for k, step in enumerate(steps):
        if ready is not None and not ready(k):
            return None
        try:
            if walker.step(step)[4]["skipped"]:
                return None
        except (InvalidActionError, CapacityError):
            return None
        after.append(walker.get_state())
    return after


def _without_idle_entries(env: Env, steps: list[list[int]]) -> list[list[int]]:
    """A joint plan's steps with every entry that the plan does not need taken out (-1).

    Among plans of one length A* returns any: robots may walk about while another finishes.
    From the last step back, an entry goes where the plan still replays from there (no entry
    invalid or skipped) and still ends at the goal: the same length, fewer actions. So does an
    entry together with its robot's next one (a walk there and back).
    """
    walker = Env(env.task, mode="simultaneous")
    name = env.task.grounding_name

    def entries(step: list[int]) -> list[Any]:
        return [None if g < 0 else name(g) for g in step]

    states = [env.get_state()]
    states += _replay_joint(walker, states[0], [entries(s) for s in steps]) or []

    def still_reaches(start: int, trial: list[list[int]]) -> list[EnvState] | None:
        after = _replay_joint(walker, states[start], [entries(step) for step in trial[start:]])
        return after if after is not None and walker.goal_reached() else None

    kept = [list(step) for step in steps]
    for i in range(len(kept) - 1, -1, -1):
        for slot in range(len(kept[i])):
            if kept[i][slot] < 0:
                continue
            later = [j for j in range(i + 1, len(kept)) if kept[j][slot] >= 0][:1]
            for drop in ([i], [i, *later]):
                trial = [list(step) for step in kept]
                for k in drop:
                    trial[k][slot] = -1
                after = still_reaches(i, trial)
                if after is not None:
                    kept, states[i + 1 :] = trial, after
                    break
    return kept


def _goal_part(goal: Goal, atoms: Sequence[int]) -> Goal:
    """The goal's atoms at these indices, with the variables they use (renumbered)."""
    kept = [goal.atoms[i] for i in atoms]
    used = sorted({a for atom in kept for a in atom.args if isinstance(a, int)})
    index = {v: i for i, v in enumerate(used)}
    return Goal(
        atoms=tuple(
            GoalAtom(a.predicate, tuple(index[x] if isinstance(x, int) else x for x in a.args))
            for a in kept
        ),
        variables=tuple(goal.variables[v] for v in used),
    )


def _goal_binding(goal: Goal, atoms: Sequence[int], true: set[str]) -> dict[int, str] | None:
    """Values for the variables of these goal atoms that make them all true, or None.

    ``true`` holds the state's true predicates as :meth:`Env.true_predicates` names them. The
    variables of one group take distinct values, as in the goal's own matching.
    """
    kept = [goal.atoms[i] for i in atoms]
    order = sorted({a for atom in kept for a in atom.args if isinstance(a, int)})
    values: dict[int, str] = {}

    def holds(atom: GoalAtom) -> bool:
        names = [values[a] if isinstance(a, int) else a for a in atom.args]
        return f"{atom.predicate}({','.join(names)})" in true

    def extend(depth: int) -> bool:
        if depth == len(order):
            return True
        var = order[depth]
        group = goal.variables[var].group
        taken = {x for v, x in values.items() if goal.variables[v].group == group}
        for candidate in goal.variables[var].candidates:
            if candidate in taken:
                continue
            values[var] = candidate
            settled = [
                a
                for a in kept
                if var in a.args and all(not isinstance(x, int) or x in values for x in a.args)
            ]
            if all(holds(a) for a in settled) and extend(depth + 1):
                return True
            del values[var]
        return False

    return dict(values) if extend(0) else None


def _stage_env(env: Env, atoms: Sequence[int], bound: dict[int, str] | None = None) -> Env:
    """The env's task with only the goal atoms at these indices, in the env's mode.

    ``bound`` fixes goal variables (by index in the whole goal) to one object each; the other
    variables of their groups lose those objects from their candidates, as the goal's distinct
    values require (the bounds relax unshared variables per atom and would not see that).
    The goal takes no part in the state's layout, so states move between the two unchanged;
    that is checked here rather than assumed.
    """
    task = env.task
    goal = task.problem.goal
    if bound:
        taken: dict[int, set[str]] = collections.defaultdict(set)
        for i, name in bound.items():
            taken[goal.variables[i].group].add(name)
        goal = dataclasses.replace(
            goal,
            variables=tuple(
                dataclasses.replace(v, candidates=(bound[i],))
                if i in bound
                else dataclasses.replace(
                    v, candidates=tuple(c for c in v.candidates if c not in taken[v.group])
                )
                for i, v in enumerate(goal.variables)
            ),
        )
    problem = dataclasses.replace(task.problem, goal=_goal_part(goal, atoms))
    stage = compile_task(task.domain, problem, pool_size=task.pool_size)
    if (stage.core.num_words, stage.core.num_counters, stage.objects) != (
        task.core.num_words,
        task.core.num_counters,
        task.objects,
    ):
        raise RuntimeError("a part of the goal compiled to another state layout")
    return Env(stage, mode=env.mode)


JOINT_SCHEDULE_WAITS = 24
"""At most this many waits the joint schedule puts before one action (for a timer to finish)."""


def _effectless_actions(env: Env) -> set[str]:
    """The names of the domain's actions that change nothing (waiting)."""
    return {a.name for a in env.task.domain.actions if not a.immediate_fx and not a.sfx}


def _robot_slots(env: Env, args: Sequence[str]) -> list[int]:
    """The joint-step slots that may take an action: its robots', or all if it names none."""
    named = [i for i, r in enumerate(env.robots) if r in args]
    return named or list(range(len(env.robots)))


def _joint_schedule(env: Env, steps: Sequence[Any]) -> list[list[Any]] | None:
    """A simultaneous-mode plan that takes a centralized plan's actions, in fewer joint steps.

    ``env`` is in ``simultaneous`` mode, at the plan's start; ``steps`` are the centralized
    plan's structured actions. List scheduling: each action, in the plan's order, goes into the
    earliest joint step where its robot's slot is free, after its robot's previous action and
    after every earlier action that names one of its objects other than robots, such that the
    schedule from there on still replays (every entry valid at its step's start, none skipped)
    and that step starts with every fact about the action's objects that special effects make
    (cooked, cut) and that the centralized plan had before the action (so the patty is not
    taken off the stove before it cooks); else into a new step at the end, after as many waits
    as it needs. Actions without effects (waiting) are left out: the schedule waits where it
    must.

    Returns:
        The joint steps (structured entries, ``None`` for no action), or None where some action
        cannot be placed or the goal does not hold at the end: the caller then keeps the plan
        one action per step.
    """
    robots = list(env.robots)
    effectless = _effectless_actions(env)
    made = {
        literal.predicate
        for action in env.task.domain.actions
        for effect in action.all_special_effects()
        for literal in effect.fx
        if literal.is_true
    }

    def progress(walker: Env) -> set[str]:
        return {f for f in walker.true_predicates() if f[: f.index("(")] in made}

    central = Env(env.task, mode="centralized")
    central.set_state(env.get_state())
    wanted = []  # per step of the centralized plan: what effects made of its objects before it
    for name, args in steps:
        touched = set(args) - set(robots)
        wanted.append(
            {f for f in progress(central) if touched & set(f[f.index("(") + 1 : -1].split(","))}
        )
        central.step((name, args))
    replay = Env(env.task, mode="simultaneous")
    schedule: list[list[Any]] = []
    states: list[EnvState] = [env.get_state()]  # states[k]: the state before step k

    def replays(start: int, trial: list[list[Any]], at: int, need: set[str]) -> list[Any] | None:
        # The states after each step of the trial from `start` on; None where one does not
        # apply, or where step `at` starts without the facts `need`.
        def ready(k: int) -> bool:
            return k + start != at or need <= progress(replay)

        return _replay_joint(replay, states[start], trial[start:], ready)

    robot_last = [-1] * len(robots)  # per robot slot: the step of its last action
    object_last: dict[str, int] = {}  # per non-robot object: the step of the last action on it
    for index, (name, args) in enumerate(steps):
        if name in effectless:
            continue
        action = (name, tuple(args))
        objects = [a for a in args if a not in robots]
        slots = _robot_slots(env, args)
        earliest = max([object_last.get(o, -1) + 1 for o in objects], default=0)
        placed = -1
        for k in range(earliest, len(schedule)):
            for slot in slots:
                if k <= robot_last[slot] or schedule[k][slot] is not None:
                    continue
                trial = [*schedule[:k], [*schedule[k]], *schedule[k + 1 :]]
                trial[k][slot] = action
                after = replays(k, trial, k, wanted[index])
                if after is not None:
                    schedule, states[k + 1 :], placed = trial, after, k
                    robot_last[slot] = k
                    break
            if placed >= 0:
                break
        for waits in range(JOINT_SCHEDULE_WAITS + 1):
            if placed >= 0:
                break
            entry: list[Any] = [None] * len(robots)
            entry[slots[0]] = action
            trial = [*schedule, *([[None] * len(robots)] * waits), entry]
            after = replays(len(schedule), trial, len(trial) - 1, wanted[index])
            if after is not None:
                states[len(states) :] = after
                schedule, placed = trial, len(trial) - 1
                robot_last[slots[0]] = placed
        if placed < 0:
            return None
        for o in objects:
            object_last[o] = placed
    replay.set_state(states[-1])
    for _ in range(JOINT_SCHEDULE_WAITS):
        if replay.goal_reached():
            return schedule
        replay.step([None] * len(robots))
        schedule.append([None] * len(robots))
    return schedule if replay.goal_reached() else None


def _grounding(env: Env, action: tuple[str, Sequence[str]]) -> int:
    """The grounding of a structured action of a plan (which names a compiled one)."""
    g = env.task.grounding_id(action[0], action[1])
    if g is None:
        raise ValueError(f"{action!r} names no compiled grounding")
    return g


def _one_per_step(env: Env, steps: Sequence[Any]) -> list[list[Any]]:
    """A centralized plan as joint steps of one action each (a wait: no action at all)."""
    robots = list(env.robots)
    effectless = _effectless_actions(env)
    joint: list[list[Any]] = []
    for name, args in steps:
        entry: list[Any] = [None] * len(robots)
        if name not in effectless:
            entry[_robot_slots(env, args)[0]] = (name, tuple(args))
        joint.append(entry)
    return joint


def _agenda_run(
    env: Env,
    algorithm: str,
    heuristic: str,
    max_states: int | None,
    max_memory_bytes: int | None,
    time_limit: float | None,
    cancel: Callable[[], bool] | None,
    symmetry: bool,
    *,
    progress: Progress | None = None,
    threads: int = 1,
) -> Plan:
    """Algorithm ``"agenda"`` (see :func:`plan`): the goal's atoms a few at a time.

    Takes :func:`_run`'s arguments; ``algorithm`` is ``"agenda"``. ``progress`` gets each
    stage's search's reports; ``threads`` is each stage's.

    Each stage is an A* plan (optimal, or weighted where optimal takes too many states), from
    where the stages before it ended, to their atoms and its own. A stage whose atoms cannot be
    reached from there (soup poured into its bowl before it boils) goes back one stage and comes
    before it; where neither order works, the two become one stage. A first stage that cannot
    reach its atoms from the start proves the goal unreachable (wherever the goal holds, so does
    any part of it): UnsolvableError.

    The goal variables of the atoms reached stay bound to the objects they were reached with
    (the soup in the bowl is that water), so a stage that would have to undo them is usually a
    dead end the bound sees at its start, not a search for a second soup to the stage budget.
    """
    started = time.perf_counter()
    # Steps are replayed on the whole task: a stage's last step reaches its goal, so in a stage
    # env it would not pass the turn on (turn_based mode), where the whole task does.
    walker = Env(env.task, mode=env.mode)
    state = env.get_state()
    actions: list[Any] = []
    structured: list[Any] = []
    stages: list[SearchStats] = []
    pending: collections.deque[tuple[int, ...]] = collections.deque(
        (i,) for i in range(len(env.task.problem.goal.atoms))
    )
    done: list[tuple[int, ...]] = []  # the groups of atoms reached, in order
    before: list[tuple[EnvState, int]] = []  # per done group: the state and steps before it
    swapped: set[tuple[tuple[int, ...], ...]] = set()
    stage_states = min(max_states or AGENDA_STAGE_STATES, AGENDA_STAGE_STATES)

    def totals() -> SearchStats:
        summed = {
            f.name: sum(getattr(s, f.name) for s in stages) for f in dataclasses.fields(SearchStats)
        }
        return SearchStats(
            **{
                **summed,
                "bytes": max((s.bytes for s in stages), default=0),
                "state_bytes": stages[-1].state_bytes if stages else 0,
                "initial_h": 0,
                "bound": 0,
                "seconds": time.perf_counter() - started,
            }
        )

    def search(
        stage: Env,
        limits: dict[str, float] | None = None,
        states: int = stage_states,
        weight: int = 1,
    ) -> Plan:
        left = None if time_limit is None else time_limit - (time.perf_counter() - started)
        if left is not None and left <= 0:
            raise SearchLimitError("time_limit", totals())
        if limits is None and left is not None:
            # A search's upgrade caps grow with its time limit (plan's time_limit); a
            # polishing search is held to the stage budget instead, so its caps stay as they
            # are, with the upgrade share a search of the time left would take.
            limits = {"upgrade_seconds": _UPGRADE_SHARE * left}
        try:
            found = _run(
                stage,
                "astar",
                heuristic,
                states,
                max_memory_bytes,
                left,
                cancel,
                symmetry,
                limits,
                weight,
                progress=progress,
                threads=threads,
            )
        except (SearchLimitError, UnsolvableError) as failed:
            stages.append(failed.stats)  # type: ignore[arg-type]
            raise
        stages.append(found.stats)
        return found

    def stage_plan(stage: Env) -> Plan:
        """Optimal under a small budget, else weighted under the stage budget."""
        first = min(stage_states, AGENDA_OPTIMAL_STAGE_STATES)
        try:
            return search(stage, AGENDA_STAGE_PROJECTION_LIMITS, first)
        except SearchLimitError as failed:
            if failed.limit != "max_states" or first == stage_states:
                raise
        return search(stage, AGENDA_STAGE_PROJECTION_LIMITS, weight=AGENDA_STAGE_WEIGHT)

    if env.mode == "simultaneous" and len(env.robots) > 1:
        # Stages reach the goal's atoms one after another, which keeps the robots from working
        # at once: a centralized agenda plan, scheduled into joint steps, is polished instead.
        central = Env(env.task, mode="centralized")
        central.set_state(state)
        left = None if time_limit is None else time_limit - (time.perf_counter() - started)
        sequential = _agenda_run(
            central,
            algorithm,
            heuristic,
            max_states,
            max_memory_bytes,
            left,
            cancel,
            symmetry,
            progress=progress,
            threads=threads,
        )
        stages.append(sequential.stats)
        scheduled = _joint_schedule(env, sequential.structured)
        structured = _one_per_step(env, sequential.structured)
        if scheduled is not None and len(scheduled) < len(structured):
            structured = scheduled
        actions = _replayable_actions(env, structured)
        pending.clear()
    while pending:
        group = pending.popleft()
        previous = (state, len(actions))
        reached = [i for g in done for i in g]
        walker.set_state(state)  # also where the stage's steps are replayed from, below
        bound = _goal_binding(env.task.problem.goal, reached, set(walker.true_predicates()))
        stage = _stage_env(env, [*reached, *group], bound)
        stage.set_state(state)
        if not stage.goal_reached():
            try:
                part = stage_plan(stage)
            except (SearchLimitError, UnsolvableError) as failed:
                # Over the stage budget counts as failing; the caller's own limits stop.
                limit = failed.limit if isinstance(failed, SearchLimitError) else None
                if limit is not None and (limit != "max_states" or stage_states == max_states):
                    raise SearchLimitError(limit, totals()) from None
                if not done:
                    if limit is not None:
                        raise SearchLimitError(limit, totals()) from None
                    raise UnsolvableError(totals()) from None
                last = done.pop()
                state, steps = before.pop()
                del actions[steps:], structured[steps:]
                key = (*done, last, group)
                if key in swapped:  # this group already went before that one, and failed
                    pending.appendleft(last + group)
                else:
                    swapped.add(key)
                    pending.extendleft([last, group])  # group first
                continue
            for step in part.structured:
                walker.step(step)
            state = walker.get_state()
            actions += part.actions
            structured += part.structured
        before.append(previous)
        done.append(group)
    # Polish: the last steps, planned again for the whole goal from ever earlier states along
    # the plan while A* manages within the budgets, become an optimal tail.
    walker.set_state(env.get_state())
    along = [walker.get_state()]
    for step in structured:
        walker.step(step)
        along.append(walker.get_state())
    for cut in range(len(structured) - AGENDA_POLISH_STRIDE, 0, -AGENDA_POLISH_STRIDE):
        walker.set_state(along[cut])
        try:
            tail = search(walker)
        except (SearchLimitError, UnsolvableError):
            break
        if cut + tail.length < len(actions):
            actions = actions[:cut] + tail.actions
            structured = structured[:cut] + tail.structured
    return Plan(actions, structured, len(actions), "agenda", env.mode, totals())


def _runner(
    algorithm: str,
    weight: float = 1,
    searches_at_once: int = 1,
    bound_memory_bytes: int | None = None,
) -> Callable[..., Plan]:
    """The function that plans with this algorithm, and for A* with this weight.

    :func:`_agenda_run`, :func:`_restarting_run` (told how many searches run at once, and the
    memory to plan the long bound for) or :func:`_run`; ValueError for a weight or a
    ``bound_memory_bytes`` :func:`plan` does not take.
    """
    ratio = _weight_ratio(weight)
    if algorithm != "astar" and ratio != 1:
        raise ValueError(f"a weight other than 1 is for A* only, not {algorithm!r}")
    if bound_memory_bytes is not None:
        if algorithm != "astar":
            raise ValueError(f"bound_memory_bytes is for A* only, not {algorithm!r}")
        if not isinstance(bound_memory_bytes, int) or isinstance(bound_memory_bytes, bool):
            raise TypeError(f"bound_memory_bytes must be an int, got {bound_memory_bytes!r}")
        _check_positive({"bound_memory_bytes": bound_memory_bytes})
    if algorithm == "agenda":
        return _agenda_run
    if algorithm == "astar":
        return functools.partial(
            _restarting_run,
            weight=ratio,
            searches_at_once=searches_at_once,
            bound_memory_bytes=bound_memory_bytes,
        )
    return functools.partial(_run, weight=ratio)


def plan(
    env: Env,
    algorithm: Algorithm = "astar",
    *,
    heuristic: Heuristic = "projections",
    max_states: int | None = None,
    max_memory_bytes: int | None = None,
    time_limit: float | None = None,
    symmetry: bool = True,
    progress: bool | Progress | None = None,
    threads: int = 1,
    weight: float = 1,
    bound_memory_bytes: int | None = None,
) -> Plan:
    """Finds an optimal plan from the env's current state, in the env's mode.

    The GIL is released while searching; Ctrl-C stops the search and raises
    ``KeyboardInterrupt``.

    Args:
        env: The environment; it is not modified.
        algorithm: ``"astar"`` (default) or ``"bfs"``; or ``"agenda"`` for a plan that is not
            necessarily optimal, on tasks too large to solve optimally. The agenda reaches the
            goal's atoms one more at a time, in the goal's order, each stage an A* plan from
            where the last ended (its bound's tables capped by
            :data:`AGENDA_STAGE_PROJECTION_LIMITS`), keeping the objects the atoms reached so
            far were reached with. A stage's plan is optimal, or, where that needs more than
            :data:`AGENDA_OPTIMAL_STAGE_STATES` states, found by weighted A*
            (:data:`AGENDA_STAGE_WEIGHT`). A stage that cannot follow the one before
            it (soup poured into its bowl before it boils), or stores more than
            :data:`AGENDA_STAGE_STATES` states, goes before it instead; where neither order
            works the two are planned as one stage. Then the plan's tail is planned again for
            the whole goal from ever earlier states along it (every
            :data:`AGENDA_POLISH_STRIDE` steps) while A* manages within the stage budget. In
            ``simultaneous`` mode with several robots, where stages one after another would keep
            the robots from working at once, the agenda plans in ``centralized`` mode and
            schedules that plan's actions into joint steps (each in the earliest step where it
            still replays), then polishes. The limits below apply to each stage, the time limit
            to the whole. The plan's
            statistics add up the stages' (``initial_h`` and ``bound`` are 0: the agenda
            proves no bound).
        heuristic: For A*: ``"projections"`` (default: the projection bound, maxed with the
            time bound when the task has delayed effects and that bound is the larger at the
            start), ``"lmcut"`` (LM-cut on the delete relaxation, maxed with the time bound),
            ``"time"`` (the critical-path bound alone)
            or ``"all"`` (the max of all three: strongest, dearest). In ``simultaneous`` mode
            the projections and LM-cut count the actions still needed, divided by the number
            of robots (each may act in a step).
        max_states: Stop after storing this many states.
        max_memory_bytes: Stop when the search's tables exceed this many bytes. From half
            of it on, A* stores only the successors due in the layer it expands and expands
            their parents again for the others when they fall due (partial expansion): the
            same optimal plans with several times fewer states stored, for more time per
            state (``stats.deferred`` counts those expansions; see the search.h comment).
            Default (None): :data:`DEFAULT_MEMORY_SHARE` of the physical memory, so that a
            search too large for the machine stops with :class:`SearchLimitError` instead of
            being killed when the memory runs out (no limit where the system does not say how
            much memory it has); pass a larger number to allow more.
        time_limit: Stop after this many seconds, counting the time to build the bound's
            tables (the first search of a task builds them). Projections beyond the first
            size caps are built only if they are predicted to end within half of it; past
            5 s, the caps on their size grow with it (up to 6 times, at 30 s): a long search
            gets a tighter bound, and its construction may then hold a few GB (not counted in
            ``max_memory_bytes``, which the search's tables fill only after construction
            ends; under that budget they grow only while it holds them, at 400 bytes per
            abstract state). From 5 minutes (:data:`LONG_PLANNED_SECONDS`) every cap is what
            half of the memory budget holds (the default one included), and a projection
            whose timers repeat is built whole where it fits (not with a sink): minutes of
            construction that can raise the start bound by ten.
            Without a time limit the caps stay as they are, and an A* search that has run
            :data:`RESTART_AFTER_SECONDS` while its bound left rows coarse
            (``stats.coarse_rows``) starts over with the bound a search limited to
            :data:`RESTART_PLANNED_SECONDS` builds. One that has run
            :data:`LONG_RESTART_AFTER_SECONDS` while rows are still coarse or built with a sink
            (``stats.sink_rows``) starts over with the bound of a long search: a search limited
            to :data:`LONG_PLANNED_SECONDS` builds it, under the memory budget (minutes of
            construction and a few GB, but hours less search where the rows matter). The
            statistics then add up the tries (``bytes``: the largest, ``initial_h`` and
            ``bound``: the last's).
        symmetry: Store one state per orbit of interchangeable objects (e.g. empty tables,
            two breads; see :mod:`robotouille.symmetry`). Never changes the optimal length;
            turn it off only to compare.
        progress: Report a search that runs longer than :data:`PROGRESS_EVERY` seconds, every
            that many seconds: ``True`` prints the bound proven so far, the states expanded
            and stored, the memory and the time on stderr (a line rewritten in place on a
            terminal); a callable gets the :class:`SearchStats` so far; ``None`` (default)
            prints when stderr is a terminal; ``False`` reports nothing. An exception the
            callable raises stops the search and is raised from here.
        threads: Threads that build the bound's tables and expand the search's states.
            On two cores, 2 makes an A* search of tens of seconds 1.4-1.8 times as fast, a
            breadth-first one 1.3-1.7 times, and building the tables of a multi-robot task up
            to 1.8 times (``benchmarks/README.md``; more threads are supported, their speed-up
            not measured). A*'s plan has the same length, its steps and the statistics may
            differ from one thread's; BFS's plan and statistics are the same. For many
            instances at once, :func:`plan_many` gives each search its share of the threads.
        weight: For A*: above 1 (up to 64), weighted A* (f = g + weight h), whose plan is at
            most ``weight`` times the optimum, often found with far fewer states (for tasks
            too large to solve optimally; ``stats.bound`` then proves nothing and is 0). Taken
            as the nearest fraction with a denominator up to :data:`WEIGHT_DENOMINATOR`
            (``plan.weight``). Where the bound is tight, a weight just above 1 finds a plan near
            the optimum long before A* would finish: on multi_agent/10 seed 168, 1.0625 gives
            67 steps (the optimum is at least 65), 2 gives 123 (benchmarks/README.md).
        bound_memory_bytes: For A*: the memory a long search's bound is planned for, in place
            of the memory budget, ``max_memory_bytes`` or the default (see ``time_limit``;
            with a time limit of :data:`LONG_PLANNED_SECONDS` or more, or without one after the
            restart to the long bound): its caps take half of it at 400 bytes per abstract
            state over all rows, and it holds up to about half of it while it builds. For a
            bound larger than the search's budget would plan, on a machine with the memory for
            both: on multi_agent/10 seed 126, 22 GiB builds the pots' rows for both waters
            (26.6M abstract states in all, 8.4 GB resident at most; start bound 61) and A*
            proves the optimum, 64, in 228 s with a budget of 10 GiB, where the caps planned
            for 12 GB leave them coarse (start bound 55; benchmarks/README.md). Without a time
            limit the restart's construction gets the time its caps take (10 us per abstract
            state on one thread), so the rows they admit are built: after its restarts, the
            same search takes 293 s on one thread, and seed 378 with 36 GiB proves its
            optimum, 69, in 440-627 s (15.4 GB resident at most).

    Returns:
        The plan, with ``plan.length`` minimal (except for ``"agenda"`` and weights above 1).
        In ``simultaneous`` mode each step lists one entry per robot, ``None`` where the plan
        needs no action of that robot (entries it could do without are taken out).

    Raises:
        SearchLimitError: A limit stopped the search; ``err.stats`` holds the statistics.
        UnsolvableError: The goal cannot be reached from this state.
    """
    limits = {"max_states": max_states, "max_memory_bytes": max_memory_bytes}
    _check(algorithm, heuristic, {**limits, "time_limit": time_limit})
    _check_threads(threads)
    run = _runner(algorithm, weight, bound_memory_bytes=bound_memory_bytes)
    line: _ProgressLine | None = None
    report: Progress | None = None
    if isinstance(progress, bool) or progress is None:
        if progress or (progress is None and sys.stderr.isatty()):
            # (_runner has refused a weight for any other algorithm than A*.)
            report = line = _ProgressLine(algorithm, weighted=_weight_ratio(weight) != 1)
    elif callable(progress):
        report = progress
    else:
        raise TypeError(f"progress must be a bool, a callable or None, got {progress!r}")
    budget = _memory_budget(max_memory_bytes, 1)
    try:
        with _default_budget_said(max_memory_bytes, budget, 1):
            return run(
                env,
                algorithm,
                heuristic,
                max_states,
                budget,
                time_limit,
                None,
                symmetry,
                progress=report,
                threads=threads,
            )
    finally:
        if line is not None:
            line.close()


@contextlib.contextmanager
def _default_budget_said(
    max_memory_bytes: int | None, budget: int | None, searches_at_once: int
) -> Iterator[None]:
    """Raises a SearchLimitError of the default memory budget again, saying how much that was.

    Only where the caller gave no ``max_memory_bytes``; other errors pass unchanged.
    """
    try:
        yield
    except SearchLimitError as error:
        if max_memory_bytes is not None or budget is None or error.limit != "max_memory_bytes":
            raise
        share = f"{DEFAULT_MEMORY_SHARE:.0%} of the physical memory"
        if searches_at_once > 1:
            share += f" divided among {searches_at_once} searches at once"
        raise SearchLimitError(
            error.limit,
            error.stats,
            f"by default {budget / 2**20:,.0f} MiB, {share}; pass max_memory_bytes for another",
        ) from None


def optimal_length(env: Env, algorithm: Algorithm = "astar", **limits: Any) -> int:
    """The number of steps of an optimal plan from the env's current state.

    Mid-episode this is the paper's "steps to go". Takes the same arguments as :func:`plan`,
    except that ``algorithm`` must be ``"astar"`` or ``"bfs"`` (an agenda's plan is not minimal).
    """
    if algorithm not in ("astar", "bfs"):
        raise ValueError(f"optimal_length needs 'astar' or 'bfs', got {algorithm!r}")
    if _weight_ratio(limits.get("weight", 1)) != 1:
        raise ValueError("optimal_length needs weight 1 (a weighted plan is not minimal)")
    return plan(env, algorithm, **limits).length


def plan_many(
    envs: Sequence[Env],
    threads: int | None = None,
    algorithm: Algorithm = "astar",
    *,
    heuristic: Heuristic = "projections",
    max_states: int | None = None,
    max_memory_bytes: int | None = None,
    time_limit: float | None = None,
    symmetry: bool = True,
    progress: bool | None = None,
    return_exceptions: bool = False,
    weight: float = 1,
    bound_memory_bytes: int | None = None,
) -> list[Any]:
    """Solves many instances in parallel threads (the searches release the GIL).

    Limits apply to each search separately. Ctrl-C cancels every running search and raises
    ``KeyboardInterrupt``.

    Args:
        envs: The environments, each planned from its current state.
        threads: Worker threads (default: the number of CPUs). With fewer instances than
            threads, each search gets its share of them (see :func:`plan`'s ``threads``).
        algorithm: As in :func:`plan`.
        heuristic: As in :func:`plan`.
        max_states: As in :func:`plan`, per search.
        max_memory_bytes: As in :func:`plan`, per search (the default's share of the physical
            memory is divided among the searches running at once).
        time_limit: As in :func:`plan`, per search.
        symmetry: As in :func:`plan`.
        progress: Print a progress line to stderr (default: when stderr is a terminal).
        return_exceptions: Put a failed search's exception in its slot instead of raising it
            (after the other searches finish).
        weight: As in :func:`plan`.
        bound_memory_bytes: As in :func:`plan`, per search (not divided among them).

    Returns:
        The plans, in the order of ``envs``.
    """
    _check(
        algorithm,
        heuristic,
        {"max_states": max_states, "max_memory_bytes": max_memory_bytes, "time_limit": time_limit},
    )
    if threads is not None:
        _check_threads(threads)
    workers = threads or os.cpu_count() or 1
    per_search = max(1, workers // max(1, len(envs)))
    show = sys.stderr.isatty() if progress is None else progress
    stop = threading.Event()
    results: list[Any] = [None] * len(envs)

    at_once = min(workers, len(envs))
    run = _runner(algorithm, weight, at_once, bound_memory_bytes)
    budget = _memory_budget(max_memory_bytes, at_once)

    def work(i: int) -> Plan:
        with _default_budget_said(max_memory_bytes, budget, at_once):
            return run(
                envs[i],
                algorithm,
                heuristic,
                max_states,
                budget,
                time_limit,
                stop.is_set,
                symmetry,
                threads=per_search,
            )

    done = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(work, i): i for i in range(len(envs))}
        pending = set(futures)
        try:
            while pending:
                finished, pending = concurrent.futures.wait(
                    pending, timeout=0.2, return_when=concurrent.futures.FIRST_COMPLETED
                )
                for future in finished:
                    i = futures[future]
                    error = future.exception()
                    if error is None:
                        results[i] = future.result()
                    elif return_exceptions and not isinstance(error, KeyboardInterrupt):
                        results[i] = error
                    else:
                        stop.set()
                        raise error
                    done += 1
                if show:
                    end = "\n" if not pending else ""
                    print(f"\rplanned {done}/{len(envs)}", end=end, file=sys.stderr, flush=True)
        except BaseException:
            stop.set()  # running searches see it within ~0.1 s
            raise
    return results
