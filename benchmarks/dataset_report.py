"""Dataset report (issue 5): generate and optimally solve every bundled benchmark instance.

Generates the 300 instances (3 datasets x 10 tasks x the 10 default seeds) from the bundled
task files, solves each with A* (``robotouille.plan_many``, one search per thread, each with a
time limit) and prints, per task, the optimal length of each seed's instance (``>=N`` where the
search stopped at its limit with the proven lower bound N), then the totals and the wall time of
generating and of solving.

``--write-manifest`` also writes ``domains/robotouille/manifest.json``, the manifest of optimal
lengths :func:`robotouille.datasets.load` ships (tests/test_datasets.py recomputes it).

Usage (from the repository root)::

    python benchmarks/dataset_report.py [--threads 2] [--time-limit 60] [--datasets ...]
        [--write-manifest]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import robotouille
from robotouille import SearchLimitError, datasets

MANIFEST = Path(__file__).resolve().parents[1] / "domains" / "robotouille" / "manifest.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per instance")
    parser.add_argument("--datasets", default=",".join(datasets.DATASETS))
    parser.add_argument("--write-manifest", action="store_true")
    args = parser.parse_args()

    start = time.perf_counter()
    instances = [
        inst
        for name in args.datasets.split(",")
        for inst in datasets.load(name, seeds=datasets.DEFAULT_SEEDS)
    ]
    envs = [inst.load() for inst in instances]
    generated = time.perf_counter()
    results = robotouille.plan_many(
        envs, threads=args.threads, time_limit=args.time_limit, return_exceptions=True
    )
    solved_at = time.perf_counter()

    entries: list[dict[str, Any]] = []
    for inst, result in zip(instances, results):
        entry: dict[str, Any] = {
            "key": inst.key,
            "effective_seed": inst.effective_seed,
            "optimal_length": None,
        }
        if isinstance(result, robotouille.Plan):
            entry["optimal_length"] = result.length
            stats = result.stats
        elif isinstance(result, SearchLimitError):
            entry["lower_bound"] = result.stats.bound
            stats = result.stats
        else:
            raise result
        entry["seconds"] = round(stats.seconds, 3)
        entry["expanded"] = stats.expanded
        entries.append(entry)

    print(f"A* (projections), {args.threads} threads, {args.time_limit:g} s per instance\n")
    print(
        "| task | optimal length per seed ("
        + ", ".join(map(str, datasets.DEFAULT_SEEDS))
        + ") | max s |"
    )
    print("|---|---|---:|")
    tasks = dict.fromkeys(f"{i.dataset}/{i.task}" for i in instances)
    for task in tasks:
        rows = [e for e in entries if e["key"].startswith(task + ":")]
        shown = " ".join(
            str(e["optimal_length"]) if e["optimal_length"] is not None else f">={e['lower_bound']}"
            for e in rows
        )
        print(f"| {task} | {shown} | {max(e['seconds'] for e in rows):.2f} |")
    solved = sum(e["optimal_length"] is not None for e in entries)
    print(
        f"\n{solved}/{len(entries)} solved optimally. Generating and loading: "
        f"{generated - start:.1f} s; solving: {solved_at - generated:.1f} s wall with "
        f"{args.threads} threads; total {solved_at - start:.1f} s."
    )
    if args.write_manifest:
        manifest = {
            "schema": 1,
            "about": "Optimal plan lengths of the bundled benchmark instances (A*, centralized "
            "mode), written by benchmarks/dataset_report.py --write-manifest. optimal_length "
            "is null where the search stopped at its time limit; lower_bound is then what it "
            "proved.",
            "seeds": list(datasets.DEFAULT_SEEDS),
            "time_limit": args.time_limit,
            "instances": entries,
        }
        MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n")
        print(f"wrote {MANIFEST}")


if __name__ == "__main__":
    main()
