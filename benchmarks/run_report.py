"""Side-by-side performance report for the issue's performance section; prints Markdown.

Measures, interleaved in repeated rounds on the original sync/9 and async/9 files:

(a) random rollout through our Python API (valid actions + step by index + observation text),
(b) the same policy through our pure-Python reference interpreter (``ReferenceEnv``),
(c) the raw C++ kernel (``_core.random_rollout``, one batch row = one core),
(d) load + compile time of async/9,

and prints the medians over rounds with ratios computed within each round (the machines are
shared and noisy, so the ratios are the claim, not the absolute figures). The original engine
cannot be run here; its ~22 steps/s on sync/9 is the figure stated in the issue.

Usage (from the repository root; the script's folder is on ``sys.path``, which is how
``workloads`` is found)::

    python benchmarks/run_report.py [--rounds 5] [--api-steps 3000] [--ref-steps 60]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import robotouille
from robotouille.domain import load_domain
from robotouille.problem import load_problem
from robotouille.testing.reference import ReferenceEnv
from workloads import (
    API_TARGET_RATIO,
    COMPILE_TARGET_MS,
    FILES,
    KERNEL_TARGET_STEPS_PER_S,
    ORIGINAL_SYNC9_STEPS_PER_S,
    cold_load,
    domain_file,
    env_file,
    kernel_rollout,
    missing_data,
    problem_and_compile,
    python_api_rollout,
    reference_rollout,
)

LABELS = {"sync9": "sync/9", "async9": "async/9"}


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git_revision() -> str:
    root = Path(__file__).resolve().parents[1]
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{rev} (with uncommitted changes)" if dirty else rev


def _machine() -> list[str]:
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return [
        f"- CPU: {_cpu_model()}",
        f"- nproc: {os.cpu_count()} (usable by this process: {affinity})",
        f"- load average at start (1/5/15 min): {load}",
        f"- Python {platform.python_version()} ({platform.python_implementation()}), "
        f"numpy {np.__version__}, robotouille {robotouille.__version__}, "
        f"{platform.system()} {platform.release()}",
        f"- repository revision: {_git_revision()}",
    ]


def _fmt_rate(x: float) -> str:
    return f"{x:,.0f}"


def _fmt_ratio(x: float) -> str:
    return f"{x:,.0f}x" if x >= 100 else f"{x:,.2f}x"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (median)")
    parser.add_argument("--api-steps", type=int, default=3000, help="Python API steps per round")
    parser.add_argument("--ref-steps", type=int, default=60, help="reference steps per round")
    parser.add_argument("--kernel-steps", type=int, default=200_000, help="kernel steps/round")
    parser.add_argument("--compile-reps", type=int, default=20, help="loads of async/9, total")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    reason = missing_data()
    if reason is not None:
        print(f"skipped: {reason}")
        return 0

    domain = load_domain(domain_file())
    envs = {k: robotouille.load(env_file(k), domain_file()) for k in FILES}
    refs = {k: ReferenceEnv(domain, load_problem(env_file(k), domain)) for k in FILES}
    rng = random.Random(args.seed)

    # Warm-up: caches (action texts, reference groundings), allocator, CPU frequency.
    for k in FILES:
        python_api_rollout(envs[k], 200, rng)
        reference_rollout(refs[k], 5, rng)
        kernel_rollout(envs[k].task, 10_000, rng.randrange(2**32))

    api: dict[str, list[float]] = {k: [] for k in FILES}
    ref: dict[str, list[float]] = {k: [] for k in FILES}
    kern: dict[str, list[float]] = {k: [] for k in FILES}
    api_vs_ref: dict[str, list[float]] = {k: [] for k in FILES}
    compile_ms: dict[str, list[float]] = {"compile": [], "load": [], "cold": []}
    async9 = env_file("async9")
    reps_per_round = max(1, -(-args.compile_reps // args.rounds))

    for r in range(args.rounds):
        keys = list(FILES) if r % 2 == 0 else list(reversed(FILES))
        for k in keys:
            env, renv, task = envs[k], refs[k], envs[k].task
            t_api = _timed(lambda: python_api_rollout(env, args.api_steps, rng))  # noqa: B023
            t_ref = _timed(lambda: reference_rollout(renv, args.ref_steps, rng))  # noqa: B023
            seed = rng.randrange(2**32)
            t_kern = _timed(lambda: kernel_rollout(task, args.kernel_steps, seed))  # noqa: B023
            api[k].append(args.api_steps / t_api)
            ref[k].append(args.ref_steps / t_ref)
            kern[k].append(args.kernel_steps / t_kern)
            api_vs_ref[k].append(api[k][-1] / ref[k][-1])
        for _ in range(reps_per_round):
            compile_ms["compile"].append(1e3 * _timed(lambda: problem_and_compile(domain, async9)))
            compile_ms["load"].append(1e3 * _timed(lambda: robotouille.load(async9, domain_file())))
            compile_ms["cold"].append(1e3 * _timed(lambda: cold_load(domain_file(), async9)))

    med = statistics.median
    ks = list(FILES)
    api_m = {k: med(api[k]) for k in ks}
    ref_m = {k: med(ref[k]) for k in ks}
    kern_m = {k: med(kern[k]) for k in ks}
    vs_ref = {k: med(api_vs_ref[k]) for k in ks}
    vs_orig = {k: api_m[k] / ORIGINAL_SYNC9_STEPS_PER_S for k in ks}
    vs_target = {k: kern_m[k] / KERNEL_TARGET_STEPS_PER_S for k in ks}

    def row(cells: list[str]) -> str:
        return "| " + " | ".join(cells) + " |"

    def yes(ok: bool) -> str:
        return "yes" if ok else "**no**"

    out = ["# Robotouille performance report", "", "## Machine", "", *_machine(), ""]
    out += [
        "## Random rollout and kernel throughput",
        "",
        f"Median of {args.rounds} interleaved rounds; per round: {args.api_steps:,} Python API "
        f"steps, {args.ref_steps} reference-interpreter steps, {args.kernel_steps:,} kernel "
        "steps per file. Ratios are taken within each round, then the median.",
        "",
        row(["Measure", "sync/9", "async/9", "Target", "Met"]),
        row(["---", "---:", "---:", "---", "---"]),
        row(["Python API random rollout (steps/s)", *(_fmt_rate(api_m[k]) for k in ks), "", ""]),
        row(
            [
                "Reference interpreter, same policy (steps/s)",
                *(_fmt_rate(ref_m[k]) for k in ks),
                "",
                "",
            ]
        ),
        row(
            [
                "Python API vs reference interpreter (measured)",
                *(_fmt_ratio(vs_ref[k]) for k in ks),
                "",
                "",
            ]
        ),
        row(
            [
                "Original engine (stated in the issue; not run here)",
                f"~{ORIGINAL_SYNC9_STEPS_PER_S:.0f}",
                f"< {ORIGINAL_SYNC9_STEPS_PER_S:.0f}",
                "",
                "",
            ]
        ),
        row(
            [
                f"Python API vs original (÷ {ORIGINAL_SYNC9_STEPS_PER_S:.0f} steps/s)",
                _fmt_ratio(vs_orig["sync9"]),
                "> " + _fmt_ratio(vs_orig["async9"]),
                f">= {API_TARGET_RATIO:.0f}x",
                yes(min(vs_orig.values()) >= API_TARGET_RATIO),
            ]
        ),
        row(
            [
                "Raw C++ kernel, 1 core (steps/s)",
                *(_fmt_rate(kern_m[k]) for k in ks),
                f">= {KERNEL_TARGET_STEPS_PER_S:,.0f}",
                yes(min(kern_m.values()) >= KERNEL_TARGET_STEPS_PER_S),
            ]
        ),
        row(
            [
                "Kernel vs 1,000,000 steps/s target",
                *(_fmt_ratio(vs_target[k]) for k in ks),
                ">= 1x",
                yes(min(vs_target.values()) >= 1.0),
            ]
        ),
        "",
        "## Load + compile of async/9",
        "",
        f"Median of {len(compile_ms['cold'])} loads each, interleaved with the rounds above.",
        "",
        row(["Path", "ms (median)", "min ms", "Target", "Met"]),
        row(["---", "---:", "---:", "---", "---"]),
    ]
    names = {
        "compile": "load_problem + compile_task (domain already loaded)",
        "load": "robotouille.load (domain cached by path)",
        "cold": "load_domain + load_problem + compile_task + Env (nothing cached)",
    }
    for key, label in names.items():
        m = med(compile_ms[key])
        out.append(
            row(
                [
                    label,
                    f"{m:.1f}",
                    f"{min(compile_ms[key]):.1f}",
                    f"< {COMPILE_TARGET_MS:.0f}",
                    yes(m < COMPILE_TARGET_MS),
                ]
            )
        )
    out += ["", "Spread over rounds (min - max):", ""]
    for label, series in (
        ("Python API steps/s", api),
        ("reference interpreter steps/s", ref),
        ("Python API vs reference", api_vs_ref),
        ("kernel steps/s", kern),
    ):
        ranges = ", ".join(f"{LABELS[k]} {min(series[k]):,.0f} - {max(series[k]):,.0f}" for k in ks)
        out.append(f"- {label}: {ranges}")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    out += [
        "",
        f"Load average at end (1/5/15 min): {load}. The original engine cannot be run here; "
        f"its ~{ORIGINAL_SYNC9_STEPS_PER_S:.0f} steps/s on sync/9 (fewer on async/9) is the "
        "figure given in the issue, so 'vs original' divides by that figure for both files "
        "(a lower bound for async/9).",
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
