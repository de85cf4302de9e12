"""``run --resume``: which cases of earlier results a run keeps, and what it says of the rest.

A case result is kept when it was scored on the inputs of this run: its eval set's
fingerprint (:mod:`agenteval.results.fingerprints`) names the same eval set file, metrics,
traces, case aggregator and agent as the run's (the shard does not matter: shard 1/2 may be
finished by a whole run).  Results without a fingerprint (older agenteval versions,
trpc-agent-go) cannot be shown to match and are scored again.  INCOMPLETE cases
(``judgeFailures``) are scored again as before.  Whatever is scored again is said in
one warning per eval set, e.g. ``--resume: eval set 'suite': kept 12 cases;
re-scoring 3 whose metric file changed (response_match_score)``.

A run that keeps only some cases of an earlier result (``--shard``, ``--case``) carries
only what those cases spent (:func:`attributed`): the sum of their own ``judgeUsage`` and
``agentUsage``.  What the earlier run's totals hold beyond its cases' — the judge usage by
metric, ``durationSeconds``, judge calls of cases a stop cut off — cannot be split among
its cases and is not carried: each shard resuming one whole run carried it whole, and
``merge`` of the shards added it up once per shard.

Tested in tests/results/test_resuming.py and tests/cli/test_fingerprints.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from typing import Any

from agenteval.errors import Problem
from agenteval.results.agent_usage import AGENT_USAGE_KEY, summed, summed_usd
from agenteval.results.aggregation import CASE_USAGE_KEY
from agenteval.results.fingerprints import differences, joined
from agenteval.results.merging import SUMMED_EXTRA_KEYS, sum_numbers
from agenteval.schema.result import RUN_STATE_KEYS, EvalCaseResult, EvalSetResult, Fingerprint

NO_FINGERPRINT = "from results without fingerprints (an older agenteval's or trpc-agent-go's)"


def mismatch(earlier: Fingerprint | None, now: Fingerprint | None) -> str | None:
    """Why results of ``earlier`` are not kept by a run of ``now``, in words; None: kept."""
    if now is None:
        return None  # a plan without a fingerprint (built by code): nothing to compare
    if earlier is None:
        return NO_FINGERPRINT
    changed = differences(earlier, now)
    return f"whose {joined(changed)}" if changed else None


@dataclass(slots=True)
class ResumeTally:
    """What --resume did with one eval set's earlier case results."""

    eval_set_id: str
    kept: int = 0
    incomplete: int = 0
    # Why, and how many case results are scored again.
    rescored: dict[str, int] = field(default_factory=dict)
    several_runs: bool = False

    def note(self) -> Problem | None:
        """The warning about the case results scored again; None when every one was kept."""
        if not self.rescored:
            return None
        noun = "case runs" if self.several_runs else "cases"
        reasons = [f"{count} {why}" for why, count in self.rescored.items()]
        if self.incomplete:
            reasons.append(f"{self.incomplete} incomplete")
        return Problem(
            "--resume",
            "",
            f"eval set {self.eval_set_id!r}: kept {self.kept} {noun}; re-scoring {joined(reasons)}",
        )


def attributed(head: EvalSetResult, cases: Iterable[EvalCaseResult]) -> EvalSetResult:
    """``head`` of an earlier result of which a run keeps only ``cases``: its summed run
    keys (``judgeUsage``, ``agentUsage``, ``durationSeconds``) replaced by what ``cases``
    record for themselves; ``judgeUsage`` holds only its ``total`` (module docstring)."""
    judge: list[Mapping[str, Any]] = []
    agent: list[object] = []
    for case in cases:
        keys = case.model_extra or {}
        spent = keys.get(CASE_USAGE_KEY)
        if isinstance(spent, Mapping):
            judge.append(spent)
        if AGENT_USAGE_KEY in keys:
            agent.append(keys[AGENT_USAGE_KEY])
    kept = head.model_copy()
    for key in SUMMED_EXTRA_KEYS:
        if key in RUN_STATE_KEYS:
            setattr(kept, RUN_STATE_KEYS[key], None)
        elif kept.model_extra is not None:
            kept.model_extra.pop(key, None)
    if judge:
        total = dict(reduce(sum_numbers, judge))
        costs = [c for usage in judge if isinstance(c := usage.get("costUsd"), int | float)]
        total["costUsd"] = summed_usd(costs)  # added exactly, as the run added them
        kept.judge_usage = {"total": total}
    kept.agent_usage = summed(agent)
    return kept


def resume_notes(tallies: Sequence[ResumeTally]) -> list[Problem]:
    """One warning per eval set whose earlier case results are partly scored again."""
    return [note for tally in tallies if (note := tally.note()) is not None]


__all__ = [
    "NO_FINGERPRINT",
    "ResumeTally",
    "attributed",
    "mismatch",
    "resume_notes",
]
