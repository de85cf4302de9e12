"""Every result reader (show, diff, merge, --resume) takes every result form, refuses anything else.

The same run is saved as trpc result files (``--output DIR``) and as the
``--json`` run document; each reader must give the same answer from either
form and from a directory of either.  ``{}`` and an eval set given as a result
are exit 2 naming the file; diff/merge over zero cases are exit 2.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cli_process import run_cli

CASES = ("alpha", "beta", "gamma")


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=120, cwd=cwd)


def write_suite(directory: Path, answers: dict[str, str]) -> tuple[Path, Path]:
    """Three trace-mode cases; a case passes when its recorded answer equals "ok"."""
    directory.mkdir(parents=True, exist_ok=True)
    cases = [
        {
            "evalId": eval_id,
            "evalMode": "trace",
            "sessionInput": {"appName": "app", "userId": "u"},
            "conversation": [
                {
                    "userContent": {"role": "user", "content": f"question {eval_id}"},
                    "finalResponse": {"role": "assistant", "content": "ok"},
                }
            ],
            "actualConversation": [
                {
                    "userContent": {"role": "user", "content": f"question {eval_id}"},
                    "finalResponse": {"role": "assistant", "content": answers[eval_id]},
                }
            ],
        }
        for eval_id in CASES
    ]
    evalset = directory / "suite.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "suite", "evalCases": cases}))
    metrics = directory / "suite.metrics.json"
    metrics.write_text(
        json.dumps(
            [
                {
                    "metricName": "final_response_avg_score",
                    "threshold": 1,
                    "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
                }
            ]
        )
    )
    return evalset, metrics


def saved_run(root: Path, name: str, answers: dict[str, str], *extra: str) -> dict[str, Path]:
    """Run the suite once; return its result in every form a reader accepts."""
    evalset, metrics = write_suite(root / name / "in", answers)
    out = root / name / "results"
    document_dir = root / name / "document"
    document_dir.mkdir(parents=True)
    document = document_dir / "run.json"
    proc = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics),
        "--output", str(out), "--json", str(document), *extra,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    (result_file,) = sorted(out.glob("*.evalset_result.json"))
    return {
        "result": result_file,
        "document": document,
        "result_dir": out,
        "document_dir": document_dir,
        "evalset": evalset,
        "metrics": metrics,
    }


FORMS = ("result", "document", "result_dir", "document_dir")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Path]]:
    root = tmp_path_factory.mktemp("readers")
    base = saved_run(root, "base", {"alpha": "ok", "beta": "ok", "gamma": "no"})
    new = saved_run(root, "new", {"alpha": "ok", "beta": "no", "gamma": "ok"})
    return {"base": base, "new": new}


def diff_json(base: Path, new: Path) -> tuple[int, dict[str, Any]]:
    proc = cli("diff", str(base), str(new), "--json")
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("form", FORMS)
def test_diff_gives_the_same_answer_from_every_form(
    runs: dict[str, dict[str, Path]], form: str
) -> None:
    expected = diff_json(runs["base"]["result"], runs["new"]["result"])
    code, changes = diff_json(runs["base"][form], runs["new"][form])
    assert (code, changes) == expected
    # beta regressed, gamma improved: three cases and three metrics compared.
    assert code == 1
    assert changes["comparedCases"] == 3
    assert changes["comparedMetrics"] == 3


@pytest.mark.parametrize("form", FORMS)
def test_show_gives_the_same_answer_from_every_form(
    runs: dict[str, dict[str, Path]], form: str
) -> None:
    expected = cli("show", str(runs["base"]["result"]), "--quiet")
    proc = cli("show", str(runs["base"][form]), "--quiet")
    assert (proc.returncode, proc.stdout) == (expected.returncode, expected.stdout)
    assert proc.returncode == 1
    assert "2 of 3 cases passed" in proc.stdout


def merged_cases(path: Path) -> list[tuple[str, str, float]]:
    data = json.loads(path.read_text())
    return [(c["evalId"], c["finalEvalStatus"], c["score"]) for c in data["evalCaseResults"]]


@pytest.mark.parametrize("form", FORMS)
def test_merge_gives_the_same_answer_from_every_form(
    runs: dict[str, dict[str, Path]], form: str, tmp_path: Path
) -> None:
    proc = cli("merge", str(runs["base"][form]), "-o", str(tmp_path / "merged.json"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert merged_cases(tmp_path / "merged.json") == [
        ("alpha", "passed", 1),
        ("beta", "passed", 1),
        ("gamma", "failed", 0),
    ]


@pytest.mark.parametrize("form", FORMS)
def test_resume_gives_the_same_answer_from_every_form(
    runs: dict[str, dict[str, Path]], form: str, tmp_path: Path
) -> None:
    base = runs["base"]
    out = tmp_path / "out"
    proc = cli(
        "run", "--evalset", str(base["evalset"]), "--metrics", str(base["metrics"]),
        "--resume", str(base[form]), "--output", str(out),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (written,) = out.glob("*.evalset_result.json")
    assert merged_cases(written) == [
        ("alpha", "passed", 1),
        ("beta", "passed", 1),
        ("gamma", "failed", 0),
    ]


def not_results(runs: dict[str, dict[str, Path]], tmp_path: Path) -> list[tuple[Path, str]]:
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    # --record's JSON lines: a document, then more ("extra data" to a reader of one).
    traces = tmp_path / "traces.jsonl"
    record = {"evalId": "alpha", "actualConversation": []}
    traces.write_text(json.dumps(record) + "\n" + json.dumps({**record, "evalId": "beta"}) + "\n")
    return [
        (empty, "not an agenteval or trpc-agent-go result (looks like an empty document)"),
        (traces, "not an agenteval or trpc-agent-go result (looks like a traces file)"),
        (
            runs["base"]["evalset"],
            "not an agenteval or trpc-agent-go result (looks like an eval set)",
        ),
    ]


@pytest.mark.parametrize("command", ["show", "diff", "merge", "resume"])
def test_anything_else_is_exit_2_naming_the_file(
    runs: dict[str, dict[str, Path]], command: str, tmp_path: Path
) -> None:
    base = runs["base"]
    for bad, message in not_results(runs, tmp_path):
        if command == "show":
            proc = cli("show", str(bad))
        elif command == "diff":
            proc = cli("diff", str(base["result"]), str(bad))
        elif command == "merge":
            proc = cli("merge", str(bad), "-o", str(tmp_path / "m.json"))
        else:
            proc = cli(
                "run", "--evalset", str(base["evalset"]), "--metrics", str(base["metrics"]),
                "--resume", str(bad),
            )  # fmt: skip
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert f"{bad}: {message}" in proc.stderr
        assert "Traceback" not in proc.stderr
        # The hint names a command that takes an eval set, not a flag the reader lacks.
        if bad == base["evalset"]:
            assert f"(score it with `agenteval run --evalset {bad}`)" in proc.stderr
            assert "pass it with --evalset" not in proc.stderr


def test_diff_says_both_sides_without_cases_at_once(
    runs: dict[str, dict[str, Path]], tmp_path: Path
) -> None:
    # An empty NEW used to be said only once BASE had cases: one run, one problem at a time.
    empty = [tmp_path / f"{side}.evalset_result.json" for side in ("base", "new")]
    for path in empty:
        path.write_text(json.dumps({"evalSetResultId": path.stem, "evalSetId": "suite"}))
    proc = cli("diff", *map(str, empty))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        f"error: {empty[0]}: no case results to compare",
        f"error: {empty[1]}: no case results to compare",
        "2 problems found.",
    ]
    # An empty NEW beside a BASE with cases: that side alone.
    proc = cli("diff", str(runs["base"]["result"]), str(empty[1]))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        f"error: {empty[1]}: no case results to compare",
        "1 problem found.",
    ]


def test_diff_and_merge_over_zero_cases_are_exit_2(
    runs: dict[str, dict[str, Path]], tmp_path: Path
) -> None:
    empty_run = tmp_path / "empty.evalset_result.json"
    empty_run.write_text(json.dumps({"evalSetResultId": "x", "evalSetId": "suite"}))
    proc = cli("diff", str(empty_run), str(empty_run))
    assert proc.returncode == 2
    assert "no case results to compare" in proc.stderr
    proc = cli("merge", str(empty_run), "-o", str(tmp_path / "m.json"))
    assert proc.returncode == 2
    assert "no case results to merge" in proc.stderr
    assert not (tmp_path / "m.json").exists()
    # Results of two different eval sets share no case: nothing compared is no verdict.
    other = json.loads(runs["base"]["result"].read_text())
    other["evalSetId"] = "another"
    for case in other["evalCaseResults"]:
        case["evalSetId"] = "another"
    other_file = tmp_path / "other.evalset_result.json"
    other_file.write_text(json.dumps(other))
    proc = cli("diff", str(runs["base"]["result"]), str(other_file))
    assert proc.returncode == 2
    assert "nothing was compared" in proc.stderr


def test_an_empty_directory_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "nothing").mkdir()
    proc = cli("show", str(tmp_path / "nothing"))
    assert proc.returncode == 2
    assert "no result files" in proc.stderr


def _two_cases(judge_failures: Any = None, second_status: str = "passed") -> dict[str, Any]:
    """A trpc-agent-go style result: two passed cases, the second's metric ``second_status``."""

    def case(eval_id: str, status: str) -> dict[str, Any]:
        return {
            "evalSetId": "s", "evalId": eval_id, "finalEvalStatus": "passed",
            "overallEvalMetricResults": [
                {"metricName": "m", "score": 1, "evalStatus": status, "threshold": 1}],
        }  # fmt: skip

    result: dict[str, Any] = {
        "evalSetResultId": "r", "evalSetId": "s",
        "evalCaseResults": [case("a", "passed"), case("b", second_status)],
    }  # fmt: skip
    if judge_failures is not None:
        result["judgeFailures"] = judge_failures
    return result


