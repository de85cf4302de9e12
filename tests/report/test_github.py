"""GitHub annotations: workflow-command escaping and one line per case that did not pass."""

from __future__ import annotations

import os
import re
from pathlib import Path

from agenteval.errors import Problem
from agenteval.report import github
from agenteval.report.github import (
    escape_data,
    escape_property,
    is_github_actions,
    workflow_command,
)
from agenteval.report.markdown import markdown_summary
from agenteval.report.run_notes import RunNotes
from agenteval.report.set_tally import set_report
from sample_results import case_result, eval_set_result, metric
from tests.report.report_inputs import near_threshold_run

# Lines written by @actions/core 1.11.1 (core.error / core.warning with these arguments),
# run side by side with node; the trailing newline is the writer's, not the command's.
TOOLKIT = [
    (
        "error",
        {"title": "agenteval: shop/refund failed"},
        "m: score 0.5 < threshold 1",
        "::error title=agenteval%3A shop/refund failed::m: score 0.5 < threshold 1",
    ),
    (
        "error",
        {"title": "agenteval: s:1,x/100% done failed", "file": "evalsets/a,b:c.evalset.json"},
        "line1\nline2\r\n50% off: a,b",
        "::error title=agenteval%3A s%3A1%2Cx/100%25 done failed,"
        "file=evalsets/a%2Cb%3Ac.evalset.json::line1%0Aline2%0D%0A50%25 off: a,b",
    ),
    (
        "warning",
        {"title": "agenteval: s/n not evaluated"},
        "no metric was evaluated for this case",
        "::warning title=agenteval%3A s/n not evaluated::no metric was evaluated for this case",
    ),
    (
        "error",
        {"title": "%0A already escaped?"},
        "%25 stays %25, %0A literal",
        "::error title=%250A already escaped?::%2525 stays %2525, %250A literal",
    ),
]

COMMAND = re.compile(r"::(?P<cmd>\w+) (?P<props>[^:]*)::(?P<message>.*)")


def unescape(text: str) -> str:
    """What the GitHub runner does to an escaped value (the inverse of the toolkit's escaping)."""
    for escape, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escape, char)
    return text


def parse(line: str) -> tuple[str, dict[str, str], str]:
    match = COMMAND.fullmatch(line)
    assert match is not None, line
    props = dict(pair.split("=", 1) for pair in match["props"].split(","))
    return (
        match["cmd"],
        {k: unescape(v) for k, v in props.items()},
        unescape(match["message"]),
    )


def test_workflow_commands_match_the_actions_toolkit() -> None:
    for command, properties, message, expected in TOOLKIT:
        assert workflow_command(command, properties, message) == expected


def test_escapes() -> None:
    assert escape_data("100%\r\n: ,") == "100%25%0D%0A: ,"
    assert escape_property("100%\r\n: ,") == "100%25%0D%0A%3A %2C"
    assert workflow_command("error", {}, "x") == "::error::x"


def test_one_annotation_per_case_that_did_not_pass() -> None:
    result = eval_set_result(
        "shop",
        [
            case_result("shop", "greets", [metric("final_response_avg_score", 1.0)]),
            case_result(
                "shop",
                "refund",
                [
                    metric(
                        "tool_trajectory_avg_score", 0.5, reason="want refund,\r\ngot 100% cancel"
                    ),
                    metric("final_response_avg_score", 0.25, 0.5),
                ],
            ),
            case_result("shop", "no_metrics", []),
            case_result("shop", "no_trace", [], error="no actual turns"),
        ],
    )
    lines = github.annotations([result], files={"shop": "evalsets/shop.evalset.json"})
    assert len(lines) == 3
    assert all("\n" not in line and "\r" not in line for line in lines)
    parsed = [parse(line) for line in lines]
    assert parsed == [
        (
            "error",
            {"title": "agenteval: shop/refund failed", "file": "evalsets/shop.evalset.json"},
            "tool_trajectory_avg_score: score 0.5 < threshold 1: want refund,\r\ngot 100% cancel\n"
            "final_response_avg_score: score 0.25 < threshold 0.5",
        ),
        (
            "warning",
            {
                "title": "agenteval: shop/no_metrics not evaluated",
                "file": "evalsets/shop.evalset.json",
            },
            "no metric was evaluated for this case",
        ),
        (
            "error",
            {"title": "agenteval: shop/no_trace failed", "file": "evalsets/shop.evalset.json"},
            "error: no actual turns",
        ),
    ]


def test_multi_run_annotation_and_no_file_mapping() -> None:
    runs = [
        case_result("s,1", "flaky:x", [metric("m", score)], run_id=run)
        for run, score in enumerate([1.0, 0.0, 1.0], start=1)
    ]
    (line,) = github.annotations([eval_set_result("s,1", runs, num_runs=3)])
    assert line.startswith("::error title=agenteval%3A s%2C1/flaky%3Ax failed::")
    assert parse(line) == (
        "error",
        {"title": "agenteval: s,1/flaky:x failed"},
        "2/3 runs passed; metric averages decide\nm: average over 3 runs 0.6667 < threshold 1",
    )


