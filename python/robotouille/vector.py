"""Batched environments for reinforcement learning: :func:`make_vec` and the fixed layout.

Many environments, possibly running different instances (different object counts, different
tasks), are stepped together by the C++ core in worker threads with the GIL released. The
learner sees a fixed-shape encoding that does not depend on the instance, described by a
:class:`Layout`:

* **Observation** ``(D,)`` uint8 of 0/1. Columns ``[0, F)`` are facts, named like
  ``item_at(bread1,table1)``: the union, in first-seen order, of the predicate facts of every
  instance (instance order, then each instance's predicate-table order); a fact an instance does
  not have is always 0 there. Then one column per distinct goal (``goal=<goal description>``),
  set for the goal the environment's instance has, then one column per robot slot
  (``turn=<i>``), set for the robot whose turn it is (it rotates after every step, also in
  ``centralized`` mode). With ``observation="raw"`` the fact columns are instead the instance's
  own fact ids (``fact<i>``; meaningful only together with the instance index in
  ``info["instance"]``). Timer progress is not part of the observation (as in the original's
  text); :meth:`RobotouilleVectorEnv.raw_state` exposes it.
* **Action** ``Discrete(A)``: the union of the instances' groundings, named like
  ``move(robot1,table1,table2)``, in first-seen order. ``info["action_mask"]`` is a
  ``(num_envs, A)`` bool array of the actions valid in each environment's current state.

For a single instance, fact column ``i`` is fact ``i`` and action column ``a`` is grounding
``a``; the columns' names are in :attr:`Layout.observation_names` and :attr:`Layout.actions`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from . import _core
from .compile import CompiledTask
from .env import Env, PathLike, load

ObservationKind = Literal["layout", "raw"]
InvalidPolicy = Literal["ignore", "raise"]
EnvSource = PathLike | dict[str, Any] | Env | CompiledTask

_GOAL_PREFIX = "goal="
_TURN_PREFIX = "turn="


def _action_key(task: CompiledTask, g: int) -> str:
    name, args = task.grounding_name(g)
    return f"{name}({','.join(args)})"


class Layout:
    """The instance-independent encoding of observations and actions of a family of instances.

    Args:
        tasks: The compiled instances, in order.
        observation: ``"layout"`` (named fact columns, the union over instances) or ``"raw"``
            (each instance's own fact ids).

    Attributes:
        facts: Names of the fact columns.
        goals: The distinct goal descriptions, one observation column each.
        max_robots: Robot slots (the most robots any instance has), one column each.
        actions: Names of the action columns.
    """

    def __init__(self, tasks: Sequence[CompiledTask], observation: ObservationKind = "layout"):
        if not tasks:
            raise ValueError("a layout needs at least one instance")
        if observation not in ("layout", "raw"):
            raise ValueError(f"observation must be 'layout' or 'raw', got {observation!r}")
        self.tasks = tuple(tasks)
        self.observation = observation
        fact_index: dict[str, int] = {}
        action_index: dict[str, int] = {}
        goal_index: dict[str, int] = {}
        self._fact_columns: list[npt.NDArray[np.int32]] = []
        self._groundings: list[list[int]] = []
        raw_width = max(t.num_pred_facts for t in tasks)
        for task in tasks:
            columns = np.full(task.core.num_facts, -1, np.int32)
            for f in range(task.num_pred_facts):
                if observation == "raw":
                    columns[f] = f
                else:
                    columns[f] = fact_index.setdefault(task.fact_name(f), len(fact_index))
            self._fact_columns.append(columns)
            self._groundings.append(
                [
                    action_index.setdefault(_action_key(task, g), len(action_index))
                    for g in range(task.num_groundings)
                ]
            )
            goal_index.setdefault(task.problem.goal_description, len(goal_index))
        raw_names = (f"fact{i}" for i in range(raw_width))
        self.facts: tuple[str, ...] = tuple(raw_names if observation == "raw" else fact_index)
        self.goals: tuple[str, ...] = tuple(goal_index)
        self.max_robots = max(len(t.problem.players) for t in tasks)
        self.actions: tuple[str, ...] = tuple(action_index)
        self._goal_of = [goal_index[t.problem.goal_description] for t in tasks]

    @property
    def num_observations(self) -> int:
        """``D``: the length of an observation vector."""
        return len(self.facts) + len(self.goals) + self.max_robots

    @property
    def num_actions(self) -> int:
        """``A``: the number of action columns."""
        return len(self.actions)

    @property
    def observation_names(self) -> list[str]:
        """The name of every observation column."""
        return (
            list(self.facts)
            + [_GOAL_PREFIX + g for g in self.goals]
            + [f"{_TURN_PREFIX}{i}" for i in range(self.max_robots)]
        )

    def fact_columns(self, instance: int) -> npt.NDArray[np.int32]:
        """Per fact of the instance (hidden facts included): its observation column or -1."""
        return self._fact_columns[instance]

    def column_groundings(self, instance: int) -> npt.NDArray[np.int32]:
        """Per action column: the instance's grounding id, or -1 when it has none there."""
        out = np.full(self.num_actions, -1, np.int32)
        out[self._groundings[instance]] = np.arange(len(self._groundings[instance]))
        return out

    def action_column(self, instance: int, grounding: int) -> int:
        """The action column of one of the instance's groundings."""
        return self._groundings[instance][grounding]

    def goal_column(self, instance: int) -> int:
        """The observation column set for the instance's goal."""
        return len(self.facts) + self._goal_of[instance]

    def turn_column(self) -> int:
        """The observation column of robot slot 0's turn flag."""
        return len(self.facts) + len(self.goals)

    def encode(self, instance: int, env: Env) -> npt.NDArray[np.uint8]:
        """The observation vector of a single :class:`Env` running the given instance.

        This is the plain numpy definition of the encoding (the batched engine writes the same
        vector in C++); it is used by the multi-agent wrappers and by the tests.
        """
        state = env.get_state()
        bits = np.unpackbits(state.words.view(np.uint8), bitorder="little")
        columns = self._fact_columns[instance]
        out = np.zeros(self.num_observations, np.uint8)
        true = np.flatnonzero(bits[: len(columns)])
        out[columns[true][columns[true] >= 0]] = 1
        out[self.goal_column(instance)] = 1
        if env.robots:
            out[self.turn_column() + env.robots.index(env.current_robot)] = 1
        return out

    def mask(self, instance: int, groundings: Sequence[int]) -> npt.NDArray[np.bool_]:
        """The action mask with the given groundings of the instance set."""
        out = np.zeros(self.num_actions, bool)
        out[[self._groundings[instance][g] for g in groundings]] = True
        return out


def _compiled(source: EnvSource, domain_file: PathLike | None, pool_size: int | None) -> Any:
    if isinstance(source, CompiledTask):
        return source
    if isinstance(source, Env):
        return source.task
    return load(source, domain_file, pool_size=pool_size).task


def compile_family(
    envs: EnvSource | Sequence[EnvSource],
    *,
    domain_file: PathLike | None = None,
    pool_size: int | None = None,
) -> list[CompiledTask]:
    """Loads and compiles one or several environments (instances) for a batch.

    Args:
        envs: An environment file, bundled task name, parsed JSON dict, :class:`Env` or
            compiled task, or a sequence of them.
        domain_file: The domain for the files (default: the bundled domain).
        pool_size: Created-object pool per creation group (decision D7).

    Returns:
        The compiled instances, in order.
    """
    items: list[EnvSource] = list(envs) if isinstance(envs, (list, tuple)) else [envs]  # type: ignore[list-item]
    if not items:
        raise ValueError("no environments given")
    return [_compiled(e, domain_file, pool_size) for e in items]


def _per_instance(value: int | Sequence[int | None] | None, n: int, name: str) -> list[int]:
    values = list(value) if isinstance(value, (list, tuple)) else [value] * n
    if len(values) != n:
        raise ValueError(f"{name} should have one entry per instance ({n}), got {len(values)}")
    out = []
    for v in values:
        if v is None:
            out.append(0)
        elif isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1:
            out.append(int(v))
        else:
            raise ValueError(f"{name} entries must be positive integers or None, got {v!r}")
    return out


def _seed_streams(seed: int | Sequence[int], num_envs: int) -> npt.NDArray[np.uint64]:
    """One 64-bit stream seed per environment, from one seed or one seed per environment."""
    if isinstance(seed, (list, tuple, np.ndarray)):
        if len(seed) != num_envs:
            raise ValueError(f"seed should be an int or {num_envs} ints, got {len(seed)}")
        return np.array(
            [np.random.SeedSequence(int(s)).generate_state(1, np.uint64)[0] for s in seed],
            np.uint64,
        )
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an int or one int per environment, got {seed!r}")
    streams = np.random.SeedSequence(int(seed)).generate_state(num_envs, np.uint64)
    return np.asarray(streams, np.uint64)


@dataclass
class _Buffers:
    """The numpy arrays the C++ engine writes in place, one row per environment."""

    words: npt.NDArray[np.uint64]
    counters: npt.NDArray[np.int32]
    observation: npt.NDArray[np.uint8]
    action_mask: npt.NDArray[np.bool_]
    reward: npt.NDArray[np.float64]
    terminated: npt.NDArray[np.bool_]
    truncated: npt.NDArray[np.bool_]
    invalid: npt.NDArray[np.bool_]
    instance: npt.NDArray[np.int32]
    home: npt.NDArray[np.int32]
    steps: npt.NDArray[np.int32]


class Batch:
    """B environments over a family of instances, stepped by the C++ core (no Gymnasium).

    :class:`RobotouilleVectorEnv` and the single-environment Gymnasium classes are thin
    wrappers of this class. The arrays in ``views`` are read-only views of the buffers that
    every call overwrites; copy what you keep.

    Args:
        tasks: The compiled instances (see :func:`compile_family`).
        num_envs: B, the number of environments.
        num_threads: Worker threads (the calling thread included); default: the CPU count.
            Results do not depend on it.
        mode: ``centralized`` (default) or ``turn_based`` (only the current robot's actions
            are valid).
        max_steps: Truncation limit, one for all instances or one per instance; ``None`` for
            none.
        observation: ``"layout"`` or ``"raw"`` fact columns (see :class:`Layout`).
        instance_sampling: ``"fixed"``: environment ``b`` always runs instance
            ``b % len(tasks)``; ``"random"``: every reset draws an instance uniformly from the
            environment's own seeded stream.
        goal_reward: Reward for reaching the goal (other steps give 0).
        invalid_action: ``"ignore"`` (default): an action that is not valid leaves the state
            unchanged, counts as a step and is flagged in ``invalid``; ``"raise"``: raises
            ``ValueError`` naming the environment, and no environment is stepped.
    """

    def __init__(
        self,
        tasks: Sequence[CompiledTask],
        num_envs: int,
        *,
        num_threads: int | None = None,
        mode: str = "centralized",
        max_steps: int | Sequence[int | None] | None = None,
        observation: ObservationKind = "layout",
        instance_sampling: Literal["fixed", "random"] = "fixed",
        goal_reward: float = 1.0,
        invalid_action: InvalidPolicy = "ignore",
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if instance_sampling not in ("fixed", "random"):
            raise ValueError("instance_sampling must be 'fixed' or 'random'")
        threads = (os.cpu_count() or 1) if num_threads is None else num_threads
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"num_threads must be a positive integer, got {num_threads!r}")
        self.tasks = list(tasks)
        self.layout = Layout(self.tasks, observation)
        self.num_envs = num_envs
        limits = _per_instance(max_steps, len(self.tasks), "max_steps")
        layout = self.layout
        B = num_envs
        self.buffers = _Buffers(
            words=np.zeros((B, max(t.core.num_words for t in self.tasks)), np.uint64),
            counters=np.zeros((B, max(t.core.num_counters for t in self.tasks)), np.int32),
            observation=np.zeros((B, layout.num_observations), np.uint8),
            action_mask=np.zeros((B, layout.num_actions), bool),
            reward=np.zeros(B, np.float64),
            terminated=np.zeros(B, bool),
            truncated=np.zeros(B, bool),
            invalid=np.zeros(B, bool),
            instance=np.zeros(B, np.int32),
            home=(
                np.arange(B, dtype=np.int32) % len(self.tasks)
                if instance_sampling == "fixed"
                else np.full(B, -1, np.int32)
            ),
            steps=np.zeros(B, np.int32),
        )
        instances = [
            (
                t.core,
                t.initial_words,
                t.initial_counters,
                layout.fact_columns(i),
                layout.column_groundings(i),
                np.array([t.object_index[r] for r in t.problem.players], np.int32),
                layout.goal_column(i),
                layout.turn_column() if t.problem.players else -1,
                limits[i],
            )
            for i, t in enumerate(self.tasks)
        ]
        self._core = _core.VectorEnv(
            instances,
            layout.num_observations,
            layout.num_actions,
            mode,
            float(goal_reward),
            invalid_action,
            threads,
            **vars(self.buffers),
        )
        self.views = _Buffers(**{k: _read_only(v) for k, v in vars(self.buffers).items()})
        self._seeded = False

    @property
    def num_threads(self) -> int:
        """Threads the engine uses (the calling thread included)."""
        threads: int = self._core.threads
        return threads

    def reset(self, seed: int | Sequence[int] | None = None) -> None:
        """Resets every environment; a seed (one, or one per environment) reseeds the streams.

        The streams choose instances with ``instance_sampling="random"`` and random actions in
        :meth:`step_random`. Unseeded, the first reset seeds them from fresh OS entropy.
        """
        if seed is None and not self._seeded:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        seeds = None if seed is None else _seed_streams(seed, self.num_envs)
        self._core.reset(seeds)
        self._seeded = True

    def step(self, actions: npt.ArrayLike) -> None:
        """One step per environment; ``actions`` holds one action column per environment."""
        array = np.asarray(actions)
        if array.dtype != np.int32:
            if array.dtype.kind not in "iu":
                raise ValueError(f"actions must be integers, got dtype {array.dtype}")
            array = array.astype(np.int32)
        if array.shape != (self.num_envs,):
            raise ValueError(f"actions should have shape ({self.num_envs},), got {array.shape}")
        self._core.step(np.ascontiguousarray(array))

    def step_random(self) -> None:
        """One step per environment with a uniformly random valid action (drawn in C++)."""
        self._core.step_random()


def _read_only(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    view = array.view()
    view.flags.writeable = False
    return view
