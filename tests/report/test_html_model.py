"""The HTML report's data: case rows, summaries, tool differences, detail chunks, comparison."""

from __future__ import annotations

import json

import orjson
import pytest

from agenteval.report import html_model
from agenteval.report.diff import diff_results
from agenteval.report.html_inputs import ReportRun
from agenteval.report.html_model import (
    detail_chunks,
    report_index,
    run_model,
    status_label,
    tool_differences,
)
from agenteval.report.outcomes import case_outcomes
from sample_results import N, P, case_result, eval_set_result, generated_result, metric

CURRENCY = (
    "tool trajectory mismatch: match tools: tool with name convert_currency mismatch: "
    "actual tool call_1 named convert_currency mismatch with expected tool named "
    "convert_currency: arguments mismatch: value mismatch at $.amount: 100 vs 1000"
)


def test_tool_difference_of_the_currency_case() -> None:
    assert tool_differences(CURRENCY) == [
        {
            "actualTool": "convert_currency",
            "expectedTool": "convert_currency",
            "actualId": "call_1",
            "expectedId": "",
            "part": "arguments",
            "what": "value mismatch",
            "path": "$.amount",
            "detail": "100 vs 1000",
        }
    ]


def test_tool_differences_with_ids_quoted_keys_and_several_pairs() -> None:
    reason = (
        "tool trajectory mismatch: match tools: tool id e1 with name search mismatch: "
        "actual tool a1 named search mismatch with expected tool e1 named search: result mismatch: "
        'type mismatch at $["hit list"][0].score: actual string "x" vs expected number 1; '
        "tool with name book mismatch: actual tool a2 named book mismatch with expected tool named "
        "book: arguments mismatch: key mismatch at $: key seat in actual but not in expected"
    )
    found = tool_differences(reason)
    assert [(m["expectedId"], m["part"], m["path"]) for m in found] == [
        ("e1", "result", '$["hit list"][0].score'),
        ("", "arguments", "$"),
    ]
    assert found[0]["detail"] == 'actual string "x" vs expected number 1'
    assert found[1]["what"] == "key mismatch"
    assert tool_differences("tool trajectory mismatch: validate tool counts: 1 != 2") == []


def test_a_case_with_a_metric_not_evaluated_is_incomplete_never_passed() -> None:
    result = eval_set_result(
        "s",
        [
            case_result("s", "ok", [metric("m", 1.0)]),
            case_result("s", "half", [metric("m", 1.0), metric("j", 0.0, status=N)], status=P),
            case_result("s", "bad", [metric("m", 0.0)]),
        ],
    )
    labels = {o.eval_id: status_label(o) for o in case_outcomes(result)}
    assert labels == {"ok": "passed", "half": "incomplete", "bad": "failed"}
    model = run_model(0, ReportRun("r", [result]))
    assert model.index["counts"] == {"passed": 1, "failed": 1, "incomplete": 1}
    assert model.index["overallStatus"] == "failed"
    rows = {row[1]: row for row in model.index["cases"]}
    assert rows["half"][4] == ["j"]  # the metric that kept it from passing
    assert rows["bad"][2:5] == ["failed", 0.0, ["m"]]


def test_summary_counts_and_histograms_add_up_over_runs() -> None:
    result = generated_result(cases=23, num_runs=3)
    model = run_model(0, ReportRun("gen", [result]))
    (eval_set,) = model.index["evalSets"]
    assert eval_set["cases"] == 23 == len(model.index["cases"])
    assert sum(eval_set["counts"].values()) == 23
    assert set(eval_set["passAtK"]) == {"1", "2", "3"}
    every = [m for case in result.case_results() for m in case.overall_eval_metric_results or []]
    for summary in eval_set["metrics"]:
        mine = [m for m in every if m.metric_name == summary["name"]]
        evaluated = [m for m in mine if m.eval_status is not N]
        assert summary["passed"] + summary["failed"] == len(evaluated)
        assert summary["notEvaluated"] == len(mine) - len(evaluated)
        histogram = summary["histogram"]
        assert sum(histogram["passed"]) == summary["passed"]
        assert sum(histogram["failed"]) == summary["failed"]


def test_detail_chunks_hold_every_run_of_every_case_without_criteria(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(html_model, "CHUNK_SIZE", 5)
    result = generated_result(cases=12, num_runs=2)
    model = run_model(0, ReportRun("gen", [result]))
    chunks = [orjson.loads(chunk) for chunk in detail_chunks(model)]
    assert [len(c) for c in chunks] == [5, 5, 2]
    details = [case for chunk in chunks for case in chunk]
    assert [d["runs"][0]["evalId"] for d in details] == [row[1] for row in model.index["cases"]]
    assert all(len(d["runs"]) == 2 for d in details)
    assert all(len(d["marks"]) == 2 for d in details)
    assert "criterion" not in json.dumps(details)


def test_comparison_is_agenteval_diff() -> None:
    base = eval_set_result(
        "s", [case_result("s", "a", [metric("m", 1.0)]), case_result("s", "b", [metric("m", 0.0)])]
    )
    new = eval_set_result(
        "s", [case_result("s", "a", [metric("m", 0.0)]), case_result("s", "b", [metric("m", 1.0)])]
    )
    runs = [ReportRun("base", [base]), ReportRun("new", [new])]
    models = [run_model(i, run) for i, run in enumerate(runs)]
    index = report_index(runs, models, "t")
    comparison = index["comparison"]
    expected = diff_results([base], [new]).to_json()
    assert comparison["changes"] == expected["changes"]
    assert [c["kind"] for c in comparison["changes"]][:1] == ["regressed"]
    assert comparison["metricDeltas"] == [
        {"evalSetId": "s", "metric": "m", "base": 0.5, "new": 0.5, "delta": 0.0}
    ]
    assert report_index(runs[:1], models[:1], "t")["comparison"] is None