@pytest.mark.parametrize("command", ["show", "merge"])
def test_a_metric_not_evaluated_makes_its_case_incomplete_without_judge_failures(
    tmp_path: Path, command: str
) -> None:
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(_two_cases(second_status="not_evaluated")))
    args = [command, str(path)] + (["-o", str(tmp_path / "m.json")] if command == "merge" else [])
    done = cli(*args)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "INCOMPLETE: 1 of 2 cases passed (1 incomplete)" in done.stdout


def test_the_verdict_line_and_the_exit_code_agree_on_a_judge_failure_of_no_case(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(_two_cases(judge_failures=["ghost"])))
    done = cli("show", str(path))
    assert (done.returncode, done.stdout.strip().splitlines()[-1]) == (
        0,
        "PASSED: 2 of 2 cases passed · 1 eval set",
    ), done.stderr


@pytest.mark.parametrize("status", ["unknown", "incomplete"])
def test_a_status_no_result_file_holds_is_a_located_error(tmp_path: Path, status: str) -> None:
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(_two_cases(second_status=status)))
    done = cli("show", str(path))
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        "evalCaseResults[1].overallEvalMetricResults[0].evalStatus: "
        "expected passed, failed or not_evaluated"
    ) in done.stderr


def test_diff_refuses_a_case_given_twice_on_one_side(tmp_path: Path) -> None:
    # diff kept whichever copy came last: the order of the files decided the answer.
    base = tmp_path / "base.evalset_result.json"
    base.write_text(json.dumps(_two_cases()))
    again = tmp_path / "again.evalset_result.json"
    again.write_text(json.dumps(_two_cases(second_status="failed")))
    for new in ([str(base), str(again)], [str(again), str(base)]):
        done = cli("diff", str(base), "--new", new[0], "--new", new[1])
        assert done.returncode == 2, done.stdout + done.stderr
        assert "case 'a' run 1 of eval set 's' is also in" in done.stderr


