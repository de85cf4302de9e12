"""The ``--json FILE`` run document (report/result_files.py writes it); used for its JSON Schema."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field
from pydantic.alias_generators import to_camel

from agenteval.schema.base import Model
from agenteval.schema.result import EvalSetResult


class CaseStatusCounts(Model):
    """How many cases ended in each in-memory status (``incomplete`` only when some did)."""

    model_config = ConfigDict(alias_generator=to_camel)

    passed: int = 0
    failed: int = 0
    not_evaluated: int = 0
    incomplete: int | None = None


class CaseVerdict(Model):
    """Stable pass / flaky / stable fail of a case run ``--num-runs N`` times, or incomplete
    when its status is, whatever its runs' statuses say, or undecided (over no run) when no
    run decided it (report/verdicts.py)."""

    model_config = ConfigDict(alias_generator=to_camel)

    verdict: Literal["stable_pass", "flaky", "stable_fail", "undecided", "incomplete"] = "undecided"
    passed_runs: int = 0
    runs: int = 0
    pass_rate: float | None = None
    # The pass rate's 95 % Wilson score interval.
    wilson_low: float = 0.0
    wilson_high: float = 1.0


class RunDocument(Model):
    """A whole run: every eval set result plus the status that decided the exit code."""

    model_config = ConfigDict(alias_generator=to_camel, extra="allow")

    agenteval_version: str = ""
    created_at: float = 0.0
    overall_status: Literal["passed", "failed", "not_evaluated", "incomplete"] = Field(
        default="not_evaluated"
    )
    case_status_counts: CaseStatusCounts | None = None
    num_eval_sets: int = 0
    duration_seconds: float | None = None
    eval_set_results: list[EvalSetResult] = Field(default_factory=list)
    warnings: list[str] | None = None
    # evalSetId → evalId → verdict, for eval sets run more than once (--num-runs N).
    case_verdicts: dict[str, dict[str, CaseVerdict]] | None = None
