"""Clearing report: A* with and without the bound's clearing term, side by side.

The clearing term (``projection.h``, "Clearing") counts the steps that free a board, stove or
fryer that every one of its kind has covered with items no goal names. This script finds the
bundled instances where it raises the start bound, then plans each twice, one search at a
time: with the bound as shipped, and with the clearing entries of its tables emptied (the
rest of the bound unchanged). It prints one Markdown row per instance: the start bounds, the
states expanded and the seconds of both searches (or the bound proven where the time limit
stopped one), and the ratio of expansions.

Usage (from the repository root)::

    python benchmarks/clearing_report.py [--time-limit 30] [--datasets ...] [--seeds ...]
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

import robotouille
from robotouille import SearchLimitError, datasets, planning

# Small caps for the scan: only whether the clearing term adds at the start matters there.
SCAN_LIMITS = {"max_states": 20_000, "max_total_states": 200_000, "upgrade_total_states": 0}


@contextlib.contextmanager
def without_clearing() -> Iterator[None]:
    """Plans inside the block use the projection bound without its clearing term."""
    shipped = planning._bound_tables

    def emptied(env: robotouille.Env, bits: np.ndarray) -> tuple[Any, Any]:
        tables, task = shipped(env, bits)
        return ({**tables, "clearing": []} if tables is not None else None), task

    planning._bound_tables = emptied  # type: ignore[assignment]
    try:
        yield
    finally:
        planning._bound_tables = shipped  # type: ignore[assignment]


def start_bounds(env: robotouille.Env) -> tuple[int, int]:
    """The start bound without and with the clearing term, under :data:`SCAN_LIMITS`."""
    bits = np.unpackbits(env._words[0].view(np.uint8), bitorder="little")
    tables, task = planning._bound_tables(env, bits)
    if tables is None or not tables["clearing"]:
        return 0, 0
    without = {**tables, "clearing": []}
    plain = planning._start_stats(env, without, task, limits=SCAN_LIMITS)["initial_h"]
    cleared = planning._start_stats(env, tables, task, limits=SCAN_LIMITS)["initial_h"]
    return int(plain), int(cleared)


def _search(env: robotouille.Env, time_limit: float) -> tuple[str, int, float, int]:
    """(result, expanded, seconds, start bound) of one A* search."""
    try:
        plan = robotouille.plan(env, time_limit=time_limit)
    except SearchLimitError as stopped:
        stats = stopped.stats
        return f">= {stats.bound}", stats.expanded, stats.seconds, stats.initial_h
    return str(plan.length), plan.stats.expanded, plan.stats.seconds, plan.stats.initial_h


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=30.0, help="seconds per search")
    parser.add_argument("--datasets", default=",".join(datasets.DATASETS))
    parser.add_argument("--seeds", default=None, help="comma-separated (default: the 10)")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else datasets.DEFAULT_SEEDS
    print(
        "| instance | h(start) without, with | result without, with | expanded without, with "
        "| ratio | s without, with |"
    )
    print("|---|---|---|---|---:|---|")
    for name in args.datasets.split(","):
        for instance in datasets.load(name, seeds=seeds):
            plain, cleared = start_bounds(instance.load())
            if cleared <= plain:
                continue
            with without_clearing():
                old = _search(instance.load(), args.time_limit)
            new = _search(instance.load(), args.time_limit)
            print(
                f"| {name}/{instance.task[:24]}:{instance.seed} | {old[3]}, {new[3]} "
                f"| {old[0]}, {new[0]} | {old[1]:,}, {new[1]:,} | {old[1] / max(new[1], 1):.1f}x "
                f"| {old[2]:.2f}, {new[2]:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
