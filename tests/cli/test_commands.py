"""The command line end to end: outputs, filters, traces, repeated runs, plugins, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

import agenteval
from agenteval.inputs.loading import load_result
from cli_process import run_cli

ROOT = Path(__file__).resolve().parents[2]


def agenteval_cli(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=120, env=env, cwd=cwd)


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def answer(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


def write_suite(tmp_path: Path, eval_set_id: str = "suite", *, trace_mode: bool = True) -> Path:
    """Two cases: `good` passes, `bad` fails on its tool arguments."""
    cases = []
    for eval_id, arg in (("good", 1), ("bad", 2)):
        expected = [
            {
                "userContent": user("q"),
                "finalResponse": answer("ok"),
                "tools": [{"name": "t", "arguments": {"x": 1}}],
            }
        ]
        actual = [
            {
                "userContent": user("q"),
                "finalResponse": answer("ok"),
                "tools": [{"name": "t", "arguments": {"x": arg}}],
            }
        ]
        case: dict[str, Any] = {
            "evalId": eval_id,
            "conversation": expected,
            "sessionInput": {"userId": "u"},
        }
        if trace_mode:
            case.update(evalMode="trace", actualConversation=actual)
        cases.append(case)
    path = tmp_path / "suite.evalset.json"
    path.write_text(json.dumps({"evalSetId": eval_set_id, "evalCases": cases}))
    (tmp_path / "suite.metrics.json").write_text(
        json.dumps(
            [
                {"metricName": "tool_trajectory_avg_score", "threshold": 1},
                {
                    "metricName": "answer",
                    "evaluatorName": "final_response_avg_score",
                    "threshold": 1,
                    "criterion": {"finalResponse": {"text": {}}},
                },
            ]
        )
    )
    return path


def test_output_file_loads_back_and_exit_code_1(tmp_path: Path) -> None:
    """A result file written by --output loads through our loader; a failing case exits 1."""
    suite = write_suite(tmp_path)
    out = tmp_path / "out"
    proc = agenteval_cli("run", "--evalset", str(suite), "--output", str(out), "--app", "my-app")
    assert proc.returncode == 1, proc.stderr
    files = list(out.iterdir())
    assert len(files) == 1 and files[0].name.startswith("my-app_suite_")
    result = load_result(files[0])
    statuses = {c.eval_id: c.final_eval_status.value for c in result.case_results()}
    assert statuses == {"good": "passed", "bad": "failed"}
    assert result.summary is not None and result.summary.overall_status.value == "failed"
    assert "FAILED: 1 of 2 cases passed" in proc.stdout


def test_output_names_cannot_escape_the_directory(tmp_path: Path) -> None:
    """An evalSetId or app name of ../../x is sanitised: every file stays inside --output."""
    suite = write_suite(tmp_path, eval_set_id="../../x")
    out = tmp_path / "deep" / "out"
    proc = agenteval_cli("run", "--evalset", str(suite), "--output", str(out), "--app", "../../y")
    assert proc.returncode == 1, proc.stderr
    written = [p for p in tmp_path.rglob("*.evalset_result.json")]
    assert written and all(p.resolve().parent == out.resolve() for p in written)


def test_filters_and_json_document(tmp_path: Path) -> None:
    """--case and --metric narrow the run; --json holds the whole run; all passing exits 0."""
    suite = write_suite(tmp_path)
    doc = tmp_path / "run.json"
    proc = agenteval_cli(
        "run", "--evalset", str(suite), "--case", "good", "--metric", "answer", "--json", str(doc)
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(doc.read_text())
    cases = data["evalSetResults"][0]["evalCaseResults"]
    assert [c["evalId"] for c in cases] == ["good"]
    assert [m["metricName"] for m in cases[0]["overallEvalMetricResults"]] == ["answer"]
    assert data["overallStatus"] == "passed"


def test_skip_metric_and_unknown_filter(tmp_path: Path) -> None:
    """--skip-metric drops a metric on purpose; a filter that matches nothing is a usage error."""
    suite = write_suite(tmp_path)
    proc = agenteval_cli(
        "run", "--evalset", str(suite), "--skip-metric", "tool_trajectory_avg_score"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = agenteval_cli("run", "--evalset", str(suite), "--case", "nope")
    assert proc.returncode == 2
    assert "--case: 'nope' matches nothing" in proc.stderr


@pytest.mark.parametrize("layout", ["jsonl", "result"])
def test_traces_supply_actual_turns(tmp_path: Path, layout: str) -> None:
    """Default-mode cases get their actual turns from --traces (JSONL or a result file)."""
    suite = write_suite(tmp_path, trace_mode=False)
    proc = agenteval_cli("run", "--evalset", str(suite))
    assert proc.returncode == 1
    assert "--traces" in proc.stdout  # the failed cases say what to supply
    good = [
        {
            "userContent": user("q"),
            "finalResponse": answer("ok"),
            "tools": [{"name": "t", "arguments": {"x": 1}}],
        }
    ]
    if layout == "jsonl":
        traces = tmp_path / "traces.jsonl"
        traces.write_text(
            "\n".join(
                json.dumps({"evalId": i, "actualConversation": good}) for i in ("good", "bad")
            )
            + "\n"
        )
    else:
        traces = tmp_path / "stored.evalset_result.json"
        cases = [
            {"evalId": i, "evalMetricResultPerInvocation": [{"actualInvocation": good[0]}]}
            for i in ("good", "bad")
        ]
        traces.write_text(json.dumps({"evalSetId": "suite", "evalCaseResults": cases}))
    proc = agenteval_cli("run", "--evalset", str(suite), "--traces", str(traces))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_num_runs_reports_pass_at_k(tmp_path: Path) -> None:
    """--num-runs 3 repeats every case; the summary carries pass@k and pass^k."""
    suite = write_suite(tmp_path)
    doc = tmp_path / "run.json"
    proc = agenteval_cli("run", "--evalset", str(suite), "--num-runs", "3", "--json", str(doc))
    assert proc.returncode == 1
    result = json.loads(doc.read_text())["evalSetResults"][0]
    assert [c["runId"] for c in result["evalCaseResults"]] == [1, 1, 2, 2, 3, 3]
    summary = result["summary"]
    assert summary["numRuns"] == 3
    by_case = {c["evalId"]: c for c in summary["evalCaseSummaries"]}
    assert by_case["good"]["passAtK"] == {"1": 1, "2": 1, "3": 1}
    assert by_case["bad"]["passHatK"] == {"1": 0, "2": 0, "3": 0}
    assert "pass@" in proc.stdout


def test_evaluators_command_lists_builtins() -> None:
    proc = agenteval_cli("evaluators")
    assert proc.returncode == 0
    for name in ("tool_trajectory_avg_score", "final_response_avg_score"):
        assert name in proc.stdout


def test_python_api_in_a_test(tmp_path: Path) -> None:
    """agenteval.evaluate returns the result objects, usable inside pytest."""
    suite = write_suite(tmp_path)
    run = agenteval.evaluate(str(suite), cases=["good"])
    assert run.passed and run.exit_code == 0
    assert [c.eval_id for c in run.results[0].case_results()] == ["good"]


def test_entry_point_plugin_is_loaded(tmp_path: Path) -> None:
    """An installed distribution's `agenteval.plugins` entry point registers its evaluator."""
    site = tmp_path / "site"
    package = site / "demo_plugin"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        textwrap.dedent(
            """
            from agenteval.evaluators.base import Evaluator, average_turns, binary_turn
            from agenteval.plugins import register_evaluator

            @register_evaluator
            class AlwaysPass(Evaluator):
                name = "always_pass"
                description = "Demo plugin evaluator"

                def evaluate(self, metric, actuals, expecteds, context):
                    turns = [binary_turn(True, "", metric.threshold) for _ in actuals]
                    return average_turns(turns, metric.threshold)
            """
        )
    )
    dist = site / "demo_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[agenteval.plugins]\ndemo = demo_plugin\n")
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}
    proc = agenteval_cli("evaluators", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "always_pass" in proc.stdout


def test_plugin_file_that_fails_to_import(tmp_path: Path) -> None:
    """A broken --plugin is one clear line and exit 2, no traceback."""
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    proc = agenteval_cli("evaluators", "--plugin", str(broken))
    assert proc.returncode == 2
    assert "failed to load: RuntimeError: boom" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_plugin_evaluator_that_raises_loses_no_finished_work(tmp_path: Path) -> None:
    """An evaluator bug on one case: that metric is not evaluated there, everything else is
    scored and written, the run is INCOMPLETE (exit 3, not an internal error: exit 4)."""
    suite = write_suite(tmp_path)
    plugin = tmp_path / "buggy.py"
    plugin.write_text(
        textwrap.dedent(
            """
            from agenteval.evaluators.base import Evaluator, average_turns, binary_turn
            from agenteval.plugins import register_evaluator

            @register_evaluator
            class Buggy(Evaluator):
                name = "buggy"
                description = "raises on the case named bad"

                def evaluate(self, metric, actuals, expecteds, context):
                    if context.case.eval_id == "bad":
                        raise KeyError("missing")
                    turns = [binary_turn(True, "ok", metric.threshold) for _ in actuals]
                    return average_turns(turns, metric.threshold)
            """
        )
    )
    metrics = json.loads((tmp_path / "suite.metrics.json").read_text())
    metrics.append({"metricName": "buggy", "threshold": 1})
    (tmp_path / "suite.metrics.json").write_text(json.dumps(metrics))
    out = tmp_path / "out"
    proc = agenteval_cli(
        "run", "--evalset", str(suite), "--plugin", str(plugin), "--output", str(out)
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "internal error" not in proc.stdout + proc.stderr
    assert "INCOMPLETE: 1 of 2 cases passed (1 incomplete)" in proc.stdout
    # The reason under the case, wrapped to the terminal's width.
    shown = " ".join(proc.stdout.split())
    assert "buggy · turn 1: not evaluated: evaluator buggy raised KeyError: 'missing' (at" in shown
    (written,) = out.glob("*.evalset_result.json")
    result = load_result(written)
    assert result.judge_failures == ["bad"]
    statuses = {
        c.eval_id: {m.metric_name: m.eval_status.value for m in c.overall_eval_metric_results or []}
        for c in result.case_results()
    }
    assert statuses["good"]["buggy"] == "passed"
    assert statuses["bad"]["buggy"] == "not_evaluated"
    assert statuses["bad"]["tool_trajectory_avg_score"] == "failed"


def test_a_case_aggregator_that_raises_makes_its_case_incomplete(tmp_path: Path) -> None:
    """No verdict is no failure of the agent: exit 3, the metric results kept and written."""
    suite = write_suite(tmp_path)
    plugin = tmp_path / "picky.py"
    plugin.write_text(
        textwrap.dedent(
            """
            from agenteval.plugins import register_case_aggregator

            @register_case_aggregator("picky")
            def picky(case, metrics, results):
                if case.eval_id == "bad":
                    raise ValueError("cannot decide")
                return 1.0, "passed"
            """
        )
    )
    out = tmp_path / "out"
    proc = agenteval_cli(
        "run", "--evalset", str(suite), "--plugin", str(plugin),
        "--case-aggregator", "picky", "--output", str(out),
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "INCOMPLETE: 1 of 2 cases passed (1 incomplete)" in proc.stdout
    shown = " ".join(proc.stdout.split())
    assert "case aggregator raised ValueError: cannot decide (at picky.py:7)" in shown
    (written,) = out.glob("*.evalset_result.json")
    result = load_result(written)
    assert result.judge_failures == ["bad"]
    (bad,) = [c for c in result.case_results() if c.eval_id == "bad"]
    kept = {m.metric_name: m.eval_status.value for m in bad.overall_eval_metric_results or []}
    assert kept == {"tool_trajectory_avg_score": "failed", "answer": "passed"}


CONTRARY_PLUGIN = """
from agenteval.plugins import register_case_aggregator

@register_case_aggregator("contrary")
def contrary(case, metrics, results):
    # Fails the case whose metrics pass, passes the one whose metrics fail.
    passed = any(r.eval_status == "failed" for r in results)
    return (1.0 if passed else 0.0), ("passed" if passed else "failed")

@register_case_aggregator("undecided")
def undecided(case, metrics, results):
    return 0.0, "not_evaluated"
"""


def _faces(tmp_path: Path, aggregator: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """`run --num-runs 3` under a plugin's case aggregator, every report written under
    ``tmp_path/aggregator``."""
    suite = write_suite(tmp_path)
    plugin = tmp_path / "contrary.py"
    plugin.write_text(CONTRARY_PLUGIN)
    out = tmp_path / aggregator
    proc = agenteval_cli(
        "run", "--evalset", str(suite), "--plugin", str(plugin), "--case-aggregator",
        aggregator, "--num-runs", "3", "--output", str(out / "results"), "--json",
        str(out / "run.json"), "--junit", str(out / "junit.xml"), "--markdown",
        str(out / "summary.md"), "--no-progress",
    )  # fmt: skip
    return proc, out


def test_several_runs_of_a_custom_aggregator_are_decided_by_its_verdicts(tmp_path: Path) -> None:
    """The aggregator failed every run of `good` (its metrics pass) and passed every run of
    `bad` (its metrics fail): "0/3 runs passed" was PASSED (the metric averages decided)
    while caseVerdicts said stable_fail. Every face now gives the aggregator's verdicts."""
    proc, out = _faces(tmp_path, "contrary")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "● good  FAILED  0/3 runs passed" in proc.stdout
    assert "● bad  PASSED  3/3 runs passed" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1].startswith("FAILED: 1 of 2 cases passed (1 fail")
    document = json.loads((out / "run.json").read_text())
    assert document["overallStatus"] == "failed"
    assert document["caseStatusCounts"] == {"passed": 1, "failed": 1, "notEvaluated": 0}
    verdicts = document["caseVerdicts"]["suite"]
    assert {k: v["verdict"] for k, v in verdicts.items()} == {
        "good": "stable_fail",
        "bad": "stable_pass",
    }
    (written,) = (out / "results").glob("*.evalset_result.json")
    summary = load_result(written).summary
    assert summary is not None and summary.overall_status.value == "failed"
    cases = {c.eval_id: c.overall_status.value for c in summary.eval_case_summaries or []}
    assert cases == {"bad": "passed", "good": "failed"}
    junit = (out / "junit.xml").read_text()
    assert 'tests="2" failures="1" errors="0"' in junit
    assert "case failed over 3 runs (the case aggregator's verdicts of the runs decide)" in junit
    markdown = (out / "summary.md").read_text()
    assert "**1 of 2 cases passed** (50%) · 1 failed" in markdown
    assert "| suite | good | failed (0/3 runs passed) |" in markdown
    shown = agenteval_cli("show", str(written))
    assert shown.returncode == 1, shown.stdout + shown.stderr
    assert "● good  FAILED  0/3 runs passed" in shown.stdout
    assert "● bad  PASSED  3/3 runs passed" in shown.stdout


def test_several_runs_the_custom_aggregator_never_evaluated_are_not_passed(
    tmp_path: Path,
) -> None:
    proc, out = _faces(tmp_path, "undecided")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "● good  NOT EVALUATED  0/3 runs passed" in proc.stdout
    assert "PASSED" not in proc.stdout
    document = json.loads((out / "run.json").read_text())
    assert document["overallStatus"] == "not_evaluated"
    assert document["caseStatusCounts"] == {"passed": 0, "failed": 0, "notEvaluated": 2}
    (written,) = (out / "results").glob("*.evalset_result.json")
    summary = load_result(written).summary
    assert summary is not None and summary.overall_status.value == "not_evaluated"
    junit = (out / "junit.xml").read_text()
    assert 'tests="2" failures="0" errors="2"' in junit
    assert "the case aggregator did not evaluate the case (its metrics were evaluated)" in junit


def test_shipped_example_runs(tmp_path: Path) -> None:
    """The example in evalsets/ + metrics/ scores with some passing and some failing cases."""
    proc = agenteval_cli(
        "run",
        "--evalset",
        str(ROOT / "evalsets"),
        "--metrics",
        str(ROOT / "metrics"),
        "--output",
        str(tmp_path),
    )
    assert proc.returncode == 1, proc.stderr
    assert "FAILED: 7 of 13 cases passed (6 failed)" in proc.stdout
    assert len(list(tmp_path.glob("*.evalset_result.json"))) == 4


def test_merge_verbose_prints_the_failed_cases_as_show_quiet_verbose(tmp_path: Path) -> None:
    """merge prints the merged run's failures as ``run -q`` does; ``-v`` adds what ``-v``
    adds there (a failed case's passing turns and details), as its help says."""
    full = tmp_path / "full"
    agenteval_cli(
        "run", "--evalset", str(ROOT / "evalsets" / "help-center.evalset.json"),
        "--metrics", str(ROOT / "metrics"), "--output", str(full), "-q",
    )  # fmt: skip
    (result,) = full.glob("*.evalset_result.json")
    shown = agenteval_cli("show", str(result), "-q", "-v")
    plain = agenteval_cli("merge", str(result), "-o", str(tmp_path / "a.json"), "-q")
    verbose = agenteval_cli("merge", str(result), "-o", str(tmp_path / "b.json"), "-q", "-v")
    assert verbose.returncode == plain.returncode == shown.returncode == 1, verbose.stderr
    assert verbose.stdout == shown.stdout
    assert len(verbose.stdout.splitlines()) > len(plain.stdout.splitlines())


@pytest.mark.parametrize("count", [2, 3, 5])
def test_shards_merge_to_the_full_run(tmp_path: Path, count: int) -> None:
    """--shard I/N runs, then `merge`, equal a single full run (summary and per-case results)."""
    evalsets, metrics = str(ROOT / "evalsets"), str(ROOT / "metrics")
    full = tmp_path / "full"
    agenteval_cli("run", "--evalset", evalsets, "--metrics", metrics, "--output", str(full), "-q")
    parts = []
    for index in range(1, count + 1):
        out = tmp_path / f"shard{index}"
        proc = agenteval_cli(
            "run",
            "--evalset",
            evalsets,
            "--metrics",
            metrics,
            "--shard",
            f"{index}/{count}",
            "--output",
            str(out),
            "-q",
        )
        assert proc.returncode in (0, 1), proc.stderr
        parts.extend(out.glob("*.evalset_result.json"))
    merged = tmp_path / "merged"
    proc = agenteval_cli(
        "merge", *map(str, parts), "--output", str(merged), "--evalset", evalsets, "-q"
    )
    assert proc.returncode == 1, proc.stderr

    def by_set(directory: Path) -> dict[str, dict[str, Any]]:
        return {
            json.loads(p.read_text())["evalSetId"]: json.loads(p.read_text())
            for p in directory.glob("*.json")
        }

    def strip(case: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in case.items() if k not in ("sessionId",)}

    full_sets, merged_sets = by_set(full), by_set(merged)
    assert (
        set(full_sets)
        == set(merged_sets)
        == {"help-center", "order-api", "order-export", "travel-assistant"}
    )
    for eval_set_id, expected in full_sets.items():
        got = merged_sets[eval_set_id]
        assert got["summary"] == expected["summary"]
        assert [strip(c) for c in got["evalCaseResults"]] == [
            strip(c) for c in expected["evalCaseResults"]
        ]


def test_diff_exit_codes(tmp_path: Path) -> None:
    """`diff` exits 0 without regressions and 1 with one; --json gives machine output."""
    suite = write_suite(tmp_path)
    base, new = tmp_path / "base", tmp_path / "new"
    agenteval_cli("run", "--evalset", str(suite), "--output", str(base), "-q")
    data = json.loads(suite.read_text())
    data["evalCases"][0]["actualConversation"][0]["tools"][0]["arguments"]["x"] = (
        5  # `good` now fails
    )
    suite.write_text(json.dumps(data))
    agenteval_cli("run", "--evalset", str(suite), "--output", str(new), "-q")
    (base_file,), (new_file,) = list(base.iterdir()), list(new.iterdir())
    same = agenteval_cli("diff", str(base_file), str(base_file))
    assert same.returncode == 0, same.stdout + same.stderr
    worse = agenteval_cli("diff", str(base_file), str(new_file), "--json")
    assert worse.returncode == 1
    changes = json.loads(worse.stdout)
    assert changes["regressed"] is True


def test_diff_reports_every_missing_file(tmp_path: Path) -> None:
    """Both sides are read before either's problems are said: a line per missing file."""
    base, new, more = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    proc = agenteval_cli("diff", str(base), str(new))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        f"error: {base}: file not found",
        f"error: {new}: file not found",
        "2 problems found.",
    ]
    proc = agenteval_cli("diff", str(base), "--new", str(new), str(more))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines()[-1] == "3 problems found."


def test_junit_markdown_and_github_outputs(tmp_path: Path) -> None:
    """--junit and --markdown files, the step summary and ::error lines on GitHub Actions."""
    suite = write_suite(tmp_path)
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n")
    env = dict(os.environ, GITHUB_ACTIONS="true", GITHUB_STEP_SUMMARY=str(summary))
    proc = agenteval_cli(
        "run",
        "--evalset",
        str(suite),
        "--junit",
        str(tmp_path / "j.xml"),
        "--markdown",
        str(tmp_path / "m.md"),
        env=env,
    )
    assert proc.returncode == 1
    assert 'tests="2" failures="1" errors="0"' in (tmp_path / "j.xml").read_text()
    assert "bad" in (tmp_path / "m.md").read_text()
    assert summary.read_text().startswith("earlier step\n") and "bad" in summary.read_text()
    errors = [line for line in proc.stdout.splitlines() if line.startswith("::error ")]
    assert len(errors) == 1 and "suite/bad" in errors[0]


def test_an_unexpected_exception_is_an_internal_error_exit_4(tmp_path: Path) -> None:
    """A bug before anything is scored (here a plugin evaluator's config check that raises)
    exits 4, not 2; --verbose adds the traceback.  (While scoring, an evaluator's bug leaves
    only its metric unevaluated: test_a_plugin_evaluator_that_raises_loses_no_finished_work.)"""
    plugin = tmp_path / "boom.py"
    plugin.write_text(
        textwrap.dedent(
            """
            from agenteval.evaluators.base import Evaluator
            from agenteval.plugins import register_evaluator

            @register_evaluator
            class Boom(Evaluator):
                name = "boom"
                description = "raises"

                def check(self, metric):
                    raise RuntimeError("kaboom")
            """
        )
    )
    suite = write_suite(tmp_path)
    (tmp_path / "suite.metrics.json").write_text(
        json.dumps([{"metricName": "b", "evaluatorName": "boom", "threshold": 1}])
    )
    proc = agenteval_cli("run", "--evalset", str(suite), "--plugin", str(plugin))
    assert proc.returncode == 4
    assert "internal error: RuntimeError: kaboom (this is a bug in agenteval)" in proc.stderr
    assert "Traceback" not in proc.stderr
    verbose = agenteval_cli("run", "--evalset", str(suite), "--plugin", str(plugin), "--verbose")
    assert verbose.returncode == 4
    assert "Traceback" in verbose.stderr


def test_an_internal_error_quoting_markup_or_escapes_is_printed_as_text(tmp_path: Path) -> None:
    """The handler printed the exception's text as rich markup: rich's own MarkupError quotes
    an unmatched "[/bold]", so the handler raised it again (a traceback)."""
    plugin = tmp_path / "boom.py"
    plugin.write_text(
        textwrap.dedent(
            """
            from agenteval.evaluators.base import Evaluator
            from agenteval.plugins import register_evaluator

            @register_evaluator
            class Boom(Evaluator):
                name = "boom"
                description = "raises"

                def check(self, metric):
                    raise RuntimeError("closing tag '[/bold]' \\x1b[2J")
            """
        )
    )
    suite = write_suite(tmp_path)
    (tmp_path / "suite.metrics.json").write_text(
        json.dumps([{"metricName": "b", "evaluatorName": "boom", "threshold": 1}])
    )
    proc = agenteval_cli("run", "--evalset", str(suite), "--plugin", str(plugin))
    assert proc.returncode == 4, proc.stderr
    assert (
        "internal error: RuntimeError: closing tag '[/bold]' \\x1b[2J (this is a bug" in proc.stderr
    )
    assert "Traceback" not in proc.stderr and "\x1b" not in proc.stderr


def test_show_cuts_a_huge_judge_reason_and_says_so(judge_server: Any, tmp_path: Path) -> None:
    # A judge's 200 KB reason: the result file keeps it whole; show (like the run) prints
    # the first 300 characters, as the CI reports cap it, and says how much there was.
    from cli.test_judge_cost import write_suite as judged_suite
    from judge_server import Reply

    reason = "why " * 50_000
    invalid = f"reasoning: {reason}\nis_the_agent_response_valid: invalid"
    judge_server.default = Reply(content=invalid)
    args = judged_suite(tmp_path, judge_server.base_url, ("lyon",))
    out = tmp_path / "out"
    run = agenteval_cli("run", *args, "--no-cache", "--output", str(out))
    assert run.returncode == 1, run.stdout[-2000:] + run.stderr
    (result,) = out.glob("*.evalset_result.json")
    (case,) = load_result(result).case_results()
    (metric,) = case.overall_eval_metric_results or []
    assert metric.details is not None and reason.strip() in metric.details.reason
    whole = len(metric.details.reason)
    assert whole > 190_000

    shown = agenteval_cli("show", str(result))
    assert shown.returncode == 1, shown.stdout[-2000:] + shown.stderr
    assert len(shown.stdout) < 3_000  # it printed all 200 KB before
    flat = " ".join(shown.stdout.split())
    assert f"why why… [cut to 300 of {whole:,} characters; the result file has it whole]" in flat
    assert len(run.stdout) < 3_000 and run.stdout.count("[cut to 300 of") == 1  # so did the run
