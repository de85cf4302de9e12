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


# Run in a fresh interpreter: ``agenteval ARGS`` through cli.program.main, then which of the
# modules named on stdin's first line were imported.
_IMPORTED = """
import contextlib, io, sys
watched = sys.stdin.readline().split()
sys.argv = ["agenteval", *sys.argv[1:]]
from agenteval.cli.program import main
out = io.StringIO()
try:
    with contextlib.redirect_stdout(out):
        main()
except SystemExit as exc:
    code = exc.code
print(code, len(out.getvalue()) > 0, *[m for m in watched if m in sys.modules])
"""
# What only other commands need: the API (result models, runner), templates, store writes.
_OTHERS = (
    "agenteval.api",
    "agenteval.schema.evalset",
    "agenteval.schema.result",
    "agenteval.store.adding",
    "agenteval.store.export",
    "jinja2",
)


def _imported(tmp_path: Path, *args: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORTED, *args],
        input=" ".join([*_OTHERS, "agenteval.store.console", "agenteval.cli.diff"]) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert proc.stderr == ""
    return proc.stdout.split()


def test_trend_and_history_start_with_only_their_own_module_imported(tmp_path: Path) -> None:
    from agenteval.store.connection import open_store
    from agenteval.store.urls import parse_store_url

    url = f"sqlite:///{tmp_path}/h.sqlite"
    open_store(parse_store_url(url, "--store"), write=True).close()
    # trend --json: the store and the trend, nothing of the other commands, no table view.
    assert _imported(tmp_path, "trend", "--store", url, "--json") == ["0", "True"]
    # The console view loads its tables, still nothing of the rest.
    assert _imported(tmp_path, "trend", "--store", url) == [
        "0",
        "True",
        "agenteval.store.console",
    ]
    assert _imported(tmp_path, "history", "--store", url, "--json") == ["0", "True"]
    # --help lists every command: every module is there.  Any command starts alone.
    assert _imported(tmp_path, "--help")[:3] == ["0", "True", "agenteval.api"]
    assert "agenteval.cli.diff" in _imported(tmp_path, "--help")
    assert _imported(tmp_path, "validate", "--help") == ["0", "True", *_OTHERS[:3]]
    assert _imported(tmp_path, "evaluators", "--help") == ["0", "True", *_OTHERS[1:3]]
