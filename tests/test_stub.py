"""The checked-in stub of the private extension matches what nanobind's stubgen produces."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import robotouille

STUB = Path(robotouille.__file__).with_name("_core.pyi")


@pytest.mark.skipif(importlib.util.find_spec("nanobind") is None, reason="needs nanobind")
def test_core_stub_is_current(tmp_path: Path) -> None:
    from nanobind.stubgen import StubGen

    import robotouille._core as core

    gen = StubGen(core)
    gen.put(core)
    assert STUB.read_text() == gen.get(), (
        "python/robotouille/_core.pyi is stale: regenerate it with "
        "`python -m nanobind.stubgen -m robotouille._core -o python/robotouille/_core.pyi`"
    )
