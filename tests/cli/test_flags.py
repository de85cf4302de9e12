"""A command made of its settings class: the flags typer parses are the fields, in their order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

import typer
from typer.testing import CliRunner

from agenteval.cli.flags import context_settings_command, settings_command
from agenteval.cli.options import VerboseOpt
from agenteval.errors import ConfigError, Problem


@dataclass(frozen=True, slots=True)
class EchoSettings:
    """The flags of a command made for this test."""

    names: Annotated[tuple[str, ...], typer.Argument(help="Names to echo.")]
    tag: Annotated[
        tuple[str, ...], typer.Option("--tag", metavar="T", help="A tag. Repeatable.")
    ] = ()
    times: Annotated[int, typer.Option("--times", metavar="N", min=1, help="Repeats.")] = 1
    verbose: VerboseOpt = False


SEEN: list[EchoSettings] = []


def echo(settings: EchoSettings) -> int:
    """Remember the settings; fail on a name "bad", exit 1 on a name "one"."""
    SEEN.append(settings)
    if "bad" in settings.names:
        raise ConfigError([Problem("names", "", "bad is not a name")])
    return 1 if "one" in settings.names else 0


def _app() -> typer.Typer:
    app = typer.Typer(rich_markup_mode=None)
    app.command(name="echo")(settings_command(EchoSettings, echo, doc="Echo the names."))
    app.command(name="other")(lambda: None)  # two commands: "echo" is a subcommand
    return app


def test_the_fields_become_the_flags_and_the_settings_are_frozen_tuples() -> None:
    SEEN.clear()
    result = CliRunner().invoke(_app(), ["echo", "a", "b", "--tag", "x", "--tag", "y"])
    assert (result.exit_code, result.output) == (0, "")
    assert SEEN[-1] == EchoSettings(("a", "b"), ("x", "y"), 1, False)
    result = CliRunner().invoke(_app(), ["echo", "one", "--times", "3", "-v"])
    assert result.exit_code == 1
    assert SEEN[-1] == EchoSettings(("one",), (), 3, True)


def test_help_lists_the_fields_in_their_order_with_the_doc() -> None:
    result = CliRunner().invoke(_app(), ["echo", "--help"], terminal_width=100)
    assert result.exit_code == 0
    text = result.output
    assert "Echo the names." in text
    assert text.index("--tag T") < text.index("--times N") < text.index("--verbose")
    assert "[default: 1; x>=1]" in text


def test_parse_errors_and_bad_input_keep_their_exit_codes() -> None:
    result = CliRunner().invoke(_app(), ["echo", "a", "--times", "0"])
    assert result.exit_code == 2  # typer's own usage error: --times is at least 1
    result = CliRunner().invoke(_app(), ["echo"])
    assert result.exit_code == 2  # NAMES is required
    result = CliRunner().invoke(_app(), ["echo", "bad"])
    assert result.exit_code == 2
    assert "error: names: bad is not a name" in result.output


def test_a_context_command_is_given_the_context_too() -> None:
    names: list[str | None] = []

    def body(settings: EchoSettings, ctx: typer.Context) -> int:
        names.append(ctx.info_name)
        return len(settings.names)

    app = typer.Typer(rich_markup_mode=None)
    app.command(name="count")(context_settings_command(EchoSettings, body, doc="Count."))
    app.command(name="other")(lambda: None)
    result = CliRunner().invoke(app, ["count", "a", "b", "c"])
    assert (result.exit_code, names) == (3, ["count"])


@dataclass(frozen=True, slots=True)
class LoudFlags:
    """A flag group made for this test."""

    loud: Annotated[bool, typer.Option("--loud", help="Shout.")] = False
    volume: Annotated[int, typer.Option("--volume", metavar="DB", help="How loud.")] = 3


@dataclass(frozen=True, slots=True)
class GroupedSettings:
    """Settings holding a flag group between two flags of their own."""

    first: Annotated[str, typer.Option("--first", metavar="F", help="Before.")] = ""
    sound: LoudFlags = field(default_factory=LoudFlags)
    verbose: VerboseOpt = False


def test_a_flag_group_stands_in_its_place_and_comes_back_as_one_object() -> None:
    seen: list[GroupedSettings] = []

    def body(settings: GroupedSettings) -> int:
        seen.append(settings)
        return 0

    app = typer.Typer(rich_markup_mode=None)
    app.command(name="group")(settings_command(GroupedSettings, body, doc="Grouped."))
    app.command(name="other")(lambda: None)
    result = CliRunner().invoke(app, ["group", "--help"], terminal_width=100)
    text = result.output
    assert text.index("--first F") < text.index("--loud") < text.index("--volume DB")
    assert text.index("--volume DB") < text.index("--verbose")
    result = CliRunner().invoke(app, ["group", "--volume", "5", "--first", "x"])
    assert result.exit_code == 0
    assert seen == [GroupedSettings("x", LoudFlags(loud=False, volume=5))]
