"""Where the project config meets the command line: ``run``'s defaults and ``--show-config``.

The group callback calls :func:`install_defaults` before the subcommand parses its
options (click builds the subcommand's context after the group's callback, reading
``default_map`` from the group's context), so the file's values are ordinary defaults
and click's own parameter sources say where each value came from.

Tested in tests/cli/test_project_config.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agenteval.errors import ConfigError, Problem
from agenteval.inputs.safe_text import escape_control

if TYPE_CHECKING:
    from agenteval.config.run_settings import ProjectDefaults

# The commands whose options the project file gives defaults to (validate: the keys it shares).
COMMANDS = ("run", "validate")
_META = "agenteval.project_defaults"


def install_defaults(ctx: Any) -> None:
    """Give the invoked subcommand the project file's defaults (ConfigError if the file is bad)."""
    name = ctx.invoked_subcommand
    if name not in COMMANDS:
        return  # other commands do not pay for the import
    from agenteval.cli.program import command_named
    from agenteval.config.run_settings import project_defaults

    defaults = project_defaults(command_named(ctx, "run"))
    remember_defaults(ctx, defaults)
    if defaults.file is not None:
        from agenteval.cli.guard import print_warnings

        print_warnings(defaults.file.warnings(), verbose=False)  # never hidden: not by --quiet
    if not defaults.values:
        return
    command = command_named(ctx, name)
    own = {param.name for param in command.params}
    ctx.default_map = {name: {k: v for k, v in defaults.values.items() if k in own}}


def remember_defaults(ctx: Any, defaults: ProjectDefaults) -> None:
    """Keep ``defaults`` with ``ctx`` (and the contexts under it) for :func:`file_key`."""
    ctx.meta[_META] = defaults


def file_key(ctx: Any, name: str) -> tuple[str, str] | None:
    """(file, ``tool.agenteval.KEY``) of parameter ``name`` when the project file gave its
    value, else None: a value the file gave and the option refuses (``judge-timeout = inf``)
    is the file's problem, not a flag's nobody typed."""
    if ctx is None or getattr(ctx.get_parameter_source(name), "name", "") != "DEFAULT_MAP":
        return None
    defaults: ProjectDefaults | None = ctx.meta.get(_META)
    if defaults is None or defaults.file is None or name not in defaults.keys:
        return None
    return str(defaults.file.path), defaults.file.where(defaults.keys[name])


def given_by(ctx: Any, name: str) -> tuple[str, str] | None:
    """(file, path) of what gave parameter ``name`` its value when no flag did: the option's
    environment variable (``$AGENTEVAL_STRICT``, "") or the project file's key; else None."""
    if ctx is None:
        return None
    if getattr(ctx.get_parameter_source(name), "name", "") == "ENVIRONMENT":
        param = next(p for p in ctx.command.params if p.name == name)
        return f"${param.envvar}", ""
    return file_key(ctx, name)


def _located(ctx: Any, problem: Problem) -> Problem:
    """``problem`` naming where its value came from when that was not a flag typed."""
    for param in ctx.command.params:
        if problem.file in getattr(param, "opts", ()):  # `--shard: …` about a value
            found = given_by(ctx, param.name)
            if found is not None:
                said = f"{problem.path}: {problem.message}" if problem.path else problem.message
                return Problem(*found, said, problem.hint)
        elif not problem.path and _names(ctx.params.get(param.name), problem.file):
            # `../nothere: file not found`: the key that named the missing file is the fix.
            found = given_by(ctx, param.name)
            if found is not None and not Path(problem.file).exists():
                return Problem(*found, f"{problem.file}: {problem.message}", problem.hint)
    return problem


def _names(value: Any, file: str) -> bool:
    values = value if isinstance(value, (list, tuple)) else (value,)
    return any(item is not None and str(item) == file for item in values)


@contextmanager
def located_in_sources(ctx: Any) -> Iterator[None]:
    """Problems raised inside about a value the project file or an environment variable gave
    (``--shard: …``, ``../nothere: file not found``) name that key or variable, not a flag
    nobody typed: later checks than the option's own (:func:`agenteval.cli.usage`) name the
    flag, as they must when it was typed."""
    try:
        yield
    except ConfigError as exc:
        problems = [_located(ctx, problem) for problem in exc.problems]
        if problems == exc.problems:
            raise
        raise ConfigError(problems, exc.warnings, exc.causes) from exc


# How strongly each of click's parameter sources speaks (compared by name: typer ships its
# own copy of click): a flag, then an option's environment variable, then the file.
_SOURCE_RANK = {"COMMANDLINE": 3, "ENVIRONMENT": 2, "DEFAULT_MAP": 1}

S = TypeVar("S")


def _rank(ctx: Any, name: str) -> int:
    return _SOURCE_RANK.get(getattr(ctx.get_parameter_source(name), "name", ""), 0)


def strictness_by_source(settings: S, ctx: Any) -> S:
    """``settings`` with the weaker of ``strict`` and ``lenient`` dropped when both are set
    from sources of different rank: they are one choice, so ``--lenient`` on the command
    line overrides ``strict = true`` in the project file (it was refused as a conflict)."""
    inputs = settings.inputs  # type: ignore[attr-defined]
    if not (inputs.strict and inputs.lenient):
        return settings
    strict, lenient = _rank(ctx, "strict"), _rank(ctx, "lenient")
    if strict == lenient:
        return settings  # both from one place: a real conflict, refused later
    kept = replace(inputs, strict=strict > lenient, lenient=lenient > strict)
    # --show-config prints ctx.params: the value in force, not the one overridden.
    ctx.params.update(strict=kept.strict, lenient=kept.lenient)
    return replace(settings, inputs=kept)  # type: ignore[type-var]


def _shown(value: Any) -> str:
    """A value as TOML would spell it (JSON's strings, lists and booleans are TOML's too)."""
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, tuple):
        value = [str(item) if isinstance(item, Path) else item for item in value]
    return escape_control(json.dumps(value, ensure_ascii=False))


def show_config_lines(ctx: Any) -> list[str]:
    """The effective settings of a ``run`` and the source of each, one line per key."""
    from agenteval.config.run_settings import ProjectDefaults, effective_settings
    from agenteval.store.urls import store_setting

    defaults: ProjectDefaults = ctx.meta.get(_META) or ProjectDefaults(None)
    project = defaults.file
    lines = [f"# project file: {escape_control(str(project.path)) if project else '(none)'}"]
    rows: list[tuple[str, str]] = []
    for key, value, origin in effective_settings(ctx, defaults):
        shown = "(not set)" if value is None else _shown(value)
        rows.append((f"{key} = {shown}", escape_control(origin)))
    store = store_setting(ctx.params.get("store"))
    if store is None:
        rows.append(("store = (not set)", "default"))
    else:
        origin = "flag" if store.origin == "--store" else store.origin
        rows.append((f"store = {_shown(store.parse().redacted())}", escape_control(origin)))
    width = max(len(text) for text, _ in rows)
    lines.extend(f"{text.ljust(width)}  # {origin}" for text, origin in rows)
    return lines


def show_config(ctx: Any) -> int:
    """Print :func:`show_config_lines` (``run --show-config``); exit code 0."""
    print("\n".join(show_config_lines(ctx)))
    return 0


__all__ = [
    "COMMANDS",
    "file_key",
    "given_by",
    "install_defaults",
    "located_in_sources",
    "remember_defaults",
    "show_config",
    "show_config_lines",
    "strictness_by_source",
]
