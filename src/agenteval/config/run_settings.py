"""``agenteval run``'s defaults from the project file: keys, checks, sources, JSON Schema.

The keys are ``run``'s long option names (``evalset``, ``metrics``, ``output``,
``traces-match``, ``concurrency``, …), read off the command itself, so a new option is a
key without a second list to keep.  A repeatable option takes a list; a flag takes
``true``/``false``.  Relative paths are relative to the file that names them.  A ``cmd:``
agent runs in the file's directory.  The
values become the command's ``default_map`` (click's own mechanism: a flag on the
command line wins, then an option's environment variable, then the file, then the
built-in default in settings.py), and ``ctx.get_parameter_source`` says which one gave
each value (``run --show-config``).

``store`` is checked here but resolved by store/urls.py (``--store``, then
``$AGENTEVAL_STORE``, then the file: the environment wins over the file, as for every
other option with a variable).

Every key the command does not have is an error naming the likely key
(inputs/unknown_keys.py), and a value of the wrong type is a located error
(``pyproject.toml: tool.agenteval.concurrency: …``), exit 2.

Tested in tests/config/test_run_settings.py and tests/cli/test_project_config.py.
"""

from __future__ import annotations

import enum
import inspect
import json
import os
import shlex
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    create_model,
)

from agenteval.config.project import ProjectFile, find_project_file
from agenteval.errors import ConfigError, Problem
from agenteval.inputs import locations
from agenteval.inputs.unknown_keys import UnknownKey, closest_key

DRAFT = "https://json-schema.org/draft/2020-12/schema"
# Options that are about this invocation, not a project's defaults.
NOT_SETTINGS = frozenset({"show-config", "watch", "help"})
# Options resolved elsewhere from the same table (store/urls.py: env before file).
OWN_RESOLUTION = frozenset({"store"})
# String options that name files (the Path-typed ones are found by their type).
_PATH_KEYS = frozenset({"evalset", "metrics", "traces", "resume", "cache", "report", "baseline"})


@dataclass(frozen=True, slots=True)
class Setting:
    """One key of the project file: the option it stands for and what its value must be."""

    key: str
    name: str  # the command parameter (click's name; default_map's key)
    annotation: Any
    multiple: bool
    path: bool
    minimum: int | float | None = None


def _long_name(opts: list[str]) -> str | None:
    for opt in opts:
        if opt.startswith("--"):
            return opt[2:]
    return None


def _scalar(hint: Any) -> Any:
    """The value type of a parameter's hint with None and list taken away."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) is list:
        return _scalar(args[0]) if args else str
    if args and typing.get_origin(hint) in (typing.Union, types.UnionType):
        return _scalar(args[0])
    return hint


def run_settings(command: Any) -> dict[str, Setting]:
    """The keys ``command`` (a click command: ``run``) accepts, read off its options."""
    hints = typing.get_type_hints(inspect.unwrap(command.callback))
    found: dict[str, Setting] = {}
    for param in command.params:
        key = _long_name(list(getattr(param, "opts", [])))
        if key is None or key in NOT_SETTINGS or param.name not in hints:
            continue
        scalar = _scalar(hints[param.name])
        if scalar is bool:
            annotation: Any = StrictBool
        elif scalar is int:
            annotation = StrictInt
        elif scalar is float:
            annotation = StrictInt | StrictFloat  # not `true` (1.0) or "30"
        elif isinstance(scalar, type) and issubclass(scalar, enum.Enum):
            annotation = Literal[tuple(member.value for member in scalar)]
        else:
            annotation = StrictStr
        path = scalar is Path or key in _PATH_KEYS or key == "plugin"
        minimum = getattr(param, "min", None)
        found[key] = Setting(key, str(param.name), annotation, bool(param.multiple), path, minimum)
    return found


def settings_model(settings: Mapping[str, Setting]) -> type[BaseModel]:
    """A pydantic model of the table: one optional field per key, no other key."""
    fields: dict[str, Any] = {}
    for setting in settings.values():
        item = setting.annotation
        if setting.minimum is not None:
            item = typing.Annotated[item, Field(ge=setting.minimum)]
        kind = list[item] if setting.multiple else item  # type: ignore[valid-type]
        fields[setting.name] = (kind | None, Field(default=None, alias=setting.key))
    config = ConfigDict(extra="forbid", populate_by_name=False)
    return create_model("RunSettings", __config__=config, **fields)


@dataclass(frozen=True, slots=True)
class ProjectDefaults:
    """``run``'s defaults from a project file: by parameter name, and the key each came from."""

    file: ProjectFile | None
    values: dict[str, Any] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)

    def origin(self, name: str) -> str:
        """``file: tool.agenteval.key`` for a parameter whose default the file gave."""
        assert self.file is not None
        return self.file.origin(self.keys[name])


def _relative(value: str, base: Path, cwd: Path) -> str:
    """``value`` (a path relative to ``base``) as given relative to the working directory."""
    path = Path(value).expanduser()
    if path.is_absolute():
        return str(path)
    return os.path.relpath(base / path, cwd)


# Options whose ``cmd:COMMAND`` runs through the shell in the working directory.
_AGENT_KEYS = frozenset({"agent", "expected-agent"})


