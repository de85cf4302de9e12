"""Case-level rubrics (llm-evaluators.md §7, formats.md §2.8; §11 59): checks, merge, judge input.

The merge is checked on its own (Go's error texts) and through a whole run
against the loopback judge: the judge must see the merged rubric list in the
prompt and in the schema, and the result must echo the effective criterion.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_support import judge_model

from agenteval.api import Options, evaluate
from agenteval.inputs.loading import parse_evalset
from agenteval.schema import EvalCase, EvalMetric
from agenteval.schema.case_rubrics import CaseRubricError, merged_rubrics, with_rubrics
from agenteval.schema.evalset import EvalCaseRubric
from judge_server import JudgeServer, Reply


def global_metric(**changes: Any) -> EvalMetric:
    data: dict[str, Any] = {
        "metricName": "llm_rubric_response",
        "threshold": 1,
        "criterion": {
            "llmJudge": {"rubrics": [{"id": "global", "content": {"text": "Global rule."}}]}
        },
    }
    data.update(changes)
    return EvalMetric.model_validate(data)


def case_with(*rubrics: dict[str, Any]) -> EvalCase:
    return EvalCase.model_validate({"evalId": "c1", "rubrics": list(rubrics)})


def merge_error(case: EvalCase, metrics: list[EvalMetric]) -> str:
    with pytest.raises(CaseRubricError) as info:
        merged_rubrics(case, metrics)
    return str(info.value)


CASE_RULE = {"metricName": "llm_rubric_response", "content": {"text": " Case requirement. "}}


def test_s59_merge_appends_after_the_metric_rubrics() -> None:
    shared = global_metric()
    merged = merged_rubrics(case_with(CASE_RULE), [shared])
    effective = with_rubrics(shared, merged["llm_rubric_response"])
    rubrics = effective.criterion.llm_judge.rubrics  # type: ignore[union-attr]
    assert [r.id for r in rubrics or []] == ["global", "case_rubric_1"]
    added = (rubrics or [])[1]
    assert added.content == {"text": "Case requirement."}
    assert (added.type, added.description) == ("", "")
    # The shared metric config is untouched.
    assert len(shared.criterion.llm_judge.rubrics or []) == 1  # type: ignore[union-attr]


def test_ids_type_and_description_are_normalised() -> None:
    other = global_metric(metricName="second")
    case = case_with(
        {
            "metricName": "second",
            "id": "  own  ",
            "content": {"text": "x"},
            "type": " T ",
            "description": " kept as is ",
        },
        {"metricName": "llm_rubric_response", "content": {"text": "y"}},
    )
    merged = merged_rubrics(case, [global_metric(), other])
    (own,) = merged["second"][1:]
    assert (own.id, own.type, own.description) == ("own", "T", " kept as is ")
    # k counts positions in the whole case list, whatever metric they target.
    assert merged["llm_rubric_response"][-1].id == "case_rubric_2"


def test_metrics_without_case_rubrics_are_not_in_the_result() -> None:
    assert merged_rubrics(case_with(), [global_metric()]) == {}
    assert merged_rubrics(
        case_with(CASE_RULE), [global_metric(), global_metric(metricName="x")]
    ).keys() == {"llm_rubric_response"}


@pytest.mark.parametrize(
    ("rubric", "message"),
    [
        ({**CASE_RULE, "id": "global"}, "case rubric c1: duplicate rubric id global"),
        ({**CASE_RULE, "id": " global "}, "case rubric c1: duplicate rubric id global"),
        ({**CASE_RULE, "metricName": " "}, "case rubric c1[0]: metricName is empty"),
        ({**CASE_RULE, "metricName": "missing"}, "case rubric c1[0]: metric missing not found"),
        ({**CASE_RULE, "content": {"text": " "}}, "case rubric c1[0]: content.text is empty"),
        ({"metricName": "llm_rubric_response"}, "case rubric c1[0]: content is nil"),
    ],
)
def test_s59_errors(rubric: dict[str, Any], message: str) -> None:
    assert merge_error(case_with(rubric), [global_metric()]) == message


def test_s59_metric_without_llm_judge() -> None:
    bare = EvalMetric.model_validate({"metricName": "llm_rubric_response", "threshold": 1})
    assert merge_error(case_with(CASE_RULE), [bare]) == (
        "case rubric c1: metric llm_rubric_response llmJudge criterion is required as rubric container"
    )


def test_s59_null_rubric() -> None:
    # A file cannot hold one (the loader reports it up front); a plugin-built case can.
    case = EvalCase.model_construct(eval_id="c1", rubrics=[None])  # type: ignore[list-item]
    assert merge_error(case, [global_metric()]) == "case rubric c1[0]: rubric is nil"
    _, problems = parse_evalset(
        json.dumps({"evalSetId": "s", "evalCases": [{"evalId": "c1", "rubrics": [None]}]}), "s.json"
    )
    assert [(p.path, p.message) for p in problems] == [
        ("evalCases[0].rubrics[0]", "expected an object, got null")
    ]


def test_checks_run_in_order_per_rubric() -> None:
    # The first rubric's problem wins even when a later one has another.
    case = case_with({**CASE_RULE, "metricName": "missing"}, {**CASE_RULE, "content": None})
    assert merge_error(case, [global_metric()]) == "case rubric c1[0]: metric missing not found"


def test_duplicates_among_the_metric_rubrics_are_reported() -> None:
    m = global_metric()
    rubrics = m.criterion.llm_judge.rubrics  # type: ignore[union-attr]
    assert rubrics is not None
    rubrics.append(rubrics[0].model_copy(update={"id": " global"}))
    assert merge_error(case_with(CASE_RULE), [m]) == "case rubric c1: duplicate rubric id global"


def test_case_rubric_model_keeps_what_it_reads() -> None:
    rubric = EvalCaseRubric.model_validate({"metricName": "m", "content": {"text": "t"}})
    assert (rubric.id, rubric.description, rubric.type) == ("", "", "")


# --- through a whole run ------------------------------------------------------------------


def write_inputs(tmp: Path, server: JudgeServer, cases: list[dict[str, Any]]) -> tuple[Path, Path]:
    evalset = tmp / "rubrics.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "rubrics", "evalCases": cases}))
    metrics = tmp / "rubrics.metrics.json"
    block = {
        "judgeModel": judge_model(server),
        "rubrics": [{"id": "global", "content": {"text": "Answers the question."}}],
    }
    metrics.write_text(
        json.dumps(
            [
                {
                    "metricName": "answer_quality",
                    "evaluatorName": "llm_rubric_response",
                    "threshold": 1,
                    "criterion": {"llmJudge": block},
                }
            ]
        )
    )
    return evalset, metrics


def trace_case(eval_id: str, rubrics: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "evalId": eval_id,
        "evalMode": "trace",
        "actualConversation": [
            {
                "userContent": {"role": "user", "content": f"question of {eval_id}"},
                "finalResponse": {"role": "assistant", "content": "an answer"},
            }
        ],
        "rubrics": rubrics,
        "sessionInput": {"appName": "app", "userId": "u"},
    }


def test_merged_rubrics_reach_the_judge_and_the_result(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    judge_server.when(
        "question of with-case-rubric",
        Reply(
            content=json.dumps(
                {
                    "rubricScores": [
                        {"id": "global", "score": 1, "reason": "answers"},
                        {"id": "case:tone", "score": 0, "reason": "too curt"},
                    ]
                }
            )
        ),
    )
    judge_server.when(
        "question of plain",
        Reply(content=json.dumps({"rubricScores": [{"id": "global", "score": 1, "reason": "ok"}]})),
    )
    cases = [
        trace_case(
            "with-case-rubric",
            [{"metricName": "answer_quality", "id": " case:tone ", "content": {"text": "Polite."}}],
        ),
        trace_case("plain", []),
        trace_case("broken", [{"metricName": "nope", "content": {"text": "x"}}]),
    ]
    evalset, metrics = write_inputs(tmp_path, judge_server, cases)
    run = evaluate([str(evalset)], Options(metrics=str(metrics), cache=None))
    by_id = {c.eval_id: c for c in run.results[0].case_results()}

    merged = by_id["with-case-rubric"]
    assert merged.final_eval_status.value == "failed"
    (overall,) = merged.overall_eval_metric_results or []
    assert (overall.score, overall.eval_status.value) == (0.5, "failed")
    assert [r.id for r in overall.criterion.llm_judge.rubrics or []] == ["global", "case:tone"]  # type: ignore[union-attr]
    assert [(s.id, s.score) for s in overall.details.rubric_scores or []] == [  # type: ignore[union-attr]
        ("global", 1.0),
        ("case:tone", 0.0),
    ]
    assert by_id["plain"].final_eval_status.value == "passed"
    plain = (by_id["plain"].overall_eval_metric_results or [])[0]
    assert [r.id for r in plain.criterion.llm_judge.rubrics or []] == ["global"]  # type: ignore[union-attr]

    broken = by_id["broken"]
    assert broken.final_eval_status.value == "failed"
    assert broken.error_message == "case rubric broken[0]: metric nope not found"

    (body,) = [r.body for r in judge_server.recorded() if "question of with-case" in r.prompt]
    prompt = body["messages"][0]["content"]
    assert "<rubric>\nglobal: Answers the question.\ncase:tone: Polite.\n</rubric>" in prompt
    schema = body["response_format"]["json_schema"]["schema"]["properties"]["rubricScores"]
    assert schema["items"]["properties"]["id"]["enum"] == ["global", "case:tone"]
    assert (schema["minItems"], schema["maxItems"]) == (2, 2)
    assert judge_server.count == 2
