"""
Private compiled core of robotouille; use the robotouille package instead.
"""

from collections.abc import Sequence
from typing import Annotated

import numpy
from numpy.typing import NDArray


STATUS_GOAL: int = 1

STATUS_POOL_EXHAUSTED: int = 2

class Task:
    def __init__(self, **kwargs) -> None: ...

    @property
    def num_facts(self) -> int: ...

    @property
    def num_words(self) -> int: ...

    @property
    def num_objects(self) -> int: ...

    @property
    def num_groundings(self) -> int: ...

    @property
    def num_templates(self) -> int: ...

    @property
    def num_nodes(self) -> int: ...

    @property
    def num_counters(self) -> int: ...

    @property
    def mask_words(self) -> int: ...

class VectorEnv:
    def __init__(self, instances: list, num_obs_columns: int, num_action_columns: int, mode: str, goal_reward: float, invalid_action: str, threads: int, **kwargs) -> None:
        """
        instances: list of (task, initial_words, initial_counters, fact_column, column_grounding, robots, task_column, player_column, max_steps); buffers by keyword: words, counters, observation, action_mask, reward, terminated, truncated, invalid, instance, home, steps (one row per environment).
        """

    @property
    def threads(self) -> int: ...

    def reset(self, seeds: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)] | None) -> None:
        """
        Seeds each environment's stream (None: keep them) and resets every environment.
        """

    def step(self, actions: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> None:
        """One step per environment (actions: int32 columns)."""

    def step_random(self) -> None:
        """One step per environment with a uniformly random valid action."""

def step(task: Task, words: Annotated[NDArray[numpy.uint64], dict(shape=(None, None), order='C', device='cpu')], counters: Annotated[NDArray[numpy.int32], dict(shape=(None, None), order='C', device='cpu')], actions: Annotated[NDArray[numpy.int32], dict(shape=(None, None), order='C', device='cpu', writable=False)], applied: Annotated[NDArray[numpy.uint8], dict(shape=(None, None), order='C', device='cpu')], status: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu')]) -> None:
    """
    Steps each state of a batch in place: words (B, W) uint64, counters (B, C) int32, actions (B, K) int32 grounding ids (-1 = none); writes applied (B, K) uint8 and status (B,) int32 bits (STATUS_GOAL, STATUS_POOL_EXHAUSTED).
    """

def random_rollout(task: Task, words: Annotated[NDArray[numpy.uint64], dict(shape=(None, None), order='C', device='cpu')], counters: Annotated[NDArray[numpy.int32], dict(shape=(None, None), order='C', device='cpu')], steps: int, seed: int, reset_words: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], reset_counters: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> int:
    """
    Runs `steps` uniformly random steps from each state of the batch in place, resetting to the given state after each goal; returns how many episodes reached the goal.
    """

def valid_mask(task: Task, words: Annotated[NDArray[numpy.uint64], dict(shape=(None, None), order='C', device='cpu', writable=False)], out: Annotated[NDArray[numpy.uint64], dict(shape=(None, None), order='C', device='cpu')], player: int = -1) -> None:
    """
    Writes the valid-action bitmask of each state: out (B, mask_words) uint64.
    """

def goal_reached(task: Task, words: Annotated[NDArray[numpy.uint64], dict(shape=(None, None), order='C', device='cpu', writable=False)], out: Annotated[NDArray[numpy.bool_], dict(shape=(None,), order='C', device='cpu')]) -> None:
    """Writes whether the goal holds in each state: out (B,) bool."""

def valid_groundings(task: Task, words: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], counters: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], player: int = -1) -> list[int]:
    """
    Valid grounding ids of one state, in canonical order over the state's object order.
    """

def normalize_effect_order(task: Task, counters: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu')]) -> bool:
    """
    Rewrites one state's active special-effect list (counters, in place) into the normal form the planner stores (see effect_order.h); returns whether it changed. For tests.
    """

def object_order(task: Task, words: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], counters: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> list[int]:
    """
    Existing objects of one state in object order (created objects in creation order).
    """

def observation(task: Task, words: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], counters: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], valid: Sequence[int]) -> str:
    """The observation text of one state with the given valid groundings."""

def describe(task: Task, words: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], counters: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> str:
    """The object part of the observation text of one state."""

