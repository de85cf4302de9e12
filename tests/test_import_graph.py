"""No import cycle between packages, and few loose modules at the top (issue 23 item 2).

The graph is read from the AST of src/agenteval (tests/import_graph.py): function-level
and TYPE_CHECKING imports count. A failure names every import behind the cycle.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

import import_graph
from import_graph import cycles, top_level_modules, unit_edges

# The loose modules directly in src/agenteval: the package's front, the command line's
# launcher (entry.py must import nothing before its signal guard, so it cannot live in
# a package whose __init__ runs first), and the leaves every package may use.
TOP_LEVEL = {
    "__init__",  # the lazy front: __version__, evaluate, load_*
    "__main__",  # python -m agenteval
    "entry",  # the console script's signal guard
    "errors",  # the exception tree
    "exit_codes",  # 0-4
    "settings",  # the judge defaults
    "registry",  # Registry[T]: name → implementation tables
    "plugins",  # the plugin-facing front: decorators, --plugin files, entry points
}
# cli.py becomes the cli/ package (issue 23 item 3, on its own branch).
BECOMING_A_PACKAGE = {"cli"}


def test_no_import_cycle_between_packages() -> None:
    found = cycles()
    edges = unit_edges()
    described = [
        f"{' ↔ '.join(group)}: "
        + "; ".join(
            f"{a} → {b} ({', '.join(edges[a, b][:3])})"
            for a in group
            for b in group
            if (a, b) in edges
        )
        for group in found
    ]
    assert described == []


def test_few_modules_directly_in_the_source_root() -> None:
    loose = set(top_level_modules()) - BECOMING_A_PACKAGE
    assert loose <= TOP_LEVEL
    assert len(TOP_LEVEL) <= 8


def test_the_graph_sees_every_kind_of_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A made-up tree in which each cycle hides behind a different kind of import.
    tree = {
        "__init__.py": "",
        "a/__init__.py": "",
        "a/one.py": "def f():\n    from agenteval.b import two\n",
        "b/__init__.py": "",
        "b/two.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..c import three\n",
        "c/__init__.py": "",
        "c/three.py": "from agenteval import a\nimport agenteval.a.one\n",
        "d.py": "from agenteval import __version__\n",
    }
    root = tmp_path / "agenteval"
    for relative, text in tree.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(textwrap.dedent(text))
    monkeypatch.setattr(import_graph, "SOURCE", root)
    import_graph.modules.cache_clear()
    import_graph.unit_edges.cache_clear()
    try:
        assert cycles() == [["a", "b", "c"]]
        assert ("d", "agenteval") not in unit_edges()  # the root package imports nothing
        assert unit_edges()["c", "a"] == (
            "agenteval.c.three:1 → agenteval.a",
            "agenteval.c.three:2 → agenteval.a.one",
        )
    finally:
        import_graph.modules.cache_clear()
        import_graph.unit_edges.cache_clear()


def test_the_source_is_what_the_graph_reads() -> None:
    # Guard against an empty walk passing the cycle test: the runner imports the judge.
    edges = unit_edges()
    assert ("run", "judge") in edges
    assert all(ast.parse(p.read_text()) for p in import_graph.modules().values())
