"""Side by side of two revisions' search preparation: the tables built in Python before a search.

Before ``robotouille.plan`` starts its C++ search it works out, in Python and holding the GIL,
the task's symmetries, its projections (the bound's rows and their tables), the invariants the
packing reads, the relocations and the commutations. This report times that work for one seed
of every bundled dataset task under two installs, and checks that both build the same tables.

Install the older revision into a directory of its own, then run this from the repository root
with the current one installed as usual::

    git worktree add /tmp/old REV
    pip install --no-build-isolation --no-deps -t /tmp/old_site /tmp/old
    python benchmarks/prep_report.py --old-site /tmp/old_site [--rounds 3] [--seeds 84]

Each round runs every instance under the old install, then under the current one, each side in
a fresh interpreter. A cell is the least CPU seconds over the rounds (``time.process_time``:
the machines here are shared, and the least is the one the least disturbed); "same" says whether
both sides built identical tables (a digest of all of them).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from typing import Any

# (Before anything imports robotouille: it puts an older install ahead where asked.)
from old_site import run_worker

DATASETS = ("synchronous", "asynchronous", "multi_agent")


def worker(seeds: list[int]) -> None:
    """Prepares every instance in this interpreter; prints one JSON line per instance."""
    import numpy as np

    import robotouille
    from robotouille import datasets, planning

    for name in DATASETS:
        for instance in datasets.load(name, seeds=seeds):
            env = instance.load()
            started = time.process_time()
            # What planning._run builds before the search, in its order.
            symmetry = planning._symmetry_tables(env)
            bits = np.unpackbits(env._words[0].view(np.uint8), bitorder="little")
            bound, _ = planning._bound_tables(env, bits)
            packing = planning._packing_tables(env)
            relocations = planning._relocation_tables(env)
            commuting = planning._commuting_tables(env)
            seconds = time.process_time() - started
            tables = json.dumps(
                [symmetry, bound, packing, relocations, commuting],
                sort_keys=True,
                default=lambda x: x.tolist() if hasattr(x, "tolist") else str(x),
            )
            record = {
                "instance": f"{name}/{instance.task}:{instance.seed}",
                "seconds": seconds,
                "digest": hashlib.sha256(tables.encode()).hexdigest(),
                "module": robotouille.__file__,
            }
            print(json.dumps(record), flush=True)


def run_side(old_site: str | None, seeds: list[int]) -> list[dict[str, Any]]:
    """Runs the worker in a fresh interpreter on the old install (or the current one)."""
    return run_worker(old_site, [__file__, "--worker", *(str(s) for s in seeds)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-site", help="directory the older revision is installed in")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seeds", type=int, nargs="+", default=[84])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("worker_seeds", nargs="*", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker_seeds)
        return
    if not args.old_site:
        parser.error("--old-site is required")
    best: dict[str, dict[str, float]] = {"old": {}, "new": {}}
    digests: dict[str, dict[str, str]] = {"old": {}, "new": {}}
    for _ in range(args.rounds):
        sides = {"old": run_side(args.old_site, args.seeds), "new": run_side(None, args.seeds)}
        if sides["old"] and sides["old"][0]["module"] == sides["new"][0]["module"]:
            sys.exit(f"both sides import {sides['new'][0]['module']}: is --old-site an install?")
        for side, records in sides.items():
            for r in records:
                seconds = best[side].get(r["instance"], float("inf"))
                best[side][r["instance"]] = min(seconds, r["seconds"])
                digests[side][r["instance"]] = r["digest"]
    print(f"CPU seconds of the preparation, least of {args.rounds} rounds\n")
    print("| instance | old | new | old / new | same tables |")
    print("|---|---:|---:|---:|---|")
    for instance, new in best["new"].items():
        old = best["old"][instance]
        same = "yes" if digests["old"][instance] == digests["new"][instance] else "NO"
        print(f"| {instance} | {old:.3f} | {new:.3f} | {old / new:.2f}x | {same} |")
    old_total, new_total = sum(best["old"].values()), sum(best["new"].values())
    print(f"| all | {old_total:.2f} | {new_total:.2f} | {old_total / new_total:.2f}x | |")


if __name__ == "__main__":
    main()
