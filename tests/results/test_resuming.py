"""--resume keeps case results of matching fingerprints and says why it scores the rest again."""

from __future__ import annotations

from agenteval.results.resuming import NO_FINGERPRINT, ResumeTally, mismatch, resume_notes
from agenteval.schema.result import Fingerprint

NOW = Fingerprint(eval_set="sha256:e", metrics={"m": "sha256:1"}, shard="2/4")


def test_a_matching_fingerprint_is_kept_whatever_the_shard() -> None:
    assert mismatch(NOW.model_copy(update={"shard": "1/2"}), NOW) is None
    assert mismatch(NOW.model_copy(update={"shard": None}), NOW) is None


def test_other_inputs_and_unknown_fingerprints_are_not_kept() -> None:
    assert mismatch(None, NOW) == NO_FINGERPRINT
    other = NOW.model_copy(update={"metrics": {"m": "sha256:2"}, "traces": "sha256:t"})
    assert mismatch(other, NOW) == "whose metric file changed (m) and traces changed"


def test_one_warning_per_eval_set_with_counts_and_reasons() -> None:
    clean = ResumeTally("a", kept=5)
    mixed = ResumeTally(
        "b", kept=12, incomplete=1, rescored={"whose eval set changed": 3, NO_FINGERPRINT: 2}
    )
    runs = ResumeTally("c", rescored={"whose traces changed": 4}, several_runs=True)
    notes = resume_notes([clean, mixed, runs])
    assert [str(note) for note in notes] == [
        "--resume: eval set 'b': kept 12 cases; re-scoring 3 whose eval set changed, "
        f"2 {NO_FINGERPRINT} and 1 incomplete",
        "--resume: eval set 'c': kept 0 case runs; re-scoring 4 whose traces changed",
    ]
