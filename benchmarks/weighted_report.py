"""Weighted A* report: plan lengths and effort of ``plan(env, weight=w)`` for several weights.

For each instance (a bundled dataset instance ``DATASET/TASK:SEED``, e.g.
``multi_agent/10:168``, or an environment file) and each weight, one search on ``--threads``
threads with ``--time-limit`` seconds; prints a Markdown table: the plan's length (or ``-``
where the search stopped at its limit), the optimum's bracket the manifest gives, the states
expanded and the seconds. Weight 1 is plain A* (optimal).

Usage (from the repository root)::

    python benchmarks/weighted_report.py multi_agent/10:168 multi_agent/10:42
        [--weights 1,1.0625,1.125,1.25,2] [--time-limit 60] [--threads 2]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import robotouille
from robotouille import SearchLimitError, datasets
from workloads import domain_file


def _instance(name: str) -> tuple[robotouille.Env, str]:
    """The env a name gives, and the optimum's bracket the manifest knows (or "")."""
    if ":" not in name:
        return robotouille.load(name, domain_file()), ""
    dataset_task, seed = name.rsplit(":", 1)
    dataset, task = dataset_task.split("/")
    (inst,) = datasets.load(dataset, seeds=[int(seed)], tasks=[task])
    if inst.optimal_length is not None:
        return inst.load(), str(inst.optimal_length)
    return inst.load(), f"{inst.lower_bound}-{inst.upper_bound}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("instances", nargs="+", help="DATASET/TASK:SEED or an environment file")
    parser.add_argument("--weights", default="1,1.0625,1.125,1.25,2")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    weights = [float(w) for w in args.weights.split(",")]
    print(f"{args.threads} threads, {args.time_limit:g} s per search\n")
    print("| instance | optimum (manifest) | weight | length | expanded | s |")
    print("|---|---|---|---:|---:|---:|")
    for name in args.instances:
        env, known = _instance(name)
        shown_name = name if ":" in name else Path(name).stem
        for weight in weights:
            try:
                found = robotouille.plan(
                    env,
                    weight=weight,
                    time_limit=args.time_limit,
                    threads=args.threads,
                    progress=False,
                )
                length, stats, shown = str(found.length), found.stats, str(found.weight)
            except SearchLimitError as stopped:
                length, stats, shown = "-", stopped.stats, f"{weight:g}"
            print(
                f"| {shown_name} | {known or '?'} | {shown} | {length} | {stats.expanded:,} "
                f"| {stats.seconds:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
