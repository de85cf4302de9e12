"""Console report: rendered text of live and saved results."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest
from rich.console import Console

from agenteval.report.console import ConsoleView, final_line, num_runs, render_results
from agenteval.report.console_tables import shown_ks
from agenteval.report.result_files import write_result
from agenteval.report.run_notes import RunNotes
from agenteval.results.aggregation import build_summary
from agenteval.schema.result import (
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    MetricDetails,
)
from agenteval.schema.status import EvalStatus
from tests.report.report_inputs import near_threshold_run
from trpc_fixtures import FIXTURES

P = EvalStatus.PASSED
F = EvalStatus.FAILED
N = EvalStatus.NOT_EVALUATED

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def turn(name: str, score: float, status: EvalStatus, reason: str = "") -> EvalMetricResult:
    return EvalMetricResult(
        metric_name=name,
        score=score,
        eval_status=status,
        threshold=1.0,
        details=MetricDetails(reason=reason, score=score),
    )


def case(
    eval_id: str,
    run_id: int,
    turns: dict[str, list[EvalMetricResult]],
    overall: list[EvalMetricResult],
    status: EvalStatus,
    error: str = "",
) -> EvalCaseResult:
    count = max((len(t) for t in turns.values()), default=0)
    per_turn = [
        EvalMetricResultPerInvocation(
            eval_metric_results=[t[i] for t in turns.values() if i < len(t)]
        )
        for i in range(count)
    ]
    return EvalCaseResult(
        eval_set_id="shop",
        eval_id=eval_id,
        run_id=run_id,
        score=1.0 if status is P else 0.0,
        final_eval_status=status,
        error_message=error,
        overall_eval_metric_results=overall or None,
        eval_metric_result_per_invocation=per_turn or None,
    )


def single_run_result() -> EvalSetResult:
    traj_ok = [turn("traj", 1, P), turn("traj", 1, P)]
    traj_bad = [turn("traj", 1, P), turn("traj", 0, F, "tool get_price: arguments differ")]
    text_bad = [turn("final", 0.25, F, "rouge1 f1 0.25 below 0.5")]
    cases = [
        case("order_ok", 1, {"traj": traj_ok}, [turn("traj", 1, P)], P),
        case("order_bad", 1, {"traj": traj_bad}, [turn("traj", 0.5, F)], F),
        case("answer", 1, {"final": text_bad}, [turn("final", 0.25, F)], F),
        case("needs_agent", 1, {}, [], F, error="case needs an agent run; supply --traces"),
        case("no_metrics", 1, {}, [], N),
    ]
    result = EvalSetResult(eval_set_id="shop", eval_case_results=cases)
    result.summary = build_summary(result.case_results(), 1)
    return result


def multi_run_result() -> EvalSetResult:
    cases = []
    # flaky passes runs 1 and 3; steady passes all three
    for run, ok in ((1, True), (2, False), (3, True)):
        status = P if ok else F
        score = 1.0 if ok else 0.0
        t = [turn("traj", score, status, "" if ok else "wrong tool order")]
        cases.append(case("flaky", run, {"traj": t}, [turn("traj", score, status)], status))
        t = [turn("traj", 1, P)]
        cases.append(case("steady", run, {"traj": t}, [turn("traj", 1, P)], P))
    result = EvalSetResult(eval_set_id="shop-multi", eval_case_results=cases)
    result.summary = build_summary(result.case_results(), 3)
    return result


def render(results: list[EvalSetResult], **options: object) -> str:
    console = Console(record=True, width=120, file=io.StringIO())
    render_results(console, results, **options)  # type: ignore[arg-type]
    return console.export_text()


def test_single_run_tables_scores_and_reasons() -> None:
    text = render([single_run_result()], duration_seconds=0.4213)
    assert "eval set shop" in text
    # per-turn scores, overall score, threshold, status on one row
    assert re.search(r"traj\s+1\s+0\s+0\.5\s+1\s+failed", text)
    assert re.search(r"traj\s+1\s+1\s+1\s+1\s+passed", text)
    assert re.search(r"final\s+0\.25\s+0\.25\s+1\s+failed", text)
    assert "✗ traj · turn 2: tool get_price: arguments differ" in text
    assert "✗ final · turn 1: rouge1 f1 0.25 below 0.5" in text
    assert "✗ error: case needs an agent run; supply --traces" in text
    assert "● order_ok  PASSED  score 1" in text
    assert "● needs_agent  FAILED" in text
    assert "● no_metrics  NOT EVALUATED" in text
    assert "cases: 1 passed, 3 failed, 1 not evaluated" in text
    # metric averages: traj (1 + 0.5) / 2 = 0.75, counts 1 passed 1 failed
    assert re.search(r"traj\s+0\.75\s+1\s+failed\s+1\s+1\s+0", text)
    assert text.rstrip().endswith(
        "FAILED: 1 of 5 cases passed (3 failed, 1 not evaluated) · 1 eval set · 0.42 s"
    )
    # a passing turn's (empty) reason is not listed without --verbose
    assert "traj · turn 1" not in text
    assert "pass@" not in text


def test_multi_run_tables_and_pass_rates() -> None:
    text = render([multi_run_result()])
    assert "eval set shop-multi  2 cases · 3 runs" in text
    # N > 1: the metric average (2/3 < threshold 1) decides, not the passing runs
    assert "● flaky  FAILED  2/3 runs passed" in text
    assert "● steady  PASSED  3/3 runs passed" in text
    assert re.search(r"\n\s*2\s+traj\s+0\s+0\s+1\s+failed", text)
    assert "✗ run 2 · traj · turn 1: wrong tool order" in text
    assert "pass@k and pass^k over 3 runs" in text
    assert re.search(
        r"runs passed\s+verdict\s+95% interval\s+pass@1\s+pass@2\s+pass@3\s+pass\^1\s+pass\^2"
        r"\s+pass\^3",
        text,
    )
    # flaky: c = 2 of n = 3 → pass@1 2/3, pass@2 1, pass^2 4/9, pass^3 8/27; it is flaky, its
    # pass rate's Wilson interval 0.2077–0.9385 (steady: stable pass, 0.4385–1)
    assert re.search(
        r"flaky\s+2/3\s+flaky\s+0\.2077–0\.9385\s+0\.6667\s+1\s+1\s+0\.6667\s+0\.4444\s+0\.2963",
        text,
    )
    assert re.search(r"steady\s+3/3\s+stable pass\s+0\.4385–1\s+1\s+1\s+1\s+1\s+1\s+1", text)
    # means over the two cases: pass^3 = (8/27 + 1) / 2
    assert re.search(r"mean over cases\s+0\.8333\s+1\s+1\s+0\.8333\s+0\.7222\s+0\.6481", text)
    assert text.rstrip().endswith("FAILED: 1 of 2 cases passed (1 failed) · 1 eval set")


def test_incomplete_case_says_what_was_not_evaluated_and_why() -> None:
    judge = "judge 'm' failed after 5 attempt(s); last error: connection refused"
    turns = {"traj": [turn("traj", 1, P)], "judge": [turn("judge", 0, N, judge)]}
    overall = [turn("traj", 1, P), turn("judge", 0, N, judge)]
    unreasoned = {"judge": [turn("judge", 0, N)]}
    cases = [
        case("paris", 1, turns, overall, P),
        case("rome", 1, unreasoned, [turn("judge", 0, N)], N),
        case("oslo", 1, {}, [turn("judge", 0, N, "no turn was judged")], N),
    ]
    result = EvalSetResult(eval_set_id="shop", eval_case_results=cases, judge_failures=["paris"])
    result.summary = build_summary(result.case_results(), 1)
    for view in (ConsoleView(), ConsoleView(quiet=True)):
        text = render([result], view=view)
        assert "● paris  INCOMPLETE" in text
        assert f"! judge · turn 1: not evaluated: {judge}" in text
        assert "traj · turn 1" not in text
    text = render([result])
    assert "! judge · turn 1: not evaluated (no reason recorded)" in text
    assert "! judge: not evaluated: no turn was judged" in text


def test_quiet_shows_only_failures_and_final_line() -> None:
    text = render([single_run_result()], view=ConsoleView(quiet=True))
    assert "● order_bad  FAILED" in text
    assert "✗ traj · turn 2: tool get_price: arguments differ" in text
    assert "✗ error: case needs an agent run; supply --traces" in text
    assert "order_ok" not in text
    assert "no_metrics" not in text
    assert "threshold" not in text
    assert "cases:" not in text
    assert text.rstrip().splitlines()[-1].startswith("FAILED: 1 of 5 cases passed")


def test_verbose_shows_passing_reasons_and_detail_extras() -> None:
    result = single_run_result()
    first = result.case_results()[0]
    per_turn = (first.eval_metric_result_per_invocation or [])[0]
    first_turn = (per_turn.eval_metric_results or [])[0]
    # extra detail keys as an evaluator (or a saved file) would carry them
    first_turn.details = MetricDetails.model_validate_json(
        '{"reason": "all 1 tool calls matched", "score": 1,'
        ' "votes": "2/3 pass", "methodCounts": {"exact": 2}}'
    )
    text = render([result], view=ConsoleView(verbose=True))
    expected = (
        '· traj · turn 1: all 1 tool calls matched [methodCounts={"exact":2}, votes=2/3 pass]'
    )
    assert expected in text
    plain = render([result])
    assert "votes" not in plain
    assert "all 1 tool calls matched" not in plain


def test_markup_in_names_and_reasons_is_printed_literally() -> None:
    bad = [turn("[bold]m[/bold]", 0, F, "expected [red]x[/red]")]
    result = EvalSetResult(
        eval_set_id="[x]",
        eval_case_results=[case("[id]", 1, {"m": bad}, [turn("[bold]m[/bold]", 0, F)], F)],
    )
    text = render([result])
    assert "[bold]m[/bold]" in text
    assert "expected [red]x[/red]" in text
    assert "● [id]  FAILED" in text


def test_many_turns_collapse_into_one_column() -> None:
    turns = [turn("traj", 1, P) for _ in range(7)] + [turn("traj", 0, F, "late miss")]
    result = EvalSetResult(
        eval_set_id="long",
        eval_case_results=[case("long", 1, {"traj": turns}, [turn("traj", 0.875, F)], F)],
    )
    text = render([result])
    assert "turns passed" in text
    assert re.search(r"traj\s+7/8\s+0\.875\s+1\s+failed", text)
    assert "✗ traj · turn 8: late miss" in text


def test_saved_file_renders_like_the_live_result(tmp_path: Path) -> None:
    live = multi_run_result()
    path = write_result(live, tmp_path, app_name="shop-app")
    saved = EvalSetResult.model_validate_json(path.read_text(encoding="utf-8"))
    assert render([saved]) == render([live])


def test_result_without_summary_renders_like_with_summary() -> None:
    live = multi_run_result()
    bare = live.model_copy(update={"summary": None})
    assert num_runs(bare) == 3
    assert render([bare]) == render([live])


def test_non_tty_and_no_color_output_has_no_ansi(monkeypatch: pytest.MonkeyPatch) -> None:
    results = [single_run_result()]
    plain_file = io.StringIO()
    render_results(Console(file=plain_file, width=120), results)
    assert plain_file.getvalue()
    assert not ANSI.search(plain_file.getvalue())

    colour_file = io.StringIO()
    render_results(Console(file=colour_file, width=120, force_terminal=True), results)
    assert "\x1b[31m" in colour_file.getvalue()  # red for failures on a terminal

    monkeypatch.setenv("NO_COLOR", "1")
    no_colour_file = io.StringIO()
    render_results(Console(file=no_colour_file, width=120, force_terminal=True), results)
    colour_codes = re.findall(r"\x1b\[(?:[0-9;]*;)?3[0-7]m", no_colour_file.getvalue())
    assert colour_codes == []


def test_final_line_forms() -> None:
    passing = EvalSetResult(
        eval_set_id="ok", eval_case_results=[case("a", 1, {}, [turn("m", 1, P)], P)]
    )
    assert final_line([passing]).plain == "PASSED: 1 of 1 cases passed · 1 eval set"
    assert (
        final_line([passing, passing], 1.5).plain
        == "PASSED: 2 of 2 cases passed · 2 eval sets · 1.50 s"
    )
    assert final_line([]).plain == "NOT EVALUATED: 0 of 0 cases passed · 0 eval sets"


def test_a_real_run_scored_just_under_its_threshold_is_printed_under_it(tmp_path: Path) -> None:
    """Turns 1, 1 and 0.4 against 0.8: the table row and the metric average said
    ``0.8  0.8  failed``; the score is printed to the digit that tells it from 0.8.
    (COLUMNS given: the width another test leaves in the environment may fold the table.)"""
    run = near_threshold_run(tmp_path, env={**os.environ, "COLUMNS": "160"})
    assert run.returncode == 1, run.stdout + run.stderr
    assert re.search(
        r"response_match_score\s+1\s+1\s+0\.4\s+0\.7999999999999999\s+0\.8\s+failed", run.stdout
    ), run.stdout
    assert re.search(
        r"response_match_score\s+0\.7999999999999999\s+0\.8\s+failed\s+0\s+1\s+0", run.stdout
    ), run.stdout


def test_a_failure_without_a_failing_turn_prints_its_score_apart_from_its_threshold() -> None:
    """The metric-level line ``score … < threshold …`` (an average that fails, no turn
    that does) said ``score 0.8 < threshold 0.8`` for 0.79996."""
    overall = EvalMetricResult(metric_name="judged", score=0.79996, eval_status=F, threshold=0.8)
    text = render(
        [EvalSetResult(eval_set_id="s", eval_case_results=[case("near", 1, {}, [overall], F)])]
    )
    assert "✗ judged: score 0.79996 < threshold 0.8" in text, text


def test_a_count_metric_that_fails_is_said_to_be_above_its_threshold() -> None:
    """The metric-level line said ``score 3 < threshold 1`` for a count over its bound."""
    overall = EvalMetricResult(metric_name="tool_call_count", score=3, eval_status=F, threshold=1)
    result = EvalSetResult(eval_set_id="s", eval_case_results=[case("c", 1, {}, [overall], F)])
    assert "✗ tool_call_count: score 3 > threshold 1" in render([result])


def test_shown_ks() -> None:
    assert shown_ks(1) == [1]
    assert shown_ks(3) == [1, 2, 3]
    assert shown_ks(8) == [1, 2, 3, 5, 8]
    assert shown_ks(100) == [1, 2, 3, 5, 10, 100]


def test_renders_go_result_files() -> None:
    paths = sorted((FIXTURES / "caseaggregation" / "output").rglob("*.evalset_result.json"))
    paths += sorted((FIXTURES / "callbacks" / "output").rglob("*.evalset_result.json"))
    results = [EvalSetResult.model_validate_json(p.read_text(encoding="utf-8")) for p in paths]
    text = render(results)
    # the weighted aggregator's verdict and score, with the failing metric's reason
    assert "● support_weighted_tradeoff  PASSED  score 0.8" in text
    assert re.search(r"max_six_chars\s+0\s+0\s+1\s+failed", text)
    assert "✗ max_six_chars · turn 1: " in text
    # the old layout (no runId, no summary) renders too
    assert "● calc_add  PASSED" in text
    assert text.rstrip().endswith("PASSED: 2 of 2 cases passed · 2 eval sets")


def test_an_unfinished_run_is_incomplete_on_the_final_line_whatever_its_cases_say() -> None:
    results = [single_run_result()]
    notes = RunNotes(unfinished=["interrupted"])
    quiet = ConsoleView(quiet=True)
    last = render(results, view=quiet, duration_seconds=2.0, notes=notes).strip().splitlines()[-1]
    assert last == (
        "INCOMPLETE: 1 of 5 cases passed (3 failed, 1 not evaluated) · 1 eval set"
        " · interrupted · 2.00 s"
    )
    assert render(results, view=quiet).strip().splitlines()[-1].startswith("FAILED: 1 of 5")


def test_verbose_detail_values_are_cut_as_reasons_are() -> None:
    # A judge sample's 200,000-character reason in ``samples`` was printed whole under -v.
    result = single_run_result()
    first_turn = (
        (result.case_results()[0].eval_metric_result_per_invocation or [])[0].eval_metric_results
        or []
    )[0]
    long_reason = "R" * 200_000
    samples = (
        f'[{{"status":"passed","reason":"{long_reason}"}},{{"status":"passed","reason":"ok"}}]'
    )
    first_turn.details = MetricDetails.model_validate_json(
        f'{{"reason": "fine", "score": 1, "samples": {samples}, "unstable": false}}'
    )
    text = render([result], view=ConsoleView(verbose=True))
    flat = " ".join(line.strip() for line in text.splitlines())  # the grid wraps long lines
    # 200,067: the compact JSON of the samples, as the console prints it
    assert f"(cut to 300 of {len(samples):,} characters; the result file has it whole)" in flat
    assert text.count("R") < 400  # 300 characters of the value, not 200,000
    assert "unstable=false" in text  # the other keys are still shown, whole
    # the reason line's own cut note is the same rule
    first_turn.details = MetricDetails(reason="x" * 1000, score=1)
    text = render([result], view=ConsoleView(verbose=True))
    flat = " ".join(line.strip() for line in text.splitlines())
    assert "[cut to 300 of 1,000 characters; the result file has it whole]" in flat
