"""The command line's own mistakes as bad input, and usage lines that read as they should.

Click answered a bad command line (a missing ``--case``, ``--last 0``, ``--max-judge-cost
nan``, ``--evalsett``) with its usage block and an ``Error: Invalid value for …`` line,
typer's message inside it a pydantic one ("Input should be greater than or equal to 1").
:class:`ProgramGroup`, the ``agenteval`` group, turns every such error — raised while the
command line is parsed or by a command's own check — into the one problem line every bad
input gets (``--flag: problem (hint)``, then ``1 problem found.``, exit 2: ``guard.bad_input``),
the flag named, the rule said, click's "did you mean" kept as the hint.

Typer wrote a required argument ``{results}...`` in a usage line and ``results...
<list[Path]>`` in the help; the group gives every command's arguments click's own shape:
``RESULT...`` when required, ``[RESULT]...`` when not, the metavar alone in the help.

Tested in tests/cli/test_usage.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer
from typer.core import TyperArgument, TyperGroup

from agenteval.cli.guard import bad_input
from agenteval.errors import Problem

# typer._click (typer's vendored click, private): its exceptions are typer's own.
_click = typer.main._click  # type: ignore[attr-defined]
# What click raises for a bad command line (or a bad default_map value): usage_problem's input.
ClickError: type[Exception] = _click.exceptions.ClickException


class PlainArgument(TyperArgument):
    """A positional argument written as click writes one (``NAME...``, ``[NAME]...``)."""

    def _name(self) -> str:
        name = self.metavar or (self.name or "").upper()
        return f"{name}..." if self.nargs != 1 else name

    def _usage_display_name(self) -> str:
        return self._name() if self.required else f"[{self._name()}]"

    def _rich_display_name(self) -> str:
        return self._name()

    def display_type_rich(self, ctx: Any) -> str | None:
        return None  # the help says what it is; typer's "<list[Path]>" said it again


def _plain_arguments(command: Any) -> None:
    """Every argument of ``command`` and of the commands under it made a :class:`PlainArgument`;
    each command's line in its group's list is its help's first clause (:func:`summary`)."""
    if command.short_help is None and command.help:
        command.short_help = summary(command.help)
    for param in command.params:
        if type(param) is TyperArgument:
            # Typer makes its own class of argument (no hook for another); this one only
            # changes how it is written.
            param.__class__ = PlainArgument
    for sub in getattr(command, "commands", {}).values():
        _plain_arguments(sub)


# Where a help's first sentence or clause ends, and the asides a list line leaves out.
_CLAUSE_END = re.compile(r"[.;:](?:\s|$)")
_ASIDE = re.compile(r"\s*\([^()]*\)")


def summary(help_text: str) -> str:
    """A command's line in its group's list: its help's first clause, asides left out.  Click
    cut each help at the list's width mid-phrase ("Render saved result files exactly like
    a live run; exit..."); the clause reads whole (wrapped when long)."""
    first = _ASIDE.sub("", " ".join(help_text.split("\n\n", 1)[0].split()))
    end = _CLAUSE_END.search(first)
    return first[: end.start()] if end else first


