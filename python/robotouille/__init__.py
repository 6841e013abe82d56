"""Robotouille: a compiled, batched engine for the asynchronous-planning cooking benchmark."""

from __future__ import annotations

import sys

from . import datasets
from .env import Env, EnvState, load
from .errors import (
    CapacityError,
    GenerationError,
    InvalidActionError,
    RobotouilleError,
    SearchLimitError,
    SpecError,
    UnsolvableError,
)
from .generate import GeneratedEnvironment
from .planning import Plan, SearchStats, optimal_length, plan, plan_many

try:  # the reinforcement-learning interfaces need the optional gymnasium package
    import gymnasium as _gymnasium  # noqa: F401
except ImportError:  # pragma: no cover - exercised only without the [rl] extra
    _HAS_GYMNASIUM = False
else:
    _HAS_GYMNASIUM = True
    from .rl import make_vec, register_envs

    register_envs()

if sys.byteorder != "little":  # fact bits are read through little-endian numpy views
    raise ImportError("robotouille supports little-endian hosts only")

__version__ = "0.1.0"



def __getattr__(name: str) -> object:
    if name in ("make_vec", "register_envs") and not _HAS_GYMNASIUM:
        raise ImportError(
            f"robotouille.{name} needs gymnasium: pip install 'robotouille[rl]'"
        )
    raise AttributeError(f"module 'robotouille' has no attribute {name!r}")


__all__ = [
    "CapacityError",
    "Env",
    "EnvState",
    "GeneratedEnvironment",
    "GenerationError",
    "InvalidActionError",
    "Plan",
    "RobotouilleError",
    "SearchLimitError",
    "SearchStats",
    "SpecError",
    "UnsolvableError",
    "__version__",
    "datasets",
    "load",
    "make_vec",
    "optimal_length",
    "plan",
    "plan_many",
]
