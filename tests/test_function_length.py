"""No function over 80 lines in src/agenteval (issue 23): a long function is a module's worth
of jobs. The command line is being split into a cli/ package on its own branch (item 3)."""

from __future__ import annotations

import ast
from pathlib import Path

from import_graph import SOURCE

MAX_LINES = 80
# cli.py's commands become one module each in cli/ (issue 23 item 3, branch house-cli).
BEING_SPLIT = {"cli.py"}


def long_functions(root: Path) -> list[str]:
    """``file:line name (N lines)`` of every function or method longer than MAX_LINES."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative in BEING_SPLIT:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_LINES:
                    found.append(f"{relative}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_over_80_lines() -> None:
    assert long_functions(SOURCE) == []


def test_a_long_function_is_found(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES))
    (tmp_path / "long.py").write_text(f"def short():\n    pass\n\n\nasync def long():\n{body}")
    assert long_functions(tmp_path) == [f"long.py:5 long ({MAX_LINES + 1} lines)"]
