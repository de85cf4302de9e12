"""Rendering of JSON locations for one-line error messages (``evalCases[2].evalId``)."""

from __future__ import annotations

from collections.abc import Iterable

# Pydantic inserts validator and union tags into error locations; they are not JSON keys.
_TAG_PREFIXES = (
    "function-",
    "json-or-python",
    "lax-or-strict",
    "nullable",
    "union[",
    "tagged-union",
    # The arm of a plain union an error is about (``judgeFailures: list[str] | int``).
    "list[",
    "dict[",
    "literal[",
)
_UNION_ARMS = frozenset({"int", "str", "float", "bool", "none"})


def render(loc: Iterable[int | str]) -> str:
    """Join location parts as a JSON path: ints become ``[i]``, keys become ``.key``."""
    out: list[str] = []
    for part in loc:
        if isinstance(part, int):
            out.append(f"[{part}]")
            continue
        if part.startswith(_TAG_PREFIXES) or part in _UNION_ARMS:
            continue
        out.append(f".{part}" if out else part)
    return "".join(out)


def join(base: str, *parts: int | str) -> str:
    """Extend an already rendered path with more parts."""
    tail = render(parts)
    if not base:
        return tail
    if not tail:
        return base
    return base + tail if tail.startswith("[") else f"{base}.{tail}"
