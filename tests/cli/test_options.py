"""The shared flags' helpers: a comparison side's files after its flag (cli/options.py)."""

from __future__ import annotations

import pytest
import typer

from agenteval.cli.options import side_files
from agenteval.cli.program import build_app


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # A shell glob after --new: every file is NEW (the parser gave --new the first only).
        (["b1", "b2", "--new", "n1", "n2"], ["b1", "b2", "--new", "n1", "--new", "n2"]),
        (["b1", "--new=n1", "n2"], ["b1", "--new=n1", "--new", "n2"]),
        # An option ends the side; its value is its own; later files are positional again.
        (
            ["b1", "--new", "n1", "--tolerance", "0.1", "b2"],
            ["b1", "--new", "n1", "--tolerance", "0.1", "b2"],
        ),
        (["b1", "--new", "n1", "--json", "n2"], ["b1", "--new", "n1", "--json", "n2"]),
        # Repeated flags stay as they are; -- ends option parsing, so it ends the side too.
        (["b1", "--new", "n1", "--new", "n2"], ["b1", "--new", "n1", "--new", "n2"]),
        (["b1", "--new", "n1", "--", "n2"], ["b1", "--new", "n1", "--", "n2"]),
        (["b1", "b2"], ["b1", "b2"]),
        (["--new"], ["--new"]),  # the parser says the value is missing
    ],
)
def test_the_files_after_a_side_flag_are_that_sides(args: list[str], expected: list[str]) -> None:
    assert side_files(args, "--new") == expected


@pytest.mark.parametrize(("command", "flag"), [("diff", "new"), ("report", "base")])
def test_diff_and_report_parse_every_file_after_their_side_flag(command: str, flag: str) -> None:
    group = typer.main.get_command(build_app([command]))
    parsed = group.get_command(group.make_context("agenteval", [command]), command)  # type: ignore[attr-defined]
    last = ["--html", "r.html"] if command == "report" else ["--json"]
    ctx = parsed.make_context(command, ["a.json", f"--{flag}", "x.json", "y.json", *last])
    assert [str(p) for p in ctx.params[flag]] == ["x.json", "y.json"]
    positional = "results" if command == "report" else "base"
    assert [str(p) for p in ctx.params[positional]] == ["a.json"]
