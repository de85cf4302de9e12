"""JUnit XML: schema-valid, loads in junitparser, counts equal the run's (ARCHITECTURE §4)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
import xmlschema
from junitparser import Error, Failure, JUnitXml, TestSuite

from agenteval.errors import Problem
from agenteval.inputs.loading import load_result
from agenteval.report.junit import junit_chunks, junit_xml, write_junit
from agenteval.report.run_notes import RunNotes
from agenteval.report.set_tally import set_report
from agenteval.results.aggregation import case_statuses
from agenteval.schema.result import EvalSetResult
from agenteval.schema.status import EvalStatus
from sample_results import F, N, P, case_result, eval_set_result, generated_result, metric
from tests.report.report_inputs import near_threshold_run
from trpc_fixtures import FIXTURES

XSD = Path(__file__).with_name("junit.xsd")


@pytest.fixture(scope="module")
def schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(XSD))


def shop_result() -> EvalSetResult:
    return eval_set_result(
        "shop",
        [
            case_result("shop", "greets", [metric("final_response_avg_score", 1.0)]),
            case_result(
                "shop",
                "refund",
                [
                    metric(
                        "tool_trajectory_avg_score",
                        0.5,
                        reason=";tool name mismatch: want <refund> & got |cancel|\nsee turn 2",
                    ),
                    metric(
                        "final_response_avg_score", 0.25, 0.5, reason="ends \x1b[31mred\x00\u202e"
                    ),
                    metric("rouge_l", 0.9, 0.6),
                ],
            ),
            case_result("shop", "no_metrics", []),
            case_result("shop", "no_trace", [], error="no actual turns: supply --traces"),
        ],
    )


def run_counts(results: list[EvalSetResult]) -> Counter[EvalStatus]:
    return Counter(s for r in results for s in case_statuses(r).values())


def test_failures_name_metrics_scores_thresholds_and_reasons(
    schema: xmlschema.XMLSchema,
) -> None:
    text = junit_xml([shop_result()], elapsed=1.25)
    schema.validate(text)
    doc = JUnitXml.fromstring(text)
    (suite,) = list(doc)
    assert (suite.name, suite.tests, suite.failures, suite.errors, suite.skipped) == (
        "shop",
        4,
        2,
        1,
        0,
    )
    cases = {case.name: case for case in suite}
    assert list(cases) == ["greets", "refund", "no_metrics", "no_trace"]
    assert all(case.classname == "shop" for case in cases.values())
    assert cases["greets"].is_passed

    (failure,) = cases["refund"].result
    assert isinstance(failure, Failure)
    assert failure.type == "failed"
    # Both failing metrics, each with score < threshold and its reason; the passing one absent.
    assert failure.message == (
        "tool_trajectory_avg_score: score 0.5 < threshold 1: tool name mismatch: want <refund>"
        " & got |cancel|\nsee turn 2; final_response_avg_score: score 0.25 < threshold 0.5:"
        " ends \\x1b[31mred\\x00\\u202e"
    )
    assert failure.text.splitlines()[0] == (
        "tool_trajectory_avg_score: score 0.5 < threshold 1: tool name mismatch: want <refund>"
        " & got |cancel|"
    )
    assert "rouge_l" not in failure.text

    (error,) = cases["no_metrics"].result
    assert isinstance(error, Error)
    assert (error.type, error.message) == ("not_evaluated", "no metric was evaluated for this case")

    # A case that failed with an errorMessage is a failure (its status is failed), with the error.
    (errored,) = cases["no_trace"].result
    assert isinstance(errored, Failure)
    assert errored.message == "error: no actual turns: supply --traces"


def test_counts_and_times_equal_the_run(schema: xmlschema.XMLSchema) -> None:
    results = [
        generated_result("alpha", cases=23, num_runs=1, seed=7),
        generated_result("beta", cases=17, num_runs=3, seed=8),
        generated_result("gamma", cases=11, num_runs=5, seed=9),
    ]
    setattr(results[0], "durationSeconds", 2.5)  # noqa: B010 - an extra (non-Go) key
    text = junit_xml(results, elapsed=4.125)
    schema.validate(text)
    doc = JUnitXml.fromstring(text)
    counts = run_counts(results)
    # The data exercises every outcome; incomplete cases are errors, as not evaluated ones.
    assert counts[P] and counts[F] and counts[N] and counts[EvalStatus.INCOMPLETE]
    assert (doc.tests, doc.failures, doc.errors, doc.skipped) == (
        sum(counts.values()),
        counts[F],
        counts[N] + counts[EvalStatus.INCOMPLETE],
        0,
    )
    assert doc.time == 4.125
    suites: list[TestSuite] = list(doc)
    assert [s.name for s in suites] == ["alpha", "beta", "gamma"]
    assert [s.time for s in suites] == [2.5, 0.0, 0.0]
    for suite, result in zip(suites, results, strict=True):
        statuses = case_statuses(result)
        assert [c.name for c in suite] == list(statuses)
        outcome = {c.name: (type(c.result[0]).__name__ if c.result else "passed") for c in suite}
        expected = {
            eval_id: {P: "passed", F: "Failure", N: "Error", EvalStatus.INCOMPLETE: "Error"}[status]
            for eval_id, status in statuses.items()
        }
        assert outcome == expected
        # junitparser recounting the testcases agrees with the attributes we wrote.
        written = (suite.tests, suite.failures, suite.errors)
        suite.update_statistics()  # type: ignore[no-untyped-call]
        assert (suite.tests, suite.failures, suite.errors) == written


def test_multi_run_case_reports_averages_and_each_run() -> None:
    runs = [
        case_result("s", "flaky", [metric("m", score)], run_id=run)
        for run, score in enumerate([1.0, 0.0, 1.0], start=1)
    ]
    steady = [case_result("s", "steady", [metric("m", 0.9, 0.8)], run_id=run) for run in (1, 2, 3)]
    almost = [
        case_result("s", "almost", [metric("m", score, 0.5)], run_id=run)
        for run, score in enumerate([1.0, 0.0, 0.75], start=1)
    ]
    result = eval_set_result("s", [*runs, *steady, *almost], num_runs=3)
    doc = JUnitXml.fromstring(junit_xml([result]))
    cases = {case.name: case for case in next(iter(doc))}
    (failure,) = cases["flaky"].result
    assert failure.message == "m: average over 3 runs 0.6667 < threshold 1"
    assert failure.text.splitlines() == [
        "case failed over 3 runs (metric scores averaged across runs decide)",
        "m: average over 3 runs 0.6667 < threshold 1",
        "per run:",
        "run 1: passed",
        "run 2: failed",
        "  m: score 0 < threshold 1",
        "run 3: passed",
    ]
    assert cases["steady"].is_passed and cases["steady"].system_out is None
    # Passed on average (0.5833 >= 0.5) although run 2 failed: that run is shown, not failed.
    assert cases["almost"].is_passed
    assert "run 2: failed\n  m: score 0 < threshold 0.5" in cases["almost"].system_out


def test_schema_rejects_what_junit_readers_reject(schema: xmlschema.XMLSchema) -> None:
    good = junit_xml([shop_result()])
    assert schema.is_valid(good)
    broken = [
        good.replace('failures="2"', 'failures="-2"', 1),
        good.replace('time="0.000"', 'time="soon"', 1),
        good.replace('<testcase classname="shop" name="greets" />', "<testcase />"),
        good.replace("</failure>", "</failure><failure>twice</failure>", 1),
    ]
    for text in broken:
        assert text != good
        assert not schema.is_valid(text)


def test_write_junit_is_atomic_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "junit.xml"
    write_junit(target, [shop_result()])
    first = target.read_text(encoding="utf-8")
    assert first.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites')
    path = write_junit(target, [generated_result("other", cases=3, num_runs=1)])
    assert path == target
    assert target.read_text(encoding="utf-8") != first
    assert os.listdir(target.parent) == ["junit.xml"]  # no temp file left behind


def test_go_result_files_give_valid_junit(schema: xmlschema.XMLSchema) -> None:
    results = [load_result(p) for p in sorted(FIXTURES.rglob("*.evalset_result.json"))]
    assert len(results) >= 10
    text = junit_xml(results)
    schema.validate(text)
    doc = JUnitXml.fromstring(text)
    counts = run_counts(results)
    assert (doc.tests, doc.failures, doc.errors) == (sum(counts.values()), counts[F], counts[N])
    # The 19 stored Go outputs hold 23 cases, all passed.
    assert (doc.tests, doc.failures, doc.errors, counts[P]) == (23, 0, 0, 23)


def test_warnings_are_the_first_suites_system_err_and_counted(
    schema: xmlschema.XMLSchema,
) -> None:
    other = eval_set_result("other", [case_result("other", "c", [metric("m", 1.0)])])
    notes = RunNotes([Problem("m.json", "[0].threshold", "no threshold <always> & passes")], 9)
    text = "".join(junit_chunks([set_report(shop_result()), set_report(other)], notes=notes))
    lines = notes.lines()
    schema.validate(text)
    first, second = JUnitXml.fromstring(text)
    assert first._elem.findtext("system-err") == "\n".join(f"warning: {x}" for x in lines)
    assert {p.name: p.value for p in first.properties()}["warnings"] == "9"
    assert second._elem.find("system-err") is None
    assert "warnings" not in {p.name for p in second.properties()}


def test_what_the_judge_and_the_agent_spent_are_suite_properties(
    schema: xmlschema.XMLSchema,
) -> None:
    judged = eval_set_result("judged", [case_result("judged", "a", [metric("m", 1.0)])])
    judged.judge_usage = {
        "total": {
            "calls": 12, "cacheHits": 3, "retries": 1, "promptTokens": 1200,
            "completionTokens": 300, "costUsd": 0.0123, "unpricedCalls": 2,
            "unpricedModels": ["openai:<x>"],
        }
    }  # fmt: skip
    judged.agent_usage = {
        "turns": 2, "inferenceCalls": 4, "inputTokens": 1000, "outputTokens": 200,
        "costUsd": 0.0051, "unpricedTurns": 0, "turnsWithoutUsage": 1,
    }  # fmt: skip
    plain = eval_set_result("plain", [case_result("plain", "b", [metric("m", 1.0)])])
    text = "".join(junit_chunks([set_report(judged), set_report(plain)]))
    schema.validate(text)
    first, second = JUnitXml.fromstring(text)
    properties = {p.name: p.value for p in first.properties()}
    assert properties["judgeUsage"] == (
        "12 calls, 3 from cache, 1 retry, 1,200 prompt + 300 completion tokens · "
        "$0.0123 + 2 calls without a price (openai:<x>)"
    )
    assert properties["agentUsage"] == (
        "4 model calls, 1,000 input + 200 output tokens · $0.0051 · 1 turn without usage"
    )
    assert {p.name for p in second.properties()} == {"numRuns", "evalSetResultId"}


def test_an_unfinished_run_is_an_error_whatever_its_finished_cases_say(
    schema: xmlschema.XMLSchema, tmp_path: Path
) -> None:
    # `run` stopped by Ctrl-C after 6 of 20 cases, all passed: the console said
    # "INCOMPLETE: 6 of 6 cases passed · 1 eval set · interrupted" (exit 3), Markdown and
    # --json incomplete, but JUnit 6 tests, 0 failures, 0 errors: a green CI report.
    result = eval_set_result("s", [case_result("s", f"c{i}", [metric("m", 1.0)]) for i in range(6)])
    notes = RunNotes(unfinished=["interrupted", "2 judge calls failed"])
    path = tmp_path / "junit.xml"
    path.write_text("".join(junit_chunks([set_report(result)], notes=notes)), encoding="utf-8")
    schema.validate(str(path))
    xml = JUnitXml.fromfile(str(path))
    assert (xml.tests, xml.failures, xml.errors) == (7, 0, 1)
    *_, last = xml
    assert (last.name, last.tests, last.errors) == ("agenteval run", 1, 1)
    (case,) = last
    (error,) = case.result
    assert isinstance(error, Error)
    assert (error.type, error.message) == ("incomplete", "interrupted; 2 judge calls failed")
    # Stopped before any eval set began: still not an empty, green document.
    nothing = "".join(junit_chunks([], notes=RunNotes(unfinished=["interrupted"])))
    path.write_text(nothing, encoding="utf-8")
    schema.validate(str(path))
    xml = JUnitXml.fromfile(str(path))
    assert (xml.tests, xml.errors) == (1, 1)
    # A finished run has no such suite.
    finished = "".join(junit_chunks([set_report(result)]))
    assert "agenteval run" not in finished


def test_a_score_just_under_its_threshold_is_not_printed_as_the_threshold(
    tmp_path: Path, schema: xmlschema.XMLSchema
) -> None:
    """Turns 1, 1 and 0.4 against 0.8 failed with "score 0.8 < threshold 0.8"."""
    report = tmp_path / "junit.xml"
    run = near_threshold_run(tmp_path, "--junit", str(report))
    assert run.returncode == 1, run.stdout + run.stderr
    text = report.read_text(encoding="utf-8")
    schema.validate(text)
    (suite,) = list(JUnitXml.fromstring(text))
    (case,) = list(suite)
    (failure,) = case.result
    assert isinstance(failure, Failure)
    assert failure.message.startswith(
        "response_match_score: score 0.7999999999999999 < threshold 0.8: "
    ), failure.message
    assert failure.text.startswith("response_match_score: score 0.7999999999999999 < threshold 0.8")
