"""The benchmark's datasets: tasks x seeds, generated as the original generates them.

A dataset is ``synchronous``, ``asynchronous`` or ``multi_agent``: 10 task files, each turned
into one instance per seed by :func:`robotouille.generate.generate` (the original's procedural
generation, decision D6). The default seeds are the original's evaluation seeds, 42, 84, ...,
420. Multi-agent tasks keep all their robots (the ``keep_all_robots`` extension; the original
drops all but one) and are planned in ``centralized`` mode.

Two sources of task files:

* ``"bundled"`` (default): our own task files, shipped in the package
  (``robotouille/_data/domains/robotouille/tasks/<dataset>/``), with the paper's recipes and
  goal descriptions. The optimal plan length of every instance of the default seeds comes from
  a manifest shipped beside them (computed by our planner; ``benchmarks/dataset_report.py``
  recomputes it), and each instance's step limit is ``ceil(1.5 x optimal)`` (decision D9).
* the path of a checkout of the original project (or of its
  ``environments/env_generator/examples`` folder): its task files, giving the paper's own
  instances. Their optimal lengths are not shipped; :func:`load` computes them with the planner
  when asked (``solve=True``).

A dataset's tasks are the files in its folder whose name starts with a number (the original's
``asynchronous/3.1_…`` and ``multi_agent/multi_…`` files are in no experiment and are left out),
in numeric order.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from .domains import _TASKS_DIR, _bundle_dir
from .env import Env, Mode, PathLike
from .env import load as load_env
from .errors import SearchLimitError, UnsolvableError
from .generate import generate

__all__ = [
    "DATASETS",
    "DEFAULT_SEEDS",
    "Instance",
    "WITNESS_METHODS",
    "Witness",
    "find_witnesses",
    "load",
    "manifest_path",
    "step_limit",
    "task_files",
]

DATASETS: tuple[str, ...] = ("synchronous", "asynchronous", "multi_agent")
"""The benchmark's datasets, 10 tasks each."""

DEFAULT_SEEDS: tuple[int, ...] = tuple(range(42, 421, 42))
"""The original's evaluation seeds (every experiment config): 42, 84, ..., 420."""

STEP_LIMIT_FACTOR = 1.5
"""An instance's step limit is ``ceil(STEP_LIMIT_FACTOR x optimal length)`` (the paper's rule)."""

_MANIFEST = "manifest.json"
_TASK_NAME = re.compile(r"^(\d+)_")

Source = Literal["bundled"] | PathLike


WITNESS_METHODS: tuple[float | str, ...] = (1.0625, "agenda")
""":func:`find_witnesses`'s default methods, tried in turn: weighted A* with w = 17/16 finds the
shorter plan where it finishes (the bundled multi_agent/10 seed 168: 67 steps, optimum 65); the
agenda finishes where it does not (seeds 84 and 126)."""


@dataclass(frozen=True)
class Witness:
    """A plan that proves an instance solvable without proving it optimal.

    Attributes:
        actions: The plan's steps, replayable with ``env.step`` from the instance's initial
            state: action texts, or ``(action name, arguments)`` where a step's text also names
            a valid action listed before it (as :attr:`robotouille.Plan.actions`).
        algorithm: How it was found: ``"agenda"``, or ``"astar, weight 17/16"`` for weighted
            A* (a plan at most that many times the optimum).
        seconds: The seconds its search took, where known.
    """

    actions: tuple[Any, ...]
    algorithm: str
    seconds: float | None = None

    @property
    def length(self) -> int:
        """The plan's number of steps: an upper bound on the optimal length."""
        return len(self.actions)


