"""SetTally: reports from a case-by-case tally equal the whole-result reports, in a few hundred bytes per case."""

from __future__ import annotations

import gc
import io
import json
import pickle
import re
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from agenteval.report import github, junit, markdown
from agenteval.report.console import num_runs, render_reports, render_results
from agenteval.report.console_tables import reason_lines
from agenteval.report.set_tally import (
    DEFAULT_VIEW,
    REASON_KEEP,
    ConsoleView,
    ReportSink,
    SetReport,
    SetTally,
    outcome,
    overall_status,
    set_report,
)
from agenteval.results.aggregation import overall_status as whole_overall_status
from agenteval.results.aggregation import results_outcome
from agenteval.schema.result import EvalCaseResult, EvalSetResult, Fingerprint, MetricDetails
from agenteval.schema.status import EvalStatus
from tests.report.report_inputs import FIXTURES, fixture_results, varied_results
from tests.sample_results import case_result, eval_set_result, metric

VARIED = varied_results()
FIXTURE_RESULTS = fixture_results()
ALL = {**VARIED, **{f"fixture_{r.eval_set_id}_{i}": r for i, r in enumerate(FIXTURE_RESULTS)}}
# Tallied past the shown ones: 5,000 give the per-case bytes of 20,000 within the dict's
# growth steps (100 B vs 80 B passing, 812 B vs 769 B failing) at a quarter of the time.
CASES = 5_000
# Held whole: the old path's cost per case (41.8 KB each at 100 as at 500).
WHOLE_CASES = 100


def head_of(result: EvalSetResult) -> EvalSetResult:
    """The result without its cases, as the runner hands it to finish()."""
    return result.model_copy(update={"eval_case_results": None})


def tallied(result: EvalSetResult, view: ConsoleView = DEFAULT_VIEW) -> SetReport:
    """The streamed path: every case added in file order, then finish(head); defaults as a run's."""
    tally = SetTally(result.eval_set_id, num_runs(result), view=view)
    for case in result.case_results():
        tally.add(case)
    return tally.finish(head_of(result))


def console_text(render: Callable[[Console], None]) -> str:
    buffer = io.StringIO()
    render(Console(file=buffer, width=120, force_terminal=True, color_system="truecolor"))
    return buffer.getvalue()


@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize(
    ("quiet", "verbose", "max_shown"),
    [(False, False, 200), (False, True, 3), (True, False, 2), (True, True, None)],
)
def test_console_from_the_tally_equals_the_whole_result_console(
    name: str, quiet: bool, verbose: bool, max_shown: int | None
) -> None:
    result = ALL[name]
    view = ConsoleView(quiet, verbose, max_shown)
    whole = console_text(lambda c: render_results(c, [result], view=view, duration_seconds=1.5))
    report = tallied(result, view)
    streamed = console_text(lambda c: render_reports(c, [report], duration_seconds=1.5))
    assert streamed == whole
    assert whole.strip()


@pytest.mark.parametrize("name", sorted(ALL))
def test_ci_reports_from_the_tally_equal_the_whole_result_ones(name: str) -> None:
    result = ALL[name]
    report = tallied(result)
    files = {result.eval_set_id: "sets/x.evalset.json"}
    assert "".join(junit.junit_chunks([report], elapsed=2.5)) == junit.junit_xml(
        [result], elapsed=2.5
    )
    assert markdown.markdown_report([report], elapsed=1.0) == markdown.markdown_summary(
        [result], elapsed=1.0
    )
    assert markdown.markdown_report([report], max_cases=3) == markdown.markdown_summary(
        [result], max_cases=3
    )
    assert github.report_annotations([report], files=files) == github.annotations(
        [result], files=files
    )
    assert overall_status([report]) is whole_overall_status([result])
    assert outcome([report]).exit_code == results_outcome([result]).exit_code


def test_several_eval_sets_together() -> None:
    results = [VARIED["plain3"], VARIED["incomplete1"], VARIED["partial"], *FIXTURE_RESULTS[:3]]
    reports = [tallied(result) for result in results]
    whole = console_text(lambda c: render_results(c, results, duration_seconds=3.0))
    assert console_text(lambda c: render_reports(c, reports, duration_seconds=3.0)) == whole
    assert "".join(junit.junit_chunks(reports)) == junit.junit_xml(results)
    assert markdown.markdown_report(reports) == markdown.markdown_summary(results)
    assert github.report_annotations(reports) == github.annotations(results)
    assert overall_status(reports) is whole_overall_status(results) is EvalStatus.INCOMPLETE
    assert outcome(reports).exit_code == results_outcome(results).exit_code == 3


