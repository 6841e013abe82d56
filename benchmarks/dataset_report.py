"""Dataset report (issue 5): generate and optimally solve every bundled benchmark instance.

Generates the 300 instances (3 datasets x 10 tasks x the 10 default seeds) from the bundled
task files, solves each with A* (``robotouille.plan_many``, one search per thread, each with a
time limit) and prints, per task, the optimal length of each seed's instance (``>=N`` where the
search stopped at its limit with the proven lower bound N), then the totals and the wall time of
generating and of solving.

``--write-manifest`` also writes ``domains/robotouille/manifest.json``, the manifest of optimal
lengths :func:`robotouille.datasets.load` ships (tests/test_datasets.py recomputes it).
``--retry-unsolved`` keeps the manifest's solved instances and searches again, with the given
time limit, only those it has no optimal length for (each entry records its time limit).
``--witnesses`` finds, for every instance left without an optimal length, a plan that is not
necessarily optimal and records the shortest found with its length as ``witness`` and
``upper_bound``, and how it was found as ``witness_algorithm``: proof that the instance is
solvable, replayed by tests/test_datasets.py (a step whose text names an earlier valid action
too is recorded as ``{"action": name, "args": [...]}``). ``--witness-methods`` lists how, each
tried on every such instance: a weight (weighted A*, ``plan(env, weight=w)``: at most w times
the optimum) or ``agenda`` (``algorithm="agenda"``: the goal's atoms a few at a time); by
default weighted A* with w = 1.0625, then the agenda. ``--improve-witnesses`` plans those with
a witness again too and keeps the shorter plan. A witness as long as the proven lower bound
proves it optimal: the entry then gets that optimal length.

Each search also gets a memory budget (``--memory-gb``, by default 60% of the machine's memory
shared among the threads): a long search that outgrows it stops with its proven bound, like
one that runs out of time, instead of being killed by the system. ``--bound-memory-gb`` plans
a long search's bound for that much memory instead (``plan``'s ``bound_memory_bytes``; the
entries it solves record it as ``bound_memory_bytes``, and tests/test_datasets.py recomputes
them with it).

Usage (from the repository root)::

    python benchmarks/dataset_report.py [--threads 2] [--time-limit 60] [--datasets ...]
        [--tasks ...] [--seeds ...] [--memory-gb GB] [--bound-memory-gb GB]
        [--write-manifest] [--retry-unsolved]
        [--witnesses [--improve-witnesses] [--witness-methods 1.0625,agenda]]
        [--witness-time-limit 600] [--no-search]
        [--no-clearing] [--no-commuting]

``--no-clearing`` and ``--no-commuting`` are baselines for side-by-side comparisons: the bound
without its clearing term, or the search without commutation pruning (search.h).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import robotouille
from clearing_report import without_clearing
from robotouille import SearchLimitError, datasets, planning

MANIFEST = Path(__file__).resolve().parents[1] / "domains" / "robotouille" / "manifest.json"


@contextlib.contextmanager
def without_commuting() -> Iterator[None]:
    """Plans inside the block search without commutation pruning (search.h)."""
    shipped = planning._commuting_tables
    planning._commuting_tables = lambda env: []
    try:
        yield
    finally:
        planning._commuting_tables = shipped


def manifest_entries() -> dict[str, dict[str, Any]]:
    """The shipped manifest's entries by key (none if there is no manifest yet)."""
    if not MANIFEST.is_file():
        return {}
    return {e["key"]: e for e in json.loads(MANIFEST.read_text())["instances"]}


WITNESS_FIELDS = ("upper_bound", "witness", "witness_seconds", "witness_algorithm")
WITNESS_METHODS = ",".join(map(str, datasets.WITNESS_METHODS))
"""``--witness-methods``'s default: those of :func:`robotouille.datasets.find_witnesses`."""


def _shown(entry: dict[str, Any]) -> str:
    """The optimal length, else the proven bound (``>=N``) and any witness's length (``<=M``)."""
    if entry["optimal_length"] is not None:
        return str(entry["optimal_length"])
    upper = f"<={entry['upper_bound']}" if "upper_bound" in entry else ""
    return f">={entry['lower_bound']}{upper}"


def _witness_step(action: Any) -> Any:
    """A plan's action as the manifest's witness lists it: its text, or where the plan gives
    it structured (its text names an earlier valid action too), ``{"action", "args"}``."""
    if isinstance(action, str):
        return action
    name, args = action
    return {"action": name, "args": list(args)}


