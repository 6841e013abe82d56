"""Manifest check: plan every proven optimum of the shipped manifest again and replay each plan.

A change to the bound or the search must keep every optimum the manifest records (a bound that
overestimated somewhere would return a longer plan). This plans each bundled instance with an
optimal length in ``domains/robotouille/manifest.json`` (``robotouille.plan_many``, with a time
limit per instance), compares the lengths, replays each plan through ``env.step`` to the goal,
and prints the mismatches, the searches that stopped, and the wall time. The exit status is 1
when some length differs or some plan does not reach the goal.

Usage (from the repository root)::

    python benchmarks/manifest_check.py [--threads 2] [--time-limit 150] [--datasets ...]
"""

from __future__ import annotations

import argparse
import sys
import time

import robotouille
from dataset_report import manifest_entries
from robotouille import datasets
from robotouille.datasets import Instance


def _reaches_goal(instance: Instance, plan: robotouille.Plan) -> bool:
    """Whether the plan, replayed from the instance's start, reaches the goal at its last step."""
    env = instance.load()
    for action in plan.actions:
        if env.goal_reached():
            return False
        env.step(action)
    return env.goal_reached()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=150.0, help="seconds per instance")
    parser.add_argument("--datasets", default=",".join(datasets.DATASETS))
    args = parser.parse_args()
    entries = manifest_entries()
    todo = [
        (instance, entries[instance.key]["optimal_length"])
        for name in args.datasets.split(",")
        for instance in datasets.load(name)
        if entries.get(instance.key, {}).get("optimal_length") is not None
    ]
    start = time.perf_counter()
    results = robotouille.plan_many(
        [instance.load() for instance, _ in todo],
        threads=args.threads,
        time_limit=args.time_limit,
        return_exceptions=True,
    )
    wrong = stopped = 0
    for (instance, optimum), result in zip(todo, results):
        if not isinstance(result, robotouille.Plan):
            stopped += 1
            print(f"stopped: {instance.key} (optimum {optimum}): {result}")
        elif result.length != optimum:
            wrong += 1
            print(f"MISMATCH: {instance.key}: manifest {optimum}, planned {result.length}")
        elif not _reaches_goal(instance, result):
            wrong += 1
            print(f"NO GOAL: {instance.key}: the plan does not reach the goal when replayed")
    print(
        f"{len(todo)} optima planned again: {wrong} wrong, {stopped} stopped at "
        f"{args.time_limit:g} s; {time.perf_counter() - start:.0f} s wall, "
        f"{args.threads} search threads"
    )
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
