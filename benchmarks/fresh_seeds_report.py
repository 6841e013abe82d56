"""A* checked on instances no test has seen: fresh seeds of the dataset tasks.

For every task of the chosen datasets and every seed, generates the instance (as
``robotouille.datasets.load(dataset, seeds=[seed])``), plans it with A* and then:

- with BFS up to ``--bfs-states`` stored states: where BFS finishes, its length must be A*'s;
- where it does not (or with ``--along all``), along A*'s plan: at every state, the bound built
  from that state must not exceed the plan's steps to go (a plan from there that long exists,
  so a larger bound would overestimate). tests/test_projections.py checks the originals so.

Prints a line per instance and a summary; exits with status 1 if a check fails. Seeds default
to 1001-1010, which the bundled datasets (42, 84, ..., 420) do not use.

Usage (from the repository root)::

    python benchmarks/fresh_seeds_report.py [--datasets synchronous,asynchronous]
        [--seeds 1001-1030] [--tasks 0,1,...] [--time-limit 20] [--bfs-states 3000000]
        [--along none|unverified|all]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from dataclasses import dataclass

import robotouille
from robotouille import Env, SearchLimitError
from robotouille.planning import _start_stats


@dataclass
class Outcome:
    """What the checks found on one instance."""

    length: int | None  # A*'s, None where it stopped at its limit
    bfs_length: int | None  # None where BFS stopped at its state limit (or was not run)
    along_states: int = 0  # states of A*'s plan whose bound was checked
    overshoot: int | None = None  # max(bound - steps to go) along the plan, where checked

    @property
    def failed(self) -> bool:
        """Whether a check failed: BFS disagrees, or the bound exceeds the steps to go."""
        disagree = self.bfs_length is not None and self.length != self.bfs_length
        return disagree or (self.overshoot is not None and self.overshoot > 0)


def parse_seeds(text: str) -> list[int]:
    """``1001-1010`` or ``5,7,9`` (ranges inclusive), as a list."""
    seeds: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        seeds.extend(range(int(first), int(last or first) + 1))
    return seeds


def bound_overshoot(env: Env, actions: list[str]) -> int:
    """Steps env along the plan; the largest bound - steps to go over its states."""
    worst = -(10**9)
    for i in range(len(actions) + 1):
        worst = max(worst, int(_start_stats(env)["initial_h"]) - (len(actions) - i))
        if i < len(actions):
            env.step(actions[i])
    return worst


def check(env: Env, time_limit: float, bfs_states: int, along: str) -> Outcome:
    """Plans env with A* (and BFS where bfs_states > 0) and runs the checks on it."""
    try:
        plan = robotouille.plan(env, time_limit=time_limit, progress=False)
    except SearchLimitError:
        return Outcome(None, None)
    outcome = Outcome(plan.length, None)
    if bfs_states > 0:
        with contextlib.suppress(SearchLimitError):
            outcome.bfs_length = robotouille.plan(
                env, "bfs", max_states=bfs_states, progress=False
            ).length
    if along == "all" or (along == "unverified" and outcome.bfs_length is None):
        outcome.along_states = plan.length + 1
        outcome.overshoot = bound_overshoot(env, plan.actions)
    return outcome


def main() -> int:
    """Runs the checks and prints the report; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="synchronous,asynchronous")
    parser.add_argument("--seeds", default="1001-1010", help="e.g. 1001-1030 or 5,7,9")
    parser.add_argument("--tasks", default="", help="task numbers, e.g. 0,1,2 (default: all)")
    parser.add_argument("--time-limit", type=float, default=20.0, help="A*'s, per instance")
    parser.add_argument("--bfs-states", type=int, default=3_000_000, help="0: no BFS")
    parser.add_argument("--along", choices=("none", "unverified", "all"), default="unverified")
    args = parser.parse_args()
    tasks = set(args.tasks.split(",")) if args.tasks else None
    totals = {"instances": 0, "solved": 0, "bfs": 0, "along": 0, "along_states": 0, "failed": 0}
    for dataset in args.datasets.split(","):
        for seed in parse_seeds(args.seeds):
            for instance in robotouille.datasets.load(dataset, seeds=[seed]):
                number = instance.task.split("_")[0]
                if tasks is not None and number not in tasks:
                    continue
                start = time.perf_counter()
                outcome = check(instance.load(), args.time_limit, args.bfs_states, args.along)
                totals["instances"] += 1
                totals["solved"] += outcome.length is not None
                totals["bfs"] += outcome.bfs_length is not None
                totals["along"] += outcome.overshoot is not None
                totals["along_states"] += outcome.along_states
                totals["failed"] += outcome.failed
                print(
                    f"{dataset}/{number} seed {seed} (effective {instance.effective_seed}): "
                    f"A* {outcome.length}, BFS {outcome.bfs_length}, "
                    f"bound - steps to go {outcome.overshoot} at most, "
                    f"{time.perf_counter() - start:.1f} s{'  FAILED' if outcome.failed else ''}",
                    flush=True,
                )
    print(
        f"\n{totals['instances']} instances: A* solved {totals['solved']}, BFS finished on "
        f"{totals['bfs']}, the bound checked along {totals['along']} plans "
        f"({totals['along_states']} states); {totals['failed']} failed"
    )
    return 1 if totals["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
