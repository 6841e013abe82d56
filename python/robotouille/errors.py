"""Exceptions raised by the robotouille package.

Every error a user can provoke with bad input derives from :class:`RobotouilleError`, so
``except robotouille.RobotouilleError`` catches all of them, and each also derives from the
matching builtin (``ValueError``, ``RuntimeError``) so generic handlers keep working.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class RobotouilleError(Exception):
    """Base class of every error raised by robotouille."""


class SpecError(RobotouilleError, ValueError):
    """A domain or environment file is malformed.

    The message names the file, the JSON path inside it and the problem, e.g.
    ``domain.json: action_defs[5].precons[2].predicate: unknown predicate 'iscokable'``.

    Attributes:
        source: The file (or ``<dict>`` for in-memory JSON) that holds the problem.
        path: The JSON path of the offending value, e.g. ``goal[1].ids[0]``.
        problem: What is wrong with it.
    """

    def __init__(self, source: str, path: str, problem: str) -> None:
        self.source = source
        self.path = path
        self.problem = problem
        where = f"{source}: {path}" if path else source
        super().__init__(f"{where}: {problem}")


class GenerationError(RobotouilleError, RuntimeError):
    """Procedural generation gave no instance within its allowed attempts.

    The original retries with the next seed after every failed attempt, without limit;
    :func:`robotouille.generate.generate` stops after ``max_attempts``.

    Attributes:
        source: The environment file (or ``<environment dict>``).
        attempts: The failed attempts in order (:class:`robotouille.generate.Attempt`).
    """

    def __init__(self, source: str, message: str, attempts: Iterable[Any] = ()) -> None:
        self.source = source
        self.attempts = tuple(attempts)
        super().__init__(f"{source}: {message}")


class InvalidActionError(RobotouilleError, ValueError):
    """An action was given that is not valid in the current state (decision D8).

    The state is left unchanged.

    Attributes:
        action: The action as the caller gave it.
        reason: Why it is invalid, e.g. the first unmet precondition.
    """

    def __init__(self, action: object, reason: str) -> None:
        self.action = action
        self.reason = reason
        super().__init__(f"invalid action {action!r}: {reason}")


class CapacityError(RobotouilleError, RuntimeError):
    """A bounded resource fixed at compile time ran out (decision D7).

    Raised, for example, when an effect would create more objects than the compiled object
    pool holds. The state is left unchanged.
    """


class SearchLimitError(RobotouilleError, RuntimeError):
    """A plan search stopped at one of its limits before finding an optimal plan.

    Attributes:
        limit: Which limit stopped it: ``"max_states"``, ``"max_memory_bytes"``,
            ``"time_limit"``, ``"cancelled"``, or ``"max_depth"`` (a plan would need more than
            65,535 steps, the most a search keeps).
        stats: The search statistics at the moment it stopped (a ``SearchStats``).
    """

    def __init__(self, limit: str, stats: object, detail: str = "") -> None:
        """``detail``, where given, says more about the limit (after its name, in brackets)."""
        self.limit = limit
        self.stats = stats
        said = f" ({detail})" if detail else ""
        super().__init__(f"plan search stopped at its {limit} limit{said}: {stats}")


class UnsolvableError(RobotouilleError, ValueError):
    """No sequence of actions reaches the goal from the given state (proved by exhaustion).

    Attributes:
        stats: The search statistics (a ``SearchStats``).
    """

    def __init__(self, stats: object) -> None:
        self.stats = stats
        super().__init__(f"the goal cannot be reached from this state: {stats}")
