"""The examples run, and the PPO example's policy improves (deterministic for its seed)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is created
    spec.loader.exec_module(module)
    return module


def test_masked_softmax_ignores_invalid_actions() -> None:
    ppo = _load("ppo_numpy")
    probs = ppo.masked_softmax(np.array([[5.0, 1.0, 1.0]]), np.array([[False, True, True]]))
    np.testing.assert_allclose(probs, [[0.0, 0.5, 0.5]])


def test_ppo_example_learns_the_small_task() -> None:
    ppo = _load("ppo_numpy")
    history = ppo.train(iterations=6, num_envs=256, seed=0, verbose=False)
    # Iteration 1 ends few episodes (the horizon is shorter than the step limit); compare the
    # second iteration, still near the uniform policy, with the last.
    first, last = history[1], history[-1]
    assert first.episodes > 50 and last.episodes > first.episodes
    assert last.success_rate > max(0.5, 3 * first.success_rate)
    assert math.isnan(first.mean_success_length) or (
        last.mean_success_length < first.mean_success_length
    )
