"""Helpers for reading JSON documents with errors that name the file and the JSON path."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import SpecError

JsonSource = str | os.PathLike[str] | Mapping[str, Any]


def read_json(source: JsonSource, what: str) -> tuple[dict[str, Any], str]:
    """Reads a JSON object from a path or takes an already-parsed mapping.

    Args:
        source: A file path, or a mapping that is used as is.
        what: What the document is ("domain", "environment"), for error messages.

    Returns:
        The document and a label for error messages (the path, or ``<what dict>``).

    Raises:
        SpecError: The file is missing, is not UTF-8 JSON, or is not a JSON object.
        TypeError: ``source`` is neither a path nor a mapping.
    """
    if isinstance(source, Mapping):
        return dict(source), f"<{what} dict>"
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(
            f"the {what} must be a file path or a dict, got {type(source).__name__}"
        )
    label = str(source)
    try:
        text = Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(label, "", f"cannot read {what} file: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise SpecError(
            label, "", f"not a UTF-8 text file (byte {exc.start}: {exc.reason})"
        ) from exc
    except ValueError as exc:  # e.g. a path with an embedded NUL character
        raise SpecError(label, "", f"cannot read {what} file: {exc}") from exc
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SpecError(
            label, "", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    except RecursionError as exc:
        raise SpecError(label, "", "JSON nested too deeply") from exc
    if not isinstance(doc, dict):
        raise SpecError(label, "", f"a {what} file must hold a JSON object")
    return doc, label


class Cursor:
    """A position in a JSON document: the value there, the file, and the JSON path to it."""

    __slots__ = ("path", "source", "value")

    def __init__(self, source: str, path: str, value: Any) -> None:
        self.source = source
        self.path = path
        self.value = value

    def error(self, problem: str) -> SpecError:
        """Returns a SpecError located at this cursor."""
        return SpecError(self.source, self.path, problem)

    def key(self, name: str, *, required: bool = True, default: Any = None) -> Cursor:
        """Descends into an object member; a missing required member is an error."""
        if not isinstance(self.value, dict):
            raise self.error(f"expected a JSON object, got {_kind(self.value)}")
        path = f"{self.path}.{name}" if self.path else name
        if name not in self.value:
            if required:
                raise SpecError(self.source, path, "required key is missing")
            return Cursor(self.source, path, default)
        return Cursor(self.source, path, self.value[name])

    def has(self, name: str) -> bool:
        """Whether this object has the member ``name``."""
        return isinstance(self.value, dict) and name in self.value

    def items(self) -> list[Cursor]:
        """The elements of a JSON array, each as a cursor."""
        if not isinstance(self.value, list):
            raise self.error(f"expected a JSON array, got {_kind(self.value)}")
        return [Cursor(self.source, f"{self.path}[{i}]", v) for i, v in enumerate(self.value)]

    def str(self) -> str:
        """The value as a non-empty string."""
        if not isinstance(self.value, str) or not self.value:
            raise self.error(f"expected a non-empty string, got {_kind(self.value)}")
        return self.value

    def int(self) -> int:
        """The value as an integer (booleans are rejected)."""
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise self.error(f"expected an integer, got {_kind(self.value)}")
        return self.value

    def bool(self) -> bool:
        """The value as a boolean."""
        if not isinstance(self.value, bool):
            raise self.error(f"expected true or false, got {_kind(self.value)}")
        return self.value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
