"""Workloads shared by the pytest-benchmark suite (``bench_env.py``) and ``run_report.py``.

Every workload is a plain function that does a fixed amount of work and returns what it did, so
the same code is timed by pytest-benchmark and by the side-by-side report.

The policy is the same everywhere: a uniformly random choice among the currently valid actions,
then the step, then the observation text (what an LLM agent loop reads every step); the episode
is reset when the goal is reached.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import numpy as np

import robotouille
import robotouille.rl
from robotouille import _core
from robotouille.compile import CompiledTask, compile_task
from robotouille.domain import Domain, load_domain
from robotouille.problem import load_problem
from robotouille.testing.reference import ReferenceEnv

ORIGINAL_SYNC9_STEPS_PER_S = 22.0
"""The original engine's random-rollout rate on sync/9 on these machines, as stated in the issue."""

KERNEL_TARGET_STEPS_PER_S = 1_000_000.0
"""Target raw kernel throughput on one core (issue, performance section)."""

COMPILE_TARGET_MS = 50.0
"""Target load + compile time of async/9 (issue, performance section)."""

API_TARGET_RATIO = 500.0
"""Target speed-up of the Python API over the original's random rollout."""

FILES: dict[str, str] = {
    "sync9": "synchronous/9_onion_cheese_burger_and_lettuce_tomato_chicken_sandwich.json",
    "async9": (
        "asynchronous/"
        "9_onion_potato_soup_and_fried_onion_ring_lettuce_burger_and_onion_cheese_sandwich.json"
    ),
}
"""The two environment files of the performance section, relative to the examples folder."""


def shared_dir() -> Path:
    """The read-only shared data folder (``$ROBOTOUILLE_SHARED`` or ``<repo>/../shared``)."""
    env = os.environ.get("ROBOTOUILLE_SHARED")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "shared"


def reference_root() -> Path:
    """The original Robotouille checkout inside the shared folder."""
    return shared_dir() / "reference" / "robotouille"


def domain_file() -> Path:
    """The original domain file."""
    return reference_root() / "domain" / "robotouille.json"


def env_file(key: str) -> Path:
    """The original environment file for ``key`` (``"sync9"`` or ``"async9"``)."""
    return reference_root() / "environments" / "env_generator" / "examples" / FILES[key]


def missing_data() -> str | None:
    """Why the benchmarks cannot run (a missing file), or ``None`` when everything is there."""
    for path in (domain_file(), *(env_file(k) for k in FILES)):
        if not path.is_file():
            return f"original Robotouille files not found: {path}"
    return None


# -- workloads ------------------------------------------------------------------------------


def python_api_rollout(env: robotouille.Env, steps: int, rng: random.Random) -> int:
    """Random rollout through the public API: valid actions, step by index, observation text.

    Returns:
        The number of episodes that reached the goal.
    """
    env.reset()
    goals = 0
    for _ in range(steps):
        valid = env.valid_actions()
        _, _, terminated, _, _ = env.step(rng.randrange(len(valid)))
        obs = env.observation()
        if terminated:
            goals += 1
            env.reset()
    assert obs
    return goals


def reference_rollout(env: ReferenceEnv, steps: int, rng: random.Random) -> int:
    """The same policy through the pure-Python reference interpreter (by action text).

    Returns:
        The number of episodes that reached the goal.
    """
    env.reset()
    goals = 0
    for _ in range(steps):
        valid = env.valid_actions()
        _, goal, _ = env.step(valid[rng.randrange(len(valid))])
        obs = env.observation()
        if goal:
            goals += 1
            env.reset()
    assert obs
    return goals


def kernel_buffers(task: CompiledTask, rows: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Fresh ``(rows, W)`` uint64 words and ``(rows, C)`` int32 counters at the initial state."""
    words = np.ascontiguousarray(np.tile(task.initial_words, (rows, 1)), dtype=np.uint64)
    counters = np.ascontiguousarray(np.tile(task.initial_counters, (rows, 1)), dtype=np.int32)
    return words, counters


def kernel_rollout(task: CompiledTask, steps: int, seed: int, rows: int = 1) -> int:
    """Raw C++ random rollout (valid mask + pick + apply + effect pass + goal test) per row.

    One row runs on the calling thread, i.e. one core.

    Returns:
        The number of episodes that reached the goal.
    """
    words, counters = kernel_buffers(task, rows)
    goals: int = _core.random_rollout(
        task.core, words, counters, steps, seed, task.initial_words, task.initial_counters
    )
    return goals


def problem_and_compile(domain: Domain, path: Path) -> CompiledTask:
    """Parses an environment file against an already-loaded domain and compiles it."""
    return compile_task(domain, load_problem(path, domain))


def cold_load(domain_path: Path, path: Path) -> robotouille.Env:
    """Everything from the two files to a ready :class:`robotouille.Env`, nothing cached."""
    domain = load_domain(domain_path)
    return robotouille.Env(compile_task(domain, load_problem(path, domain)))


# -- batched engine (robotouille.make_vec) ---------------------------------------------------

VECTOR_TARGET_STEPS_PER_S = 1_000_000.0
"""Target batched throughput on sync/9 at B = 4096 with 2 threads (issue, performance)."""

OVERHEAD_TARGET_US = 20.0
"""Target Python overhead per batched call, in microseconds."""


def vector_env(path: Path, num_envs: int, threads: int) -> robotouille.rl.RobotouilleVectorEnv:
    """A batched env over one original file, reset with a fixed seed.

    ``max_steps`` = 200 truncates episodes, as an RL setup would (a random policy almost never
    reaches the goal of the large files).
    """
    venv = robotouille.make_vec(
        path, num_envs, num_threads=threads, domain_file=domain_file(), max_steps=200
    )
    venv.reset(seed=0)
    return venv


def vector_rollout(venv: robotouille.rl.RobotouilleVectorEnv, calls: int) -> int:
    """``calls`` batched steps with random valid actions drawn from the masks in C++.

    Every call writes all outputs: observations, action masks, rewards, flags (autoreset
    included).

    Returns:
        The number of environment steps taken.
    """
    for _ in range(calls):
        venv.step_random()
    return calls * venv.num_envs


def step_call_seconds(venv: robotouille.rl.RobotouilleVectorEnv, calls: int) -> tuple[float, float]:
    """Seconds per ``venv.step(actions)`` call and per bare ``_core`` step call, same actions.

    The action -1 is never valid, so (with the default ``invalid_action="ignore"``) both calls
    do the least engine work; the difference is the Python wrapper's overhead per call.
    """
    actions = np.full(venv.num_envs, -1, np.int32)
    core = venv.batch._core
    start = time.perf_counter()
    for _ in range(calls):
        venv.step(actions)
    wrapped = (time.perf_counter() - start) / calls
    start = time.perf_counter()
    for _ in range(calls):
        core.step(actions)
    bare = (time.perf_counter() - start) / calls
    return wrapped, bare