def test_the_inputs_reach_every_branch() -> None:
    """The comparisons above are worth something only if the reports say these things."""
    results = list(ALL.values())
    text = console_text(lambda c: render_results(c, results, view=ConsoleView(max_shown=3)))
    text += junit.junit_xml(results) + markdown.markdown_summary(results)
    text += "\n".join(github.annotations(results))
    for needle in (
        "INCOMPLETE",
        "unstable",
        "decided by",
        "pass@",
        "<system-out>",
        "averaged across runs",
        "not shown in detail",
        "…",
        "&#10;",
        "\\x1b",
        "judge: ",
    ):
        assert needle in text, needle


def test_long_reasons_are_kept_only_as_far_as_a_report_prints_them() -> None:
    result = VARIED["plain1"]
    longest = max(
        len(metric.details.reason)
        for case in result.case_results()
        for metric in case.overall_eval_metric_results or []
        if metric.details is not None
    )
    assert longest > REASON_KEEP
    report = tallied(result)
    kept = [
        metric.reason
        for outcome in report.outcomes.values()
        for run in outcome.runs
        for metric in run.metrics
    ]
    assert max(len(reason) for reason in kept) == REASON_KEEP
    # ...and the JUnit bodies (2,000 characters per reason) are still the whole-result ones.
    assert "".join(junit.junit_chunks([report])) == junit.junit_xml([result])


def test_unordered_runs_average_in_arrival_order_like_case_statuses() -> None:
    result = VARIED["unordered"]
    report = tallied(result)
    assert report.statuses == set_report(result).statuses
    assert [o.runs[0].run_id for o in report.outcomes.values()] == [1] * len(report.outcomes)


def test_write_junit_reports_streams_into_place(tmp_path: Path) -> None:
    reports = [tallied(VARIED["incomplete3"]), tallied(VARIED["plain2"])]
    target = tmp_path / "out" / "junit.xml"
    assert junit.write_junit_reports(target, reports, elapsed=4.0) == target
    assert target.read_bytes().decode("utf-8") == "".join(junit.junit_chunks(reports, elapsed=4.0))
    assert [p.name for p in target.parent.iterdir()] == ["junit.xml"]


def test_step_summary_and_markdown_file_from_reports(tmp_path: Path) -> None:
    reports = [tallied(VARIED["partial"])]
    step = tmp_path / "summary.md"
    env = {markdown.STEP_SUMMARY_ENV: str(step)}
    assert markdown.append_step_summary_reports(reports, env, elapsed=1.0) == step
    assert markdown.append_step_summary_reports(reports, {}) is None
    expected = markdown.markdown_summary([VARIED["partial"]], elapsed=1.0) + "\n"
    # A lone surrogate (from loaded text) is written as "?".
    assert step.read_bytes() == expected.encode("utf-8", "replace")
    written = markdown.write_markdown_reports(tmp_path / "report.md", reports)
    whole = markdown.markdown_summary([VARIED["partial"]])
    assert written.read_bytes() == whole.encode("utf-8", "replace")


def test_several_runs_of_a_custom_aggregator_are_decided_by_its_verdicts() -> None:
    """The console, JUnit and Markdown read the tally: a case its --case-aggregator failed
    or did not evaluate in every run is not passed, whatever its metrics average."""
    cases = [
        case_result("s", eval_id, [metric("m", 1.0)], run_id=run, status=status)
        for run in (1, 2, 3)
        for eval_id, status in (
            ("fails", EvalStatus.FAILED),
            ("undecided", EvalStatus.NOT_EVALUATED),
        )
    ]
    result = eval_set_result("s", cases, num_runs=3)
    result.fingerprint = Fingerprint(eval_set="sha256:e", case_aggregator="strict")
    report = tallied(result)
    assert report.statuses == {"fails": EvalStatus.FAILED, "undecided": EvalStatus.NOT_EVALUATED}
    assert outcome([report]).status is EvalStatus.FAILED
    assert report.outcomes["fails"].headline() == (
        "the case failed although no metric failed (case aggregator)"
    )
    assert report.outcomes["undecided"].headline() == (
        "the case aggregator did not evaluate the case (its metrics were evaluated)"
    )
    assert report.statuses == set_report(result).statuses
    # Without the aggregator named (a trpc-agent-go file), the metric averages decide.
    result.fingerprint = None
    assert set(tallied(result).statuses.values()) == {EvalStatus.PASSED}


def test_add_after_finish_is_refused() -> None:
    result = VARIED["plain1"]
    tally = SetTally("x", 1)
    tally.finish(head_of(result))
    with pytest.raises(RuntimeError):
        tally.add(result.case_results()[0])


# --- memory ------------------------------------------------------------------