def _agent_command(value: str, base: Path, cwd: Path) -> str:
    """A ``cmd:`` agent of the file, run in the file's directory (its paths are relative to
    the file, as every path in it is: from a subdirectory the command was not found)."""
    command = value.removeprefix("cmd:")
    if command == value or base.resolve() == cwd.resolve():
        return value  # agui:URL, or run where the file is
    return f"cmd:cd {shlex.quote(str(base))} && {command}"


def _resolve(setting: Setting, value: Any, base: Path, cwd: Path) -> Any:
    if setting.key in _AGENT_KEYS and isinstance(value, str):
        return _agent_command(value, base, cwd)
    if not setting.path:
        return value
    if isinstance(value, list):
        return [_resolve(setting, item, base, cwd) for item in value]
    if setting.key in ("resume", "baseline") and value.startswith("@"):
        return value  # a stored run, not a file
    if setting.key == "plugin" and not (value.endswith(".py") or "/" in value):
        return value  # a module name
    if setting.key == "report":
        name, equals, file = value.partition("=")  # NAME=FILE: only FILE is a path
        return f"{name}={_relative(file, base, cwd)}" if equals and file else value
    return _relative(value, base, cwd)


def _unknown(project: ProjectFile, key: str, model: type[BaseModel]) -> Problem:
    meant = closest_key(key, model)
    hint = f"did you mean {meant!r}?" if meant else "see `agenteval run --show-config`"
    message = f"{key!r} is not a setting of agenteval run"
    return UnknownKey(str(project.path), project.where(key), message, hint, meant, bool(meant))


def check_table(project: ProjectFile, settings: Mapping[str, Setting]) -> list[Problem]:
    """Every problem of the table: unknown keys (with the likely key) and wrong values."""
    model = settings_model(settings)
    problems: list[Problem] = []
    known = {key: value for key, value in project.table.items() if key in settings}
    for key in project.table:
        if key not in settings:
            problems.append(_unknown(project, key, model))
    try:
        model.model_validate(known)
    except ValidationError as exc:
        for error in exc.errors():
            where = project.where(locations.render(error["loc"]))
            message = error["msg"][:1].lower() + error["msg"][1:]
            hint = 'a repeatable option takes a list: ["…"]' if error["type"] == "list_type" else ""
            problems.append(Problem(str(project.path), where, message, hint))
    return problems


def project_defaults(command: Any, start: Path | None = None) -> ProjectDefaults:
    """The checked defaults the project file at ``start`` gives ``command``; ConfigError if bad."""
    cwd = (start or Path.cwd()).absolute()
    project = find_project_file(cwd)
    if project is None:
        return ProjectDefaults(None)
    settings = run_settings(command)
    problems = check_table(project, settings)
    if problems:
        raise ConfigError(problems)
    values: dict[str, Any] = {}
    keys: dict[str, str] = {}
    for key, value in project.table.items():
        setting = settings[key]
        if key in OWN_RESOLUTION:
            continue
        values[setting.name] = _resolve(setting, value, project.directory, cwd)
        keys[setting.name] = key
    return ProjectDefaults(project, values, keys)


def config_json_schema(command: Any) -> dict[str, Any]:
    """The JSON Schema of the ``[tool.agenteval]`` table / an ``agenteval.toml``."""
    model = settings_model(run_settings(command))
    schema: dict[str, Any] = model.model_json_schema(by_alias=True)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
        prop.pop("default", None)
        # Optional only because a key may be absent; TOML has no null.
        options = [o for o in prop.pop("anyOf", []) if o != {"type": "null"}]
        if len(options) == 1:
            prop.update(options[0])
        elif options:
            prop["anyOf"] = options
    schema.pop("title", None)
    return {"$schema": DRAFT, "title": "agenteval project config ([tool.agenteval])", **schema}


def config_json_schema_text(command: Any) -> str:
    """``config_json_schema`` as the indented text that ships in files."""
    return json.dumps(config_json_schema(command), indent=2, ensure_ascii=False) + "\n"


def effective_settings(ctx: Any, defaults: ProjectDefaults) -> Iterator[tuple[str, Any, str]]:
    """(key, value, source) of every ``run`` setting in force for ``ctx`` (``--show-config``).

    The source is ``flag``, ``$VARIABLE``, ``FILE: tool.agenteval.KEY`` or ``default``.
    """
    for setting in run_settings(ctx.command).values():
        if setting.key in OWN_RESOLUTION:
            continue
        value = ctx.params.get(setting.name)
        # click's ParameterSource, compared by name (typer ships its own copy of click).
        source = getattr(ctx.get_parameter_source(setting.name), "name", "DEFAULT")
        if source == "COMMANDLINE":
            origin = "flag"
        elif source == "ENVIRONMENT":
            param = next(p for p in ctx.command.params if p.name == setting.name)
            origin = f"${param.envvar}"
        elif source == "DEFAULT_MAP":
            origin = defaults.origin(setting.name)
        else:
            origin = "default"
        yield setting.key, value, origin


__all__ = [
    "ProjectDefaults",
    "Setting",
    "check_table",
    "config_json_schema",
    "config_json_schema_text",
    "effective_settings",
    "project_defaults",
    "run_settings",
    "settings_model",
]
