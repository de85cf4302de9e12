"""The HTML report's data: case rows, summaries, tool differences, detail chunks, comparison."""

from __future__ import annotations

import json

import orjson
import pytest

from agenteval.report.diff import diff_results
from agenteval.report.html_model import (
    DetailSpool,
    RunBuilder,
    comparison,
    report_index,
    status_label,
    tool_differences,
)
from agenteval.results.aggregation import case_statuses
from agenteval.schema.result import EvalSetResult
from agenteval.schema.status import EvalStatus
from sample_results import N, P, case_result, eval_set_result, generated_result, metric


def built(*results: EvalSetResult, chunk_size: int = 200) -> RunBuilder:
    return RunBuilder("r", chunk_size=chunk_size).feed(results)


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
    assert status_label(EvalStatus.PASSED, True) == "incomplete"
    assert status_label(EvalStatus.INCOMPLETE, False) == "incomplete"
    assert status_label(EvalStatus.FAILED, True) == "failed"
    index = built(result).index()
    assert index["counts"] == {"passed": 1, "failed": 1, "not_evaluated": 0, "incomplete": 1}
    # The run's verdict, as the console and the exit code (3) give it: incomplete
    # outranks failed.
    assert index["overallStatus"] == "incomplete"
    rows = {row[1]: row for row in index["cases"]}
    assert rows["half"][4] == ["j"]  # the metric that kept it from passing
    assert rows["bad"][2:5] == ["failed", 0.0, ["m"]]
    assert [row[6] for row in index["cases"]] == [[0], [1], [2]]


def test_a_not_evaluated_case_is_not_evaluated_as_in_every_other_report() -> None:
    # No metric scored it and nothing was left unfinished (here: a case aggregator's
    # verdict): `run` exits 0 with "PASSED: 1 of 2 cases passed (1 not evaluated)", but
    # the page called the case incomplete and the run incomplete.
    result = eval_set_result(
        "s",
        [
            case_result("s", "ok", [metric("m", 1.0)]),
            case_result("s", "undecided", [metric("m", 1.0)], status=N),
        ],
    )
    assert case_statuses(result)["undecided"] is EvalStatus.NOT_EVALUATED
    assert status_label(EvalStatus.NOT_EVALUATED, False) == "not_evaluated"
    index = built(result).index()
    assert index["overallStatus"] == "passed"
    assert index["counts"] == {"passed": 1, "failed": 0, "not_evaluated": 1, "incomplete": 0}
    assert [row[2] for row in index["cases"]] == ["passed", "not_evaluated"]
    (eval_set,) = index["evalSets"]
    assert eval_set["counts"] == index["counts"]


def test_a_partial_eval_set_leaves_the_page_incomplete() -> None:
    # A merge with shards missing (--allow-partial): every case passed, the run did not
    # finish; the page said passed where `show` said INCOMPLETE.
    result = eval_set_result("s", [case_result("s", "a", [metric("m", 1.0)])])
    assert built(result).index()["overallStatus"] == "passed"
    result.partial = True
    assert built(result).index()["overallStatus"] == "incomplete"


def test_a_case_judge_failures_names_is_incomplete() -> None:
    result = eval_set_result("s", [case_result("s", "a", [metric("m", 1.0)])])
    result.judge_failures = ["a"]
    assert case_statuses(result)["a"] is EvalStatus.INCOMPLETE
    assert built(result).index()["cases"][0][2] == "incomplete"


def test_summary_counts_and_histograms_add_up_over_runs() -> None:
    result = generated_result(cases=23, num_runs=3)
    index = built(result).index()
    (eval_set,) = index["evalSets"]
    assert eval_set["cases"] == 23 == len(index["cases"])
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


def test_statuses_are_the_other_reports_and_a_run_head_without_summary_gets_one() -> None:
    result = generated_result(cases=30, num_runs=3, seed=11)
    statuses = case_statuses(result)
    labels = {"passed": EvalStatus.PASSED, "failed": EvalStatus.FAILED}
    index = built(result).index()
    for row in index["cases"]:
        assert row[2] == "incomplete" or labels[row[2]] is statuses[row[1]]
    # A run's sink has no summary in its head: numRuns and pass@k come from the cases.
    builder = RunBuilder("run")
    builder.begin_set("gen", 3)
    for case in result.case_results():
        builder.add(case)
    builder.end_set(EvalSetResult(eval_set_id="gen"))
    (streamed,) = builder.index()["evalSets"]
    (whole,) = index["evalSets"]
    assert streamed["numRuns"] == 3
    assert streamed["passAtK"] == pytest.approx(whole["passAtK"])
    assert builder.index()["cases"] == index["cases"]


