"""No test or bench script refers to a path outside the repository, so a plain clone runs them all.

Paths are followed statically from ``__file__`` through what the suite uses to build them:
``Path(__file__)``, ``.resolve()``, ``.parent``, ``.parents[n]``, ``/ "a/../b"``,
``.joinpath(...)``, ``os.path.dirname`` and names bound to such paths. A path that climbs
above the repository root at any step (``parents[2] / ".." / "shared"``) is reported with its
file and line, as is a string literal naming the directory that holds this checkout. Data a
test needs lives in the repository (the trpc-agent-go examples: tests/fixtures/PROVENANCE.md).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("tests", "bench")


class _Climb:
    """Evaluates path expressions of one module as depths below the repository root."""

    def __init__(self, file_depth: int) -> None:
        self.file_depth = file_depth
        self.names: dict[str, int] = {}
        self.escapes: set[int] = set()

    def depth(self, node: ast.expr) -> int | None:
        """The depth below the root ``node`` points at (root 0), or None if not a path from ``__file__``."""
        found = self._depth(node)
        if found is not None and found < 0:
            self.escapes.add(node.lineno)
        return found

    def _down(self, base: ast.expr, parts: list[ast.expr]) -> int | None:
        start = self.depth(base)
        if start is None:
            return None
        for part in parts:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                return start  # a computed name descends; it cannot climb back out unseen
            if part.value.startswith("/"):
                return None  # an absolute path: the literal check below sees it
            for step in part.value.split("/"):
                start += -1 if step == ".." else 0 if step in ("", ".") else 1
                if start < 0:
                    self.escapes.add(part.lineno)
        return start

    def _depth(self, node: ast.expr) -> int | None:
        match node:
            case ast.Name(id="__file__"):
                return self.file_depth
            case ast.Name(id=name):
                return self.names.get(name)
            case ast.Attribute(value=value, attr="parent"):
                inner = self.depth(value)
                return None if inner is None else inner - 1
            case ast.Subscript(
                value=ast.Attribute(value=value, attr="parents"), slice=ast.Constant(value=int(n))
            ):
                inner = self.depth(value)
                return None if inner is None else inner - (n + 1)
            case ast.BinOp(left=left, op=ast.Div(), right=right):
                return self._down(left, [right])
            case ast.Call(func=ast.Attribute(value=value, attr="joinpath"), args=args):
                return self._down(value, args)
            case ast.Call(
                func=ast.Attribute(value=value, attr="resolve" | "absolute" | "with_name")
            ):
                return self.depth(value)
            case ast.Call(func=ast.Attribute(attr="dirname"), args=[arg]):
                inner = self.depth(arg)
                return None if inner is None else inner - 1
            case ast.Call(func=ast.Attribute(attr="join"), args=[first, *rest]):
                return self._down(first, rest)
            case ast.Call(func=ast.Name(id="Path" | "PurePath"), args=[arg]):
                return self.depth(arg)
        return None


def outside_references(path: Path, root: Path) -> list[str]:
    """``file:line`` of each place in a Python file that refers to a path outside ``root``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    climb = _Climb(len(path.relative_to(root).parts))
    surroundings = str(root.parent).rstrip("/") + "/"
    literal_lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            found = climb.depth(node.value)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if found is not None and isinstance(target, ast.Name):
                    climb.names[target.id] = found
        elif isinstance(node, ast.expr):
            climb.depth(node)
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith(surroundings)
            and not node.value.startswith(str(root) + "/")
            # Only what lies beside the checkout (../shared): a clone made in /tmp would
            # otherwise count every made-up /tmp path a test uses as data.
            and (root.parent / node.value[len(surroundings) :].split("/")[0]).exists()
        ):
            literal_lines.add(node.lineno)
    relative = path.relative_to(root).as_posix()
    return [f"{relative}:{line}" for line in sorted(climb.escapes | literal_lines)]


def test_no_test_refers_to_a_path_outside_the_repository() -> None:
    found = [
        place
        for folder in SCANNED
        for path in sorted((ROOT / folder).rglob("*.py"))
        for place in outside_references(path, ROOT)
    ]
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        'FIXTURES = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures"\n',
        'DATA = Path(__file__).resolve().parents[3] / "shared"\n',
        'REPO = Path(__file__).resolve().parents[2]\nOTHER = REPO.parent / "shared"\n',
        'X = Path(__file__).parent.parent.parent.parent / "y"\n',
        'X = Path(__file__).resolve().parents[1].joinpath("../../shared")\n',
        'X = os.path.join(os.path.dirname(os.path.dirname(__file__)), "..", "..", "z")\n',
        'open(Path(__file__).parents[2] / "../../etc")\n',
    ],
)
def test_a_path_climbing_out_of_the_repository_is_reported(tmp_path: Path, source: str) -> None:
    # The patterns the suite used to reach ../shared, in a module at tests/pkg/test_x.py.
    module = tmp_path / "tests" / "pkg" / "test_x.py"
    module.parent.mkdir(parents=True)
    module.write_text(source)
    assert outside_references(module, tmp_path)


@pytest.mark.parametrize(
    "source",
    [
        'ROOT = Path(__file__).resolve().parents[2]\nDATA = ROOT / "tests" / "fixtures"\n',
        'X = Path(__file__).parent / ".." / "other"\n',
        'XSD = Path(__file__).with_name("junit.xsd")\n',
        'PLUGIN = Path(__file__).resolve().parents[1] / "plugins" / "p.py"\n',
        'BAD_INPUT = "../../x"\nSCHEMA = "../schemas/evalset.schema.json"\n',
    ],
)
def test_a_path_inside_the_repository_is_not_reported(tmp_path: Path, source: str) -> None:
    module = tmp_path / "tests" / "pkg" / "test_x.py"
    module.parent.mkdir(parents=True)
    module.write_text(source)
    assert outside_references(module, tmp_path) == []


def test_a_literal_path_beside_the_checkout_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "checkout"
    module = root / "tests" / "test_x.py"
    module.parent.mkdir(parents=True)
    (tmp_path / "shared").mkdir()
    module.write_text(
        f"DATA = {str(tmp_path / 'shared' / 'fixtures')!r}\n"
        f"MADE_UP = {str(tmp_path / 'no-such-dir' / 'run.json')!r}\n"
    )
    # Only the first names what lies beside the checkout; the second is data, as a test's
    # made-up /tmp path is in a clone made in /tmp.
    assert outside_references(module, root) == ["tests/test_x.py:1"]
