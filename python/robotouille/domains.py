"""Locating the domain and environment files bundled with the package.

An installed package carries the repository's ``domains/`` directory as
``robotouille/_data/domains/`` (put there by the CMake install rule). When running from a source
checkout (``PYTHONPATH=python``) the files are read from ``<repo>/domains/`` instead.
"""

from __future__ import annotations

from pathlib import Path

DOMAIN_NAME = "robotouille"
_DOMAIN_FILE = "domain.json"
_TASKS_DIR = "tasks"


def _candidate_dirs() -> tuple[Path, ...]:
    """Directories that may hold the bundled domain, in lookup order."""
    module = Path(__file__).resolve()
    return (
        module.parent / "_data" / "domains" / DOMAIN_NAME,  # installed package
        module.parents[2] / "domains" / DOMAIN_NAME,  # source checkout: <repo>/domains
    )


def _bundle_dir() -> Path:
    """The first candidate directory that holds the domain file.

    Raises:
        FileNotFoundError: No candidate directory holds it.
    """
    candidates = _candidate_dirs()
    for directory in candidates:
        if (directory / _DOMAIN_FILE).is_file():
            return directory
    searched = ", ".join(str(d / _DOMAIN_FILE) for d in candidates)
    raise FileNotFoundError(f"bundled domain file not found (searched: {searched})")


def default_domain_path() -> Path:
    """Returns the path of the bundled Robotouille domain file.

    Returns:
        Path of ``domain.json``, from the installed package data if present, else from the
        source checkout.

    Raises:
        FileNotFoundError: Neither location holds the domain file.
    """
    return _bundle_dir() / _DOMAIN_FILE


def list_bundled_environments() -> list[str]:
    """Returns the names of the bundled environment (task) files.

    Returns:
        Sorted names of the files in the bundle's ``tasks/`` folder and its subfolders: the
        path relative to it without ``.json``, e.g. ``cheese_sandwich`` and
        ``synchronous/0_cheese_sandwich`` (empty if it has none).

    Raises:
        FileNotFoundError: The bundled domain cannot be found.
    """
    tasks = _bundle_dir() / _TASKS_DIR
    if not tasks.is_dir():
        return []
    files = (p for p in tasks.rglob("*.json") if p.is_file())
    return sorted(p.relative_to(tasks).with_suffix("").as_posix() for p in files)


def bundled_environment_path(name: str) -> Path:
    """Returns the path of a bundled environment (task) file.

    Args:
        name: The environment's name, e.g. ``"cheese_sandwich"`` or
            ``"asynchronous/5_potato_soup"`` (a ``.json`` suffix is accepted and ignored).

    Returns:
        Path of ``tasks/<name>.json`` next to the file :func:`default_domain_path` returns.

    Raises:
        FileNotFoundError: There is no bundled environment of that name; the message lists the
            available names.
    """
    stem = name.removesuffix(".json")
    available = list_bundled_environments()
    if stem not in available:
        listed = ", ".join(available) or "none"
        raise FileNotFoundError(f"no bundled environment named {name!r} (available: {listed})")
    return _bundle_dir() / _TASKS_DIR / f"{stem}.json"
