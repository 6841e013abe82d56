"""pytest-benchmark suite for the performance section of the issue.

Groups:

* ``python_api``: random rollout through ``Env.valid_actions`` + ``Env.step(index)`` +
  ``Env.observation`` (reset on termination);
* ``reference_interpreter``: the same policy through the pure-Python ``ReferenceEnv`` (slow, so
  fewer steps);
* ``kernel``: ``_core.random_rollout`` on one batch row, i.e. one core;
* ``compile``: async/9 from files to a compiled task / ready ``Env``.

Rates are in ``extra_info`` (``steps_per_s`` from the median round). Each benchmark also runs
once, quickly, under ``--benchmark-disable`` (CI smoke mode), checking its result. Thresholds
are not asserted here: the shared machines are too noisy; see ``run_report.py`` for the
side-by-side ratios.

Run from the repository root::

    python -m pytest benchmarks --benchmark-only -q -p no:cacheprovider
    python -m pytest benchmarks --benchmark-disable -q -p no:cacheprovider   # smoke
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest

import robotouille
from robotouille import _core
from robotouille.compile import CompiledTask
from robotouille.domain import Domain
from robotouille.problem import load_problem
from robotouille.testing.reference import ReferenceEnv
from workloads import (
    cold_load,
    kernel_buffers,
    kernel_rollout,
    problem_and_compile,
    python_api_rollout,
    reference_rollout,
)

T = TypeVar("T")

API_STEPS = 2_000
REFERENCE_STEPS = 40
KERNEL_STEPS = 100_000


def _run(benchmark: Any, fn: Callable[[], T], work: int, unit: str) -> T:
    """Benchmarks ``fn`` and records ``work / median seconds`` as ``<unit>_per_s``."""
    start = time.perf_counter()
    result = benchmark(fn)
    elapsed = time.perf_counter() - start
    stats = getattr(benchmark, "stats", None)
    # With --benchmark-disable there are no stats: the single call is timed instead.
    seconds = stats.stats.median if stats is not None else elapsed
    benchmark.extra_info[unit] = work
    benchmark.extra_info[f"{unit}_per_s"] = work / seconds if seconds > 0 else float("inf")
    return result


@pytest.fixture
def env(env_path: Path, domain_path: Path) -> robotouille.Env:
    return robotouille.load(env_path, domain_path)


@pytest.mark.benchmark(group="python_api")
def test_python_api_random_rollout(
    benchmark: Any, env: robotouille.Env, rng: random.Random, file_key: str
) -> None:
    benchmark.extra_info["file"] = file_key
    goals = _run(benchmark, lambda: python_api_rollout(env, API_STEPS, rng), API_STEPS, "steps")
    assert goals >= 0
    assert env.steps <= API_STEPS


@pytest.mark.benchmark(group="reference_interpreter")
def test_reference_interpreter_random_rollout(
    benchmark: Any, env_path: Path, domain: Domain, rng: random.Random, file_key: str
) -> None:
    benchmark.extra_info["file"] = file_key
    ref = ReferenceEnv(domain, load_problem(env_path, domain))
    goals = _run(
        benchmark, lambda: reference_rollout(ref, REFERENCE_STEPS, rng), REFERENCE_STEPS, "steps"
    )
    assert goals >= 0


def test_python_api_matches_reference_prefix(
    env: robotouille.Env, env_path: Path, domain: Domain, rng: random.Random
) -> None:
    """Not timed: the two engines compared agree on a short random prefix (sanity check).

    Skipped by ``--benchmark-only``; runs in smoke mode.
    """
    ref = ReferenceEnv(domain, load_problem(env_path, domain))
    ours = env.reset()[0]
    assert ours == ref.reset()
    for _ in range(10):
        valid = env.valid_actions()
        assert valid == ref.valid_actions()
        action = valid[rng.randrange(len(valid))]
        obs, _, terminated, _, _ = env.step(action)
        ref_obs, ref_goal, _ = ref.step(action)
        assert (obs, terminated) == (ref_obs, ref_goal)


@pytest.mark.benchmark(group="kernel")
@pytest.mark.parametrize("steps", [KERNEL_STEPS])
def test_kernel_random_rollout(
    benchmark: Any, env: robotouille.Env, rng: random.Random, file_key: str, steps: int
) -> None:
    benchmark.extra_info["file"] = file_key
    task = env.task
    goals = _run(
        benchmark, lambda: kernel_rollout(task, steps, rng.randrange(2**32)), steps, "steps"
    )
    assert goals >= 0
    # The kernel moves the state: after a few random steps it differs from the initial one.
    words, counters = kernel_buffers(task)
    _core.random_rollout(
        task.core, words, counters, 5, 1, task.initial_words, task.initial_counters
    )
    assert not np.array_equal(words[0], task.initial_words)


@pytest.mark.benchmark(group="compile")
def test_compile_async9_problem_and_compile(
    benchmark: Any, env_paths: dict[str, Path], domain: Domain
) -> None:
    """load_problem + compile_task of async/9 from an already-loaded domain."""
    task = _run(benchmark, lambda: problem_and_compile(domain, env_paths["async9"]), 1, "loads")
    assert isinstance(task, CompiledTask)
    assert task.num_groundings > 0


@pytest.mark.benchmark(group="compile")
def test_compile_async9_robotouille_load(
    benchmark: Any, env_paths: dict[str, Path], domain_path: Path
) -> None:
    """The whole ``robotouille.load`` of async/9 (the domain is cached after the first call)."""
    env = _run(benchmark, lambda: robotouille.load(env_paths["async9"], domain_path), 1, "loads")
    assert env.valid_actions()


@pytest.mark.benchmark(group="compile")
def test_compile_async9_cold_load(
    benchmark: Any, env_paths: dict[str, Path], domain_path: Path
) -> None:
    """Both files to a ready ``Env`` with nothing cached (domain parsed every time)."""
    env = _run(benchmark, lambda: cold_load(domain_path, env_paths["async9"]), 1, "loads")
    assert env.valid_actions()