class ProgramGroup(TyperGroup):
    """The ``agenteval`` group: usage errors as problem lines, arguments written plainly."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _plain_arguments(self)

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        with _one_line():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: Any) -> Any:
        with _one_line():
            return super().invoke(ctx)


@contextmanager
def _one_line() -> Iterator[None]:
    try:
        yield
    except _click.exceptions.NoArgsIsHelpError:
        raise  # `agenteval store`: its help, as asked
    except _click.exceptions.ClickException as exc:
        bad_input([usage_problem(exc)])


def usage_problem(exc: Any) -> Problem:
    """The problem line of a click error: the flag (or the command) it is about, the rule."""
    errors = _click.exceptions
    if isinstance(exc, errors.NoSuchOption):
        return Problem(exc.option_name, "", "no such option", _no_such_option_hint(exc))
    if isinstance(exc, errors.MissingParameter):
        return Problem(*_where(exc), "required", _missing_hint(exc))
    if isinstance(exc, errors.BadParameter):
        return Problem(*_where(exc), _rule(exc))
    if isinstance(exc, errors.BadOptionUsage):  # "Option '--case' requires an argument."
        needs = "requires an argument" in exc.message
        return Problem(exc.option_name, "", "needs a value" if needs else _plain(exc.message))
    if isinstance(exc, errors.FileError):
        return Problem(exc.filename, "", _plain(exc.message))
    # No such command, an argument too many: about the command as a whole.
    message, _, suggestion = exc.message.partition(". Did you mean ")
    hint = f"did you mean {suggestion.rstrip('?')}?" if suggestion else _help_hint(exc)
    return Problem(_command_words(exc), "", _plain(message), hint)


def _plain(message: str) -> str:
    """Click's sentence as the problem part of a line: lower-case start, no full stop."""
    text = message.strip().rstrip(".")
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def _command_words(exc: Any) -> str:
    """``agenteval store add``: the command the error is about, as the user types it."""
    ctx = getattr(exc, "ctx", None)
    words: list[str] = []
    while ctx is not None:
        words.insert(0, ctx.info_name if ctx.parent is not None else "agenteval")
        ctx = ctx.parent
    return " ".join(words) or "agenteval"


def _help_hint(exc: Any) -> str:
    return f"see {_command_words(exc)} --help"


def _no_such_option_hint(exc: Any) -> str:
    close = sorted(exc.possibilities or ())
    if not close:
        return _help_hint(exc)
    return f"did you mean {' or '.join(close)}?"


def _param_name(exc: Any) -> str:
    """The flag (its long name) or argument (its metavar) an error is about."""
    param = exc.param
    if param is None:
        hint = exc.param_hint
        return hint if isinstance(hint, str) else " / ".join(hint or ()) or "agenteval"
    if param.param_type_name == "argument":
        return str(param.metavar or param.name.upper())
    return str(max(param.opts, key=lambda opt: opt.startswith("--")))


def _where(exc: Any) -> tuple[str, str]:
    """(file, path) of a bad value: the project file's key or the environment variable when
    one gave the value (``$AGENTEVAL_STRICT``, not a ``--strict`` nobody typed), else the flag."""
    from agenteval.cli.project_config import given_by

    param = exc.param
    found = given_by(exc.ctx, param.name) if param is not None else None
    return found or (_param_name(exc), "")


def _missing_hint(exc: Any) -> str:
    param = exc.param
    if param is None or param.param_type_name == "argument":
        return _help_hint(exc)
    return f"give {_param_name(exc)} {param.metavar or 'VALUE'}"


# typer checks a number flag with pydantic: its error kinds, as the rule a flag breaks.
_BOUNDS = {
    "greater_than_equal": ("ge", "at least"),
    "greater_than": ("gt", "more than"),
    "less_than_equal": ("le", "at most"),
    "less_than": ("lt", "less than"),
}
_NUMBER_KINDS = {
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "int_type": "a whole number",
    "float_parsing": "a number",
    "float_type": "a number",
    "finite_number": "a finite number",
}


def _rule(exc: Any) -> str:
    """The rule a value broke: from typer's pydantic error when there is one."""
    errors = getattr(exc.__cause__, "errors", None)
    if errors is None or not errors():
        return _plain(exc.message)
    error = errors()[0]
    kind, given = error["type"], error.get("input")
    if kind in _BOUNDS:
        key, words = _BOUNDS[kind]
        return f"must be {words} {error['ctx'][key]}, got {given}"
    if kind in _NUMBER_KINDS:
        return f"{given!r} is not {_NUMBER_KINDS[kind]}"  # as option_numbers words it
    # A parser's ValueError (a choice typer refused): its own words.
    return _plain(re.sub(r"^Value error, ", "", str(error["msg"])))


__all__ = ["ClickError", "PlainArgument", "ProgramGroup", "summary", "usage_problem"]
