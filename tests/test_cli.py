"""The command line as a whole: every command's help prints."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from robotouille.__main__ import _parser, main
from robotouille.planning import DEFAULT_MEMORY_SHARE


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path of the parser (the top level, then each subcommand, nested)."""
    found = [path]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _commands(sub, (*path, name))
    return found


def test_the_command_list_reaches_every_command() -> None:
    commands = _commands(_parser())
    assert ("plan",) in commands and ("datasets", "show") in commands
    assert len(commands) >= 8


@pytest.mark.parametrize("command", _commands(_parser()), ids=" ".join)
def test_every_command_prints_its_help(command: tuple[str, ...], capsys: Any) -> None:
    # argparse formats help strings with %: an unescaped percent sign in one raised TypeError.
    with pytest.raises(SystemExit) as exited:
        main([*command, "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: robotouille")
    if command == ("plan",):
        assert f"(default: {DEFAULT_MEMORY_SHARE * 100:.0f}% of" in out
