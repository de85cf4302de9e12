"""Result file format (formats.md §6–§7).

Extra keys that Go readers ignore (judge usage, votes, pass@k, ...) are
allowed on the objects that carry them, so files written by agenteval keep
them on a round-trip and files written by Go load without them.

Tested in tests/report/test_result_files.py.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, GetCoreSchemaHandler, PlainSerializer, WrapSerializer
from pydantic.alias_generators import to_camel
from pydantic_core import CoreSchema, core_schema

from agenteval.schema.base import Model, NullAs, Str, once_per_dump
from agenteval.schema.evalset import Invocation
from agenteval.schema.metric import Criterion
from agenteval.schema.status import EvalStatus, is_upper_bound

_camel = ConfigDict(alias_generator=to_camel)
_camel_extra = ConfigDict(alias_generator=to_camel, extra="allow")


def go_number(value: float) -> float | int:
    """A score as it is written: Go writes an integral float as "1", not "1.0".

    An int gets the same text from any encoder; plain data written with
    :func:`agenteval.schema.gojson.to_go_json_bytes` holds scores in this form.
    """
    return int(value) if value.is_integer() and abs(value) < 1e15 else value


# return_type=Any: the core writes the int or float as it is, instead of trying a union.
Score = Annotated[float, NullAs(0.0), PlainSerializer(go_number, return_type=Any, when_used="json")]


# The statuses a result file holds: trpc-agent-go writes these three, and its summaries
# refuse any other ("unexpected eval status"); ``incomplete`` is agenteval's in reports only.
FILE_STATUSES = (EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED)


class _WrittenAsText:
    """Marker: a result file's status, written as its text in pydantic's core.

    The default enum serializer reads ``.value`` through a Python descriptor for
    every status of every result; a ``str`` subclass can be written as it is.  Only
    :data:`FILE_STATUSES` are read: ``unknown`` or ``incomplete`` in a file is a located
    error, where it crashed the readers' summaries (exit 4).
    """

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        # A literal of the members, not an enum schema: pydantic's lax enum validator falls
        # back to calling the class, which reads "unknown" too.  A literal gives the member
        # itself back for its text, in Python mode as in JSON, with no Python call.
        return core_schema.custom_error_schema(
            core_schema.literal_schema(
                list(FILE_STATUSES), serialization=core_schema.simple_ser_schema("str")
            ),
            custom_error_type="status",
            custom_error_message="expected passed, failed or not_evaluated",
        )


Status = Annotated[EvalStatus, _WrittenAsText()]
# A run's metric results all hold their metric's criterion object: write it once per dump.
SharedCriterion = Annotated[Criterion | None, WrapSerializer(once_per_dump)]


class DetailValue(Model):
    """Typed value of a per-turn result (numeric, boolean or categorical)."""

    kind: Str = ""
    numeric: float | None = None
    boolean: bool | None = None
    categorical: str | None = None


class RubricScore(Model):
    """Verdict of one rubric."""

    id: Str = ""
    reason: Str = ""
    score: Score = 0.0


class MetricDetails(Model):
    """``details`` of a metric result; evaluators may add extra keys."""

    model_config = _camel_extra

    reason: Str = ""
    score: Score = 0.0
    value: DetailValue | None = None
    rubric_scores: list[RubricScore] | None = None


class MetricOutcome(Model):
    """The keys every metric result starts with: metric, score, status, threshold."""

    metric_name: Str = ""
    score: Score = 0.0
    eval_status: Status = EvalStatus.NOT_EVALUATED
    threshold: Score = 0.0


class EvalMetricResult(MetricOutcome):
    """Result of one metric, for one turn or for the whole case (formats.md §6.3)."""

    model_config = _camel_extra

    criterion: SharedCriterion = None
    details: MetricDetails | None = None

    @property
    def upper_bound(self) -> bool:
        """Whether its threshold is an upper bound (a count metric: status.is_upper_bound)."""
        return is_upper_bound(self.metric_name, self.__pydantic_extra__)


class EvalMetricResultPerInvocation(Model):
    """One turn pair and the per-turn results of every metric (formats.md §6.4)."""

    model_config = _camel

    actual_invocation: Invocation | None = None
    expected_invocation: Invocation | None = None
    eval_metric_results: list[EvalMetricResult] | None = None


class EvalCaseResult(Model):
    """One case in one run (formats.md §6.2)."""

    model_config = _camel_extra

    eval_set_id: Str = ""
    eval_id: Str = ""
    run_id: Annotated[int, NullAs(0)] = 0
    score: Score = 0.0
    final_eval_status: Status = EvalStatus.NOT_EVALUATED
    error_message: Str = ""
    overall_eval_metric_results: list[EvalMetricResult] | None = None
    eval_metric_result_per_invocation: list[EvalMetricResultPerInvocation] | None = None
    session_id: Str = ""
    user_id: Str = ""


class StatusCounts(Model):
    """Counts of statuses; zeros are omitted like Go does."""

    model_config = _camel

    passed: Annotated[int, NullAs(0)] = 0
    failed: Annotated[int, NullAs(0)] = 0
    not_evaluated: Annotated[int, NullAs(0)] = 0


class MetricSummary(Model):
    """Average of one metric over cases or runs (formats.md §7)."""

    model_config = _camel_extra

    metric_name: Str = ""
    average_score: Score = 0.0
    eval_status: Status = EvalStatus.NOT_EVALUATED
    threshold: Score = 0.0
    status_counts: StatusCounts | None = None


class RunSummary(Model):
    """Summary of one run over all cases."""

    model_config = _camel_extra

    run_id: Annotated[int, NullAs(0)] = 0
    overall_status: Status = EvalStatus.NOT_EVALUATED
    case_status_counts: StatusCounts | None = None
    metric_summaries: list[MetricSummary] | None = None


class CaseMetricResult(MetricOutcome):
    """A metric's overall result inside a case's run summary."""

    model_config = _camel


class CaseRunSummary(Model):
    """One run of one case inside the case summary."""

    model_config = _camel

    run_id: Annotated[int, NullAs(0)] = 0
    final_eval_status: Status = EvalStatus.NOT_EVALUATED
    error_message: Str = ""
    metric_results: list[CaseMetricResult] | None = None


class EvalCaseSummary(Model):
    """Summary of one case over all runs."""

    model_config = _camel_extra

    eval_id: Str = ""
    overall_status: Status = EvalStatus.NOT_EVALUATED
    run_status_counts: StatusCounts | None = None
    metric_summaries: list[MetricSummary] | None = None
    run_summaries: list[CaseRunSummary] | None = None


class EvalSetResultSummary(Model):
    """Run-level summary of a result file (formats.md §7)."""

    model_config = _camel_extra

    overall_status: Status = EvalStatus.NOT_EVALUATED
    num_runs: Annotated[int, NullAs(0)] = 0
    run_status_counts: StatusCounts | None = None
    run_summaries: list[RunSummary] | None = None
    eval_case_summaries: list[EvalCaseSummary] | None = None


class Fingerprint(Model):
    """What an eval set's results were scored on: content hashes of the inputs, and the shard.

    Written by agenteval per eval set (the ``fingerprint`` key, which Go readers ignore);
    ``--resume`` keeps only cases scored on the same inputs and ``merge`` joins only shards
    of one run (agenteval.results.fingerprints).  Every hash is ``sha256:`` and 64 hex digits.
    """

    model_config = _camel

    # The eval set file's bytes.
    eval_set: Str = ""
    # metricName → the metric as resolved (defaults filled, ${VAR} expanded), secrets left out.
    metrics: dict[str, str] | None = None
    # The --traces file's bytes (and an OTLP export's --traces-match other than session);
    # absent when the run read no traces file.
    traces: str | None = None
    # --case-aggregator's name; absent for the default aggregator.
    case_aggregator: str | None = None
    # --agent and --expected-agent as given, their secrets as *** before hashing; absent when
    # the run drove none of the eval set's cases (no --agent, or every case's turns its own
    # or from --traces).
    agent: str | None = None
    # "I/N" for a run of one shard (--shard); absent for a whole run.
    shard: str | None = None


class EvalSetResult(Model):
    """A result file (formats.md §6.1)."""

    model_config = _camel_extra

    eval_set_result_id: Str = ""
    eval_set_result_name: Str = ""
    eval_set_id: Str = ""
    eval_case_results: list[EvalCaseResult] | None = None
    summary: EvalSetResultSummary | None = None
    creation_timestamp: float | None = None
    # Run state agenteval adds (keys Go readers ignore), written only when set.
    # True when a signal stopped the run before every case ran (``partial``).
    partial: bool | None = None
    # Judge calls and tokens of this eval set, ``{"total": {...}, "byMetric": {...}}``.
    judge_usage: dict[str, Any] | None = None
    # What the agent under test spent over this eval set's cases (``agentUsage``: tokens,
    # model calls, dollars where priced), kept apart from the judge's.
    agent_usage: dict[str, Any] | None = None
    # The evalIds of the INCOMPLETE cases: a metric the judge could not evaluate, or an
    # agent that could not be started or reached (``judgeFailures``; files of older
    # versions hold a count of such turns).
    judge_failures: list[str] | int | None = None
    # The inputs the cases were scored on (``fingerprint``); files of older versions and
    # of trpc-agent-go have none.
    fingerprint: Fingerprint | None = None

    def case_results(self) -> list[EvalCaseResult]:
        """Case results of every run, in file order."""
        return list(self.eval_case_results or [])


# File key → field of EvalSetResult's typed run state.
RUN_STATE_KEYS: dict[str, str] = {
    "partial": "partial",
    "judgeUsage": "judge_usage",
    "agentUsage": "agent_usage",
    "judgeFailures": "judge_failures",
    "fingerprint": "fingerprint",
}


def extra(model: Model) -> dict[str, Any]:
    """The extra (non-Go) keys a result object carries, an eval set's typed run state included."""
    keys = dict(model.model_extra or {})
    if isinstance(model, EvalSetResult):
        for key, name in RUN_STATE_KEYS.items():
            value = getattr(model, name)
            if value is not None:
                keys[key] = value
    return keys


def set_extra(model: Model, key: str, value: Any) -> None:
    """Set an extra key: a typed run-state field when it is one, else a free extra key."""
    name = RUN_STATE_KEYS.get(key) if isinstance(model, EvalSetResult) else None
    setattr(model, name or key, value)


__all__ = [
    "RUN_STATE_KEYS",
    "CaseMetricResult",
    "CaseRunSummary",
    "DetailValue",
    "EvalCaseResult",
    "EvalCaseSummary",
    "EvalMetricResult",
    "EvalMetricResultPerInvocation",
    "EvalSetResult",
    "EvalSetResultSummary",
    "Fingerprint",
    "MetricDetails",
    "MetricSummary",
    "RubricScore",
    "RunSummary",
    "StatusCounts",
    "extra",
    "go_number",
    "set_extra",
]
