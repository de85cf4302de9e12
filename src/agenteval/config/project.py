"""The project file: the nearest ``agenteval.toml`` or ``pyproject.toml`` with agenteval settings.

Searched from the working directory upwards; in each directory ``agenteval.toml`` is read
before ``pyproject.toml``, and the first file holding agenteval settings decides (a
``pyproject.toml`` without a ``[tool.agenteval]`` table is passed over).  A ``[tool.agenteval]``
table in a ``pyproject.toml`` beside an ``agenteval.toml`` is not read, and says so: a
warning (:meth:`ProjectFile.warnings`) naming both files.  An
``agenteval.toml`` holds the keys at its top level or under ``[tool.agenteval]``.

This module is the one reader of those files: the store URL (store/urls.py), ``run``'s
defaults (config/run_settings.py) and the pytest plugin all come through it.

Tested in tests/config/test_project.py.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agenteval.errors import ConfigError, Problem

# Names of the files read, in the order they are tried in one directory.
PROJECT_FILES = ("agenteval.toml", "pyproject.toml")
TABLE = "tool.agenteval"


@dataclass(frozen=True, slots=True)
class ProjectFile:
    """A project file's agenteval settings: the file, its directory, the table, where it sits."""

    path: Path
    table: Mapping[str, Any]
    # "tool.agenteval" or "" for the top level of an agenteval.toml.
    prefix: str
    # A pyproject.toml beside an agenteval.toml whose [tool.agenteval] settings are not read.
    shadowed: Path | None = None

    @property
    def directory(self) -> Path:
        """The directory relative paths in the file are relative to."""
        return self.path.parent

    def where(self, key: str) -> str:
        """The TOML path of ``key`` (``tool.agenteval.metrics``), for messages."""
        return f"{self.prefix}.{key}" if self.prefix else key

    def origin(self, key: str) -> str:
        """``file: tool.agenteval.key``: where a value came from."""
        return f"{self.path}: {self.where(key)}"

    def warnings(self) -> list[Problem]:
        """The settings beside this file that are not read (they were ignored without a word)."""
        if self.shadowed is None:
            return []
        message = f"not read: {self.path} beside it gives the settings"
        hint = f"move the settings into {self.path.name}, or delete one of the two"
        return [Problem(str(self.shadowed), TABLE, message, hint)]


def find_project_file(start: Path | None = None) -> ProjectFile | None:
    """The project file in force for ``start`` (default: the working directory), or None."""
    here = (start or Path.cwd()).absolute()
    for directory in (here, *here.parents):
        for name in PROJECT_FILES:
            path = directory / name
            if path.is_file():
                found = read_project_file(path)
                if found is not None:
                    return _with_shadowed(found)
    return None


def _with_shadowed(found: ProjectFile) -> ProjectFile:
    """``found`` knowing the pyproject.toml settings beside an agenteval.toml it overrides."""
    other = found.directory / PROJECT_FILES[1]
    if found.path.name != PROJECT_FILES[0] or not other.is_file():
        return found
    try:
        beside = read_project_file(other)
    except ConfigError:
        return found  # unreadable: not known to hold settings, and not the file in force
    return found if beside is None else replace(found, shadowed=other)


def _text(path: Path) -> str:
    """The text of a project file; ConfigError naming the byte (line and column) that is no
    UTF-8, or what the file is (UTF-16, compressed), not the codec's "in position 29"."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        from agenteval.inputs.input_limits import head_problem, not_utf8_text

        known = head_problem(str(path), data[:8], allow_bom=True)
        problem = known or Problem(str(path), "", not_utf8_text(data, exc), "save it as UTF-8")
        raise ConfigError([problem]) from None


def read_project_file(path: Path) -> ProjectFile | None:
    """The agenteval settings of ``path`` (None: a pyproject.toml without them)."""
    try:
        text = _text(path)
        if text.startswith("\ufeff"):
            # tomllib says "Invalid statement (at line 1, column 1)": name the cause.
            message = "starts with a byte order mark (U+FEFF), which TOML readers refuse"
            raise ConfigError([Problem(str(path), "", message, "save it as UTF-8 without a BOM")])
        data = tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(
            [Problem(str(path), "", f"cannot read the project settings: {exc}")]
        ) from None
    tool = data.get("tool")
    table = tool.get("agenteval") if isinstance(tool, dict) else None
    if isinstance(table, dict):
        stray = [key for key in data if key != "tool"] if path.name == PROJECT_FILES[0] else []
        if stray:
            # Both places in one agenteval.toml: the top-level keys were silently unused.
            raise ConfigError(
                [
                    Problem(
                        str(path),
                        key,
                        f"a top-level key beside [{TABLE}], which the settings are read from",
                        f"move it into [{TABLE}], or drop the table header",
                    )
                    for key in stray
                ]
            )
        return ProjectFile(path, table, TABLE)
    if table is not None:
        raise ConfigError([Problem(str(path), TABLE, "must be a table")])
    if path.name == PROJECT_FILES[0]:
        rest = {key: value for key, value in data.items() if key != "tool"}
        return ProjectFile(path, rest, "")
    return None


__all__ = ["PROJECT_FILES", "TABLE", "ProjectFile", "find_project_file", "read_project_file"]