def test_all_passed_gives_no_annotation() -> None:
    result = eval_set_result("s", [case_result("s", "a", [metric("m", 1.0)])])
    assert github.annotations([result]) == []


def test_github_actions_detection() -> None:
    assert is_github_actions({"GITHUB_ACTIONS": "true"})
    assert not is_github_actions({"GITHUB_ACTIONS": "false"})
    assert not is_github_actions({"GITHUB_ACTIONS": "1"})
    assert not is_github_actions({})


def test_ci_outputs_from_reports(tmp_path: Path) -> None:
    result = eval_set_result(
        "shop", [case_result("shop", "refund", [metric("m", 0.5)]), case_result("shop", "ok", [])]
    )
    step = tmp_path / "step.md"
    printed: list[str] = []
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(step)}
    reports = [set_report(result)]
    github.write_ci_outputs(reports, env, sources=["sets/shop.evalset.json"], emit=printed.append)
    files = {"shop": "sets/shop.evalset.json"}
    assert printed == github.annotations([result], files=files)
    assert printed[0].startswith("::error title=agenteval%3A shop/refund failed,file=sets/")
    assert step.read_text(encoding="utf-8") == markdown_summary([result]) + "\n"
    printed.clear()
    github.write_ci_outputs(reports, {"GITHUB_STEP_SUMMARY": str(step)}, emit=printed.append)
    assert printed == []
    assert step.read_text(encoding="utf-8") == (markdown_summary([result]) + "\n") * 2


def test_warnings_become_warning_annotations_and_join_the_step_summary(tmp_path: Path) -> None:
    result = eval_set_result("shop", [case_result("shop", "ok", [])])
    warnings = [
        Problem("m.json", "[0].threshold", "no threshold, so it always passes", "set one"),
        Problem("--traces", "", "span 7 belongs to no session"),
    ]
    step = tmp_path / "step.md"
    printed: list[str] = []
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(step)}
    notes = RunNotes(warnings, 3)
    github.write_ci_outputs([set_report(result)], env, emit=printed.append, notes=notes)
    assert [parse(line) for line in printed[1:]] == [  # after the case's own annotation
        (
            "warning",
            {"title": "agenteval warning", "file": "m.json"},
            "[0].threshold: no threshold, so it always passes (set one)",
        ),
        ("warning", {"title": "agenteval warning"}, "span 7 belongs to no session"),
    ]
    summary = step.read_text(encoding="utf-8")
    assert "· 3 warnings" in summary
    assert "- m.json: \\[0\\].threshold: no threshold, so it always passes (set one)" in summary


def test_an_annotation_names_the_file_of_its_own_eval_set_when_two_share_an_id() -> None:
    # `run -e d1/same.evalset.json -e d2/same.evalset.json` (both evalSetId "same"): the
    # failure of d1's case was annotated on d2's file, the last one mapped to the id.
    failing = eval_set_result("same", [case_result("same", "in_d1", [metric("m", 0.5)])])
    passing = eval_set_result("same", [case_result("same", "in_d2", [metric("m", 1.0)])])
    printed: list[str] = []
    reports = [set_report(failing), set_report(passing)]
    sources = [Path("d1/same.evalset.json"), Path("d2/same.evalset.json")]
    env = {"GITHUB_ACTIONS": "true"}
    github.write_ci_outputs(reports, env, sources=sources, emit=printed.append)
    (line,) = printed
    assert parse(line)[1] == {
        "title": "agenteval: same/in_d1 failed",
        "file": "d1/same.evalset.json",
    }


def test_an_unfinished_run_is_an_error_annotation_though_its_cases_passed() -> None:
    # Interrupted after its passing cases: exit 3 and the step summary said INCOMPLETE,
    # but no annotation said anything was wrong.
    result = eval_set_result("s", [case_result("s", "ok", [metric("m", 1.0)])])
    printed: list[str] = []
    notes = RunNotes(unfinished=["interrupted"])
    env = {"GITHUB_ACTIONS": "true"}
    github.write_ci_outputs([set_report(result)], env, emit=printed.append, notes=notes)
    assert [parse(line) for line in printed] == [
        ("error", {"title": "agenteval: run incomplete"}, "the run is incomplete: interrupted")
    ]
    printed.clear()
    github.write_ci_outputs([set_report(result)], env, emit=printed.append)
    assert printed == []


def test_a_score_just_under_its_threshold_is_not_annotated_as_the_threshold(
    tmp_path: Path,
) -> None:
    """Turns 1, 1 and 0.4 against 0.8 were annotated "score 0.8 < threshold 0.8"."""
    env = {**os.environ, "GITHUB_ACTIONS": "true"}
    env.pop("GITHUB_STEP_SUMMARY", None)
    run = near_threshold_run(tmp_path, "--quiet", env=env)
    assert run.returncode == 1, run.stdout + run.stderr
    (line,) = [line for line in run.stdout.splitlines() if line.startswith("::error")]
    command, props, message = parse(line)
    assert (command, props["title"]) == ("error", "agenteval: near/near failed")
    assert message.startswith("response_match_score: score 0.7999999999999999 < threshold 0.8: ")
