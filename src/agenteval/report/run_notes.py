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

A ``--json`` run document keeps its run's warnings as those lines; ``show`` prints
them again (:meth:`RunNotes.of_saved`): a counting line counts its ``N`` warnings, not
one, and past :data:`SHOWN_SAVED` lines of a document one more line counts the rest.
A live ``run`` and ``validate`` print their warnings under the same bound (:func:`bounded`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from agenteval.errors import Problem
from agenteval.inputs.score_text import counted

# Warnings of one kind shown before the rest are only counted.
SHOWN_PER_KIND = 10
# Saved warning lines of one run document ``show`` prints before the rest are only counted
# (a run over 2,000 trace files saved a line per file: 2,000 lines on every ``show``).
SHOWN_SAVED = 50
# The line that counts a kind's warnings past SHOWN_PER_KIND.
_MORE_LIKE_THIS = re.compile(r"… and (\d{1,3}(?:,\d{3})*) more like this")

# What varies between warnings of one kind: quoted names and any word with a digit in it
# (indexes, ids, counts, hex span ids).  Possessive and anchored at word starts, so a
# message is scanned once: ~3 µs of CPU per message against ~5.5 µs for the plain
# ``\S*\d\S*``, which backtracks through every word without a digit.  A flood of 300,000
# collapses in ~1 s of CPU, ~6x rendering each warning once (bench/warning_flood.py).
_VARYING = re.compile(r"'[^']*+'|\"[^\"]*+\"|(?<!\S)[^\s\d'\"]*+\d\S*+")
# Distinct warning texts whose mask is remembered (a flood of unique texts is masked each time).
_MASKS_KEPT = 4096


def warning_kind(problem: Problem) -> tuple[str, str]:
    """(file, message and hint) with names and numbers masked: what repeats of a kind share."""
    return problem.file, _VARYING.sub("…", f"{problem.message}\n{problem.hint}")


def collapse(warnings: Iterable[Problem]) -> list[Problem]:
    """``warnings`` in order, each kind's repeats past :data:`SHOWN_PER_KIND` counted in one line.

    The counting line is a :class:`Problem` of the kind's file placed after the last
    warning shown of that kind: ``file: … and 299,990 more like this``.
    """
    return collapse_counted(warnings)[0]


def collapse_counted(warnings: Iterable[Problem]) -> tuple[list[Problem], int]:
    """:func:`collapse` and :func:`warning_count` in one pass."""
    shown: list[Problem] = []
    seen: set[Problem] = set()
    counts: dict[tuple[str, str], int] = {}
    last: dict[tuple[str, str], int] = {}
    # Floods often repeat one message at many paths (an unknown key in every case):
    # each distinct text is masked once.
    masked: dict[str, str] = {}
    for problem in warnings:
        size = len(seen)
        seen.add(problem)
        if len(seen) == size:
            continue  # an exact repeat
        text = f"{problem.message}\n{problem.hint}"
        mask = masked.get(text)
        if mask is None:
            mask = _VARYING.sub("…", text)
            if len(masked) < _MASKS_KEPT:
                masked[text] = mask
        kind = (problem.file, mask)
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
    return lines, len(seen)


def represented(line: Problem) -> int:
    """How many warnings a shown line stands for: a counting line of :func:`collapse` its
    ``N`` more, any other line itself."""
    found = None if line.path or line.hint else _MORE_LIKE_THIS.fullmatch(line.message)
    return int(found.group(1).replace(",", "")) if found else 1


def bounded(lines: Sequence[Problem], limit: int | None) -> tuple[list[Problem], int]:
    """The first ``limit`` of ``lines`` (None: all) and how many warnings the rest stand
    for (:func:`represented`): the one bound on printed warnings, saved (``show``) or live
    (``run``, ``validate``)."""
    if limit is None or len(lines) <= limit:
        return list(lines), 0
    return list(lines[:limit]), sum(map(represented, lines[limit:]))


def bounded_saved(
    source: str, lines: Sequence[Problem], limit: int | None = SHOWN_SAVED
) -> tuple[list[Problem], int]:
    """A run document's saved warning lines (collapsed by its run) as ``show`` prints them:
    each once, past ``limit`` (None: no limit) one line counting the warnings of the rest;
    and how many warnings they stand for in all (:func:`represented`)."""
    distinct = list(dict.fromkeys(lines))
    total = sum(map(represented, distinct))
    message = "… and {} more warnings of its run"
    hint = 'its "warnings" list has every line; --verbose prints them'
    return _bounded_counted(distinct, limit, source, message, hint), total


def _bounded_counted(
    lines: Sequence[Problem], limit: int | None, source: str, message: str, hint: str
) -> list[Problem]:
    """:func:`bounded`'s lines, and past ``limit`` one line from ``source`` counting the
    warnings of the rest (``message`` with the count in its ``{}``)."""
    shown, rest = bounded(lines, limit)
    if rest:
        shown.append(Problem(source, "", message.format(f"{rest:,}"), hint))
    return shown


def warning_count(warnings: Iterable[Problem]) -> int:
    """How many distinct warnings there are (exact repeats counted once, as shown)."""
    return len(set(warnings))


def count_text(count: int) -> str:
    """``1 warning`` / ``2 warnings`` (the final line's part)."""
    return counted(count, "warning", grouped=True)


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
        shown, count = collapse_counted(warnings)
        return cls(shown, count, tuple(unfinished))

    @classmethod
    def of_saved(
        cls,
        saved: Mapping[str, Sequence[Problem]],
        found: Sequence[Problem],
        unfinished: Sequence[str] = (),
        *,
        limit: int | None = SHOWN_SAVED,
    ) -> RunNotes:
        """The notes of saved results: each run document's saved warning lines (by
        document, :func:`bounded_saved`) first, then the warnings reading them ``found``."""
        shown: list[Problem] = []
        count = 0
        for source, lines in saved.items():
            printed, total = bounded_saved(source, lines, limit)
            shown += printed
            count += total
        more, found_count = collapse_counted(found)
        # The warnings reading the files found, under the bound every command's have.
        printed = _bounded_counted(
            more, limit, "reading the results", "… and {} more warnings", "--verbose prints them"
        )
        return cls([*shown, *printed], count + found_count, tuple(unfinished))

    def lines(self) -> list[str]:
        """The warnings as shown, one ``file: path: message (hint)`` line each."""
        return [str(problem) for problem in self.warnings]


# A run with nothing to say beside its cases (the reporters' default).
NO_NOTES = RunNotes()


class RunFacts(TypedDict, total=False):
    """What a report file shows of the run beside its eval sets: elapsed seconds and notes."""

    elapsed: float | None
    notes: RunNotes
