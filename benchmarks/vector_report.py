"""Side-by-side report for the batched engine (issue: vectorized rollouts); prints Markdown.

For sync/9 and async/9 (original files), B in 1, 64, 1024, 4096 and 1 or 2 threads, measures
environment steps per second of ``RobotouilleVectorEnv.step_random`` (random valid actions drawn
from the masks in C++; every call writes observations, masks, rewards and flags, with
autoreset), in interleaved rounds, and the Python overhead per batched call at B = 1. Prints
medians over rounds and ratios taken within each round. The original engine cannot run here;
its ~22 steps/s on sync/9 is the figure stated in the issue.

Usage (from the repository root)::

    python benchmarks/vector_report.py [--rounds 5] [--steps 400000]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import time

import numpy as np

from workloads import (
    FILES,
    ORIGINAL_SYNC9_STEPS_PER_S,
    OVERHEAD_TARGET_US,
    VECTOR_TARGET_STEPS_PER_S,
    env_file,
    missing_data,
    step_call_seconds,
    vector_env,
    vector_rollout,
)

BATCH_SIZES = (1, 64, 1024, 4096)
THREADS = (1, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=400_000, help="env steps per measurement")
    args = parser.parse_args()
    reason = missing_data()
    if reason:
        raise SystemExit(reason)
    envs = {
        (key, b, t): vector_env(env_file(key), b, t)
        for key in FILES
        for b in BATCH_SIZES
        for t in THREADS
    }
    rates: dict[tuple[str, int, int], list[float]] = {k: [] for k in envs}
    speedups: dict[tuple[str, int], list[float]] = {(k, b): [] for k in FILES for b in BATCH_SIZES}
    overhead: dict[str, list[tuple[float, float]]] = {k: [] for k in FILES}
    for r in range(args.rounds):
        for key in FILES if r % 2 == 0 else reversed(FILES):
            for b in BATCH_SIZES:
                for t in THREADS:
                    venv = envs[(key, b, t)]
                    calls = max(20, args.steps // b)
                    vector_rollout(venv, max(2, calls // 20))  # warm-up
                    start = time.perf_counter()
                    steps = vector_rollout(venv, calls)
                    rates[(key, b, t)].append(steps / (time.perf_counter() - start))
                speedups[(key, b)].append(rates[(key, b, 2)][-1] / rates[(key, b, 1)][-1])
            overhead[key].append(step_call_seconds(envs[(key, 1, 1)], 20_000))

    def med(xs: list[float]) -> float:
        return statistics.median(xs)

    rev = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    print(f"Revision `{rev}`, {args.rounds} rounds, {args.steps:,} env steps per measurement.")
    print(f"Python {platform.python_version()}, numpy {np.__version__}, nproc {os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.1f} at the end.\n")
    print("| file | B | 1 thread (steps/s) | 2 threads (steps/s) | 2 vs 1 thread | "
          "2 threads vs original (÷ 22) |")
    print("|---|---:|---:|---:|---:|---:|")
    for key in FILES:
        for b in BATCH_SIZES:
            one, two = med(rates[(key, b, 1)]), med(rates[(key, b, 2)])
            ratio = two / ORIGINAL_SYNC9_STEPS_PER_S
            print(f"| {key} | {b:,} | {one:,.0f} | {two:,.0f} | "
                  f"{med(speedups[(key, b)]):.2f}x | {ratio:,.0f}x |")
    print("\nSpread (min - max over rounds), 2 threads, B = 4096: " + "; ".join(
        f"{k} {min(rates[(k, 4096, 2)]):,.0f} - {max(rates[(k, 4096, 2)]):,.0f}" for k in FILES))
    print("\n| file | `venv.step` per call at B = 1 (us) | bare `_core` call (us) | "
          "wrapper overhead (us) | target (us) | met |")
    print("|---|---:|---:|---:|---:|---|")
    for key in FILES:
        wrapped = med([w for w, _ in overhead[key]]) * 1e6
        bare = med([b for _, b in overhead[key]]) * 1e6
        print(f"| {key} | {wrapped:.2f} | {bare:.2f} | {wrapped - bare:.2f} | "
              f"{OVERHEAD_TARGET_US:.0f} | {'yes' if wrapped < OVERHEAD_TARGET_US else 'no'} |")
    goal = med(rates[("sync9", 4096, 2)])
    met = "met" if goal >= VECTOR_TARGET_STEPS_PER_S else "NOT met"
    print(f"\nsync/9, B = 4096, 2 threads: {goal:,.0f} steps/s vs target "
          f"{VECTOR_TARGET_STEPS_PER_S:,.0f}: {met} "
          f"({goal / ORIGINAL_SYNC9_STEPS_PER_S:,.0f}x the original's ~22 steps/s).")


if __name__ == "__main__":
    main()
