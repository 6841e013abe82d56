"""Fixtures for the benchmarks: the shared data folder, the two original files, a seeded RNG.

The benchmarks need the original Robotouille files from the read-only shared folder
(``$ROBOTOUILLE_SHARED`` or ``<repo>/../shared``); without them every benchmark is skipped.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from robotouille.domain import Domain, load_domain
from workloads import FILES, domain_file, env_file, missing_data, shared_dir

SEED = 20240601
"""Seed of the random policy (each benchmark gets a fresh generator)."""


@pytest.fixture(scope="session")
def shared_path() -> Path:
    """The shared data folder; skips the benchmark when the original files are absent."""
    reason = missing_data()
    if reason is not None:
        pytest.skip(reason)
    return shared_dir()


@pytest.fixture(scope="session")
def domain_path(shared_path: Path) -> Path:
    """The original domain file."""
    del shared_path
    return domain_file()


@pytest.fixture(scope="session")
def domain(domain_path: Path) -> Domain:
    """The original domain, parsed once per session."""
    return load_domain(domain_path)


@pytest.fixture(scope="session")
def env_paths(shared_path: Path) -> dict[str, Path]:
    """The two environment files of the performance section, by key (``sync9``, ``async9``)."""
    del shared_path
    return {key: env_file(key) for key in FILES}


@pytest.fixture(params=sorted(FILES, reverse=True))
def file_key(request: pytest.FixtureRequest) -> str:
    """Parametrizes a benchmark over ``sync9`` and ``async9``."""
    key: str = request.param
    return key


@pytest.fixture
def env_path(env_paths: dict[str, Path], file_key: str) -> Path:
    """The environment file of the current parameter."""
    return env_paths[file_key]


@pytest.fixture
def rng() -> random.Random:
    """A freshly seeded generator for the random policy."""
    return random.Random(SEED)
