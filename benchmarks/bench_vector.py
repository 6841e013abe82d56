"""pytest-benchmark suite for the batched engine (``robotouille.make_vec``).

Group ``vector``: ``step_random`` calls (random valid actions drawn from the masks in C++, all
outputs written) on sync/9 and async/9 for several batch sizes and thread counts; the rate is
``steps_per_s`` in ``extra_info``. Group ``vector_overhead``: one ``venv.step(actions)`` call at
B = 1. Under ``--benchmark-disable`` each runs once as a smoke test. ``vector_report.py`` makes
the side-by-side table of benchmarks/README.md.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from workloads import step_call_seconds, vector_env, vector_rollout

CALLS = 20


@pytest.mark.benchmark(group="vector")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("num_envs", [64, 4096])
def test_vector_random_steps(
    benchmark: Any, env_path: Path, file_key: str, num_envs: int, threads: int
) -> None:
    venv = vector_env(env_path, num_envs, threads)
    benchmark.extra_info.update(file=file_key, num_envs=num_envs, threads=threads)
    start = time.perf_counter()
    steps = benchmark(lambda: vector_rollout(venv, CALLS))
    stats = getattr(benchmark, "stats", None)
    seconds = stats.stats.median if stats is not None else time.perf_counter() - start
    benchmark.extra_info["steps_per_s"] = steps / seconds
    obs, reward, terminated, truncated, info = venv.last()
    assert steps == CALLS * num_envs
    assert obs.shape[0] == num_envs and info["action_mask"].any(axis=1).all()
    assert not (terminated & truncated).any()
    assert (reward[~terminated] == 0).all()


@pytest.mark.benchmark(group="vector_overhead")
def test_vector_step_call_overhead(benchmark: Any, env_path: Path) -> None:
    venv = vector_env(env_path, 1, 1)
    wrapped, bare = benchmark(lambda: step_call_seconds(venv, 1000))
    assert wrapped > 0 and bare > 0
    assert np.all(venv.last()[4]["invalid_action"])
