"""Tests mirror the source: each module of src/agenteval has tests/<package>/test_<module>.py,
or its docstring names the existing test module that covers it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "agenteval"
NAMED = re.compile(r"Tested in (tests/\S+\.py)")


def defines_code(tree: ast.Module) -> bool:
    """Whether a module defines a function or class (a package's re-exports do not count)."""
    return any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) for n in tree.body
    )


def test_every_module_has_its_test_module() -> None:
    missing = []
    for path in sorted(SOURCE.rglob("*.py")):
        relative = path.relative_to(SOURCE)
        mirrored = ROOT / "tests" / relative.parent / f"test_{relative.stem}.py"
        if mirrored.exists():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named = NAMED.search(ast.get_docstring(tree) or "")
        if named is not None and (ROOT / named.group(1)).is_file():
            continue
        if path.name == "__init__.py" and not defines_code(tree):
            continue
        missing.append(relative.as_posix())
    assert missing == []