@dataclass(frozen=True)
class Instance:
    """One benchmark instance: a task file generated with a seed.

    Attributes:
        dataset: ``synchronous``, ``asynchronous`` or ``multi_agent``.
        task: The task's name, its file name without ``.json`` (e.g. ``0_cheese_sandwich``).
        seed: The requested seed.
        effective_seed: The seed the generator succeeded with (the original retries failed
            seeds with ``seed + 1``).
        environment: The generated environment JSON; load it with :meth:`load`.
        task_file: The task file it was generated from.
        mode: The multi-robot mode its optimal length is measured in (``centralized``).
        optimal_length: The optimal plan length from the initial state, or ``None`` when it is
            not known (not in the manifest, or the planner stopped at its limit).
        step_limit: ``ceil(1.5 x optimal_length)``, or ``None`` with it.
        lower_bound: A proven lower bound on the optimal length (the optimal length where it
            is known), or ``None``.
        upper_bound: The length of a known plan (the optimal length where it is known; else
            :attr:`witness`'s), or ``None``. Where the optimum is unknown the paper's step
            limit is too; ``ceil(1.5 x upper_bound)`` is a generous stand-in.
        witness: Where the optimum is unknown, a plan that reaches the goal (the manifest's, or
            one :func:`find_witnesses` found), or ``None``.
    """

    dataset: str
    task: str
    seed: int
    effective_seed: int
    environment: dict[str, Any]
    task_file: Path
    mode: Mode
    optimal_length: int | None
    step_limit: int | None
    lower_bound: int | None = None
    upper_bound: int | None = None
    witness: Witness | None = None

    @property
    def key(self) -> str:
        """``dataset/task:seed``, the instance's name in the manifest and in reports."""
        return _key(self.dataset, self.task, self.seed)

    def load(self, domain_file: PathLike | dict[str, Any] | None = None, **kwargs: Any) -> Env:
        """Loads the instance, with its step limit and mode unless given.

        Args:
            domain_file: A domain JSON file or dict; defaults to the bundled domain.
            **kwargs: Further keyword arguments of :func:`robotouille.load` (``max_steps``
                defaults to :attr:`step_limit`, ``mode`` to :attr:`mode`).

        Returns:
            The instance's environment in its initial state.
        """
        kwargs.setdefault("max_steps", self.step_limit)
        kwargs.setdefault("mode", self.mode)
        return load_env(self.environment, domain_file, **kwargs)


def step_limit(optimal_length: int) -> int:
    """The benchmark's step limit for an instance: ``ceil(1.5 x optimal_length)``.

    Args:
        optimal_length: The instance's optimal plan length (non-negative).

    Returns:
        The step limit; at least 1, so that an instance solved at the start still allows a step.
    """
    if optimal_length < 0:
        raise ValueError(f"optimal_length must be non-negative, got {optimal_length}")
    return max(1, math.ceil(STEP_LIMIT_FACTOR * optimal_length))


def manifest_path() -> Path:
    """Returns the path of the bundled manifest of optimal lengths."""
    return _bundle_dir() / _MANIFEST


def task_files(dataset: str, source: Source = "bundled") -> list[Path]:
    """Returns a dataset's task files in task order.

    Args:
        dataset: ``synchronous``, ``asynchronous``, ``multi_agent``, or a training set
            (``synchronous_train``, ``asynchronous_train``).
        source: ``"bundled"``, or the path of an original checkout or of its
            ``environments/env_generator/examples`` folder.

    Returns:
        The files whose name starts with a number, ordered by that number.

    Raises:
        ValueError: Unknown dataset.
        FileNotFoundError: The source has no folder for the dataset.
    """
    files = [p for p in _dataset_dir(dataset, source).glob("*.json") if _number(p)]
    return sorted(files, key=lambda p: (int(_number(p)), p.name))


