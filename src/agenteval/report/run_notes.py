"""What every report of a run says beside its cases: its warnings, and why it is unfinished.

:class:`RunNotes` goes to the console's verdict line, the run document, JUnit,
Markdown and GitHub annotations alike, so they all say the same thing.

Warnings are never hidden: printed under ``--quiet`` too, counted on the verdict
line and carried into every report.  Warnings of one
kind — the same file and the same message once names, ids and numbers are set
aside (``'tool_calls' is not a field of Invocation`` at every turn, an unmapped
span per span) — are shown :data:`SHOWN_PER_KIND` times; a last line then counts
the rest (``file: … and 299,990 more like this``), so 300,000 of them cost a
few lines in each report.  An exact repeat (one metric file shared by several
eval sets) is shown once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agenteval.errors import Problem

# Warnings of one kind shown before the rest are only counted.
SHOWN_PER_KIND = 10

# What varies between warnings of one kind: quoted names and anything with a digit in it
# (indexes, ids, counts, hex span ids).
_VARYING = re.compile(r"'[^']*'|\"[^\"]*\"|\S*\d\S*")


def warning_kind(problem: Problem) -> tuple[str, str, str]:
    """(file, message, hint) with names and numbers masked: what repeats of a kind share."""
    return (
        problem.file,
        _VARYING.sub("…", problem.message),
        _VARYING.sub("…", problem.hint),
    )


def collapse(warnings: Iterable[Problem]) -> list[Problem]:
    """``warnings`` in order, each kind's repeats past :data:`SHOWN_PER_KIND` counted in one line.

    The counting line is a :class:`Problem` of the kind's file placed after the last
    warning shown of that kind: ``file: … and 299,990 more like this``.
    """
    shown: list[Problem] = []
    seen: set[Problem] = set()
    counts: dict[tuple[str, str, str], int] = {}
    last: dict[tuple[str, str, str], int] = {}
    for problem in warnings:
        if problem in seen:
            continue
        seen.add(problem)
        kind = warning_kind(problem)
        count = counts.get(kind, 0) + 1
        counts[kind] = count
        if count <= SHOWN_PER_KIND:
            last[kind] = len(shown)
            shown.append(problem)
    extra = {last[kind]: count - SHOWN_PER_KIND for kind, count in counts.items()}
    lines: list[Problem] = []
    for index, problem in enumerate(shown):
        lines.append(problem)
        more = extra.get(index, 0)
        if more > 0:
            lines.append(Problem(problem.file, "", f"… and {more:,} more like this"))
    return lines


def warning_count(warnings: Iterable[Problem]) -> int:
    """How many distinct warnings there are (exact repeats counted once, as shown)."""
    return len(set(warnings))


def count_text(count: int) -> str:
    """``1 warning`` / ``2 warnings`` (the final line's part)."""
    return f"{count:,} warning{'s' if count != 1 else ''}"


@dataclass(frozen=True, slots=True)
class RunNotes:
    """A run's warnings as shown (collapsed) and counted, and why it is unfinished.

    ``unfinished`` lists why the run is INCOMPLETE beyond its case statuses
    (``interrupted``, ``1 report not written``): every verdict then says INCOMPLETE,
    as the exit code (3) does.
    """

    warnings: Sequence[Problem] = ()
    warning_count: int = 0
    unfinished: Sequence[str] = ()

    @classmethod
    def of(cls, warnings: Sequence[Problem], unfinished: Sequence[str] = ()) -> RunNotes:
        """The notes of a run with these warnings (all of them; collapsed here)."""
        return cls(collapse(warnings), warning_count(warnings), tuple(unfinished))

    def lines(self) -> list[str]:
        """The warnings as shown, one ``file: path: message (hint)`` line each."""
        return [str(problem) for problem in self.warnings]


# A run with nothing to say beside its cases (the reporters' default).
NO_NOTES = RunNotes()
