"""One run, one verdict line, the last; warnings never hidden (issue 21 items 1 and 12).

An agent that could not be started used to print every case FAILED, then "FAILED: 0 of
4 cases passed", then "INCOMPLETE: the agent could not be started", exit 3: two verdicts
for one run.  Warnings were hidden by ``--quiet`` and carried by no report.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from junitparser import JUnitXml

from agenteval.report.markdown import cell
from cli_process import run_cli

VERDICT = re.compile(r"^(PASSED|FAILED|INCOMPLETE|INTERRUPTED|NOT EVALUATED)\b")
JUNIT_XSD = Path(__file__).resolve().parents[1] / "report" / "junit.xsd"


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=120, env={**os.environ, "NO_COLOR": "1", **(env or {})})


def verdicts(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if VERDICT.match(line)]


def turn(question: str, answer: str) -> dict[str, Any]:
    return {
        "userContent": {"role": "user", "content": question},
        "finalResponse": {"role": "assistant", "content": answer},
    }


def test_an_agent_that_cannot_start_gives_one_incomplete_verdict(tmp_path: Path) -> None:
    cases = [
        {
            "evalId": f"q{i}",
            "conversation": [turn(f"question {i}", "answer")],
            "sessionInput": {"appName": "a", "userId": "u"},
        }
        for i in range(4)
    ]
    evalset = tmp_path / "agent.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "agent", "evalCases": cases}))
    metrics = tmp_path / "agent.metrics.json"
    exact = {"finalResponse": {"text": {"matchStrategy": "exact"}}}
    metrics.write_text(
        json.dumps([{"metricName": "final_response_avg_score", "threshold": 1, "criterion": exact}])
    )
    junit, document = tmp_path / "junit.xml", tmp_path / "run.json"
    proc = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics),
        "--agent", f"cmd:{tmp_path / 'no-such-agent'}",
        "--junit", str(junit), "--json", str(document), "--no-cache",
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert verdicts(proc.stdout) == [proc.stdout.strip().splitlines()[-1]], proc.stdout
    assert (
        proc.stdout.strip()
        .splitlines()[-1]
        .startswith("INCOMPLETE: 0 of 4 cases passed (4 incomplete) · 1 eval set · ")
    )
    assert "FAILED" not in proc.stdout
    for i in range(4):
        assert f"● q{i}  INCOMPLETE" in proc.stdout
    assert "the agent could not be started or reached for 4 case run(s)" in proc.stdout
    suite = JUnitXml.fromfile(str(junit))
    assert (suite.tests, suite.failures, suite.errors) == (4, 0, 4)
    run = json.loads(document.read_text())
    assert run["overallStatus"] == "incomplete"
    assert run["evalSetResults"][0]["judgeFailures"] == ["q0", "q1", "q2", "q3"]
    # Saved, the run reads back the same: one INCOMPLETE verdict, exit 3.
    shown = cli("show", str(document), "--quiet")
    assert shown.returncode == 3
    assert verdicts(shown.stdout) == ["INCOMPLETE: 0 of 4 cases passed (4 incomplete) · 1 eval set"]


def test_a_report_that_cannot_be_written_makes_the_one_verdict_incomplete(tmp_path: Path) -> None:
    evalset = tmp_path / "qa.evalset.json"
    case = {
        "evalId": "ok",
        "evalMode": "trace",
        "conversation": [turn("q", "a")],
        "actualConversation": [turn("q", "a")],
        "sessionInput": {"appName": "a", "userId": "u"},
    }
    evalset.write_text(json.dumps({"evalSetId": "qa", "evalCases": [case]}))
    metrics = tmp_path / "qa.metrics.json"
    metrics.write_text(json.dumps([{"metricName": "exact_match", "threshold": 1}]))
    summary = tmp_path / "summary-dir"
    summary.mkdir()  # $GITHUB_STEP_SUMMARY names a directory: the summary cannot be appended
    proc = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics),
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert verdicts(proc.stdout) == [proc.stdout.strip().splitlines()[-1]]
    assert (
        proc.stdout.strip()
        .splitlines()[-1]
        .startswith("INCOMPLETE: 1 of 1 cases passed · 1 eval set · 1 report not written · ")
    )
    assert f"error: {summary}" in proc.stderr


def flood_suite(tmp_path: Path, count: int) -> tuple[Path, Path]:
    """``count`` passing cases, each with a key close to no key of the format."""
    cases = [
        {
            "evalId": f"c{i}",
            "evalMode": "trace",
            "owner": "team-a",
            "conversation": [turn("q", "a")],
            "actualConversation": [turn("q", "a")],
            "sessionInput": {"appName": "a", "userId": "u"},
        }
        for i in range(count)
    ]
    evalset = tmp_path / "flood.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "flood", "evalCases": cases}))
    metrics = tmp_path / "flood.metrics.json"
    metrics.write_text(json.dumps([{"metricName": "exact_match"}]))  # no threshold: a warning
    return evalset, metrics


def test_warnings_are_never_hidden_counted_and_carried_by_every_report(tmp_path: Path) -> None:
    evalset, metrics = flood_suite(tmp_path, 300)
    junit, markdown, document = tmp_path / "j.xml", tmp_path / "s.md", tmp_path / "run.json"
    step, html = tmp_path / "step.md", tmp_path / "report.html"
    proc = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), "--quiet",
        "--junit", str(junit), "--markdown", str(markdown), "--json", str(document),
        "--html", str(html),
        env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(step)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    owner = "'owner' is not a field of EvalCase (known: evalId,"
    warned = proc.stderr.splitlines()
    assert len(warned) == 12, proc.stderr  # 10 of the flood, its count, the threshold
    assert [line.startswith(f"warning: {evalset}: evalCases[") for line in warned[:10]] == [
        True
    ] * 10
    assert all(owner in line for line in warned[:10])
    assert warned[10] == f"warning: {evalset}: … and 290 more like this"
    assert warned[11].startswith(f"warning: {metrics}: [0].threshold: no threshold")
    last = proc.stdout.strip().splitlines()[-1]
    assert verdicts(proc.stdout) == [last]
    assert last.startswith("PASSED: 300 of 300 cases passed · 1 eval set · 301 warnings · ")
    shown = [line.removeprefix("warning: ") for line in warned]
    # JUnit: the first suite's system-err and a count, schema-valid.
    xmlschema.XMLSchema(str(JUNIT_XSD)).validate(str(junit))
    (suite,) = JUnitXml.fromfile(str(junit))
    assert suite._elem.findtext("system-err") == "\n".join(warned)
    assert {p.name: p.value for p in suite.properties()}["warnings"] == "301"
    # Markdown (the file and the step summary): counted in the headline and listed.
    for text in (markdown.read_text(), step.read_text()):
        assert "· 301 warnings" in text
        assert "### Warnings" in text
        assert "".join(f"- {cell(line)}\n" for line in shown) in text
    # GitHub annotations: one ::warning per line shown.
    annotations = [line for line in proc.stdout.splitlines() if line.startswith("::warning ")]
    assert len(annotations) == 12
    assert annotations[10].endswith("::… and 290 more like this")
    # The run document and the HTML report list them as shown.
    assert json.loads(document.read_text())["warnings"] == shown
    page = html.read_text()
    assert page.count("is not a field of EvalCase") == 10
    assert page.count("and 290 more like this") == 1


def test_validate_counts_warnings_on_its_verdict_line(tmp_path: Path) -> None:
    evalset, metrics = flood_suite(tmp_path, 3)
    proc = cli("validate", "--evalset", str(evalset), "--metrics", str(metrics))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "OK: 1 eval set(s), 3 case(s), 1 metric(s) valid · 4 warnings.\n"
    assert len(proc.stderr.splitlines()) == 4


def test_warnings_beside_errors_are_printed_and_counted(tmp_path: Path) -> None:
    evalset, metrics = flood_suite(tmp_path, 2)
    metrics.write_text(json.dumps([{"metricName": "exact_match"}, {"metricName": "exact_match"}]))
    proc = cli("validate", "--evalset", str(evalset), "--metrics", str(metrics))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    # Two unknown keys and two metrics without a threshold, beside the duplicate name.
    assert proc.stderr.splitlines()[-1] == "1 problem found · 4 warnings."
    assert sum(line.startswith("warning: ") for line in proc.stderr.splitlines()) == 4


def test_show_and_merge_of_an_interrupted_run_say_incomplete(tmp_path: Path) -> None:
    evalset, metrics = flood_suite(tmp_path, 2)
    metrics.write_text(json.dumps([{"metricName": "exact_match", "threshold": 1}]))
    out = tmp_path / "out"
    proc = cli("run", "--evalset", str(evalset), "--metrics", str(metrics), "-o", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (result,) = out.glob("*.evalset_result.json")
    data = json.loads(result.read_text())
    data["partial"] = True  # what a run stopped by a signal writes
    result.write_text(json.dumps(data))
    for args in (["show", str(result)], ["merge", str(result), "-o", str(tmp_path / "m.json")]):
        proc = cli(*args)
        assert proc.returncode == 3, proc.stdout + proc.stderr
        assert verdicts(proc.stdout) == [
            "INCOMPLETE: 2 of 2 cases passed · 1 eval set · interrupted"
        ]


def per_file_warnings(tmp_path: Path, count: int) -> tuple[Path, Path]:
    """``count`` eval set files whose evalSetId is not their file name: a warning each, each
    of its own kind (the file differs), so none collapses."""
    sets = tmp_path / "sets"
    sets.mkdir()
    case = {
        "evalId": "c",
        "evalMode": "trace",
        "conversation": [turn("q", "a")],
        "actualConversation": [turn("q", "a")],
        "sessionInput": {"appName": "a", "userId": "u"},
    }
    for i in range(count):
        text = json.dumps({"evalSetId": f"other{i}", "evalCases": [case]})
        (sets / f"s{i:03}.evalset.json").write_text(text)
    metrics = tmp_path / "m.metrics.json"
    metrics.write_text(json.dumps([{"metricName": "exact_match", "threshold": 1}]))
    return sets, metrics


def test_a_live_runs_printed_warnings_are_bounded_as_show_bounds_them(tmp_path: Path) -> None:
    from agenteval.report.run_notes import SHOWN_SAVED

    count = SHOWN_SAVED + 14
    sets, metrics = per_file_warnings(tmp_path, count)
    document = tmp_path / "run.json"
    base = ("--evalset", str(sets), "--metrics", str(metrics))
    proc = cli("run", *base, "--quiet", "--json", str(document))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    warned = proc.stderr.splitlines()
    assert len(warned) == SHOWN_SAVED + 1, proc.stderr
    assert all("differs from the file name" in line for line in warned[:-1])
    assert warned[-1] == (
        "warning: … and 14 more warnings (--json lists every one; --verbose prints them)"
    )
    # The verdict counts every warning; the document keeps every one.
    assert f"· {count} warnings · " in verdicts(proc.stdout)[0]
    listed = json.loads(document.read_text())["warnings"]
    assert len(listed) == count
    assert [f"warning: {line}" for line in listed[:SHOWN_SAVED]] == warned[:-1]
    # The count line names only the reports this run writes.
    junit, markdown = tmp_path / "r.xml", tmp_path / "r.md"
    proc = cli("run", *base, "--quiet", "--junit", str(junit), "--markdown", str(markdown))
    assert proc.stderr.splitlines()[-1] == (
        "warning: … and 14 more warnings "
        "(--junit and --markdown list every one; --verbose prints them)"
    )
    proc = cli("run", *base, "--quiet")
    assert proc.stderr.splitlines()[-1] == (
        "warning: … and 14 more warnings (--verbose prints them)"
    )
    proc = cli("run", *base, "--quiet", "--verbose")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [line.removeprefix("warning: ") for line in proc.stderr.splitlines()] == listed
    assert f"· {count} warnings · " in verdicts(proc.stdout)[0]
    # validate prints them under the same bound, and every one with --verbose.
    proc = cli("validate", *base)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr.splitlines()[SHOWN_SAVED:] == [
        "warning: … and 14 more warnings (--verbose prints them)"
    ]
    assert proc.stdout.startswith(f"OK: {count} eval set(s), {count} case(s)")
    assert proc.stdout.endswith(f" · {count} warnings.\n")
    proc = cli("validate", *base, "--verbose")
    assert len(proc.stderr.splitlines()) == count, proc.stderr


@pytest.fixture(scope="module")
def warned_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``sets/`` of 64 eval sets warned of per file (:func:`per_file_warnings`), and ``out/``
    their 64 result files, each with a key no turn has (a warning per file on reading)."""
    from agenteval.report.run_notes import SHOWN_SAVED

    tmp = tmp_path_factory.mktemp("warned")
    sets, metrics = per_file_warnings(tmp, SHOWN_SAVED + 14)
    proc = cli("run", "--evalset", str(sets), "--metrics", str(metrics), "-o", str(tmp / "out"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for path in (tmp / "out").glob("*.json"):
        data = json.loads(path.read_text())
        data["evalCaseResults"][0]["evalMetricResultPerInvocation"][0]["actualInvocation"][
            "zzzExtra"
        ] = 1
        path.write_text(json.dumps(data))
    labels = tmp / "labels.jsonl"
    labels.write_text(
        '{"evalSetId": "s000", "evalId": "c", "metricName": "exact_match", "label": "pass"}\n'
    )
    return tmp


# Each command that prints warnings, over 64 warnings of its inputs (one per file):
# its args (names in the fixture's directory; {tmp}: the test's own) and what its stdout
# says of their count ("": it counts no warnings).
WARNING_COMMANDS = {
    "diff": (["diff", "out", "--new", "out"], ""),
    "report": (["report", "out", "--html", "{tmp}/r.html"], ""),
    "merge": (["merge", "out", "-o", "{tmp}/merged"], "· 64 warnings"),
    "store add": (["store", "add", "out", "--store", "{tmp}/s.db"], ""),
    "explain": (
        [
            "explain",
            "--evalset",
            "sets",
            "--metrics",
            "m.metrics.json",
            "--case",
            "c",
            "--eval-set",
            "s000",
            "--metric",
            "exact_match",
        ],
        "",
    ),
    "calibrate": (
        [
            "calibrate",
            "--evalset",
            "sets",
            "--metrics",
            "m.metrics.json",
            "--labels",
            "labels.jsonl",
        ],
        "",
    ),
}


@pytest.mark.parametrize("command", list(WARNING_COMMANDS))
@pytest.mark.parametrize("verbose", [False, True])
def test_every_command_bounds_its_printed_warnings_as_run_does(
    warned_results: Path, tmp_path: Path, command: str, verbose: bool
) -> None:
    from agenteval.report.run_notes import SHOWN_SAVED

    args, counted = WARNING_COMMANDS[command]
    given = [
        arg.format(tmp=tmp_path)
        if "{tmp}" in arg
        else str(warned_results / arg)
        if (warned_results / arg).exists()
        else arg
        for arg in args
    ]
    proc = cli(*given, *(["--verbose"] if verbose else []))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    per_file = re.compile(r"differs from the file name|'zzzExtra' is not a field of Invocation")
    lines = proc.stderr.splitlines()
    warned = [line for line in lines if line.startswith("warning: ") and per_file.search(line)]
    more = [line for line in lines if " more warnings " in line]
    if verbose:
        assert (len(warned), more) == (SHOWN_SAVED + 14, []), proc.stderr
    else:
        assert len(warned) == SHOWN_SAVED, proc.stderr
        assert more == ["warning: … and 14 more warnings (--verbose prints them)"]
    # The count on the verdict line stays the true total.
    assert counted in proc.stdout


def test_a_refused_merge_still_says_its_files_warnings(
    warned_results: Path, tmp_path: Path
) -> None:
    """Two eval sets merged into one file is refused; the warnings found reading the files
    (here a stray byte read as U+FFFD) were dropped with it ('1 problem found.' alone)."""
    parts = tmp_path / "parts"
    parts.mkdir()
    for path in sorted((warned_results / "out").glob("*.json"))[:2]:
        data = path.read_bytes().replace(b'"userId": "', b'"userId": "\xff', 1)
        (parts / path.name).write_bytes(data)
    single = tmp_path / "m.json"
    proc = cli("merge", str(parts), "-o", str(single))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0] == f"error: {single}: 2 eval sets to write; give a directory"
    assert sum("invalid UTF-8 read as U+FFFD" in line for line in lines) == 2, lines
    assert lines[-1] == "1 problem found · 2 warnings."
    assert not single.exists()
