"""The command line's shape: a thin package, one module per command, the entry points kept.

The house rules of issue 23: no module under ``src/agenteval/cli/`` over 300 lines, no
function there over 80; ``agenteval.cli:app`` and ``python -m agenteval`` still start it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import typer
from typer.testing import CliRunner

import agenteval
from agenteval.cli import app

CLI = Path(__file__).resolve().parents[2] / "src" / "agenteval" / "cli"
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 80


def test_no_cli_module_over_300_lines_and_no_function_over_80() -> None:
    modules = sorted(CLI.glob("*.py"))
    assert len(modules) >= 12  # one per command, not one file
    long_modules = {}
    long_functions = {}
    for path in modules:
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES:
            long_modules[path.name] = lines
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long_functions[f"{path.name}:{node.name}"] = length
    assert long_modules == {}
    assert long_functions == {}


def test_every_command_is_registered() -> None:
    command = typer.main.get_command(app)
    names = set(command.commands)  # type: ignore[attr-defined]
    assert names == {
        "run",
        "validate",
        "show",
        "diff",
        "merge",
        "schema",
        "report",
        "evaluators",
        "import",
        "history",
        "trend",
        "explain",
        "calibrate",
        "store",
    }


def test_the_app_and_python_dash_m_start_the_command_line() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert (result.exit_code, result.output) == (0, f"agenteval {agenteval.__version__}\n")
    proc = subprocess.run(
        [sys.executable, "-m", "agenteval", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (0, f"agenteval {agenteval.__version__}\n")
