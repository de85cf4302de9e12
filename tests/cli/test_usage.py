"""cli/usage.py: every command's usage errors are one located problem line, exit 2.

The sweep walks every command the program has (sub-commands of import, store, schema
too): an unknown option, a misspelt one, a missing required option or argument, a word
for a number, and for each number flag the values its rule refuses.  Click printed its
usage block and ``Error: Invalid value for …`` for each of these; each now reads
``error: FLAG: rule (hint)`` then ``1 problem found.``, as any bad input does.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from agenteval.cli.program import full_app
from agenteval.cli.usage import summary

ONE_PROBLEM = re.compile(r"error: (?P<where>[^:\s]+): (?P<problem>.+)\n1 problem found\.\n")


def _commands() -> list[tuple[tuple[str, ...], Any]]:
    """(the words that name it, the click command) of every command that runs."""
    found: list[tuple[tuple[str, ...], Any]] = []

    def walk(words: tuple[str, ...], command: Any) -> None:
        subs = getattr(command, "commands", None)
        if subs is None:
            found.append((words, command))
            return
        for name, sub in subs.items():
            walk((*words, name), sub)

    walk((), typer.main.get_command(full_app()))
    return found


COMMANDS = _commands()
IDS = [" ".join(words) for words, _ in COMMANDS]
# The commands with a required flag or argument (the others have none to leave out).
REQUIRING = [
    (words, command) for words, command in COMMANDS if any(p.required for p in command.params)
]


def _long(param: Any) -> str:
    return max(param.opts, key=lambda opt: opt.startswith("--"))


def _options(command: Any) -> list[Any]:
    return [p for p in command.params if p.param_type_name == "option" and _long(p) != "--help"]


def _numbers(command: Any) -> list[Any]:
    return [p for p in _options(command) if p.type_descriptor.annotation in (int, float)]


def usage(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> re.Match[str]:
    """Run the command line in a scratch directory; its one problem line, matched."""
    monkeypatch.chdir(tmp_path)  # no project config, no store around
    done = CliRunner().invoke(full_app(), args)
    assert done.exit_code == 2, (args, done.output)
    assert "Usage:" not in done.output and "Error:" not in done.output, done.output
    assert "Traceback" not in done.output
    match = ONE_PROBLEM.fullmatch(done.stderr)
    assert match is not None, (args, done.stderr)
    return match


def test_the_sweep_sees_every_command() -> None:
    assert {"run", "explain", "trend", "import adk", "store add", "schema"} <= set(IDS)
    assert len(COMMANDS) >= 16


@pytest.mark.parametrize(("words", "command"), COMMANDS, ids=IDS)
def test_an_unknown_option_names_itself(
    words: tuple[str, ...], command: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = usage([*words, "--no-such-flag"], tmp_path, monkeypatch)
    assert found["where"] == "--no-such-flag"
    assert found["problem"].startswith("no such option (")


@pytest.mark.parametrize(("words", "command"), COMMANDS, ids=IDS)
def test_a_misspelt_option_says_what_was_meant(
    words: tuple[str, ...], command: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flag = _long(_options(command)[0])
    typo = flag[:-1] + flag[-1] * 2  # --evalset → --evalsett
    found = usage([*words, typo], tmp_path, monkeypatch)
    assert found["where"] == typo
    assert found["problem"].startswith("no such option (did you mean ")
    assert flag in found["problem"]


@pytest.mark.parametrize(
    ("words", "command"), REQUIRING, ids=[" ".join(words) for words, _ in REQUIRING]
)
def test_a_missing_required_flag_or_argument_is_named(
    words: tuple[str, ...], command: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    required = [p for p in command.params if p.required]
    found = usage(list(words), tmp_path, monkeypatch)
    names = {_long(p) if p.param_type_name == "option" else p.metavar for p in required}
    assert found["where"] in names
    assert re.fullmatch(
        r"required \((give --\S+ \S+|see agenteval [a-z ]+ --help)\)", found["problem"]
    )


NUMBER_CASES = [(words, param) for words, command in COMMANDS for param in _numbers(command)]


@pytest.mark.parametrize(
    ("words", "param"), NUMBER_CASES, ids=[f"{' '.join(w)} {_long(p)}" for w, p in NUMBER_CASES]
)
def test_a_number_flag_names_itself_and_its_rule(
    words: tuple[str, ...], param: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flag = _long(param)
    whole = param.type_descriptor.annotation is int
    refused = {"ten": f"'ten' is not {'a whole number' if whole else 'a number'}"}
    if whole:
        refused["1.5"] = "'1.5' is not a whole number"
        if param.min is not None:
            refused[str(param.min - 1)] = f"must be at least {param.min}, got {param.min - 1}"
    else:  # every float flag is finite and has a least value (finite_at_least)
        refused |= {v: f"must be a finite number, got {v}" for v in ("nan", "inf", "-inf")}
        refused["-1"] = "must be at least "
    for value, rule in refused.items():
        found = usage([*words, f"{flag}={value}"], tmp_path, monkeypatch)
        assert found["where"] == flag
        assert found["problem"].startswith(rule), (value, found["problem"])
    assert math.isfinite(float(param.min or 0))


def test_explain_without_case_names_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Was click's usage block and "Error: Invalid value for --case: --case is required".
    found = usage(["explain", "r.json", "--metric", "m"], tmp_path, monkeypatch)
    assert found.group(0) == "error: --case: required (give --case ID)\n1 problem found.\n"


def test_trend_last_zero_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = usage(["trend", "--last", "0"], tmp_path, monkeypatch)
    assert found.group(0) == "error: --last: must be at least 1, got 0\n1 problem found.\n"


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_max_judge_cost_refuses_by_its_rule(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # nan read "Input should be greater than or equal to 0", no flag named; inf passed typer.
    found = usage(["run", "-e", "x", "--max-judge-cost", value], tmp_path, monkeypatch)
    rule = (
        "must be at least 0, got -1" if value == "-1" else f"must be a finite number, got {value}"
    )
    assert found.group(0) == f"error: --max-judge-cost: {rule}\n1 problem found.\n"


@pytest.mark.parametrize("command", ["run", "validate"])
def test_a_bad_value_from_the_environment_names_the_variable(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # $AGENTEVAL_STRICT=maybe read "--strict: input should be a valid boolean": a flag
    # nobody had typed.
    monkeypatch.setenv("AGENTEVAL_STRICT", "maybe")
    found = usage([command, "-e", "x"], tmp_path, monkeypatch)
    assert found.group(0) == (
        "error: $AGENTEVAL_STRICT: input should be a valid boolean, unable to interpret input\n"
        "1 problem found.\n"
    )


def test_a_misspelt_command_keeps_the_suggestion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = usage(["histroy"], tmp_path, monkeypatch)
    assert found.group(0) == (
        "error: agenteval: no such command 'histroy' (did you mean 'history'?)\n1 problem found.\n"
    )


def test_an_option_without_its_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = usage(["run", "--case"], tmp_path, monkeypatch)
    assert found.group(0) == "error: --case: needs a value\n1 problem found.\n"


def test_a_group_without_its_command_still_shows_its_help(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(full_app(), ["store"])
    assert "Commands:" in done.output and "add" in done.output
    assert "problem found" not in done.output


@pytest.mark.parametrize(("words", "command"), COMMANDS, ids=IDS)
def test_usage_lines_write_arguments_plainly(
    words: tuple[str, ...], command: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(full_app(), [*words, "--help"], terminal_width=100)
    assert done.exit_code == 0, done.output
    usage_line = done.output.splitlines()[0]
    # Typer wrote {results}..., {FILE...}... and results... <list[Path]>.
    assert not re.search(r"[{}]", usage_line), usage_line
    assert not re.search(r"\.\.\.\.|<list", done.output), done.output
    for param in command.params:
        if param.param_type_name == "argument":
            name = param.metavar + ("..." if param.nargs != 1 else "")
            assert (name if param.required else f"[{name}]") in usage_line.split()


def test_the_usage_lines_read_as_documented(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    lines = {
        " ".join(words): CliRunner().invoke(full_app(), [*words, "--help"]).output.splitlines()[0]
        for words in (("show",), ("import", "adk"), ("store", "add"), ("explain",), ("schema",))
    }
    assert lines["show"].endswith("show [OPTIONS] RESULT...")
    assert lines["import adk"].endswith("import adk [OPTIONS] FILE...")
    assert lines["store add"].endswith("store add [OPTIONS] RESULT...")
    assert lines["explain"].endswith("explain [OPTIONS] [RESULT...]")
    assert lines["schema"].endswith("schema [OPTIONS] KIND")


def test_a_group_lists_each_command_by_its_helps_first_clause_whole() -> None:
    """Click cut each line at the list's width mid-phrase ("… like a live run; exit...")."""
    assert summary("Render saved runs like a live run; exit code as it had.") == (
        "Render saved runs like a live run"
    )
    assert summary("Print the JSON Schema (draft 2020-12) of a kind. More.\n\nDetail.") == (
        "Print the JSON Schema of a kind"
    )
    assert summary("List runs: status, pass rate.") == "List runs"
    assert summary("No end mark") == "No end mark"
    for words in ((), ("store",), ("import",)):
        listed = CliRunner().invoke(full_app(), [*words, "--help"], terminal_width=80).output
        commands = listed.split("Commands:", 1)[1]
        assert "..." not in commands, commands
    top = CliRunner().invoke(full_app(), ["--help"], terminal_width=80).output
    assert "  show        Render saved result files exactly like a live run\n" in top
    assert "  history     List the runs in a run store, newest first\n" in top
