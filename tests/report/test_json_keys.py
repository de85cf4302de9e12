from __future__ import annotations

from dataclasses import dataclass

from agenteval.report.json_keys import camel, camel_fields


@dataclass
class _Record:
    eval_set_id: str
    run_id: str
    shift: bool


def test_camel_fields_names_each_attribute_in_camel_case_in_the_order_given() -> None:
    record = _Record("set", "run-1", True)
    data = camel_fields(record, "shift", "eval_set_id", "run_id")
    assert data == {"shift": True, "evalSetId": "set", "runId": "run-1"}
    assert list(data) == ["shift", "evalSetId", "runId"]


def test_camel_fields_of_no_names_is_empty() -> None:
    assert camel_fields(_Record("set", "run-1", False)) == {}


def test_camel_gives_the_format_models_own_aliases() -> None:
    # explain --json and trend/diff --json name their keys as the result files do.
    from agenteval.schema.metric import EvalMetric
    from agenteval.schema.result import EvalCaseResult, EvalSetResultSummary

    for model in (EvalCaseResult, EvalSetResultSummary, EvalMetric):
        for name, info in model.model_fields.items():
            if info.alias is not None:
                assert camel(name) == info.alias, (model.__name__, name)
    assert camel("eval_metric_result_per_invocation") == "evalMetricResultPerInvocation"
    assert camel("trajectory_f1") == "trajectoryF1"
    assert camel("score") == "score"
