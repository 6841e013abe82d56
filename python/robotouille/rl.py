"""Gymnasium interfaces: a text env, a discrete env, the batched vector env and registrations.

* :class:`TextEnv`: observation = the original's text, action = an action text; invalid actions
  give feedback in ``info["feedback"]`` and leave the state (and time) unchanged.
* :class:`DiscreteEnv`: observation = ``Box(0, 1, (D,), uint8)``, action = ``Discrete(A)``, with
  ``info["action_mask"]``; the encoding is described in :mod:`robotouille.vector`.
* :class:`RobotouilleVectorEnv` (made by :func:`make_vec`): B discrete environments stepped by
  the C++ core in worker threads, with Gymnasium's next-step autoreset: the step after an
  environment terminated or was truncated resets it, ignores its action, and returns reward 0
  and both flags false. Arrays are returned without copies (see ``copy``).

Importing :mod:`robotouille` registers ``Robotouille/<task>-v0`` (text) and
``Robotouille/<task>-discrete-v0`` for every bundled task, and ``Robotouille/Text-v0`` /
``Robotouille/Discrete-v0``, which take ``env=<file or task name>``. The discrete ids also work
with ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``.

Gymnasium is an optional dependency: ``pip install "robotouille[rl]"``.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any, Literal

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from . import _core
from .domains import list_bundled_environments
from .env import Mode, PathLike, load
from .vector import Batch, EnvSource, InvalidPolicy, ObservationKind, compile_family

# Characters of observations and action texts (printable ASCII, newlines included).
TEXT_CHARSET = string.printable
MAX_OBSERVATION_LENGTH = 1 << 20
MAX_ACTION_LENGTH = 1 << 10

StepResult = tuple[
    npt.NDArray[np.uint8],
    npt.NDArray[np.float64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.bool_],
    dict[str, Any],
]


class TextEnv(gymnasium.Env[str, str]):
    """One environment with the original's text observations and text actions.

    Args:
        env: Environment file, bundled task name or parsed JSON.
        domain_file: Domain file (default: the bundled domain).
        mode: Multi-robot mode (``centralized`` or ``turn_based``; use the PettingZoo
            environments for ``simultaneous``).
        max_steps: Truncation limit (``None``: none).
        render_mode: ``None`` or ``"ansi"`` (``render()`` returns the observation text).

    ``info`` holds ``valid_actions`` (texts, canonical order) and, after an invalid action,
    ``feedback``.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        env: PathLike | dict[str, Any],
        domain_file: PathLike | None = None,
        *,
        mode: Mode | None = None,
        max_steps: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        if mode == "simultaneous":
            raise ValueError("TextEnv takes one action per step; use robotouille.multiagent")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.env = load(env, domain_file, mode=mode, max_steps=max_steps, invalid_action="feedback")
        self.render_mode = render_mode
        self.observation_space = spaces.Text(
            MAX_OBSERVATION_LENGTH, min_length=0, charset=TEXT_CHARSET
        )
        self.action_space = spaces.Text(MAX_ACTION_LENGTH, min_length=0, charset=TEXT_CHARSET)
        self._over = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Restores the initial state.

        The environment is deterministic; ``seed`` seeds ``self.np_random`` only.
        """
        super().reset(seed=seed, options=options)
        self._over = False
        return self.env.reset()

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Performs the action text (see :meth:`robotouille.Env.step`)."""
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        obs, reward, terminated, truncated, info = self.env.step(str(action))
        self._over = terminated or truncated
        return obs, float(reward), terminated, truncated, info

    def render(self) -> str | None:
        """The observation text when ``render_mode="ansi"``."""
        return self.env.observation() if self.render_mode == "ansi" else None


