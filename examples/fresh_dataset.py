"""Builds a dataset of fresh instances with their optimal lengths and step limits.

The benchmark's own instances (seeds 42, 84, ..., 420) ship with a manifest of optimal lengths;
fresh seeds need the planner. This example generates a dataset's tasks with the seeds given,
solves each instance with A* under a time limit, plans a witness for each one the search left
unsolved (its length bounds the optimum from above), and writes one JSON record per instance:

* ``optimal_length`` and ``step_limit`` (``ceil(1.5 x optimal)``, the paper's rule) where the
  optimum is known;
* otherwise the bracket ``lower_bound`` .. ``upper_bound`` and a stand-in step limit,
  ``ceil(1.5 x upper_bound)``, marked as such.

Usage (from the repository root)::

    python examples/fresh_dataset.py asynchronous --seeds 1,2,3 --time-limit 60 --out fresh.json
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from robotouille import datasets


def build(
    dataset: str,
    seeds: Sequence[int],
    *,
    tasks: Sequence[str] | None = None,
    time_limit: float | None = 60.0,
    threads: int | None = None,
) -> list[dict[str, Any]]:
    """Generates, solves and brackets a dataset's instances; returns one record per instance."""
    instances = datasets.load(
        dataset, seeds=seeds, tasks=tasks, solve=True, threads=threads, time_limit=time_limit
    )
    instances = datasets.find_witnesses(instances, threads=threads, time_limit=time_limit)
    records = []
    for inst in instances:
        record: dict[str, Any] = {
            "key": inst.key,
            "effective_seed": inst.effective_seed,
            "optimal_length": inst.optimal_length,
            "lower_bound": inst.lower_bound,
            "upper_bound": inst.upper_bound,
            "step_limit": inst.step_limit,
            "step_limit_is_stand_in": False,
        }
        if inst.step_limit is None and inst.upper_bound is not None:
            record["step_limit"] = datasets.step_limit(inst.upper_bound)
            record["step_limit_is_stand_in"] = True
        records.append(record)
    return records


def main(argv: Sequence[str] | None = None) -> None:
    """Runs the example's command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", choices=datasets.DATASETS)
    parser.add_argument("--seeds", required=True, help="comma-separated, e.g. 1,2,3")
    parser.add_argument("--tasks", default=None, help="comma-separated names or numbers")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per search")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write")
    args = parser.parse_args(argv)
    records = build(
        args.dataset,
        [int(s) for s in args.seeds.split(",")],
        tasks=args.tasks.split(",") if args.tasks else None,
        time_limit=args.time_limit,
        threads=args.threads,
    )
    args.out.write_text(json.dumps(records, indent=2) + "\n")
    known = sum(r["optimal_length"] is not None for r in records)
    print(f"{len(records)} instances, {known} with a proven optimum; written to {args.out}")


if __name__ == "__main__":
    main()