def test_show_refuses_a_directory_holding_two_runs_of_one_eval_set(
    runs: dict[str, dict[str, Path]], tmp_path: Path
) -> None:
    # show read both and counted each case twice: "FAILED: 3 of 6 cases passed (3 failed) ·
    # 2 eval sets" for one eval set of 3 cases, a verdict no run of it had.
    both = tmp_path / "both"
    both.mkdir()
    for side in ("base", "new"):
        (both / f"{side}.evalset_result.json").write_bytes(runs[side]["result"].read_bytes())
    done = cli("show", str(both), "--quiet")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert [line.split(": ")[2] for line in lines[:3]] == [
        f"evalCaseResults[{i}]" for i in range(3)
    ]
    assert (
        f"case 'alpha' run 1 of eval set 'suite' is also in {both / 'base.evalset_result.json'}"
        in lines[0]
    )
    assert lines[0].endswith("(show each run's results on their own)")
    # Shards of one run (each case once) are still shown together.
    shards = tmp_path / "shards"
    for shard in ("1/2", "2/2"):
        made = cli(
            "run", "--evalset", str(runs["base"]["evalset"]), "--metrics",
            str(runs["base"]["metrics"]), "--shard", shard, "--output", str(shards), "--quiet",
        )  # fmt: skip
        assert made.returncode in (0, 1), made.stdout + made.stderr
    shown = cli("show", str(shards), "--quiet")
    assert shown.returncode == 1, shown.stdout + shown.stderr
    assert "FAILED: 2 of 3 cases passed (1 failed)" in shown.stdout


