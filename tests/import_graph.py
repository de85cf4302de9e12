"""The import graph of src/agenteval, read from the source's AST (no module is imported).

Every ``import``/``from … import`` counts, at module level, inside functions (the lazy
imports that keep start-up fast) and under ``if TYPE_CHECKING:`` alike: a dependency is a
dependency whenever it is resolved. The units are the top-level packages and the loose
top-level modules; ``entry.py`` and ``__main__.py`` are the command line's launcher, kept
outside ``cli`` only so that nothing is imported before the signal guard, and count as
``cli``. Shared by tests/test_import_graph.py and tests/test_architecture.py.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "agenteval"
# The command line's launcher: the console script's guard and ``python -m agenteval``.
LAUNCHER = {"entry": "cli", "__main__": "cli"}


def module_name(path: Path) -> str:
    """``src/agenteval/a/b.py`` → ``agenteval.a.b`` (a package's ``__init__`` is the package)."""
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of the source tree by dotted name."""
    return {module_name(p): p for p in sorted(SOURCE.rglob("*.py"))}


def imported(path: Path) -> Iterator[tuple[str, int]]:
    """The agenteval modules ``path`` imports, with the line of each import."""
    known = modules()
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "agenteval":
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "agenteval":
                continue
            submodules = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known]
            if target == "agenteval":
                # ``from agenteval import settings`` imports the module; ``__version__``
                # comes from the root package, which imports nothing (entry.py's guard).
                yield from ((s, node.lineno) for s in submodules)
            else:
                yield target, node.lineno
                yield from ((s, node.lineno) for s in submodules)


def unit(module: str) -> str:
    """The package or loose top-level module that ``module`` belongs to."""
    parts = module.split(".")
    if len(parts) == 1:
        return "agenteval"
    return LAUNCHER.get(parts[1], parts[1])


@cache
def unit_edges() -> dict[tuple[str, str], tuple[str, ...]]:
    """(importer unit, imported unit) → the ``module:line → module`` imports behind it."""
    known = modules()
    edges: dict[tuple[str, str], list[str]] = {}
    for name, path in known.items():
        for target, line in imported(path):
            if target not in known:
                continue
            pair = (unit(name), unit(target))
            if pair[0] != pair[1] and "agenteval" not in pair:
                edges.setdefault(pair, []).append(f"{name}:{line} → {target}")
    return {pair: tuple(found) for pair, found in edges.items()}


def cycles() -> list[list[str]]:
    """The strongly connected groups of more than one unit (Tarjan), each sorted."""
    graph: dict[str, set[str]] = {}
    for a, b in unit_edges():
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def top_level_modules() -> list[str]:
    """The modules directly in src/agenteval (``__init__`` included)."""
    return sorted(p.stem for p in SOURCE.glob("*.py"))


def packages() -> list[str]:
    """The packages directly in src/agenteval."""
    return sorted(p.parent.name for p in SOURCE.glob("*/__init__.py"))
