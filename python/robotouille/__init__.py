"""Robotouille: a compiled, batched engine for the asynchronous-planning cooking benchmark."""

from __future__ import annotations

import sys

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

if sys.byteorder != "little":  # fact bits are read through little-endian numpy views
    raise ImportError("robotouille supports little-endian hosts only")

__version__ = "0.1.0"

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
    "load",
    "optimal_length",
    "plan",
    "plan_many",
]