def action_text(task: Task, grounding: int) -> str:
    """The language text of a grounding."""

def search(task: Task, words: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], counters: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], algorithm: str = 'astar', mode: str = 'centralized', lmcut: bool = True, robots: Sequence[int] = [], max_states: int = 0, max_memory_bytes: int = 0, time_limit: float = 0.0, cancel: object | None = None, symmetry: object | None = None, projections: object | None = None, packing: object | None = None, projection_task: object | None = None, projection_limits: object | None = None, relocations: Sequence[int] = [], commuting: Sequence[int] = [], weight: int = 1, weight_denominator: int = 1, progress: object | None = None, progress_every: float = 1.0, threads: int = 1, batch: int = 0, partial_slack: int = 0, partial_from_bytes: int = -1) -> tuple[str, list[list[int]], dict]:
    """
    Optimal plan search from one state; returns (status, plan, stats). plan: one list of groundings per step. symmetry: a dict of the tables robotouille.symmetry builds (lists of ints), or None. projections: likewise, robotouille.projections' tables (A* only). packing: robotouille.invariants' packing tables (at-most-one fact sets, and optionally min_interned_bytes: the plain facts' bytes are interned where they fill at least that many, 0 never; 16 if absent; see search.h), or None. projection_task: the task the projections are built for (the same task with implied goal atoms added), or None for task itself. projection_limits: a dict overriding caps on building the projections (max_states, max_total_states, upgrade_states, upgrade_total_states, retry_states, upgrade_seconds; planned_seconds: without a time limit, build them as a search with that one would; planned_memory_bytes: plan them as a search with that memory budget would, in place of max_memory_bytes; max_distance_entries: the distance tables' entries over all rows; threads: build them on that many, where the search's own threads do not decide), exact_timers (true: keep every timer's exact progress, for comparisons; see projection.h), timer_sinks (false: never lead repeated timers to a sink, for comparisons; see projection.h) and existence_order (false: rows do not check that the pool objects before a needed one exist, for comparisons; see projection.h), or None. relocations: per grounding, the robot it only moves between stations, or -1 (in centralized mode a robot that just moved is offered neither a move nor a no-op; see search.h), or empty for none. commuting: per grounding, the robot whose moves (and the no-ops) are not offered right after it, or -1 (with relocations; see search.h, "Commutation pruning"), or empty for none. weight, weight_denominator: A* with f = g + w * h, w = weight / weight_denominator (at least 1); above 1 the plan is not necessarily optimal (see search.h). progress: called every progress_every seconds of the search with its statistics so far (a dict like the returned one), or None; an exception it raises stops the search and is raised from here. threads: A* and BFS expand states on that many threads (A*'s plan and statistics depend only on the batch size: states expanded at once, 0 for 1 on one thread and 32 per thread on more, 128 for BFS, whose search is the same for any; see search.h). partial_slack, partial_from_bytes: A* under memory pressure leaves out successors more than partial_slack layers above the one expanded once its tables hold partial_from_bytes (-1: half of max_memory_bytes if set, else never), and expands their parents again when they fall due; partial_slack -1: never (see search.h, "Partial expansion"). The GIL is released while searching.
    """

def heuristic_value(task: Task, words: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], counters: Annotated[NDArray[numpy.int32], dict(shape=(None,), order='C', device='cpu', writable=False)], mode: str = 'centralized', lmcut: bool = True, robots: Sequence[int] = []) -> int:
    """
    The A* heuristic's lower bound on steps to the goal (-1: provably unreachable).
    """

def projection_bounds(task: Task, words: Annotated[NDArray[numpy.uint64], dict(shape=(None, None), order='C', device='cpu', writable=False)], counters: Annotated[NDArray[numpy.int32], dict(shape=(None, None), order='C', device='cpu', writable=False)], projections: dict, projection_task: object | None = None, incremental: bool = True, projection_limits: object | None = None) -> list[int]:
    """
    The projection bound (robotouille.projections' tables, built from the first state) of each state in turn (-1: provably unreachable). incremental: each evaluation reuses what the one before found for the facts that did not change, as the search's do; False evaluates each state afresh (for tests). projection_limits: the caps on building the tables, as search() takes them (its defaults without a time limit), or None.
    """