def load(
    dataset: str,
    source: Source = "bundled",
    *,
    seeds: Sequence[int] = DEFAULT_SEEDS,
    tasks: Sequence[str] | None = None,
    solve: bool = False,
    threads: int | None = None,
    time_limit: float | None = None,
    progress: bool | None = None,
) -> list[Instance]:
    """Generates a dataset's instances: every task with every seed.

    Args:
        dataset: ``synchronous``, ``asynchronous`` or ``multi_agent`` (or a training set,
            ``synchronous_train`` / ``asynchronous_train``).
        source: ``"bundled"`` (our task files, with the manifest's optimal lengths) or the
            path of an original checkout (its task files: the paper's instances).
        seeds: The seeds, default the original's 42, 84, ..., 420.
        tasks: Task names (or their leading numbers, e.g. ``"3"``) to keep; default all.
        solve: Compute with the planner the optimal length of every instance the manifest does
            not give (A*, one search per thread). Instances whose search stops at
            ``time_limit`` keep ``None``, with the bound it proved as ``lower_bound``.
        threads: Planner threads for ``solve`` (default: the number of CPUs).
        time_limit: Seconds per search for ``solve`` (default: none).
        progress: Progress line on stderr while solving (default: when stderr is a terminal).

    Returns:
        The instances, task by task, seeds in the order given.

    Raises:
        ValueError: Unknown dataset or task.
        FileNotFoundError: The source has no folder for the dataset.
        SpecError: A task file is malformed.
    """
    files = task_files(dataset, source)
    if tasks is not None:
        wanted = {str(t) for t in tasks}
        unknown = wanted - {p.stem for p in files} - {_number(p) for p in files}
        if unknown:
            names = ", ".join(p.stem for p in files)
            raise ValueError(f"unknown task(s) {sorted(unknown)} in {dataset} (tasks: {names})")
        files = [p for p in files if p.stem in wanted or _number(p) in wanted]
    bounds = _manifest_bounds() if source == "bundled" else {}
    multi = dataset.startswith("multi_agent")
    instances = []
    for path in files:
        for seed in seeds:
            generated = generate(path, seed, keep_all_robots=multi)
            lower, optimal, upper, witness = bounds.get(
                _key(dataset, path.stem, seed), (None, None, None, None)
            )
            instances.append(
                Instance(
                    dataset=dataset,
                    task=path.stem,
                    seed=seed,
                    effective_seed=generated.effective_seed,
                    environment=generated.environment,
                    task_file=path,
                    mode="centralized",
                    optimal_length=optimal,
                    step_limit=None if optimal is None else step_limit(optimal),
                    lower_bound=lower,
                    upper_bound=upper,
                    witness=witness,
                )
            )
    if solve:
        instances = _solve(instances, threads=threads, time_limit=time_limit, progress=progress)
    return instances


def _solve(
    instances: list[Instance],
    *,
    threads: int | None,
    time_limit: float | None,
    progress: bool | None,
) -> list[Instance]:
    """Fills in the optimal lengths the instances lack, with the planner."""
    from .planning import Plan, plan_many  # the planner loads its tables lazily

    todo = [i for i, inst in enumerate(instances) if inst.optimal_length is None]
    envs = [instances[i].load() for i in todo]
    results = plan_many(
        envs, threads=threads, time_limit=time_limit, progress=progress, return_exceptions=True
    )
    solved = list(instances)
    for index, result in zip(todo, results):
        if isinstance(result, Plan):
            solved[index] = _with_optimum(instances[index], result.length)
        elif isinstance(result, SearchLimitError):
            proven = max(instances[index].lower_bound or 0, result.stats.bound)  # type: ignore[attr-defined]
            solved[index] = replace(instances[index], lower_bound=proven)
        else:
            raise result
    return solved


def _with_optimum(instance: Instance, length: int) -> Instance:
    """The instance with its optimal length known (a witness then says nothing more)."""
    return replace(
        instance,
        optimal_length=length,
        step_limit=step_limit(length),
        lower_bound=length,
        upper_bound=length,
        witness=None,
    )


def find_witnesses(
    instances: Sequence[Instance],
    *,
    methods: Sequence[float | str] = WITNESS_METHODS,
    threads: int | None = None,
    time_limit: float | None = None,
    max_memory_bytes: int | None = None,
    progress: bool | None = None,
    improve: bool = False,
) -> list[Instance]:
    """Plans, for the instances without an optimal length, a plan that proves them solvable.

    Where exact search gives up (the largest multi-agent tasks can take hours), a plan that
    need not be optimal still brackets the optimum between the proven lower bound and its
    length, and gives a stand-in step limit, ``ceil(1.5 x upper_bound)``. Every method is tried
    on every such instance (one search per thread, see :func:`robotouille.plan_many`), and the
    shortest plan found is kept as :attr:`Instance.witness`, its length as
    :attr:`Instance.upper_bound`. A witness as long as the proven lower bound is optimal: that
    instance gets its optimal length and step limit instead.

    Args:
        instances: Instances, e.g. from :func:`load` with ``solve=True`` and a time limit.
        methods: How to plan, each in turn: a weight above 1 (weighted A*, a plan at most that
            many times the optimum) or ``"agenda"`` (the goal a few atoms at a time; see
            :func:`robotouille.plan`).
        threads: Planner threads (default: the number of CPUs).
        time_limit: Seconds per search (default: none; on the largest tasks give one: weighted
            A* may then search until the memory budget stops it).
        max_memory_bytes: Memory budget per search (default: :func:`robotouille.plan_many`'s).
        progress: Progress line on stderr (default: when stderr is a terminal).
        improve: Plan the instances that already have a witness again too, keeping the
            shorter plan (by default they are left as they are).

    Returns:
        The instances in the same order, with the witnesses found.

    Raises:
        ValueError: A method is neither ``"agenda"`` nor a weight above 1 and at most 64.
        UnsolvableError: An instance's goal cannot be reached (the search proved it).
    """
    from .planning import Plan, plan_many  # the planner loads its tables lazily

    arguments = [_witness_arguments(method) for method in methods]  # all checked first
    result = list(instances)
    todo = [
        i
        for i, inst in enumerate(result)
        if inst.optimal_length is None and (improve or inst.witness is None)
    ]
    envs = [result[i].load() for i in todo]  # planning leaves them as they are: load once
    for method in arguments if todo else []:
        plans = plan_many(
            envs,
            threads=threads,
            time_limit=time_limit,
            max_memory_bytes=max_memory_bytes,
            progress=progress,
            return_exceptions=True,
            **method,
        )
        for index, found in zip(todo, plans):
            if isinstance(found, UnsolvableError):
                raise found
            if isinstance(found, SearchLimitError):
                continue  # no plan from this method within the limits
            if not isinstance(found, Plan):
                raise found
            inst = result[index]
            if inst.upper_bound is not None and found.length >= inst.upper_bound:
                continue
            algorithm = "agenda" if found.algorithm == "agenda" else f"astar, weight {found.weight}"
            witness = Witness(tuple(found.actions), algorithm, round(found.stats.seconds, 3))
            result[index] = replace(inst, upper_bound=witness.length, witness=witness)
            if witness.length == inst.lower_bound:
                result[index] = _with_optimum(result[index], witness.length)
    return result