class DiscreteEnv(gymnasium.Env[npt.NDArray[np.uint8], np.int64]):
    """One environment with vector observations, discrete actions and an action mask.

    Args:
        env: Environment file, bundled task name, parsed JSON, or a sequence of them: each reset
            then runs one of these instances (drawn with the reset seed).
        domain_file: Domain file (default: the bundled domain).
        mode: ``centralized`` (default) or ``turn_based``.
        max_steps: Truncation limit (``None``: none).
        observation: ``"layout"`` or ``"raw"`` (see :mod:`robotouille.vector`).
        goal_reward: Reward for reaching the goal.
        invalid_action: ``"ignore"`` (default; flagged in ``info["invalid_action"]``) or
            ``"raise"``.

    ``info`` holds ``action_mask`` (bool, ``(A,)``), ``instance`` and ``invalid_action``.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (Gymnasium's API)

    def __init__(
        self,
        env: EnvSource | Sequence[EnvSource],
        domain_file: PathLike | None = None,
        *,
        mode: str = "centralized",
        max_steps: int | None = None,
        observation: ObservationKind = "layout",
        goal_reward: float = 1.0,
        invalid_action: InvalidPolicy = "ignore",
    ) -> None:
        tasks = compile_family(env, domain_file=domain_file)
        self.batch = Batch(
            tasks,
            1,
            num_threads=1,
            mode=mode,
            max_steps=max_steps,
            observation=observation,
            instance_sampling="random" if len(tasks) > 1 else "fixed",
            goal_reward=goal_reward,
            invalid_action=invalid_action,
        )
        self.layout = self.batch.layout
        self.observation_space = spaces.Box(0, 1, (self.layout.num_observations,), np.uint8)
        self.action_space = spaces.Discrete(self.layout.num_actions)
        self._over = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.uint8], dict[str, Any]]:
        """Starts an episode; with several instances, the seed chooses which one."""
        super().reset(seed=seed, options=options)
        self.batch.reset(int(self.np_random.integers(0, 2**63)))
        self._over = False
        return self.batch.views.observation[0].copy(), self._info()

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[npt.NDArray[np.uint8], float, bool, bool, dict[str, Any]]:
        """Performs the action column ``action``."""
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        self.batch.step(np.array([action], np.int32))
        v = self.batch.views
        terminated, truncated = bool(v.terminated[0]), bool(v.truncated[0])
        self._over = terminated or truncated
        return v.observation[0].copy(), float(v.reward[0]), terminated, truncated, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The current action mask (the method name sb3-contrib's MaskablePPO looks for)."""
        return self.batch.views.action_mask[0].copy()

    def _info(self) -> dict[str, Any]:
        v = self.batch.views
        return {
            "action_mask": v.action_mask[0].copy(),
            "instance": int(v.instance[0]),
            "invalid_action": bool(v.invalid[0]),
        }


