"""A command's flags declared once: the fields of its frozen settings, each with its typer option.

A command used to list every flag three times: as a parameter of the typer function, as a
field of its settings dataclass, and in the call that built one from the other (each
default twice).  Now the settings class is the declaration — field order is the order
``--help`` lists them, the field's ``Annotated[...]`` type carries the ``typer.Option`` /
``typer.Argument`` and its default is the flag's — and :func:`settings_command` makes the
typer command from it: typer reads the signature built from the fields, the command builds
the settings and exits with what the body returns, under :func:`~agenteval.cli.guard.guard`
(``--verbose``, a field of every settings class, says whether tracebacks are shown).

Repeatable flags are ``tuple[...]`` fields (the settings stay immutable); typer is shown
``list[...]``, the type it knows for a repeatable option, and the lists it passes become
tuples again.

Flags that several commands list alike, in the same order, are a flag group: a frozen
dataclass of such fields, held by a field of the settings whose type is that class.  Its
flags stand where the field stands (``--help`` order and all) and come back as one group
object, so the commands declare the run of flags once (``options.CaseInputFlags``).

Tested in tests/cli/test_flags.py (and every command's end-to-end tests in tests/cli/).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any, Protocol, TypeVar, cast, get_args, get_origin, get_type_hints

import typer

from agenteval.cli.guard import exit_with
from agenteval.cli.options import side_files_command


class CommandSettings(Protocol):
    """What :func:`settings_command` needs of a settings class: a ``verbose`` flag."""

    @property
    def verbose(self) -> bool:
        """Show tracebacks on errors."""


S = TypeVar("S", bound=CommandSettings)


def _for_typer(hint: Any) -> Any:
    """``Annotated[tuple[X, ...], option]`` as typer knows a repeatable option: ``list[X]``."""
    if get_origin(hint) is not Annotated:
        return hint
    kind, *options = get_args(hint)
    if get_origin(kind) is tuple:
        return Annotated[(list[get_args(kind)[0]], *options)]  # type: ignore[misc]
    return hint


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default is not dataclasses.MISSING:
        return list(field.default) if isinstance(field.default, tuple) else field.default
    return inspect.Parameter.empty


def _group(hint: Any) -> type[Any] | None:
    """The flag group a field holds (its type is a dataclass), else None."""
    return hint if isinstance(hint, type) and dataclasses.is_dataclass(hint) else None


def flag_parameters(settings: type[Any]) -> list[inspect.Parameter]:
    """The typer parameters of ``settings``' fields, in their order (a group's in its place)."""
    hints = get_type_hints(settings, include_extras=True)
    parameters: list[inspect.Parameter] = []
    for field in dataclasses.fields(settings):
        group = _group(hints[field.name])
        if group is not None:
            parameters += flag_parameters(group)
            continue
        keyword = inspect.Parameter.KEYWORD_ONLY
        annotation = _for_typer(hints[field.name])
        parameters.append(
            inspect.Parameter(field.name, keyword, annotation=annotation, default=_default(field))
        )
    return parameters


def parse_flags(settings: type[S], given: dict[str, Any]) -> S:
    """The frozen settings of the values typer parsed (repeatable ones become tuples)."""
    return cast(S, _parsed(settings, given))


def _parsed(settings: type[Any], given: dict[str, Any]) -> Any:
    """``settings`` of its fields' values in ``given``; a flag group of its own fields'."""
    hints = get_type_hints(settings, include_extras=True)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(settings):
        group = _group(hints[field.name])
        value = _parsed(group, given) if group is not None else given[field.name]
        values[field.name] = tuple(value) if isinstance(value, list) else value
    return settings(**values)


def settings_command(
    settings: type[S],
    body: Callable[[S], int],
    *,
    doc: str,
    side_flag: str | None = None,
) -> Callable[..., None]:
    """The typer command for ``settings``: parse its flags, run ``body``, exit with its code.

    ``side_flag``: the option naming one side of a comparison (``--new``), which takes every
    file after it (options.side_files); the program registers the command with the class
    in its ``command_class`` attribute (None: typer's own)."""
    command = context_settings_command(settings, lambda flags, _ctx: body(flags), doc=doc)
    command_class = side_files_command(side_flag) if side_flag is not None else None
    command.command_class = command_class  # type: ignore[attr-defined]
    return command


def context_settings_command(
    settings: type[S], body: Callable[[S, typer.Context], int], *, doc: str
) -> Callable[..., None]:
    """:func:`settings_command` for a body that reads the command's context as well."""

    def command(ctx: typer.Context, **given: Any) -> None:
        flags = parse_flags(settings, given)
        exit_with(flags.verbose, partial(body, flags, ctx))

    context = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    parameters = flag_parameters(settings)
    command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [context.replace(annotation=typer.Context), *parameters]
    )
    command.__annotations__ = {"ctx": typer.Context, **{p.name: p.annotation for p in parameters}}
    command.__doc__ = doc
    return command


__all__ = [
    "CommandSettings",
    "context_settings_command",
    "flag_parameters",
    "parse_flags",
    "settings_command",
]
