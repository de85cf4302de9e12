"""What changed between two watch passes: newly failing/passing, score and status deltas, new
problems, removed.

Tested in tests/watch/test_changes.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agenteval.inputs.safe_text import escape_control
from agenteval.report.console_tables import format_score
from agenteval.results.aggregation import case_statuses
from agenteval.schema.status import EvalStatus
from agenteval.watch.pairs import PairKey, PassOutcome


@dataclass(slots=True)
class PassChanges:
    """The differences of a pass from the one before, as printable lines per kind."""

    newly_failing: list[str] = field(default_factory=list)
    newly_passing: list[str] = field(default_factory=list)
    score_deltas: list[str] = field(default_factory=list)
    # A metric passing or failing now at the same score (its threshold changed).
    status_changes: list[str] = field(default_factory=list)
    new_problems: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """Every change, one line each, in the order a reader wants them."""
        out = [f"newly failing: {line}" for line in self.newly_failing]
        out += [f"newly passing: {line}" for line in self.newly_passing]
        out += [f"score: {line}" for line in self.score_deltas]
        out += [f"status: {line}" for line in self.status_changes]
        out += [f"new problem: {line}" for line in self.new_problems]
        out += [f"removed: {line}" for line in self.removed]
        return out


def _statuses(outcome: PassOutcome) -> dict[tuple[str, str], EvalStatus]:
    # The case status as run reports it (aggregation.case_statuses): a case whose
    # finalEvalStatus says passed while a metric could not be evaluated is incomplete,
    # so a change from passed to incomplete is news (not passing any more).
    return {
        (result.eval_set_id, eval_id): status
        for result in outcome.results
        for eval_id, status in case_statuses(result).items()
    }


def _name(key: tuple[str, str]) -> str:
    return escape_control(f"{key[0]}/{key[1]}")


def _pair_name(key: PairKey) -> str:
    return escape_control(f"{key[0]}/{key[1]} {key[2]}")


def pass_changes(previous: PassOutcome, current: PassOutcome) -> PassChanges:
    """How ``current`` differs from ``previous`` (cases by status, pairs by score, warnings)."""
    changes = PassChanges()
    before, after = _statuses(previous), _statuses(current)
    for key, status in after.items():
        was = before.get(key)
        if status is EvalStatus.PASSED and was is not EvalStatus.PASSED:
            # A case renamed or added passing is news too: the run's verdict moved.
            changes.newly_passing.append(_name(key) + (" (new case)" if was is None else ""))
        elif status is not EvalStatus.PASSED and was is not status:
            # Passed (or new) and now not; or not evaluated before and failed now.
            label = status.value.replace("_", " ")
            changes.newly_failing.append(f"{_name(key)} ({label})")
    for key, was in before.items():
        if key not in after:
            # A failing or incomplete case deleted (or renamed) can turn the run green.
            changes.removed.append(f"{_name(key)} (was {was.value.replace('_', ' ')})")
    for pair_key, pair in current.pairs.items():
        old = previous.pairs.get(pair_key)
        if old is None or old.overall is None or pair.overall is None:
            continue
        a, b = old.overall.score, pair.overall.score
        was, now = old.overall.eval_status, pair.overall.eval_status
        if a == b and was is not now:
            # Else "no result changed" while a metric of a failing case newly failed.
            shown = f"{was.value} → {now.value}".replace("_", " ")
            changes.status_changes.append(f"{_pair_name(pair_key)} {shown}")
        if a != b:
            shown_a = format_score(a) if a is not None else "-"
            shown_b = format_score(b) if b is not None else "-"
            changes.score_deltas.append(f"{_pair_name(pair_key)} {shown_a} → {shown_b}")
    seen = {str(problem) for problem in previous.warnings}
    for problem in current.warnings:
        if str(problem) not in seen:
            changes.new_problems.append(escape_control(str(problem)))
    return changes


__all__ = ["PassChanges", "pass_changes"]