class RobotouilleVectorEnv(gymnasium.vector.VectorEnv[Any, Any, Any]):
    """B environments stepped together by the C++ core; create it with :func:`make_vec`.

    ``step`` and ``reset`` return read-only views of buffers that the next call overwrites
    (zero-copy); pass ``copy=True`` to :func:`make_vec` for fresh arrays. ``info`` holds
    ``action_mask`` ``(num_envs, A)`` bool, ``instance`` ``(num_envs,)`` (which instance each
    environment runs) and ``invalid_action`` ``(num_envs,)`` bool.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (Gymnasium's API)
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(self, batch: Batch, *, copy: bool = False) -> None:
        self.batch = batch
        self.layout = batch.layout
        self.num_envs = batch.num_envs
        self.copy = copy
        self.single_observation_space = spaces.Box(
            0, 1, (self.layout.num_observations,), np.uint8
        )
        self.single_action_space = spaces.Discrete(self.layout.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    @property
    def num_threads(self) -> int:
        """Worker threads of the engine (the calling thread included)."""
        return self.batch.num_threads

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.uint8], dict[str, Any]]:
        """Resets every environment.

        Args:
            seed: One seed (each environment gets its own stream derived from it) or one seed
                per environment; ``None`` keeps the streams.
            options: Not supported (must be ``None`` or empty).
        """
        if options:
            raise ValueError(f"unsupported reset options: {sorted(options)}")
        if isinstance(seed, int):
            super().reset(seed=seed)
        self.batch.reset(seed)
        obs, *_, info = self._result(self.copy)
        return obs, info

    def step(self, actions: npt.ArrayLike) -> StepResult:
        """One step per environment (``actions``: ``(num_envs,)`` action columns)."""
        self.batch.step(actions)
        return self._result(self.copy)

    def step_random(self) -> None:
        """One step per environment with a uniformly random valid action chosen in C++.

        Results are read from :meth:`last` (for benchmarks and random-policy data collection).
        """
        self.batch.step_random()

    def last(self) -> StepResult:
        """The arrays of the latest step or reset (views, never copies)."""
        return self._result(False)

    def raw_state(
        self,
    ) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.int32], npt.NDArray[np.int32]]:
        """``(words, counters, instance)``: each environment's raw engine state (read-only).

        ``words[b]`` holds the fact bits of instance ``instance[b]`` (fact ``f`` is bit
        ``f % 64`` of word ``f // 64``), ``counters[b]`` its timers and turn (see
        ``cpp/include/robotouille/task.h``); rows are zero-padded to the widest instance.
        """
        v = self.batch.views
        return v.words, v.counters, v.instance

    def action_texts(self, env_index: int) -> list[str]:
        """The valid actions of one environment as text, in action-column order."""
        v = self.batch.views
        task = self.batch.tasks[int(v.instance[env_index])]
        groundings = self.layout.column_groundings(int(v.instance[env_index]))
        return [
            _core.action_text(task.core, int(groundings[a]))
            for a in np.flatnonzero(v.action_mask[env_index])
        ]

    def _result(self, copy: bool) -> StepResult:
        """(observation, reward, terminated, truncated, info): views, or copies if ``copy``."""
        v = self.batch.views
        arrays = (v.observation, v.reward, v.terminated, v.truncated)
        info = {"action_mask": v.action_mask, "instance": v.instance, "invalid_action": v.invalid}
        if copy:
            arrays = tuple(a.copy() for a in arrays)
            info = {k: a.copy() for k, a in info.items()}
        return (*arrays, info)


def make_vec(
    env_file_or_task: EnvSource | Sequence[EnvSource],
    num_envs: int,
    *,
    num_threads: int | None = None,
    domain_file: PathLike | None = None,
    mode: Literal["centralized", "turn_based"] = "centralized",
    max_steps: int | Sequence[int | None] | None = None,
    observation: ObservationKind = "layout",
    instance_sampling: Literal["fixed", "random"] = "fixed",
    goal_reward: float = 1.0,
    invalid_action: InvalidPolicy = "ignore",
    pool_size: int | None = None,
    copy: bool = False,
) -> RobotouilleVectorEnv:
    """Creates a batched Gymnasium vector environment.

    Args:
        env_file_or_task: An environment file, bundled task name, parsed JSON dict, :class:`Env`
            or compiled task, or a sequence of them (instances of one or several tasks, of any
            sizes).
        num_envs: The number of environments B (up to tens of thousands).
        num_threads: Worker threads (default: the CPU count); results do not depend on it.
        domain_file: The domain (default: the bundled one).
        mode: ``centralized`` (default) or ``turn_based``.
        max_steps: Truncation limit, one for all instances or one per instance (``None``: no
            limit).
        observation: ``"layout"`` (named fact columns, the union over instances) or ``"raw"``.
        instance_sampling: ``"fixed"`` (environment b runs instance ``b % n``) or ``"random"``
            (each reset draws one from the environment's seeded stream).
        goal_reward: Reward when the goal is reached.
        invalid_action: ``"ignore"`` (state unchanged, counts as a step, flagged in
            ``info["invalid_action"]``) or ``"raise"`` (``ValueError``, nothing stepped).
        pool_size: Created-object pool per creation group (decision D7).
        copy: Return fresh arrays instead of read-only views of the engine's buffers.

    Returns:
        A :class:`RobotouilleVectorEnv`; call ``reset(seed=...)`` first.
    """
    tasks = compile_family(env_file_or_task, domain_file=domain_file, pool_size=pool_size)
    batch = Batch(
        tasks,
        num_envs,
        num_threads=num_threads,
        mode=mode,
        max_steps=max_steps,
        observation=observation,
        instance_sampling=instance_sampling,
        goal_reward=goal_reward,
        invalid_action=invalid_action,
    )
    return RobotouilleVectorEnv(batch, copy=copy)


def _vector_entry_point(num_envs: int, env: Any, **kwargs: Any) -> RobotouilleVectorEnv:
    """``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` hook."""
    kwargs.pop("render_mode", None)
    return make_vec(env, num_envs, **kwargs)


def register_envs() -> None:
    """Registers the Gymnasium ids (idempotent; done when :mod:`robotouille` is imported)."""
    registry = gymnasium.envs.registry
    ids: list[tuple[str, str, dict[str, Any]]] = [
        ("Robotouille/Text-v0", "TextEnv", {}),
        ("Robotouille/Discrete-v0", "DiscreteEnv", {}),
    ]
    for task in list_bundled_environments():
        # Gymnasium names cannot hold a slash: synchronous/0_cheese_sandwich becomes
        # Robotouille/synchronous-0_cheese_sandwich-v0.
        name = task.replace("/", "-")
        ids.append((f"Robotouille/{name}-v0", "TextEnv", {"env": task}))
        ids.append((f"Robotouille/{name}-discrete-v0", "DiscreteEnv", {"env": task}))
    for env_id, cls, kwargs in ids:
        if env_id in registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point=f"robotouille.rl:{cls}",
            vector_entry_point=(
                "robotouille.rl:_vector_entry_point" if cls == "DiscreteEnv" else None
            ),
            kwargs=kwargs,
        )


__all__ = ["DiscreteEnv", "RobotouilleVectorEnv", "TextEnv", "make_vec", "register_envs"]
