"""EvalSetResult's typed run state: typed in memory, the same extra keys in files."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from agenteval.schema.base import dump, dump_json
from agenteval.schema.result import EvalCaseResult, EvalSetResult, extra, set_extra

USAGE = {"total": {"calls": 3, "cacheHits": 1}, "byMetric": {}}


def test_run_state_is_written_under_the_old_extra_keys_after_the_go_fields() -> None:
    result = EvalSetResult(eval_set_id="s", creation_timestamp=1.5)
    result.partial = True
    result.judge_usage = USAGE
    result.judge_failures = 2
    text = dump_json(result)
    assert list(json.loads(text)) == [
        "evalSetId",
        "creationTimestamp",
        "partial",
        "judgeUsage",
        "judgeFailures",
    ]
    assert json.loads(text)["judgeUsage"] == USAGE
    assert dump(result)["judgeFailures"] == 2


def test_unset_run_state_is_not_written() -> None:
    result = EvalSetResult(eval_set_id="s")
    result.partial = None
    assert dump(result) == {"evalSetId": "s"}


def test_files_load_the_keys_into_typed_fields() -> None:
    loaded = EvalSetResult.model_validate_json(
        json.dumps(
            {"evalSetId": "s", "partial": True, "judgeUsage": USAGE, "judgeFailures": 1, "x": 7}
        )
    )
    assert (loaded.partial, loaded.judge_usage, loaded.judge_failures) == (True, USAGE, 1)
    assert loaded.model_extra == {"x": 7}  # other extra keys stay free
    assert extra(loaded) == {"x": 7, "partial": True, "judgeUsage": USAGE, "judgeFailures": 1}


def test_a_run_state_key_of_the_wrong_type_is_refused() -> None:
    with pytest.raises(ValidationError):
        EvalSetResult.model_validate_json('{"evalSetId": "s", "judgeFailures": "two"}')


def test_set_extra_routes_run_state_to_the_fields() -> None:
    result = EvalSetResult(eval_set_id="s")
    set_extra(result, "judgeUsage", USAGE)
    set_extra(result, "durationSeconds", 0.5)
    assert result.judge_usage == USAGE
    assert result.model_extra == {"durationSeconds": 0.5}
    assert dump(result) == {"evalSetId": "s", "judgeUsage": USAGE, "durationSeconds": 0.5}


@pytest.mark.parametrize("status", ["passed", "failed", "not_evaluated"])
def test_a_status_reads_by_its_text_in_python_mode_as_in_json_mode(status: str) -> None:
    """result_validation.py validates parsed JSON: its texts must read as JSON mode reads them."""
    from_data = EvalCaseResult.model_validate({"finalEvalStatus": status})
    from_text = EvalCaseResult.model_validate_json(json.dumps({"finalEvalStatus": status}))
    assert from_data.final_eval_status is from_text.final_eval_status
    assert from_data.final_eval_status.value == status


@pytest.mark.parametrize(
    "value", ["PASSED", "pass", "", 1, True, None, ["passed"], {"v": "passed"}]
)
def test_anything_else_is_refused_in_both_modes(value: object) -> None:
    with pytest.raises(ValidationError) as in_python:
        EvalCaseResult.model_validate({"finalEvalStatus": value})
    with pytest.raises(ValidationError) as in_json:
        EvalCaseResult.model_validate_json(json.dumps({"finalEvalStatus": value}))
    assert in_python.value.errors()[0]["type"] == in_json.value.errors()[0]["type"]


@pytest.mark.parametrize("status", ["unknown", "incomplete"])
@pytest.mark.parametrize("mode", ["python", "json"])
def test_a_status_no_result_file_holds_is_refused(status: str, mode: str) -> None:
    # trpc-agent-go's summaries refuse "unknown" too; agenteval's readers crashed on them
    # (exit 4). "incomplete" is a report's word, never a result file's.
    data = {"finalEvalStatus": "passed", "overallEvalMetricResults": [{"evalStatus": status}]}
    with pytest.raises(ValidationError) as caught:
        if mode == "python":
            EvalCaseResult.model_validate(data)
        else:
            EvalCaseResult.model_validate_json(json.dumps(data))
    (error,) = caught.value.errors()
    assert error["loc"] == ("overallEvalMetricResults", 0, "evalStatus")
    assert error["msg"] == "expected passed, failed or not_evaluated"