def test_details_are_spooled_one_entry_per_case_run_without_criteria() -> None:
    result = generated_result(cases=12, num_runs=2)
    builder = built(result, chunk_size=5)
    chunks = [orjson.loads(chunk) for chunk in builder.details.chunks()]
    assert [len(c) for c in chunks] == [5, 5, 5, 5, 4]
    entries = [entry for chunk in chunks for entry in chunk]
    assert [e["run"]["evalId"] for e in entries] == [c.eval_id for c in result.case_results()]
    index = builder.index()
    assert index["chunks"] == 5
    for row in index["cases"]:
        runs = [entries[n]["run"] for n in row[6]]
        assert [r["evalId"] for r in runs] == [row[1], row[1]]
        assert [r.get("runId", 1) for r in runs] == [1, 2]
    assert all("marks" in e for e in entries)
    # The criteria stay out of each case's result (explain's lines, when loaded, may name one).
    assert "criterion" not in json.dumps([e["run"] for e in entries])
    builder.close()


def test_detail_spool_reads_back_every_chunk_and_counts_bytes() -> None:
    spool = DetailSpool(chunk_size=2)
    assert list(spool.chunks()) == [] and spool.chunk_count == 0
    assert [spool.add(f'{{"n":{n}}}'.encode()) for n in range(5)] == [0, 1, 2, 3, 4]
    chunks = list(spool.chunks())
    assert [orjson.loads(c) for c in chunks] == [
        [{"n": 0}, {"n": 1}],
        [{"n": 2}, {"n": 3}],
        [{"n": 4}],
    ]
    assert spool.size == sum(len(c) - 2 for c in chunks)
    assert spool.add(b"{}") == 5  # still appends after reading back
    assert orjson.loads(list(spool.chunks())[-1]) == [{"n": 4}, {}]
    spool.close()


def test_comparison_is_agenteval_diff() -> None:
    base = eval_set_result(
        "s", [case_result("s", "a", [metric("m", 1.0)]), case_result("s", "b", [metric("m", 0.0)])]
    )
    new = eval_set_result(
        "s", [case_result("s", "a", [metric("m", 0.0)]), case_result("s", "b", [metric("m", 1.0)])]
    )
    indexes = [built(base).index(), built(new).index()]
    compared = comparison([base], [new], indexes[0], indexes[1], 0.0)
    expected = diff_results([base], [new]).to_json()
    assert compared["changes"] == expected["changes"]
    assert [c["kind"] for c in compared["changes"]][:1] == ["regressed"]
    assert compared["metricDeltas"] == [
        {"evalSetId": "s", "metric": "m", "base": 0.5, "new": 0.5, "delta": 0.0, "worseDown": True}
    ]
    page = report_index(indexes, "t", compared)
    assert page["comparison"] is compared and page["shards"] is None
    assert report_index(indexes[:1], "t")["comparison"] is None


def test_a_count_metric_whose_average_rises_is_the_worse_change() -> None:
    """The page painted every negative delta red: a count metric's (an upper bound) fall
    from 4 to 2 tool calls is its better change, its rise the worse one."""
    sides = [
        eval_set_result("s", [case_result("s", "a", [metric("tool_call_count", calls, 3.0)])])
        for calls in (4.0, 2.0)
    ]
    indexes = [built(side).index() for side in sides]
    (delta,) = comparison(sides[:1], sides[1:], indexes[0], indexes[1], 0.0)["metricDeltas"]
    assert (delta["delta"], delta["worseDown"]) == (-2.0, False)


def test_search_text_holds_each_text_once_and_is_cut() -> None:
    from agenteval.schema.result import EvalMetricResultPerInvocation, Invocation

    def invocation(user: str, answer: str) -> Invocation:
        return Invocation.model_validate(
            {"userContent": {"role": "user", "content": user},
             "finalResponse": {"role": "assistant", "content": answer}}
        )  # fmt: skip

    case = case_result("s", "a", [metric("m", 1.0)])
    case.eval_metric_result_per_invocation = [
        EvalMetricResultPerInvocation(
            actual_invocation=invocation("Weather in Oslo?", "sunny"),
            expected_invocation=invocation("Weather in Oslo?", "rainy"),
        )
    ]
    result = eval_set_result("s", [case])
    assert built(result).index()["cases"][0][5] == "Weather in Oslo? sunny rainy"
    case.eval_metric_result_per_invocation[0].actual_invocation = invocation("q", "x" * 10**6)
    assert built(result).index()["cases"][0][5] == "q " + "x" * 238


def test_a_file_whose_num_runs_is_below_its_run_ids_still_builds() -> None:
    result = generated_result(cases=4, num_runs=2)
    assert result.summary is not None
    result.summary.num_runs = 1
    index = built(result).index()
    assert [len(row[6]) for row in index["cases"]] == [2, 2, 2, 2]