def _edited(
    runs: dict[str, dict[str, Path]], tmp_path: Path, edit: Any, name: str = "edited"
) -> Path:
    """The base run's result file with ``edit(data)`` applied, as a hand or a tool may."""
    data = json.loads(runs["base"]["result"].read_text(encoding="utf-8"))
    edit(data)
    path = tmp_path / f"{name}.evalset_result.json"
    path.write_text(json.dumps(data).replace("12345", "1e999"), encoding="utf-8")
    return path


def _note_key(data: dict[str, Any]) -> None:
    turn = data["evalCaseResults"][1]["evalMetricResultPerInvocation"][0]
    turn["actualInvocation"]["reviewNote"] = "checked by hand"


NOTE_WARNING = (
    "evalCaseResults[1].evalMetricResultPerInvocation[0].actualInvocation.reviewNote: "
    "'reviewNote' is not a field of Invocation"
)


def test_every_reader_prints_an_unknown_key_and_still_reads(
    runs: dict[str, dict[str, Path]], tmp_path: Path
) -> None:
    edited = _edited(runs, tmp_path, _note_key)
    base = runs["base"]
    html = tmp_path / "r.html"
    commands = {
        "show": ["show", str(edited)],
        "show --quiet": ["show", str(edited), "--quiet"],
        "diff": ["diff", str(runs["new"]["result"]), str(edited)],
        "merge": ["merge", str(edited), "-o", str(tmp_path / "m.json"), "--quiet"],
        "report": ["report", str(edited), "--html", str(html), "--quiet"],
        "explain": [
            "explain", str(edited), "--case", "beta", "--metric", "final_response_avg_score",
        ],
        "resume": [
            "run", "--evalset", str(base["evalset"]), "--metrics", str(base["metrics"]),
            "--resume", str(edited), "--output", str(tmp_path / "resumed"),
        ],
    }  # fmt: skip
    for name, args in commands.items():
        proc = cli(*args)
        assert proc.returncode in (0, 1), (name, proc.stdout + proc.stderr)
        # Never hidden, not even by --quiet: one warning line on stderr, counted where a
        # verdict line is printed.
        lines = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
        assert len(lines) == 1, (name, proc.stderr)
        assert lines[0].startswith(f"warning: {edited}: {NOTE_WARNING} (known: "), name
        if name.startswith("show"):
            assert "· 1 warning" in proc.stdout, (name, proc.stdout)


def test_a_misspelt_key_or_an_infinite_score_stops_every_reader(
    runs: dict[str, dict[str, Path]], tmp_path: Path
) -> None:
    def misspelt(data: dict[str, Any]) -> None:
        metric = data["evalCaseResults"][2]["overallEvalMetricResults"][0]
        metric["scroe"] = metric.pop("score")

    def infinite(data: dict[str, Any]) -> None:
        data["evalCaseResults"][2]["overallEvalMetricResults"][0]["score"] = 12345

    spelt = _edited(runs, tmp_path, misspelt, "spelt")
    spelt_error = (
        f"error: {spelt}: evalCaseResults[2].overallEvalMetricResults[0].scroe: 'scroe' is "
        "not a field of EvalMetricResult (did you mean 'score'?)"
    )
    big = _edited(runs, tmp_path, infinite, "big")  # 1e999 in the file
    big_error = (
        f"error: {big}: evalCaseResults[2].overallEvalMetricResults[0].score: inf is not a "
        "finite number (NaN, Infinity and numbers beyond ±1.8e308 cannot be compared)"
    )
    for path, error in ((spelt, spelt_error), (big, big_error)):
        for args in (["show", str(path)], ["diff", str(runs["new"]["result"]), str(path)]):
            proc = cli(*args)
            assert proc.returncode == 2, proc.stdout + proc.stderr
            assert error in proc.stderr.splitlines(), proc.stderr
            assert "Traceback" not in proc.stderr