def _template(status: str) -> EvalCaseResult:
    """A trpc-agent-go tool trajectory case result (one turn, tools, 5.4 KB of JSON)."""
    path = next(FIXTURES.glob("tooltrajectory/output/*/*.evalset_result.json"))
    case: dict[str, Any] = json.loads(path.read_text())["evalCaseResults"][0]
    if status == "failed":
        case["finalEvalStatus"] = "failed"
        for metric in case["overallEvalMetricResults"]:
            metric["evalStatus"] = "failed"
            metric["score"] = 0.5
            metric["details"] = {"score": 0.5}
    return EvalCaseResult.model_validate_json(json.dumps(case))


def _cases(template: EvalCaseResult, count: int, start: int = 0) -> Iterator[EvalCaseResult]:
    """Case results with their own evalId (and a failing metric's own reason), one at a time."""
    for index in range(start, start + count):
        update: dict[str, Any] = {"eval_id": f"case_{index:06d}"}
        if template.final_eval_status is EvalStatus.FAILED:
            metrics = template.overall_eval_metric_results or []
            reason = f"turn 1: tool get_weather #{index}: arguments differ " + "x" * 240
            details = MetricDetails(reason=reason, score=0.5)
            update["overall_eval_metric_results"] = [
                m.model_copy(update={"details": details}) for m in metrics
            ]
        yield template.model_copy(update=update)


def _whole_case(template: EvalCaseResult, index: int) -> EvalCaseResult:
    """A case result of its own, every part allocated, as the runner builds it."""
    data = template.model_dump(mode="json", by_alias=True)
    return EvalCaseResult.model_validate_json(json.dumps({**data, "evalId": f"case_{index:06d}"}))


def _traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def _bytes_per_case(status: str) -> tuple[float, float]:
    """Bytes a tally holds per case beyond its first max_shown, and per whole case result."""
    template = _template(status)
    tracemalloc.start()
    try:
        tally = SetTally("mem", 1, view=ConsoleView(max_shown=200))
        for case in _cases(template, 1_000):  # the shown ones are past this point
            tally.add(case)
        del case
        before = _traced()
        for case in _cases(template, CASES, start=1_000):
            tally.add(case)
        del case
        tally_bytes = _traced() - before
        report = tally.finish(EvalSetResult(eval_set_id="mem"))
        del tally
        report_bytes = _traced() - before
        assert len(report.statuses) == CASES + 1_000
        del report
        before = _traced()
        held = [_whole_case(template, index) for index in range(WHOLE_CASES)]
        whole_bytes = _traced() - before
        assert len(held) == WHOLE_CASES
    finally:
        tracemalloc.stop()
    return max(tally_bytes, report_bytes) / CASES, whole_bytes / WHOLE_CASES


def test_passing_cases_cost_a_few_hundred_bytes_each() -> None:
    tally_per_case, whole_per_case = _bytes_per_case("passed")
    # Measured: 100 B per case (its evalId and status entry) against 42,000 B per whole
    # case result of this fixture (one turn with tool calls, a 5.4 KB result in JSON).
    assert tally_per_case < 200, tally_per_case
    assert whole_per_case > 100 * tally_per_case, (tally_per_case, whole_per_case)


def test_failing_cases_keep_only_their_report_text() -> None:
    tally_per_case, whole_per_case = _bytes_per_case("failed")
    # Measured: 810 B per case: its record with a 290-character reason, and its outcome.
    assert tally_per_case < 1_200, tally_per_case
    assert whole_per_case > 30 * tally_per_case, (tally_per_case, whole_per_case)


@pytest.mark.parametrize("quiet", [False, True])
def test_three_runs_keep_a_record_per_run_until_finish(quiet: bool) -> None:
    """A case's status is the mean over its runs: each run leaves a compact record until finish."""
    template = _template("passed")
    runs, cases = 3, 5_000
    tracemalloc.start()
    try:
        tally = SetTally("mem", runs, view=ConsoleView(quiet=quiet, max_shown=200))
        for case in _cases(template, 300):
            tally.add(case.model_copy(update={"run_id": 1}))
        before = _traced()
        for run_id in range(1, runs + 1):
            for case in _cases(template, cases, start=300):
                tally.add(case.model_copy(update={"run_id": run_id}))
        del case
        tallying = (_traced() - before) / (runs * cases)
        report = tally.finish(EvalSetResult(eval_set_id="mem"))
        del tally
        finished = (_traced() - before) / cases
    finally:
        tracemalloc.stop()
    assert len(report.pass_counts) == cases + 300
    # Measured: ~290 B (quiet ~340 B) per case result while tallying, ~150 B per case after.
    assert tallying < 450, tallying
    assert finished < 250, finished


