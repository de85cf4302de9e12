"""Warnings about many inputs of one kind: named one by one up to a few, else counted in one.

A traces file can hold 300,000 spans outside every turn, or a whole JSON-lines file of
records no case asks for; one line per item buried everything else (300,001 lines, most
of a minute to print).  :func:`listed_or_counted` names up to :data:`LISTED` items each
in its own warning; past that, one warning gives their count and the first few.

Tested in tests/inputs/test_problem_lists.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from agenteval.errors import Problem

# Items named one by one; more are counted.
LISTED = 3
# Names one message lists (files, places) before it counts the rest.
NAMED = 10


class Item(NamedTuple):
    """One input left out: how a count names it, and its own warning."""

    label: str
    problem: Problem


def listed_or_counted(
    file: str, items: Sequence[Item], noun: str, message: str, hint: str = ""
) -> list[Problem]:
    """One warning per item up to :data:`LISTED`; else one: ``N nouns: message (the first: …)``."""
    if len(items) <= LISTED:
        return [i.problem for i in items]
    first = ", ".join(i.label for i in items[:LISTED])
    tail = f"; {hint}" if hint else ""
    return [Problem(file, f"{len(items):,} {noun}", message, f"the first: {first}{tail}")]


def first_named(names: Sequence[str], sep: str = ", ", limit: int = NAMED) -> str:
    """``names`` joined, past ``limit`` the first ``limit`` and ``… and N more``: one error
    naming the 64 files that hold a case was one line of 64 full paths."""
    shown = sep.join(names[:limit])
    rest = len(names) - limit
    return f"{shown} … and {rest:,} more" if rest > 0 else shown


__all__ = ["LISTED", "NAMED", "Item", "first_named", "listed_or_counted"]