def _add_witnesses(
    entries: list[dict[str, Any]],
    instances: list[datasets.Instance],
    threads: int,
    time_limit: float,
    memory_gb: float,
    improve: bool = False,
    methods: str = WITNESS_METHODS,
) -> None:
    """Gives every entry without an optimal length or a witness the shortest plan the methods
    find as its witness (:func:`robotouille.datasets.find_witnesses`); a witness as long as the
    entry's lower bound proves it optimal.

    With ``improve``, entries that have a witness are planned again too, and keep the shorter.
    """
    started = time.perf_counter()
    by_key = {inst.key: inst for inst in instances}
    todo = [
        e for e in entries if e["optimal_length"] is None and (improve or "witness" not in e)
    ]
    unsolved = [
        replace(
            by_key[e["key"]],
            optimal_length=None,
            step_limit=None,
            lower_bound=e.get("lower_bound"),
            upper_bound=e.get("upper_bound"),
            witness=None,
        )
        for e in todo
    ]
    found = datasets.find_witnesses(
        unsolved,
        methods=[m if m == "agenda" else float(m) for m in methods.split(",")],
        threads=threads,
        time_limit=time_limit,
        max_memory_bytes=int(memory_gb * 2**30),
        improve=True,  # todo holds only the entries to plan
    )
    shortened = 0
    for entry, before, after in zip(todo, unsolved, found):
        witness = after.witness
        if after.optimal_length is not None:
            entry["optimal_length"] = after.optimal_length
            print(f"{entry['key']}: a witness as long as its proven bound: optimal")
        elif witness is None or after.upper_bound == before.upper_bound:
            print(f"{entry['key']}: no shorter witness within the limits")
            continue
        else:
            entry["upper_bound"] = witness.length
            entry["witness"] = [_witness_step(action) for action in witness.actions]
            entry["witness_seconds"] = witness.seconds
            entry["witness_algorithm"] = witness.algorithm
            print(f"{entry['key']}: {witness.length} steps ({witness.algorithm}), "
                  f"{witness.seconds} s")
        shortened += before.upper_bound is not None
    print(
        f"witnesses: {sum('witness' in e for e in todo)} of {len(todo)} found "
        f"({shortened} shorter than before) in "
        f"{time.perf_counter() - started:.1f} s wall with {threads} threads"
    )


