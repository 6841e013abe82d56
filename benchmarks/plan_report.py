"""Optimal-planning report (issue 3): every original synchronous and asynchronous file.

Solves each unrandomized file with A* (``robotouille.plan_many``, one search per thread, each
with a time limit; or, with ``--search-threads N``, one file at a time with ``robotouille.plan``
on N threads) and prints a Markdown table: status, optimal length, expansions, stored
states, packed bytes per state, bytes per stored state of all the search's tables (rows,
per-state records, visited set, open list; "-" below 100,000 stored states, where the tables'
fixed sizes dominate), seconds and expansions per second; then the totals.

Usage (from the repository root)::

    python benchmarks/plan_report.py [--threads 2 | --search-threads 2] [--time-limit 10]
        [--heuristic projections] [--no-symmetry] [--datasets synchronous,asynchronous]
        [--mode centralized | turn_based | simultaneous]

``--heuristic lmcut --no-symmetry`` is the planner as it was before the projection bound and
symmetry reduction (the baseline of the side-by-side table in benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import robotouille
from robotouille import SearchLimitError
from robotouille.planning import _HEURISTICS
from workloads import domain_file, reference_root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2, help="searches at once")
    parser.add_argument(
        "--search-threads", type=int, default=None, help="one search at a time, on N threads"
    )
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--heuristic", choices=_HEURISTICS, default="projections")
    parser.add_argument("--datasets", default="synchronous,asynchronous")
    parser.add_argument("--no-symmetry", action="store_true", help="store every state as is")
    parser.add_argument(
        "--mode", choices=robotouille.env.MODES, default="centralized", help="multi-robot mode"
    )
    args = parser.parse_args()
    examples = reference_root() / "environments" / "env_generator" / "examples"
    files = [
        path
        for dataset in args.datasets.split(",")
        for path in sorted((examples / dataset).glob("*.json"), key=lambda p: p.name)
    ]
    envs = [robotouille.load(path, domain_file(), mode=args.mode) for path in files]
    limits: dict[str, Any] = {
        "heuristic": args.heuristic,
        "symmetry": not args.no_symmetry,
        "time_limit": args.time_limit,
        "progress": False,
    }
    start = time.perf_counter()
    if args.search_threads:
        results: list[Any] = []
        for env in envs:
            try:
                results.append(robotouille.plan(env, threads=args.search_threads, **limits))
            except SearchLimitError as stopped:
                results.append(stopped)
        threads = f"one file at a time on {args.search_threads} threads"
    else:
        results = robotouille.plan_many(
            envs, threads=args.threads, return_exceptions=True, **limits
        )
        threads = f"{args.threads} threads"
    wall = time.perf_counter() - start
    symmetry = "off" if args.no_symmetry else "on"
    print(
        f"A* ({args.heuristic}, symmetry {symmetry}, {args.mode} mode), {threads}, "
        f"{args.time_limit:g} s per file\n"
    )
    print(
        "| file | result | length | h(start) | expanded | stored | B/state | B/stored | s "
        "| expanded/s |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    solved = 0
    for path, result in zip(files, results):
        name = f"{path.parent.name}/{path.stem[:40]}"
        if isinstance(result, robotouille.Plan):
            stats, status, length = result.stats, "solved", str(result.length)
            solved += 1
        elif isinstance(result, SearchLimitError):
            stats, status, length = (
                result.stats,
                f"stopped ({result.limit})",
                f">= {result.stats.bound}",
            )
        else:
            print(f"| {name} | error: {result} |")
            continue
        rate = stats.expanded / stats.seconds if stats.seconds else 0.0
        # Below ~100,000 states the tables' fixed sizes (the visited set starts at 65,536
        # slots, a block holds 16,384 states) outweigh the states.
        per_stored = f"{stats.bytes / stats.stored:.1f}" if stats.stored >= 100_000 else "-"
        print(
            f"| {name} | {status} | {length} | {stats.initial_h} | {stats.expanded:,} | "
            f"{stats.stored:,} | {stats.state_bytes} | {per_stored} | {stats.seconds:.2f} | "
            f"{rate:,.0f} |"
        )
    print(f"\n{solved}/{len(files)} solved; wall time {wall:.1f} s, {threads}.")


if __name__ == "__main__":
    main()
