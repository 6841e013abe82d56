"""The single-environment Python API: :func:`load` and :class:`Env`.

An :class:`Env` holds one state of a compiled task in numpy buffers that the C++ core steps in
place. Observations are the original's text, byte for byte for single-robot files (reference
§6); actions are given as that text or as an index into the current valid-action list.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from . import _core
from .compile import CompiledTask, compile_task
from .domain import Domain, load_domain
from .domains import bundled_environment_path, default_domain_path, list_bundled_environments
from .errors import CapacityError, InvalidActionError
from .problem import load_problem

Mode = Literal["centralized", "turn_based", "simultaneous"]
MODES: tuple[str, ...] = ("centralized", "turn_based", "simultaneous")
Action = str | int | tuple[str, tuple[str, ...]]
PathLike = str | os.PathLike[str]

_domain_cache: dict[str, Domain] = {}


@dataclass(frozen=True)
class EnvState:
    """An immutable snapshot of an environment (see :meth:`Env.get_state`).

    Attributes:
        words: ``(W,)`` uint64 fact bits.
        counters: ``(C,)`` int32 special-effect counters and current player.
        steps: Steps taken since the last reset.
        done: Whether the goal was reached by the last step.
    """

    words: npt.NDArray[np.uint64]
    counters: npt.NDArray[np.int32]
    steps: int
    done: bool


class Env:
    """One Robotouille environment backed by the compiled core.

    Create it with :func:`load`. The API follows Gymnasium's conventions: :meth:`reset` returns
    ``(observation, info)`` and :meth:`step` returns ``(observation, reward, terminated,
    truncated, info)``; ``info["valid_actions"]`` lists the valid action texts in canonical order.

    Modes (decision D3): ``centralized`` (one action per step for any robot, as the original),
    ``turn_based`` (only the current robot's actions are valid; turns rotate after every step),
    ``simultaneous`` (``step`` takes one action per robot, applied in robot order).
    """

    def __init__(
        self,
        task: CompiledTask,
        *,
        mode: Mode | None = None,
        max_steps: int | None = None,
        goal_reward: float = 1.0,
        invalid_action: Literal["raise", "feedback"] = "raise",
    ) -> None:
        mode = mode or "centralized"
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if invalid_action not in ("raise", "feedback"):
            raise ValueError("invalid_action must be 'raise' or 'feedback'")
        if max_steps is not None and (
            isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1
        ):
            raise ValueError(f"max_steps must be a positive integer, got {max_steps!r}")
        self.task = task
        self.mode: Mode = mode
        self.max_steps = max_steps
        self.goal_reward = goal_reward
        self.invalid_action = invalid_action
        self.robots: tuple[str, ...] = task.problem.players
        self._robot_objects = [task.object_index[r] for r in self.robots]
        core = task.core
        self._words = np.zeros((1, core.num_words), np.uint64)
        self._counters = np.zeros((1, core.num_counters), np.int32)
        self._status = np.zeros(1, np.int32)
        self._texts: dict[int, str] = {}
        self._all_texts: dict[str, list[int]] | None = None
        self._fact_names: list[str] | None = None
        self.reset()

    # -- Gymnasium-style API ----------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Restores the initial state.

        Args:
            seed: Accepted for Gymnasium compatibility; the environment is deterministic.
            options: Unused.

        Returns:
            The initial observation and ``info`` with ``valid_actions``.
        """
        del seed, options
        self._words[0] = self.task.initial_words
        self._counters[0] = self.task.initial_counters
        self._steps = 0
        self._done = False
        self._refresh()
        return self._obs, self._info()

    def step(
        self, action: Action | list[Action | None]
    ) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Performs one step.

        Args:
            action: The action text (exactly as listed, surrounding whitespace ignored), an
                index into ``info["valid_actions"]``, or ``(action name, arguments)`` with the
                arguments in the action's canonical parameter order. In ``simultaneous`` mode,
                a list with one entry per robot in robot order (``None`` for no action); an
                entry that an earlier robot's action made invalid is skipped and listed in
                ``info["skipped"]``. In ``centralized`` mode a list is the original's
                multi-action step: the actions run in order, each must be valid when its turn
                comes, then time advances once.

        Returns:
            ``(observation, reward, terminated, truncated, info)``. ``terminated`` is true when
            the goal is reached; ``truncated`` when ``max_steps`` steps have been taken.

        Raises:
            InvalidActionError: The action is not valid (state unchanged). With
                ``invalid_action="feedback"`` the state is returned unchanged instead, time
                does not advance, and ``info["feedback"]`` says what was wrong.
            CapacityError: The step would create more objects than the compiled pool holds.
        """
        words = self._words.copy()
        counters = self._counters.copy()
        try:
            groundings = self._resolve(action)
            actions = np.array([groundings], np.int32)
            applied = np.zeros_like(actions, dtype=np.uint8)
            _core.step(self.task.core, words, counters, actions, applied, self._status)
            skipped = self._check_applied(action, groundings, applied[0])
        except InvalidActionError as exc:
            if self.invalid_action == "raise":
                raise
            info = self._info()
            info["feedback"] = f"The action {exc.action!r} is not valid: {exc.reason}"
            return self._obs, 0.0, False, False, info
        status = int(self._status[0])
        if status & _core.STATUS_POOL_EXHAUSTED:
            raise CapacityError(
                f"the step would create more objects than the pool of {self.task.pool_size} "
                "per creation group holds; load the environment with a larger pool_size"
            )
        self._words, self._counters = words, counters
        self._steps += 1
        self._done = bool(status & _core.STATUS_GOAL)
        self._refresh()
        info = self._info()
        if self.mode == "simultaneous":
            info["skipped"] = skipped
        reward = self.goal_reward if self._done else 0.0
        truncated = not self._done and self.max_steps is not None and self._steps >= self.max_steps
        return self._obs, reward, self._done, truncated, info

    # -- queries ----------------------------------------------------------------------------

    def observation(self) -> str:
        """The observation text of the current state."""
        return self._obs

    def valid_actions(self, robot: str | None = None) -> list[str]:
        """Valid action texts in canonical order (decision D4).

        Args:
            robot: Only this robot's actions (plus actions that belong to no robot, such as
                ``Do nothing``). ``None`` gives every robot's actions, except in
                ``turn_based`` mode where it gives the current robot's.
        """
        return [self._text(g) for g in self._valid_for(robot)]

    def true_predicates(self) -> list[str]:
        """The true predicates, e.g. ``item_at(bread1,table1)``, in predicate-table order."""
        names = self._names()
        bits = np.unpackbits(self._words[0].view(np.uint8), bitorder="little")
        facts = np.flatnonzero(bits[: self.task.num_pred_facts])
        order = self._object_order()
        if order != sorted(order):
            # Created objects are appended to the object list: table order follows that.
            position = {o: i for i, o in enumerate(order)}
            pred_of = self.task.fact_pred[facts]
            keyed = sorted(
                zip(facts.tolist(), pred_of.tolist()),
                key=lambda fp: (
                    fp[1],
                    [position.get(int(a), -1) for a in self.task.fact_args[fp[0]]],
                ),
            )
            facts = np.array([f for f, _ in keyed], dtype=np.int64)
        return [names[int(f)] for f in facts]

    def goal_reached(self) -> bool:
        """Whether the goal holds in the current state."""
        out = np.zeros(1, bool)
        _core.goal_reached(self.task.core, self._words, out)
        return bool(out[0])

    def objects(self) -> list[tuple[str, str]]:
        """Existing objects as ``(name, type)`` in object order (created objects last)."""
        objects = self.task.objects
        return [(objects[o].name, objects[o].type) for o in self._object_order()]

    @property
    def current_robot(self) -> str:
        """The robot whose turn it is (it rotates after every step that does not finish)."""
        return self.robots[int(self._counters[0, 0])] if self.robots else ""

    @property
    def steps(self) -> int:
        """Steps taken since the last reset."""
        return self._steps

    def get_state(self) -> EnvState:
        """A snapshot of the current state; cheap (two small array copies)."""
        return EnvState(self._words[0].copy(), self._counters[0].copy(), self._steps, self._done)

    def set_state(self, state: EnvState) -> None:
        """Restores a snapshot taken with :meth:`get_state` on an env of the same task."""
        if state.words.shape != self._words[0].shape or state.counters.shape != (
            self._counters[0].shape
        ):
            raise ValueError("the state does not belong to this task")
        self._words[0] = state.words
        self._counters[0] = state.counters
        self._steps = state.steps
        self._done = state.done
        self._refresh()

    # -- internals --------------------------------------------------------------------------

    def _object_order(self) -> list[int]:
        order: list[int] = _core.object_order(self.task.core, self._words[0], self._counters[0])
        return order

    def _refresh(self) -> None:
        self._valid = self._valid_for(None)
        self._obs = _core.observation(
            self.task.core, self._words[0], self._counters[0], self._valid
        )

    def _info(self) -> dict[str, Any]:
        return {"valid_actions": [self._text(g) for g in self._valid], "steps": self._steps}

    def _valid_for(self, robot: str | None) -> list[int]:
        player = -1
        if robot is not None:
            if robot not in self.robots:
                raise ValueError(f"unknown robot {robot!r}; robots: {list(self.robots)}")
            player = self.task.object_index[robot]
        elif self.mode == "turn_based" and self.robots:
            player = self._robot_objects[int(self._counters[0, 0])]
        groundings: list[int] = _core.valid_groundings(
            self.task.core, self._words[0], self._counters[0], player
        )
        return groundings

    def _text(self, g: int) -> str:
        text = self._texts.get(g)
        if text is None:
            text = _core.action_text(self.task.core, g)
            self._texts[g] = text
        return text

    def _resolve(self, action: Action | list[Action | None]) -> list[int]:
        """Grounding ids for the action(s); raises only when an action names no grounding."""
        if isinstance(action, list):
            if self.mode == "turn_based":
                raise InvalidActionError(action, "turn_based mode takes a single action")
            if self.mode == "simultaneous" and len(action) != len(self.robots):
                raise InvalidActionError(
                    action,
                    f"simultaneous mode takes {len(self.robots)} actions, one per robot "
                    "in robot order (None for no action)",
                )
            robots: list[str | None] = (
                list(self.robots) if self.mode == "simultaneous" else [None] * len(action)
            )
            return [-1 if a is None else self._resolve_one(a, r) for a, r in zip(action, robots)]
        if self.mode == "simultaneous":
            raise InvalidActionError(action, "simultaneous mode takes a list of actions")
        who = self.current_robot if self.mode == "turn_based" and self.robots else None
        return [self._resolve_one(action, who)]

    def _resolve_one(self, action: Action, robot: str | None) -> int:
        """The grounding an action names (valid or not), preferring a currently valid one."""
        valid = self._valid if robot is None else self._valid_for(robot)
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
            if 0 <= int(action) < len(valid):
                return valid[int(action)]
            raise InvalidActionError(
                action, f"index out of range: there are {len(valid)} valid actions"
            )
        if isinstance(action, tuple) and len(action) == 2:
            name, args = action
            if (
                not isinstance(name, str)
                or not isinstance(args, (list, tuple))
                or not all(isinstance(a, str) for a in args)
            ):
                raise InvalidActionError(
                    action, "a structured action is (action name, sequence of object names)"
                )
            g = self.task.grounding_id(name, tuple(args))
            if g is None:
                reason = self.task.explain(str(action[0]), tuple(action[1]), self._words[0])
                raise InvalidActionError(action, reason)
        elif isinstance(action, str):
            text = action.strip()
            g = next((v for v in valid if self._text(v) == text), None)
            if g is None:
                candidates = self._text_index().get(text)
                if not candidates:
                    raise InvalidActionError(
                        action, "no action has this text; see info['valid_actions']"
                    )
                g = candidates[0]
        else:
            raise InvalidActionError(
                action,
                "an action is its text, an index into the valid actions, or a tuple "
                "(action name, arguments)",
            )
        owner = int(self.task.owner[g])
        if robot is not None and owner >= 0 and self.task.objects[owner].name != robot:
            raise InvalidActionError(
                action, f"it is an action of {self.task.objects[owner].name}, not of {robot}"
            )
        return g

    def _text_index(self) -> dict[str, list[int]]:
        if self._all_texts is None:
            index: dict[str, list[int]] = {}
            for g in range(self.task.num_groundings):
                index.setdefault(self._text(g), []).append(g)
            self._all_texts = index
        return self._all_texts

    def _check_applied(
        self, action: Action | list[Action | None], groundings: list[int], applied: Any
    ) -> list[str]:
        """Rejects entries the kernel did not apply (simultaneous: not valid at the start).

        Returns:
            The texts of simultaneous entries that an earlier robot's action made invalid.
        """
        skipped = []
        for g, ok in zip(groundings, applied):
            if g < 0 or (ok and self.mode != "simultaneous"):
                continue
            # Simultaneous robots choose from the same state: an entry must be valid at the
            # start of the step, even if an earlier robot's action made it valid meanwhile.
            reason = self.task.unmet_precondition(g, self._words[0])
            if self.mode != "simultaneous" or reason is not None:
                raise InvalidActionError(
                    action,
                    reason or "it is no longer valid after the preceding actions of this step",
                )
            if not ok:
                skipped.append(self._text(g))
        return skipped

    def _names(self) -> list[str]:
        if self._fact_names is None:
            self._fact_names = [self.task.fact_name(f) for f in range(self.task.num_pred_facts)]
        return self._fact_names


def load(
    env_file: PathLike | dict[str, Any],
    domain_file: PathLike | dict[str, Any] | None = None,
    *,
    mode: Mode | None = None,
    max_steps: int | None = None,
    pool_size: int | None = None,
    invalid_action: Literal["raise", "feedback"] = "raise",
) -> Env:
    """Loads an environment file and compiles it.

    Args:
        env_file: An environment JSON file (or its parsed dict), or the name of a bundled task
            (see :func:`robotouille.domains.list_bundled_environments`).
        domain_file: A domain JSON file (or parsed dict); defaults to the bundled domain.
        mode: ``centralized`` (default), ``turn_based`` or ``simultaneous`` (decision D3).
        max_steps: Step limit after which ``truncated`` is reported; ``None`` for no limit.
        pool_size: Objects each creation group may create (decision D7); default 4.
        invalid_action: ``"raise"`` (default) raises :class:`InvalidActionError`;
            ``"feedback"`` returns the unchanged state with ``info["feedback"]``.

    Returns:
        A ready :class:`Env` in its initial state.

    Raises:
        SpecError: A file is malformed; the message names the file, JSON path and problem.
    """
    if domain_file is None:
        domain_file = default_domain_path()
    if isinstance(domain_file, dict):
        domain = load_domain(domain_file)
    else:
        key = os.fspath(domain_file)
        mtime = os.stat(key).st_mtime_ns if os.path.exists(key) else 0
        cache_key = f"{key}@{mtime}"
        domain = _domain_cache.get(cache_key) or load_domain(domain_file)
        _domain_cache[cache_key] = domain
    if (
        isinstance(env_file, str)
        and not os.path.exists(env_file)
        and (env_file in list_bundled_environments() or not env_file.endswith(".json"))
    ):
        env_file = bundled_environment_path(env_file)  # lists the bundled tasks if unknown
    problem = load_problem(env_file, domain)
    return Env(
        compile_task(domain, problem, pool_size=pool_size),
        mode=mode,
        max_steps=max_steps,
        invalid_action=invalid_action,
    )
