"""``run --resume``: which cases of earlier results a run keeps, and what it says of the rest.

A case result is kept when it was scored on the inputs of this run: its eval set's
fingerprint (:mod:`agenteval.results.fingerprints`) names the same eval set file, metrics,
traces, case aggregator and agent as the run's (the shard does not matter: shard 1/2 may be
finished by a whole run).  Results without a fingerprint (older agenteval versions,
trpc-agent-go) cannot be shown to match and are scored again.  INCOMPLETE cases
(``judgeFailures``) are scored again as before.  Whatever is scored again is said in
one warning per eval set, e.g. ``--resume: eval set 'suite': kept 12 cases;
re-scoring 3 whose metric file changed (response_match_score)``.

Tested in tests/results/test_resuming.py and tests/cli/test_fingerprints.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agenteval.errors import Problem
from agenteval.results.fingerprints import differences, joined
from agenteval.schema.result import Fingerprint

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


def resume_notes(tallies: Sequence[ResumeTally]) -> list[Problem]:
    """One warning per eval set whose earlier case results are partly scored again."""
    return [note for tally in tallies if (note := tally.note()) is not None]


__all__ = ["NO_FINGERPRINT", "ResumeTally", "mismatch", "resume_notes"]
