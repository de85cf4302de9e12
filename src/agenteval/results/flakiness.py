"""Stable pass, flaky or stable fail: the verdict on a case that ran several times.

One rule for both places a case runs more than once: the repeats of one run
(``--num-runs N``: the console's pass@k table, the run document's ``caseVerdicts``,
the HTML report) and the stored runs of a history (``agenteval trend``, which counts
every repeat of each stored ``--num-runs N`` run, not only the run's final status).  A case
that passed every decided run is a **stable pass**, one that passed none a **stable
fail**, anything in between **flaky**.  A case of one run whose status is
incomplete (a metric not evaluated in some repeat, or named in ``judgeFailures``) is
**incomplete** whatever its repeats' statuses say: trpc-agent-go counts a repeat as
passed by its ``finalEvalStatus``, which passes beside a metric that was not evaluated,
and "3/3 stable pass" beside an INCOMPLETE case read green.  A case whose status in its
run is not evaluated (no repeat decided: the case aggregator evaluated none) is
**undecided**, counting no run, as a history counts none of the runs where a case was
not decided; "0/3 stable fail" said it failed.  The pass rate comes with its Wilson score
interval (95 %), which stays inside [0, 1] and is honest for few runs (2 of 3 is
"0.21–0.94", not "0.67"); a flip is a decided run whose outcome differs from the
decided run before it.

Pure functions over booleans and counts; nothing here reads results or a store.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

# The normal quantile of a two-sided 95 % interval.
Z_95 = 1.959963984540054


class Verdict(StrEnum):
    """What a case's repeated outcomes say about it."""

    FLAKY = "flaky"
    STABLE_FAIL = "stable_fail"
    STABLE_PASS = "stable_pass"
    # No run was decided (every one incomplete or not evaluated).
    UNDECIDED = "undecided"
    # The case's status in its run is incomplete: its repeats cannot say it is stable.
    INCOMPLETE = "incomplete"

    @property
    def label(self) -> str:
        """``stable pass``, ``flaky``, … as the console prints it."""
        return self.value.replace("_", " ")


# Flaky cases first (the ones to look at), then stable failures, then the rest.
VERDICT_ORDER = {
    Verdict.FLAKY: 0,
    Verdict.STABLE_FAIL: 1,
    Verdict.INCOMPLETE: 2,
    Verdict.UNDECIDED: 3,
    Verdict.STABLE_PASS: 4,
}

# What is printed beside "N/M runs passed" of an incomplete case, so that no report reads green.
# Every report prints the status word beside it (the console's INCOMPLETE, Markdown's
# "❗ incomplete (…)", the GitHub title's "incomplete"): the note does not say it again.
INCOMPLETE_NOTE = "a metric not evaluated"


def wilson_interval(passed: int, runs: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a pass rate ``passed / runs``; (0, 1) for no runs."""
    if runs <= 0:
        return 0.0, 1.0
    if not 0 <= passed <= runs:
        raise ValueError(f"passed must be within 0..runs, got {passed} of {runs}")
    rate = passed / runs
    z2 = z * z
    centre = rate + z2 / (2 * runs)
    spread = z * math.sqrt(rate * (1 - rate) / runs + z2 / (4 * runs * runs))
    scale = 1 + z2 / runs
    low, high = (centre - spread) / scale, (centre + spread) / scale
    # Exact at the ends: 0 of n has a lower bound of 0, n of n an upper bound of 1.
    return (0.0 if passed == 0 else max(0.0, low)), (1.0 if passed == runs else min(1.0, high))


@dataclass(frozen=True, slots=True)
class CaseVerdict:
    """A case's verdict over its decided runs, its pass rate's interval and where it flipped.

    ``flips`` are positions (0-based) in the sequence the verdict was made from.
    """

    verdict: Verdict
    passed: int
    runs: int
    low: float
    high: float
    flips: tuple[int, ...] = field(default=())

    @property
    def pass_rate(self) -> float | None:
        """passed / runs; None when no run was decided."""
        return self.passed / self.runs if self.runs else None

    def to_json(self) -> dict[str, Any]:
        """``{"verdict", "passedRuns", "runs", "passRate", "wilsonLow", "wilsonHigh"}``."""
        return {
            "verdict": self.verdict.value,
            "passedRuns": self.passed,
            "runs": self.runs,
            "passRate": self.pass_rate,
            "wilsonLow": self.low,
            "wilsonHigh": self.high,
        }


def verdict_of_counts(passed: int, runs: int) -> CaseVerdict:
    """The verdict of ``passed`` passing runs out of ``runs`` decided ones (no order known)."""
    if runs <= 0:
        verdict = Verdict.UNDECIDED
    elif passed == runs:
        verdict = Verdict.STABLE_PASS
    elif passed == 0:
        verdict = Verdict.STABLE_FAIL
    else:
        verdict = Verdict.FLAKY
    low, high = wilson_interval(passed, runs)
    return CaseVerdict(verdict, passed, max(runs, 0), low, high)


def run_verdict(
    passed: int, runs: int, *, incomplete: bool, undecided: bool = False
) -> CaseVerdict:
    """The verdict of a case of one ``--num-runs N`` run: ``passed`` of its ``runs`` repeats
    passed (their ``finalEvalStatus``: pass@k's c, kept in the counts and the interval), but
    :attr:`Verdict.INCOMPLETE` when the case's status is incomplete, never a stable pass,
    and :attr:`Verdict.UNDECIDED` over no run when it is not evaluated (``undecided``: no
    repeat was decided), never a stable fail."""
    if incomplete:
        return replace(verdict_of_counts(passed, runs), verdict=Verdict.INCOMPLETE)
    return verdict_of_counts(0, 0) if undecided else verdict_of_counts(passed, runs)


def passed_runs_text(passed: int, runs: int, *, incomplete: bool) -> str:
    """``2/3 runs passed``; with ``· a metric not evaluated`` for an incomplete case (its
    status word is printed beside it)."""
    text = f"{passed}/{runs} runs passed"
    return f"{text} · {INCOMPLETE_NOTE}" if incomplete else text


def verdict_of(outcomes: Iterable[bool | None]) -> CaseVerdict:
    """The verdict of a sequence of outcomes: True passed, False failed, None undecided.

    Undecided entries are skipped; a flip is where a decided outcome differs from the
    previous decided one, given as its position in ``outcomes``.
    """
    passed = runs = 0
    flips: list[int] = []
    previous: bool | None = None
    for position, outcome in enumerate(outcomes):
        if outcome is None:
            continue
        runs += 1
        passed += outcome
        if previous is not None and outcome != previous:
            flips.append(position)
        previous = outcome
    counted = verdict_of_counts(passed, runs)
    return CaseVerdict(counted.verdict, passed, runs, counted.low, counted.high, tuple(flips))


def order_key(eval_id: Sequence[str], verdict: CaseVerdict) -> tuple[int, int, tuple[str, ...]]:
    """Sort key: flaky first (most flips first), then stable fails, then by id."""
    return VERDICT_ORDER[verdict.verdict], -len(verdict.flips), tuple(eval_id)


__all__ = [
    "INCOMPLETE_NOTE",
    "VERDICT_ORDER",
    "Z_95",
    "CaseVerdict",
    "Verdict",
    "order_key",
    "passed_runs_text",
    "run_verdict",
    "verdict_of",
    "verdict_of_counts",
    "wilson_interval",
]