def test_quiet_prints_a_case_judge_failures_names_although_nothing_was_kept_for_it() -> None:
    result = VARIED["plain1"]
    clean = next(
        case.eval_id
        for case in result.case_results()
        if case.final_eval_status is EvalStatus.PASSED
        and all(m.eval_status is EvalStatus.PASSED for m in case.overall_eval_metric_results or [])
        and all(
            m.eval_status is EvalStatus.PASSED
            for turn in case.eval_metric_result_per_invocation or []
            for m in turn.eval_metric_results or []
        )
        and not reason_lines(case, multi_run=False, verbose=False)
    )
    head = head_of(result)
    head.judge_failures = [clean]
    every_failure = ConsoleView(quiet=True, max_shown=None)
    tally = SetTally(result.eval_set_id, 1, view=every_failure)
    for case in result.case_results():
        tally.add(case)
    report = tally.finish(head)
    assert report.statuses[clean] is EvalStatus.INCOMPLETE
    text = re.sub(r"\x1b\[[0-9;]*m", "", console_text(lambda c: render_reports(c, [report])))
    # Its header without the score (not kept), and every other line as the whole result's.
    assert f"● {clean}  INCOMPLETE\n" in text
    marked = result.model_copy(update={"judge_failures": [clean]})
    whole = console_text(lambda c: render_results(c, [marked], view=every_failure))
    whole = re.sub(r"\x1b\[[0-9;]*m", "", whole)
    assert text == whole.replace(f"● {clean}  INCOMPLETE  score 1\n", f"● {clean}  INCOMPLETE\n")
    assert "".join(junit.junit_chunks([report])) == junit.junit_xml([marked])


def test_report_sink_tallies_each_eval_set_as_the_runner_delivers_it() -> None:
    results = [VARIED["incomplete3"], VARIED["plain1"]]
    view = ConsoleView(quiet=True, verbose=True, max_shown=5)
    sink = ReportSink(view=view)
    for result in results:
        sink.begin_set(result.eval_set_id, num_runs(result))
        for case in result.case_results():
            sink.add(case)
        sink.end_set(head_of(result))
    assert [r.eval_set_id for r in sink.reports] == ["inc3", "gen1"]
    whole = console_text(lambda c: render_results(c, results, view=view))
    assert console_text(lambda c: render_reports(c, sink.reports)) == whole
    assert outcome(sink.reports).exit_code == results_outcome(results).exit_code == 3


def test_console_view_from_flags_and_its_limit() -> None:
    # --max-shown 0 is every case: no limit is ever reached.
    every = ConsoleView.of_flags(quiet=True, verbose=False, max_shown=0)
    assert every == ConsoleView(quiet=True, verbose=False, max_shown=None)
    assert not every.at_limit(10**9)
    three = ConsoleView.of_flags(quiet=False, verbose=True, max_shown=3)
    assert [three.at_limit(n) for n in (0, 2, 3, 4)] == [False, False, True, True]
    assert (DEFAULT_VIEW.quiet, DEFAULT_VIEW.verbose, DEFAULT_VIEW.max_shown) == (False, False, 200)


@pytest.mark.parametrize(
    "view",
    [
        DEFAULT_VIEW,
        ConsoleView.of_flags(quiet=False, verbose=True, max_shown=3),
        ConsoleView.of_flags(quiet=True, verbose=False, max_shown=2),
        ConsoleView.of_flags(quiet=True, verbose=False, max_shown=40),
    ],
    ids=["default", "three shown", "quiet two", "quiet forty"],
)
@pytest.mark.parametrize("cut", [0, 5, 20, 37])
def test_a_part_absorbed_reports_what_one_tally_reports(view: ConsoleView, cut: int) -> None:
    result = varied_results()["plain1"]
    cases = result.case_results()
    whole = SetTally(result.eval_set_id, 1, view=view)
    for case in cases:
        whole.add(case)
    first = SetTally(result.eval_set_id, 1, view=view)
    part = first.part()
    for case in cases[:cut]:
        first.add(case)
    for case in cases[cut:]:
        part.add(case)
    shipped = pickle.loads(pickle.dumps(part))  # as a worker ships it
    first.absorb(shipped)
    head = EvalSetResult(eval_set_id=result.eval_set_id)
    merged, single = first.finish(head), whole.finish(head)
    assert merged == single
    assert merged.shown  # cases are shown: the limits were compared
    # The part's kept cases were read back only when the first tally had room for them.
    room = not view.at_limit(len(first_shown_before(cases[:cut], view)))
    assert isinstance(shipped._shown, dict) == room


def first_shown_before(cases: list[EvalCaseResult], view: ConsoleView) -> dict[str, Any]:
    tally = SetTally("s", 1, view=view)
    for case in cases:
        tally.add(case)
    return tally._shown


def test_only_one_run_a_case_is_counted_in_parts() -> None:
    with pytest.raises(ValueError, match="one run per case"):
        SetTally("s", 2).part()
