"""Side by side of A* (or BFS) on one thread and on several: seconds to solve, as ratios.

Solves each instance with ``robotouille.plan(env, threads=1)`` and with ``threads=N``, one
search at a time, in interleaved rounds (the order of the two alternates between rounds), and
prints a Markdown table: per instance and round, the optimal length, the seconds and states
expanded of each, and the speed-up (one thread's seconds over N threads'). Both find the same
optimal length; the states expanded differ a little, since N threads expand batches of states
(see ``cpp/include/robotouille/search.h``, "Threads").

Usage (from the repository root)::

    python benchmarks/threads_report.py [--threads 2] [--rounds 2] [--time-limit 600]
        [INSTANCE ...]
    python benchmarks/threads_report.py --construction [--threads 2] [--rounds 2] [INSTANCE ...]
    python benchmarks/threads_report.py --bfs MAX_STATES [--threads 2] [--rounds 3] [INSTANCE ...]

With ``--construction`` it times building the bound's tables in C++ alone (the projections, with
no time limit, so both sides keep the same rows; the Python tables are built once before), as
the seconds of a search stopped after its first state, and checks that both sides build the
same number of abstract states and the same start bound.

With ``--bfs`` it runs breadth-first search instead, up to MAX_STATES stored states (or the
plan), on the original asynchronous/9 unless told, and checks that both sides make the same
search (length or bound, states expanded, generated and stored).

INSTANCE is an original file, a path under the original examples folder without its name's
tail (``asynchronous/8``), or a bundled dataset instance, ``DATASET/TASK:SEED`` with TASK's
number (``asynchronous/9:294``). The default set takes about 6 minutes per round on two
cores.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

import robotouille
from robotouille import Env, SearchLimitError
from robotouille.planning import _bound_tables, _start_stats
from workloads import domain_file, reference_root

# Searches of 10-80 s on one thread: on shorter ones, building the bound's tables in Python
# (one thread) is much of the time.
DEFAULT_INSTANCES = [
    "asynchronous/8",
    "asynchronous/9:294",
    "asynchronous/9:420",
    "multi_agent/3:84",
    "multi_agent/5:84",
    "multi_agent/6:294",
]

# Tasks whose construction takes 1-8 s on one thread: most of a search of their size.
CONSTRUCTION_INSTANCES = [
    "multi_agent/1:42",
    "multi_agent/2:42",
    "multi_agent/4:42",
    "multi_agent/5:42",
    "multi_agent/8:42",
    "multi_agent/9:42",
    "multi_agent/10:42",
    "asynchronous/9",
]


def load(name: str) -> Env:
    """A fresh env (its bound's tables are built again by the first search)."""
    if ":" not in name:
        examples = reference_root() / "environments" / "env_generator" / "examples"
        return robotouille.load(next(examples.glob(name + "_*.json")), domain_file())
    path, seed = name.split(":")
    dataset, number = path.split("/")
    (instance,) = [
        i
        for i in robotouille.datasets.load(dataset, seeds=[int(seed)])
        if i.task.split("_")[0] == number
    ]
    return instance.load()


def solve(name: str, threads: int, time_limit: float) -> tuple[str, float, int]:
    """(length or '>= bound', seconds, states expanded) of one search."""
    env = load(name)
    started = time.perf_counter()
    try:
        plan = robotouille.plan(env, time_limit=time_limit, threads=threads, progress=False)
        return str(plan.length), time.perf_counter() - started, plan.stats.expanded
    except SearchLimitError as stopped:
        bound = f">= {stopped.stats.bound}"
        return bound, time.perf_counter() - started, stopped.stats.expanded


def breadth_first(name: str, threads: int, max_states: int) -> tuple[tuple[Any, ...], float]:
    """(what both sides must agree on, seconds of the search) of one BFS."""
    env = load(name)
    try:
        plan = robotouille.plan(env, "bfs", max_states=max_states, threads=threads, progress=False)
        outcome, stats = str(plan.length), plan.stats
    except SearchLimitError as stopped:
        outcome, stats = f">= {stopped.stats.bound}", stopped.stats
    return (outcome, stats.expanded, stats.generated, stats.stored), stats.seconds


def bfs_table(instances: list[str], n: int, rounds: int, max_states: int) -> None:
    """Prints the side by side of BFS on 1 thread and on n."""
    print(f"BFS on 1 thread and on {n}, one search at a time, up to {max_states:,} states\n")
    print(f"| instance | round | length | expanded | 1 thread: s | {n} threads | speed-up |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for round_number in range(1, rounds + 1):
        for name in instances:
            order = (1, n) if round_number % 2 else (n, 1)
            runs = {threads: breadth_first(name, threads, max_states) for threads in order}
            (search, one), (search_n, many) = runs[1], runs[n]
            if search != search_n:
                raise SystemExit(f"{name}: {search} on one thread, {search_n} on {n}")
            print(
                f"| {name} | {round_number} | {search[0]} | {search[1]:,} | {one:.2f} "
                f"| {many:.2f} | {one / many:.2f}x |",
                flush=True,
            )


def construct(env: Env, tables: tuple[Any, Any], threads: int) -> tuple[int, int, float]:
    """(abstract states, start bound, seconds) of building the projections on `threads`."""
    stats = _start_stats(env, *tables, threads=threads)
    return stats["abstract_states"], stats["initial_h"], stats["seconds"]


def construction_table(instances: list[str], n: int, rounds: int) -> None:
    """Prints the side by side of building the bound's tables on 1 thread and on n."""
    print(f"Building the projections on 1 thread and on {n}, one at a time, no time limit\n")
    print(
        f"| instance | round | abstract states | h(start) | 1 thread: s | {n} threads "
        "| speed-up |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    envs = {name: load(name) for name in instances}
    tables = {}
    for name, env in envs.items():
        bits = np.unpackbits(env._words[0].view(np.uint8), bitorder="little")
        tables[name] = _bound_tables(env, bits)
    for round_number in range(1, rounds + 1):
        for name, env in envs.items():
            order = (1, n) if round_number % 2 else (n, 1)
            runs = {threads: construct(env, tables[name], threads) for threads in order}
            (states, h, one), (states_n, h_n, many) = runs[1], runs[n]
            if (states, h) != (states_n, h_n):
                raise SystemExit(f"{name}: {(states, h)} on one thread, {(states_n, h_n)} on {n}")
            print(
                f"| {name} | {round_number} | {states:,} | {h} | {one:.2f} | {many:.2f} "
                f"| {one / many:.2f}x |",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("instances", nargs="*")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument(
        "--construction", action="store_true", help="time building the bound's tables only"
    )
    parser.add_argument(
        "--bfs", type=int, metavar="MAX_STATES", help="time BFS up to this many stored states"
    )
    args = parser.parse_args()
    n = args.threads
    if args.bfs:
        bfs_table(args.instances or ["asynchronous/9"], n, args.rounds, args.bfs)
        return
    if args.construction:
        construction_table(args.instances or CONSTRUCTION_INSTANCES, n, args.rounds)
        return
    args.instances = args.instances or DEFAULT_INSTANCES
    print(f"A* on 1 thread and on {n}, one search at a time, {args.time_limit:g} s limit\n")
    print(f"| instance | round | length | 1 thread: s (expanded) | {n} threads | speed-up |")
    print("|---|---:|---:|---:|---:|---:|")
    for round_number in range(1, args.rounds + 1):
        for name in args.instances:
            order = (1, n) if round_number % 2 else (n, 1)
            runs = {threads: solve(name, threads, args.time_limit) for threads in order}
            (length, one, one_expanded), (length_n, many, many_expanded) = runs[1], runs[n]
            if length != length_n:
                raise SystemExit(f"{name}: {length} on one thread, {length_n} on {n}")
            print(
                f"| {name} | {round_number} | {length} | {one:.1f} ({one_expanded:,}) "
                f"| {many:.1f} ({many_expanded:,}) | {one / many:.2f}x |",
                flush=True,
            )


if __name__ == "__main__":
    main()
