"""Shared test configuration: where the shared reference data lives."""

from __future__ import annotations

import os
from pathlib import Path

SHARED = Path(os.environ.get("ROBOTOUILLE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