def _default_memory_gb(threads: int) -> float:
    """60% of the machine's physical memory, shared among the searches running at once."""
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return 0.6 * physical / 2**30 / max(threads, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per instance")
    parser.add_argument("--datasets", default=",".join(datasets.DATASETS))
    parser.add_argument(
        "--tasks", default=None, help="comma-separated task names or numbers (default: all)"
    )
    parser.add_argument(
        "--seeds", default=None, help="comma-separated seeds (default: the 10 default seeds)"
    )
    parser.add_argument(
        "--memory-gb",
        type=float,
        default=None,
        help="memory budget per search in GiB (default: 60%% of memory / threads)",
    )
    parser.add_argument(
        "--bound-memory-gb",
        type=float,
        default=None,
        help="memory a long search's bound is planned for, in GiB (default: its budget)",
    )
    parser.add_argument("--write-manifest", action="store_true")
    parser.add_argument("--retry-unsolved", action="store_true")
    parser.add_argument("--witnesses", action="store_true")
    parser.add_argument(
        "--improve-witnesses",
        action="store_true",
        help="with --witnesses, plan the entries that have a witness again; keep the shorter",
    )
    parser.add_argument(
        "--no-search",
        action="store_true",
        help="keep the manifest's entries, searching none (to add --witnesses only)",
    )
    parser.add_argument(
        "--witness-time-limit", type=float, default=600.0, help="seconds per witness search"
    )
    parser.add_argument(
        "--witness-methods",
        default=WITNESS_METHODS,
        help="with --witnesses, comma-separated: weights of weighted A* (above 1) and/or agenda",
    )
    parser.add_argument(
        "--no-clearing",
        action="store_true",
        help="search with the bound's clearing term left out (a side-by-side baseline)",
    )
    parser.add_argument(
        "--no-commuting",
        action="store_true",
        help="search without commutation pruning (a side-by-side baseline)",
    )
    args = parser.parse_args()
    if (args.no_clearing or args.no_commuting) and args.write_manifest:
        parser.error("--no-clearing and --no-commuting are for comparisons; they write no manifest")
    memory_gb = args.memory_gb if args.memory_gb is not None else _default_memory_gb(args.threads)
    bound_memory = None if args.bound_memory_gb is None else int(args.bound_memory_gb * 2**30)
    seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else datasets.DEFAULT_SEEDS
    existing = manifest_entries()
    previous = existing if args.retry_unsolved or args.no_search else {}

    start = time.perf_counter()
    instances = [
        inst
        for name in args.datasets.split(",")
        for inst in datasets.load(
            name,
            seeds=seeds,
            tasks=args.tasks.split(",") if args.tasks else None,
        )
    ]
    if args.no_search and any(i.key not in previous for i in instances):
        parser.error("--no-search needs a manifest entry for every instance")
    todo = [
        i
        for i in instances
        if not args.no_search and previous.get(i.key, {}).get("optimal_length") is None
    ]
    envs = [inst.load() for inst in todo]
    generated = time.perf_counter()
    with contextlib.ExitStack() as baselines:
        if args.no_clearing:
            baselines.enter_context(without_clearing())
        if args.no_commuting:
            baselines.enter_context(without_commuting())
        results = robotouille.plan_many(
            envs,
            threads=args.threads,
            time_limit=args.time_limit,
            max_memory_bytes=int(memory_gb * 2**30),
            return_exceptions=True,
            bound_memory_bytes=bound_memory,
        )
    solved_at = time.perf_counter()

    solved_now = dict(zip((i.key for i in todo), results))
    entries: list[dict[str, Any]] = []
    expanded = generated_states = 0  # by the searches run now
    for inst in instances:
        if inst.key not in solved_now:
            entries.append(previous[inst.key])
            continue
        result = solved_now[inst.key]
        entry: dict[str, Any] = {
            "key": inst.key,
            "effective_seed": inst.effective_seed,
            "optimal_length": None,
            "time_limit": args.time_limit,
        }
        if isinstance(result, robotouille.Plan):
            entry["optimal_length"] = result.length
            stats = result.stats
            if bound_memory is not None:
                entry["bound_memory_bytes"] = bound_memory
        elif isinstance(result, SearchLimitError):
            # A retry that proves less than an earlier run keeps the earlier (also proven) bound.
            earlier = previous.get(inst.key, {}).get("lower_bound", 0)
            entry["lower_bound"] = max(result.stats.bound, earlier)
            stats = result.stats
        else:
            raise result
        entry["seconds"] = round(stats.seconds, 3)
        entry["expanded"] = stats.expanded
        expanded += stats.expanded
        generated_states += stats.generated
        if entry["optimal_length"] is None:  # a witness stays valid whatever the search did
            entry.update(
                (k, v) for k, v in existing.get(inst.key, {}).items() if k in WITNESS_FIELDS
            )
        entries.append(entry)
    if args.witnesses:
        _add_witnesses(
            entries,
            instances,
            args.threads,
            args.witness_time_limit,
            memory_gb,
            args.improve_witnesses,
            args.witness_methods,
        )

    if args.no_search:
        print("The manifest's entries (no search now)\n")
    else:
        print(f"A* (projections), {args.threads} threads, {args.time_limit:g} s per instance\n")
    print(
        "| task | optimal length per seed ("
        + ", ".join(map(str, seeds))
        + ") | max s |"
    )
    print("|---|---|---:|")
    tasks = dict.fromkeys(f"{i.dataset}/{i.task}" for i in instances)
    for task in tasks:
        rows = [e for e in entries if e["key"].startswith(task + ":")]
        shown = " ".join(map(_shown, rows))
        print(f"| {task} | {shown} | {max(e['seconds'] for e in rows):.2f} |")
    solved = sum(e["optimal_length"] is not None for e in entries)
    print(
        f"\n{solved}/{len(entries)} solved optimally ({len(todo)} searched now). Generating and "
        f"loading: {generated - start:.1f} s; solving: {solved_at - generated:.1f} s wall with "
        f"{args.threads} threads; total {solved_at - start:.1f} s."
    )
    if todo:
        print(f"The searches run now expanded {expanded:,} states, generated {generated_states:,}.")
    if args.write_manifest:
        # Instances of datasets this run left out keep their entries.
        existing.update((e["key"], e) for e in entries)
        entries = list(existing.values())
        manifest = {
            "schema": 1,
            "about": "Optimal plan lengths of the bundled benchmark instances (A*, centralized "
            "mode), written by benchmarks/dataset_report.py --write-manifest. optimal_length "
            "is null where the search stopped at its time limit (time_limit, per entry) or "
            "its memory budget (then seconds < time_limit); lower_bound is then what it "
            "proved, and witness (with --witnesses) a plan that reaches the goal, not "
            "necessarily optimal, of upper_bound steps, found as witness_algorithm says (a "
            "witness as long as lower_bound proves that optimal_length). bound_memory_bytes, "
            "where present, is the memory the search's bound was planned for "
            "(--bound-memory-gb).",
            "seeds": list(datasets.DEFAULT_SEEDS),
            "instances": entries,
        }
        MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n")
        print(f"wrote {MANIFEST}")


if __name__ == "__main__":
    main()
