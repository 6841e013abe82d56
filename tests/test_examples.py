"""The examples run, and the PPO example's policy improves (deterministic for its seed)."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import robotouille
from robotouille import datasets

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


def test_fresh_dataset_example_writes_optima_and_stand_in_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = _load("fresh_dataset")
    out = tmp_path / "fresh.json"
    args = ["synchronous", "--seeds", "7,8", "--tasks", "0", "--threads", "1"]
    fresh.main([*args, "--out", str(out)])
    records = json.loads(out.read_text())
    instances = datasets.load("synchronous", seeds=[7, 8], tasks=["0"])
    assert [r["key"] for r in records] == [i.key for i in instances]
    for record, inst in zip(records, instances):
        optimum = robotouille.optimal_length(inst.load())
        assert record["optimal_length"] == record["lower_bound"] == record["upper_bound"] == optimum
        assert record["step_limit"] == datasets.step_limit(optimum)
        assert not record["step_limit_is_stand_in"]
    # An instance the search left unsolved gets a witness's bracket and a stand-in limit.
    load = datasets.load

    def unsolved(*args: Any, **kwargs: Any) -> list[datasets.Instance]:
        return [
            replace(i, optimal_length=None, step_limit=None, lower_bound=5, upper_bound=None)
            for i in load(*args, **{**kwargs, "solve": False})
        ]

    monkeypatch.setattr(fresh.datasets, "load", unsolved)
    (record,) = fresh.build("synchronous", [7], tasks=["0"], threads=1)
    assert record["optimal_length"] is None and record["lower_bound"] == 5
    assert record["upper_bound"] >= robotouille.optimal_length(instances[0].load())
    assert record["step_limit"] == datasets.step_limit(record["upper_bound"])
    assert record["step_limit_is_stand_in"]
