"""Side by side of two planner revisions: states expanded within a time limit, as ratios.

Install the older revision into a directory of its own, then run this from the repository root
with the current one installed as usual::

    git worktree add /tmp/old REV
    pip install --no-build-isolation --no-deps -t /tmp/old_site /tmp/old
    python benchmarks/revision_report.py --old-site /tmp/old_site [--rounds 2] [--time-limit 10]
        [--threads 1] [--bound-only] [--memory-gb G] [--max-states N] [FILE ...]
        # --time-limit 0: none
        # default files: asynchronous/8, /9, multi_agent/6, /8 (originals)

Each search (``robotouille.plan`` with ``threads``) reports its expanded states, its seconds
(building the bound's tables included) and the bytes per stored state of all its tables.
Each round runs every file under the old install, then under the current one, one search at a
time in a fresh interpreter, so both sides see the machine seconds apart; the ratio is taken
within the round. FILE is a path under the original examples folder without its name's tail,
e.g. ``asynchronous/9``, or a bundled dataset instance, ``DATASET/TASK:SEED`` (e.g.
``multi_agent/10:294``). With ``--bound-only`` each search stops after its first state, so
it only builds the projection bound (with the upgrade share and caps of a search with that time
limit), and the ratio is of those seconds: old / new. With ``--memory-gb`` each search also has
that memory budget (``max_memory_bytes``), and the ratio is of the states stored when it
stopped: new / old (where both stop at the budget, how many states it holds). With
``--max-states`` each search stops at that many stored states (or solves before), so both
sides do the same work on one thread, and the ratio is of the seconds it took: old / new
(building the bound included: give the time limit whose bound should be compared).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

# (old_site first: it puts an older install ahead before workloads imports robotouille.)
from old_site import run_worker
from workloads import reference_root

DEFAULT_FILES = ["asynchronous/8", "asynchronous/9", "multi_agent/6", "multi_agent/8"]


def worker(
    time_limit: float,
    threads: int,
    names: list[str],
    bound_only: bool = False,
    memory_gb: float | None = None,
    max_states: int | None = None,
) -> None:
    """Plans each file in this interpreter and prints one JSON line per file."""
    import robotouille

    examples = reference_root() / "environments" / "env_generator" / "examples"
    for name in names:
        if ":" in name:
            dataset_task, seed = name.split(":")
            dataset, task = dataset_task.split("/")
            (instance,) = robotouille.datasets.load(dataset, tasks=[task], seeds=[int(seed)])
            env = instance.load()
        else:
            env = robotouille.load(next(examples.glob(name + "_*.json")))
        stats: Any
        solved: int | None = None
        limit = None
        try:
            result = robotouille.plan(
                env,
                time_limit=time_limit or None,
                threads=threads,
                max_states=1 if bound_only else max_states,
                max_memory_bytes=int(memory_gb * 2**30) if memory_gb else None,
            )
            stats, solved = result.stats, result.length
        except robotouille.SearchLimitError as error:
            stats, limit = error.stats, error.limit
        record = {
            "file": name,
            "limit": limit,
            "stored": stats.stored,
            "state_bytes": stats.state_bytes,
            "expanded": stats.expanded,
            "bound": stats.bound,
            "initial_h": stats.initial_h,
            "abstract_states": stats.abstract_states,
            "solved": solved,
            "bytes_per_stored": stats.bytes / max(stats.stored, 1),
            "seconds": stats.seconds,
        }
        print(json.dumps({**record, "module": robotouille.__file__}), flush=True)


def run_side(old_site: str | None, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Runs the worker in a fresh interpreter on the old install (or the current one)."""
    arguments = [
        __file__,
        "--worker",
        "--time-limit",
        str(args.time_limit),
        "--threads",
        str(args.threads),
        *(["--bound-only"] if args.bound_only else []),
        *(["--memory-gb", str(args.memory_gb)] if args.memory_gb else []),
        *(["--max-states", str(args.max_states)] if args.max_states else []),
    ]
    return run_worker(old_site, [*arguments, *args.files])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", default=DEFAULT_FILES)
    parser.add_argument("--old-site", help="directory the older revision is installed in")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds; 0: none")
    parser.add_argument("--threads", type=int, default=1, help="threads of each search")
    parser.add_argument(
        "--bound-only", action="store_true", help="time building the bound, not the search"
    )
    parser.add_argument(
        "--memory-gb", type=float, help="memory budget of each search; compares stored states"
    )
    parser.add_argument(
        "--max-states", type=int, help="stop each search at N stored states; compares seconds"
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(
            args.time_limit,
            args.threads,
            args.files,
            args.bound_only,
            args.memory_gb,
            args.max_states,
        )
        return
    if not args.old_site:
        parser.error("--old-site is required")
    timed = args.bound_only or bool(args.max_states)
    if args.bound_only:
        measure = "seconds to build the bound, old / new"
    elif args.max_states:
        measure = f"seconds to store {args.max_states:,} states (or solve), old / new"
    elif args.memory_gb:
        measure = f"{args.memory_gb:g} GiB budget; stored states, new / old"
    else:
        measure = "expanded states, new / old"
    per_search = f"{args.time_limit:g} s" if args.time_limit else "no time limit"
    print(f"{per_search} per search, {args.threads} thread(s); {measure}, per round\n")
    print(f"| file | round | old | new | {'old / new' if timed else 'new / old'} |")
    print("|---|---:|---|---|---:|")
    for round_number in range(1, args.rounds + 1):
        old = run_side(args.old_site, args)
        new = run_side(None, args)
        if old and new and old[0]["module"] == new[0]["module"]:
            sys.exit(f"both sides import {new[0]['module']}: is --old-site an install?")
        for before, after in zip(old, new):
            if args.bound_only:
                ratio = before["seconds"] / max(after["seconds"], 1e-9)
                cells = [describe_bound(before), describe_bound(after)]
            elif args.max_states:
                ratio = before["seconds"] / max(after["seconds"], 1e-9)
                cells = [describe_work(before), describe_work(after)]
            elif args.memory_gb:
                ratio = after["stored"] / max(before["stored"], 1)
                cells = [describe_memory(before), describe_memory(after)]
            else:
                ratio = after["expanded"] / max(before["expanded"], 1)
                cells = [describe(before), describe(after)]
            print(
                f"| {after['file']} | {round_number} | {cells[0]} | {cells[1]} | {ratio:.2f}x |",
                flush=True,
            )


def describe(result: dict[str, Any]) -> str:
    """Expanded states, how the search ended (a solved search stops before the limit), and
    the bytes per stored state of all the search's tables."""
    end = (
        f"solved {result['solved']} in {result['seconds']:.2f} s"
        if result["solved"] is not None
        else f">= {result['bound']}"
    )
    return (
        f"{result['expanded']:,} ({end}, h0 {result['initial_h']}, "
        f"{result['bytes_per_stored']:.1f} B/stored)"
    )


def describe_memory(result: dict[str, Any]) -> str:
    """Stored states, how the search ended, and the bytes per packed and per stored state."""
    end = (
        f"solved {result['solved']}"
        if result["solved"] is not None
        else f">= {result['bound']} at {result['limit']}"
    )
    return (
        f"{result['stored']:,} ({end} after {result['seconds']:.1f} s, "
        f"{result['expanded']:,} expanded, {result['state_bytes']} B/state, "
        f"{result['bytes_per_stored']:.1f} B/stored)"
    )


def describe_work(result: dict[str, Any]) -> str:
    """Seconds, and the work they bought: expanded states and how the search ended."""
    end = f"solved {result['solved']}" if result["solved"] is not None else result["limit"]
    return f"{result['seconds']:.2f} s ({result['expanded']:,} expanded, {end})"


def describe_bound(result: dict[str, Any]) -> str:
    """Seconds to build the bound, the start state's bound and the abstract states kept."""
    return (
        f"{result['seconds']:.2f} s (h0 {result['initial_h']}, "
        f"{result['abstract_states']:,} abstract states)"
    )


if __name__ == "__main__":
    main()
