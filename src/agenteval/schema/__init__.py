"""The file formats: their pydantic models and the rules read straight off them.

The models of eval sets, metric files, results and the ``--json`` run document
(:mod:`.evalset`, :mod:`.metric`, :mod:`.result`, :mod:`.run_document`, statuses in
:mod:`.status`) and their JSON Schemas (:mod:`.json_schema`; agenteval's own keys in
:mod:`.own_keys`, which runs check without building the schemas); what a case's fields mean
for every reader: its actual/expected turns (:mod:`.turns`) and its rubrics
(:mod:`.case_rubrics`); and Go's ``encoding/json`` output the files are written in
(:mod:`.gojson`).

The bottom layer: imports ``errors`` only, nothing else of agenteval.
"""

from agenteval.schema.evalset import (
    ConversationScenario,
    EvalCase,
    EvalCaseRubric,
    EvalSet,
    Invocation,
    Message,
    SessionInput,
    Tool,
)
from agenteval.schema.metric import (
    Criterion,
    EvalMetric,
    FinalResponseCriterion,
    JSONCriterion,
    JudgeModel,
    LengthCriterion,
    LLMCriterion,
    RougeCriterion,
    RougeThreshold,
    TextCriterion,
    ToolTrajectoryCriterion,
    ToolTrajectoryStrategy,
    XMLCriterion,
)
from agenteval.schema.result import (
    CaseMetricResult,
    CaseRunSummary,
    DetailValue,
    EvalCaseResult,
    EvalCaseSummary,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    EvalSetResultSummary,
    MetricDetails,
    MetricSummary,
    RubricScore,
    RunSummary,
    StatusCounts,
)
from agenteval.schema.status import EvalStatus, status_for, summarize

__all__ = [
    "CaseMetricResult",
    "CaseRunSummary",
    "ConversationScenario",
    "Criterion",
    "DetailValue",
    "EvalCase",
    "EvalCaseResult",
    "EvalCaseRubric",
    "EvalCaseSummary",
    "EvalMetric",
    "EvalMetricResult",
    "EvalMetricResultPerInvocation",
    "EvalSet",
    "EvalSetResult",
    "EvalSetResultSummary",
    "EvalStatus",
    "FinalResponseCriterion",
    "Invocation",
    "JSONCriterion",
    "JudgeModel",
    "LLMCriterion",
    "LengthCriterion",
    "Message",
    "MetricDetails",
    "MetricSummary",
    "RougeCriterion",
    "RougeThreshold",
    "RubricScore",
    "RunSummary",
    "SessionInput",
    "StatusCounts",
    "TextCriterion",
    "Tool",
    "ToolTrajectoryCriterion",
    "ToolTrajectoryStrategy",
    "XMLCriterion",
    "status_for",
    "summarize",
]
