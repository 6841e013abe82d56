"""Command-line interface: ``robotouille`` or ``python -m robotouille``.

Commands:
    play ENV      play an environment (a file or a bundled task name) with a policy and print
                  every observation and action; ``--policy human`` reads actions from stdin.
    plan ENV      compute an optimal plan (A* or BFS) and print it with search statistics.
    generate ENV_FILE --seed S --out FILE
                  procedurally generate the original's instance for a file and a seed, write
                  it as JSON and print the effective seed.
    tasks         list the bundled tasks.
    datasets list [DATASET] [--seeds S,...] [--tasks T,...] [--solve [--witnesses]]
                  list the benchmark datasets' tasks and their instances' optimal lengths;
                  with --solve, compute those the manifest lacks (fresh seeds, an original
                  checkout), and with --witnesses bracket those the search leaves unknown.
    datasets show DATASET TASK SEED [--out FILE]
                  print an instance's initial observation (its facts go to stderr), and write
                  its environment JSON to FILE.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence
from typing import Any

from . import _core, datasets
from .domains import list_bundled_environments
from .env import MODES, Env, load
from .errors import InvalidActionError, RobotouilleError, SearchLimitError
from .generate import DEFAULT_MAX_ATTEMPTS, generate
from .planning import _HEURISTICS, DEFAULT_MEMORY_SHARE, LONG_PLANNED_SECONDS, plan


def _play(args: argparse.Namespace) -> int:
    env = load(
        args.env, args.domain, mode=args.mode, max_steps=args.max_steps, invalid_action="feedback"
    )
    rng = random.Random(args.seed)
    obs, info = env.reset()
    print(obs)
    for _ in range(args.max_steps):
        valid = info["valid_actions"]
        if args.policy == "human":
            try:
                line = input("\nAction (text or index, empty to quit): ").strip()
            except EOFError:
                return 0
            if not line:
                return 0
            action: str | int = int(line) if line.isdigit() else line
        elif args.policy == "first":
            action = 0
        else:
            action = rng.randrange(len(valid))
        text = valid[action] if isinstance(action, int) and action < len(valid) else action
        print(f"\n>>> Step {env.steps + 1}: {text}\n")
        obs, reward, terminated, truncated, info = env.step(action)
        if "feedback" in info:
            print(info["feedback"])
            continue
        print(obs)
        if terminated:
            print(f"\nGoal reached in {env.steps} steps (reward {reward}).")
            return 0
        if truncated:
            break
    print(f"\nStopped after {env.steps} steps without reaching the goal.")
    return 0


CLI_MAX_DEFAULT_THREADS = 4
"""The most threads ``robotouille plan`` uses unless told: one thread stores every state a
batch finds (about a tenth of a search's time), so the speed-up flattens, while each thread
keeps caches of its own."""


def _shown(env: Env, action: Any) -> str:
    """A plan's action as text.

    A structured one (its text names an earlier valid action too, see Plan.actions) shows its
    name and arguments after the text.
    """
    if action is None:
        return "(none)"
    if isinstance(action, str):
        return action
    name, args = action
    grounding = env.task.grounding_id(name, tuple(args))
    text = "" if grounding is None else _core.action_text(env.task.core, grounding)
    return f"{text} [{name}({', '.join(args)})]"


def _plan(args: argparse.Namespace) -> int:
    env = load(args.env, args.domain, mode=args.mode)
    try:
        result = plan(
            env,
            args.algorithm,
            heuristic=args.heuristic,
            max_states=args.max_states,
            max_memory_bytes=args.max_memory,
            time_limit=args.time_limit,
            progress=args.progress,
            threads=args.threads,
            weight=args.weight,
            bound_memory_bytes=args.bound_memory,
        )
    except SearchLimitError as exc:
        print(f"robotouille: {exc}", file=sys.stderr)
        # Every A* layer below it (BFS: every depth up to it) held no goal. Weighted A* and the
        # agenda prove nothing (0).
        proven = getattr(exc.stats, "bound", 0)
        if proven > 0:
            print(
                f"robotouille: proved before it stopped: every plan takes at least {proven} "
                "steps",
                file=sys.stderr,
            )
        return 3
    for i, action in enumerate(result.actions, 1):
        entries = action if isinstance(action, list) else [action]
        print(f"{i:3d}. " + " | ".join(_shown(env, entry) for entry in entries))
    if args.algorithm == "agenda":
        kind, how = "Plan (not necessarily optimal)", args.algorithm
    elif result.weight != 1:
        kind = f"Plan (at most {result.weight} times the optimum)"
        how = f"weighted {args.algorithm}"
    else:
        kind, how = "Optimal plan", args.algorithm
    print(f"\n{kind}: {result.length} steps ({how}, {env.mode} mode).")
    print(f"Search: {result.stats}.")
    return 0


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _generate(args: argparse.Namespace) -> int:
    result = generate(
        args.env_file,
        args.seed,
        keep_all_robots=args.keep_all_robots,
        move_meals_with_containers=args.move_meals_with_containers,
        max_attempts=args.max_attempts,
    )
    if not args.no_check:
        result.load(args.domain)  # the instance must load; errors name the source file
    if not _write_json(args.out, result.environment):
        return 2
    for attempt in result.attempts[:-1]:
        print(f"robotouille: seed {attempt.seed} failed ({attempt.error})", file=sys.stderr)
    print(result.effective_seed)
    return 0


def _write_json(path: str, data: dict[str, Any]) -> bool:
    """Writes an environment's JSON to ``path``; False (said on stderr) where it cannot."""
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(json.dumps(data, indent=4) + "\n")
    except OSError as exc:
        reason = exc.strerror or exc
        print(f"robotouille: error: cannot write {path}: {reason}", file=sys.stderr)
        return False
    return True


def _datasets(args: argparse.Namespace) -> int:
    source = args.source or "bundled"
    if args.action == "show":
        (instance,) = datasets.load(args.dataset, source, seeds=[args.seed], tasks=[args.task])
        optimal: object = instance.optimal_length
        if optimal is None:
            known = [f"at least {instance.lower_bound}"] if instance.lower_bound else []
            if instance.upper_bound is not None:
                known.append(f"a plan of {instance.upper_bound} steps known")
            optimal = f"unknown ({', '.join(known)})" if known else "unknown"
        print(
            f"{instance.key}: effective seed {instance.effective_seed}, optimal length "
            f"{optimal}, step limit {instance.step_limit or 'none'}",
            file=sys.stderr,
        )
        obs, _ = instance.load(args.domain).reset()
        if args.out is not None and not _write_json(args.out, instance.environment):
            return 2
        print(obs)
        return 0
    seeds = datasets.DEFAULT_SEEDS if args.seeds is None else args.seeds
    bracketed = False
    for dataset in [args.dataset] if args.dataset else datasets.DATASETS:
        instances = datasets.load(
            dataset,
            source,
            seeds=seeds,
            tasks=args.tasks,
            solve=args.solve,
            threads=args.threads,
            time_limit=args.time_limit,
        )
        if args.witnesses:
            instances = datasets.find_witnesses(
                instances,
                threads=args.threads,
                time_limit=args.witness_time_limit or args.time_limit,
            )
        print(f"{dataset} (seeds {', '.join(map(str, seeds))})")
        for task in dict.fromkeys(i.task for i in instances):
            shown = " ".join(_length_shown(i) for i in instances if i.task == task)
            print(f"  {task:<45} optimal: {shown}")
        bracketed = bracketed or any(i.optimal_length is None for i in instances)
    if bracketed:
        print(
            "(?: not known, --solve computes it; >=N: at least N, proven; N..M: between N and "
            "the length M of a known plan)"
        )
    return 0


def _length_shown(instance: datasets.Instance) -> str:
    """An instance's optimal length, or what is known of it (see the legend in _datasets)."""
    if instance.optimal_length is not None:
        return str(instance.optimal_length)
    if instance.upper_bound is not None:
        return f"{instance.lower_bound or 0}..{instance.upper_bound}"
    return "?" if instance.lower_bound is None else f">={instance.lower_bound}"


def _comma_list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _seed_list(text: str) -> list[int]:
    try:
        return [int(item) for item in _comma_list(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds must be integers, got {text!r}") from None


def _parser() -> argparse.ArgumentParser:
    """The command line's parser, with a subparser per command."""
    parser = argparse.ArgumentParser(prog="robotouille", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="play an environment and print its observations")
    play.add_argument("env", help="environment JSON file or bundled task name")
    play.add_argument("--domain", default=None, help="domain JSON file (default: bundled)")
    play.add_argument("--mode", choices=MODES, default=None)
    play.add_argument("--policy", choices=("random", "first", "human"), default="random")
    play.add_argument("--seed", type=int, default=0, help="seed of the random policy")
    play.add_argument("--max-steps", type=int, default=50)
    planner = sub.add_parser("plan", help="compute an optimal plan and print it")
    planner.add_argument("env", help="environment JSON file or bundled task name")
    planner.add_argument("--domain", default=None, help="domain JSON file (default: bundled)")
    planner.add_argument("--mode", choices=MODES, default=None)
    planner.add_argument(
        "--algorithm",
        choices=("astar", "bfs", "agenda"),
        default="astar",
        help="agenda: the goal a few atoms at a time, for tasks too large to solve optimally",
    )
    planner.add_argument("--heuristic", choices=_HEURISTICS, default="projections")
    planner.add_argument("--max-states", type=int, default=None)
    planner.add_argument(
        "--max-memory",
        type=int,
        default=None,
        # argparse formats help with %, so the percent sign is doubled.
        help="bytes the search's tables may take (default: "
        f"{DEFAULT_MEMORY_SHARE * 100:.0f}%% of the physical memory)",
    )
    planner.add_argument("--time-limit", type=float, default=None, help="seconds")
    planner.add_argument(
        "--bound-memory",
        type=int,
        default=None,
        help="A* only: bytes a long search's bound is planned for (with a time limit of "
        f"{LONG_PLANNED_SECONDS:g} s or more, or without one once it starts over), in place of "
        "the memory budget (--max-memory, or its default); its construction holds up to about "
        "half of it",
    )
    planner.add_argument(
        "--weight",
        type=float,
        default=1.0,
        help="A* only: above 1 (up to 64), weighted A*, whose plan is at most WEIGHT times the "
        "optimum, often found with far fewer states (e.g. 1.0625 on tasks too large to solve "
        "optimally)",
    )
    planner.add_argument(
        "--threads",
        type=_positive_int,
        default=min(os.cpu_count() or 1, CLI_MAX_DEFAULT_THREADS),
        help="threads that build the bound's tables and expand the search's states (default: the "
        "number of CPUs, at most "
        f"{CLI_MAX_DEFAULT_THREADS})",
    )
    planner.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="report a long search every second on stderr (default: when it is a terminal)",
    )
    gen = sub.add_parser(
        "generate",
        help="generate the original's instance for an environment file and a seed",
        description="Procedurally generates the instance the original builds for ENV_FILE and "
        "the seed, writes it to --out as JSON and prints the effective seed (the original "
        "retries with seed + 1 after a failed attempt).",
    )
    gen.add_argument("env_file", help="environment JSON file")
    gen.add_argument("--seed", type=int, required=True, help="the requested seed")
    gen.add_argument("--out", required=True, help="file to write the generated JSON to")
    gen.add_argument(
        "--keep-all-robots",
        action="store_true",
        help="extension: keep every robot of a multi-robot file (the original keeps the first)",
    )
    gen.add_argument(
        "--move-meals-with-containers",
        action="store_true",
        help="extension: meals in a container move with it (the original leaves them)",
    )
    gen.add_argument(
        "--max-attempts",
        type=_positive_int,
        default=DEFAULT_MAX_ATTEMPTS,
        help=f"seeds to try before giving up (default {DEFAULT_MAX_ATTEMPTS})",
    )
    gen.add_argument(
        "--domain", default=None, help="domain JSON file to check the instance against"
    )
    gen.add_argument("--no-check", action="store_true", help="skip loading the instance")
    sub.add_parser("tasks", help="list the bundled tasks")
    data = sub.add_parser("datasets", help="the benchmark datasets (list, show)")
    data_sub = data.add_subparsers(dest="action", required=True)
    listing = data_sub.add_parser("list", help="list tasks and optimal lengths per seed")
    listing.add_argument("dataset", nargs="?", choices=datasets.DATASETS, default=None)
    listing.add_argument(
        "--seeds", type=_seed_list, default=None, help="comma-separated (default: 42, 84, ..., 420)"
    )
    listing.add_argument(
        "--tasks", type=_comma_list, default=None, help="comma-separated names or numbers"
    )
    listing.add_argument(
        "--solve",
        action="store_true",
        help="compute the optimal lengths the manifest lacks with the planner (A*)",
    )
    listing.add_argument(
        "--witnesses",
        action="store_true",
        help="for instances left without an optimal length, plan a witness (weighted A*, then "
        "the agenda) whose length bounds the optimum from above",
    )
    listing.add_argument("--time-limit", type=float, default=None, help="seconds per search")
    listing.add_argument(
        "--witness-time-limit",
        type=float,
        default=None,
        help="seconds per witness search (default: --time-limit)",
    )
    listing.add_argument(
        "--threads", type=_positive_int, default=None, help="planner threads (default: all CPUs)"
    )
    show = data_sub.add_parser("show", help="print an instance's initial observation")
    show.add_argument("dataset", choices=datasets.DATASETS)
    show.add_argument("task", help="task name or its number, e.g. 0_cheese_sandwich or 0")
    show.add_argument("seed", type=int)
    show.add_argument("--domain", default=None, help="domain JSON file (default: bundled)")
    show.add_argument(
        "--out",
        default=None,
        help="also write the instance's environment JSON there (e.g. for robotouille plan)",
    )
    for command in (listing, show):
        command.add_argument(
            "--source", default=None, help="original checkout to read tasks from (default: ours)"
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "tasks":
            print("\n".join(list_bundled_environments()))
            return 0
        if args.command == "plan":
            return _plan(args)
        if args.command == "generate":
            return _generate(args)
        if args.command == "datasets":
            return _datasets(args)
        return _play(args)
    except (RobotouilleError, FileNotFoundError, ValueError) as exc:
        if isinstance(exc, InvalidActionError):
            raise
        print(f"robotouille: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
