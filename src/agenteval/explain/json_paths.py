"""The JSON comparison path by path: compared, equal, tolerated, ignored, missing, differing.

The JSON criterion stops at the first difference; explain lists every path of the two
values beside that verdict so an ignored or tolerated key is visible too.  Each leaf
is compared with the criterion's own :func:`~agenteval.criteria.json_compare.exact_difference`
and tolerance, so a path marked equal here is one the evaluator accepts.

Tested in tests/explain/test_core.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agenteval.criteria.json_compare import exact_difference

# Paths listed per comparison; the rest is counted.
MAX_ROWS = 200
_ABSENT: Any = object()


@dataclass(frozen=True, slots=True)
class PathRow:
    """One path of the compared values and what the comparison made of it."""

    path: str
    verdict: str  # equal, tolerated, differs, ignored, not in onlyTree, missing in actual/expected
    actual: Any = None
    expected: Any = None


def _segment(key: str | int) -> str:
    if isinstance(key, int):
        return f"[{key}]"
    if key.isidentifier():
        return f".{key}"
    return f"[{json.dumps(key, ensure_ascii=False)}]"


class _Rows:
    def __init__(self, tolerance: float) -> None:
        self.tolerance = tolerance
        self.rows: list[PathRow] = []
        self.more = 0

    def add(self, row: PathRow) -> None:
        if len(self.rows) < MAX_ROWS:
            self.rows.append(row)
        else:
            self.more += 1

    def leaf(self, path: str, a: Any, e: Any) -> None:
        if exact_difference(a, e, self.tolerance) is not None:
            self.add(PathRow(path, "differs", a, e))
        elif a != e or type(a) is not type(e):
            self.add(PathRow(path, "tolerated", a, e))
        else:
            self.add(PathRow(path, "equal", a, e))

    def walk(self, a: Any, e: Any, path: str, ignore: Any, only: Any) -> None:
        if isinstance(a, dict) and isinstance(e, dict):
            self._object(a, e, path, ignore if isinstance(ignore, dict) else None, only)
        elif isinstance(a, list) and isinstance(e, list) and len(a) == len(e):
            for index, (x, y) in enumerate(zip(a, e, strict=True)):
                self.walk(x, y, path + _segment(index), None, None)
        else:
            self.leaf(path, a, e)

    def _object(
        self, a: dict[str, Any], e: dict[str, Any], path: str, ignore: Any, only: Any
    ) -> None:
        only_tree = only if isinstance(only, dict) else None
        for key in dict.fromkeys([*a, *e]):
            sub = path + _segment(key)
            x, y = a.get(key, _ABSENT), e.get(key, _ABSENT)
            shown_x = None if x is _ABSENT else x
            shown_y = None if y is _ABSENT else y
            if only_tree is not None and only_tree.get(key) in (None, False):
                self.add(PathRow(sub, "not in onlyTree", shown_x, shown_y))
                continue
            entry = ignore.get(key) if ignore is not None else None
            if entry is True:
                self.add(PathRow(sub, "ignored", shown_x, shown_y))
            elif x is _ABSENT:
                self.add(PathRow(sub, "missing in actual", None, shown_y))
            elif y is _ABSENT:
                self.add(PathRow(sub, "missing in expected", shown_x, None))
            else:
                child_only = only_tree.get(key) if only_tree is not None else None
                self.walk(x, y, sub, entry, child_only if isinstance(child_only, dict) else None)


def path_rows(
    actual: Any,
    expected: Any,
    tolerance: float,
    ignore_tree: dict[str, Any] | None = None,
    only_tree: dict[str, Any] | None = None,
) -> tuple[list[PathRow], int]:
    """Every path of ``actual`` and ``expected`` with its verdict, and how many were left out."""
    rows = _Rows(tolerance)
    rows.walk(actual, expected, "$", ignore_tree, only_tree)
    return rows.rows, rows.more