def test_resume_refuses_a_case_its_eval_set_lacks_and_runs_past_num_runs(
    runs: dict[str, dict[str, Path]], tmp_path: Path
) -> None:
    base = runs["base"]

    def renamed(data: dict[str, Any]) -> None:
        data["evalCaseResults"][2]["evalId"] = "ghost"  # the same eval set file otherwise
        data["evalCaseResults"][2]["finalEvalStatus"] = "passed"

    ghost = _edited(runs, tmp_path, renamed, "ghost")
    run_args = ["run", "--evalset", str(base["evalset"]), "--metrics", str(base["metrics"])]
    proc = cli(*run_args, "--resume", str(ghost), "--output", str(tmp_path / "g"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines()[0] == (
        f"error: {ghost}: evalCaseResults[2].evalId: case 'ghost' is not in eval set 'suite' "
        "(resume a result of this eval set's cases)"
    )
    twice = tmp_path / "twice"
    made = cli(*run_args, "--num-runs", "2", "--output", str(twice))
    assert made.returncode == 1, made.stdout + made.stderr
    (two_runs,) = twice.glob("*.evalset_result.json")
    proc = cli(*run_args, "--resume", str(two_runs), "--output", str(tmp_path / "o"))
    assert proc.returncode == 2, proc.stdout + proc.stderr  # was an internal error, exit 4
    (line, *_) = proc.stderr.splitlines()
    assert line.startswith(f"error: {two_runs}: evalCaseResults[") and line.endswith(
        "; this run has --num-runs 1 (resume with the --num-runs the result was scored with)"
    ), proc.stderr


def test_show_of_a_run_document_prints_the_warnings_its_run_printed(tmp_path: Path) -> None:
    evalset, metrics = write_suite(tmp_path / "in", {"alpha": "ok", "beta": "ok", "gamma": "ok"})
    data = json.loads(evalset.read_text())
    data["evalCases"][0]["conversation"][0]["reviewNote"] = "x"
    evalset.write_text(json.dumps(data))
    document = tmp_path / "run.json"
    live = cli("run", "--evalset", str(evalset), "--metrics", str(metrics), "--json", str(document))
    assert live.returncode == 0, live.stdout + live.stderr
    warned = [line for line in live.stderr.splitlines() if line.startswith("warning:")]
    assert len(warned) == 1 and "'reviewNote' is not a field" in warned[0]
    shown = cli("show", str(document), "--quiet")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert [line for line in shown.stderr.splitlines() if line.startswith("warning:")] == warned
    assert shown.stdout.splitlines()[-1].endswith("· 1 eval set · 1 warning"), shown.stdout


def test_show_counts_a_saved_flood_as_its_run_did_and_bounds_its_lines(tmp_path: Path) -> None:
    # Twelve warnings of one kind: the run printed ten and "… and 2 more like this", and its
    # document keeps those 11 lines; show counted lines and said "11 warnings".
    evalset, metrics = write_suite(tmp_path / "in", {"alpha": "ok", "beta": "ok", "gamma": "ok"})
    data = json.loads(evalset.read_text())
    for index in range(12):
        data["evalCases"][0]["conversation"][0][f"note{index}"] = "x"
    evalset.write_text(json.dumps(data))
    document = tmp_path / "run.json"
    live = cli("run", "--evalset", str(evalset), "--metrics", str(metrics), "--json", str(document))
    assert live.returncode == 0, live.stdout + live.stderr
    warned = [line for line in live.stderr.splitlines() if line.startswith("warning:")]
    assert len(warned) == 11 and warned[-1] == f"warning: {evalset}: … and 2 more like this"
    assert live.stdout.splitlines()[-1].split(" · ")[2] == "12 warnings", live.stdout
    shown = cli("show", str(document), "--quiet")
    assert [line for line in shown.stderr.splitlines() if line.startswith("warning:")] == warned
    assert shown.stdout.splitlines()[-1].endswith("· 1 eval set · 12 warnings"), shown.stdout
    # A line per trace file (60 kinds): show prints 50 of the 71 lines, then counts the rest.
    saved = json.loads(document.read_text())
    saved["warnings"] += [f"t{i}.json: spans[0]: span kind 'x' not mapped" for i in range(60)]
    document.write_text(json.dumps(saved))
    shown = cli("show", str(document), "--quiet")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    lines = [line for line in shown.stderr.splitlines() if line.startswith("warning:")]
    assert lines[:11] == warned and len(lines) == 51
    assert lines[49] == "warning: t38.json: spans[0]: span kind 'x' not mapped"
    assert lines[50] == (
        f"warning: {document}: … and 21 more warnings of its run "
        '(its "warnings" list has every line; --verbose prints them)'
    )
    assert shown.stdout.splitlines()[-1].endswith("· 1 eval set · 72 warnings"), shown.stdout
    every = cli("show", str(document), "--quiet", "--verbose")
    assert len([line for line in every.stderr.splitlines() if line.startswith("warning:")]) == 71


def test_a_summary_edited_apart_from_its_runs_is_warned_of_and_never_counted(
    tmp_path: Path,
) -> None:
    # gamma fails both runs; its summary edited to say 2 passed made show's pass@k table say
    # "2/2 stable pass" beside "0/2 runs passed", and the HTML report's verdicts likewise.
    saved = saved_run(tmp_path, "twice", {"alpha": "ok", "beta": "ok", "gamma": "no"},
                      "--num-runs", "2")  # fmt: skip
    data = json.loads(saved["result"].read_text(encoding="utf-8"))
    summaries = data["summary"]["evalCaseSummaries"]
    index = next(i for i, s in enumerate(summaries) if s["evalId"] == "gamma")
    assert summaries[index]["runStatusCounts"] == {"passed": 0, "failed": 2, "notEvaluated": 0}
    summaries[index]["runStatusCounts"] = {"passed": 2}
    summaries[index]["overallStatus"] = "passed"
    edited = tmp_path / "edited.evalset_result.json"
    edited.write_text(json.dumps(data), encoding="utf-8")
    warning = (
        f"warning: {edited}: summary.evalCaseSummaries[{index}].runStatusCounts: says 2 passed, "
        "0 failed, 0 not evaluated runs for case 'gamma', but its case results hold 0 passed, "
        "2 failed, 0 not evaluated runs"
    )
    wide = {**os.environ, "COLUMNS": "200"}  # the pass@k table as rows, one per case
    shown = run_cli(["show", str(edited)], env=wide, timeout=120)
    assert shown.returncode == 1, shown.stdout + shown.stderr
    assert [line for line in shown.stderr.splitlines() if line.startswith("warning:")] == [
        warning + " (reports count the case results; was the summary edited or joined apart?)"
    ]
    (row,) = [line.split() for line in shown.stdout.splitlines() if line.startswith("  gamma ")]
    assert row[1:4] == ["0/2", "stable", "fail"], shown.stdout
    html = tmp_path / "r.html"
    reported = cli("report", str(edited), "--html", str(html), "--quiet")
    assert reported.returncode == 0, reported.stdout + reported.stderr
    assert warning in reported.stderr
    page = html.read_text(encoding="utf-8")
    verdicts = json.loads(
        page[page.index('"verdicts":') + len('"verdicts":') :].split("]")[0] + "]"
    )
    assert {v["evalId"]: (v["verdict"], v["passedRuns"]) for v in verdicts} == {
        "alpha": ("stable_pass", 2),
        "beta": ("stable_pass", 2),
        "gamma": ("stable_fail", 0),
    }
    # As written by the run, the summary agrees with its runs: no warning.
    assert "warning" not in cli("show", str(saved["result"]), "--quiet").stderr


def test_every_file_after_new_or_base_is_that_sides(runs: dict[str, dict[str, Path]],
                                                    tmp_path: Path) -> None:  # fmt: skip
    # `diff base/*.json --new new/*.json` with two files a side took the second new file as
    # BASE: the base side then held one eval set twice (or a NEW set was "disappeared").
    other = saved_run(tmp_path, "other", {"alpha": "ok", "beta": "ok", "gamma": "ok"})
    twin = tmp_path / "twin.evalset_result.json"
    data = json.loads(other["result"].read_text(encoding="utf-8"))
    for case in data["evalCaseResults"]:
        case["evalSetId"] = "twin"
    data["evalSetId"] = "twin"
    twin.write_text(json.dumps(data), encoding="utf-8")
    base, new = runs["base"]["result"], runs["new"]["result"]
    done = cli("diff", str(base), str(twin), "--new", str(new), str(twin), "--json")
    assert done.returncode == 1, done.stdout + done.stderr  # beta regressed in suite
    compared = json.loads(done.stdout)
    assert compared["comparedCases"] == 6
    assert {(c["evalSetId"], c["evalId"]) for c in compared["changes"] if c["regression"]} == {
        ("suite", "beta")
    }
    assert compared["counts"]["disappeared"] == 0