def _witness_arguments(method: float | str) -> dict[str, Any]:
    """:func:`robotouille.plan_many`'s arguments for one of :func:`find_witnesses`'s methods."""
    from .planning import _weight_ratio

    if method == "agenda":
        return {"algorithm": "agenda"}
    try:
        ratio = None if isinstance(method, str) else _weight_ratio(method)
    except ValueError:
        ratio = None
    if ratio is None or ratio <= 1:  # (weights round to 1/64ths: 1.001 is exact search)
        raise ValueError(
            "a witness method is 'agenda' or a weight above 1 and at most 64 (1 is exact "
            f"search), got {method!r}"
        )
    return {"algorithm": "astar", "weight": method}


def _key(dataset: str, task: str, seed: int) -> str:
    return f"{dataset}/{task}:{seed}"


def _number(path: Path) -> str:
    match = _TASK_NAME.match(path.name)
    return match[1] if match else ""


def _dataset_dir(dataset: str, source: Source) -> Path:
    known = (*DATASETS, "synchronous_train", "asynchronous_train")
    if dataset not in known:
        raise ValueError(f"unknown dataset {dataset!r} (datasets: {', '.join(known)})")
    if source == "bundled":
        return _bundle_dir() / _TASKS_DIR / dataset
    root = Path(os.fspath(source))
    for candidate in (
        root / dataset,
        root / "environments" / "env_generator" / "examples" / dataset,
    ):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"no {dataset} folder in {root} (looked for {dataset}/ and "
        f"environments/env_generator/examples/{dataset}/)"
    )


_Bounds = tuple[int | None, int | None, int | None, Witness | None]
_manifest_cache: dict[str, _Bounds] | None = None


def _manifest_bounds() -> dict[str, _Bounds]:
    """``dataset/task:seed`` → (lower bound, optimal length, upper bound, witness)."""
    global _manifest_cache
    if _manifest_cache is None:
        path = manifest_path()
        entries = json.loads(path.read_text())["instances"] if path.is_file() else []
        _manifest_cache = {}
        for e in entries:
            optimal = e.get("optimal_length")
            witness = None
            if "witness" in e:
                witness = Witness(
                    tuple(_step_from_manifest(step) for step in e["witness"]),
                    e.get("witness_algorithm", "unknown"),
                    e.get("witness_seconds"),
                )
            _manifest_cache[e["key"]] = (
                e.get("lower_bound", optimal),
                optimal,
                e.get("upper_bound", optimal),
                witness,
            )
    return _manifest_cache


def _step_from_manifest(step: Any) -> Any:
    """A manifest's witness step (a text, or ``{"action", "args"}``) as ``env.step`` takes it.

    Structured steps become ``(name, arguments)``, as in :attr:`Witness.actions`.
    """
    if isinstance(step, str):
        return step
    return (step["action"], tuple(step["args"]))
