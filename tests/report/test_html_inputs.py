"""Runs for the HTML report: run documents, result files, directories, and what is refused."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agenteval.errors import ConfigError
from agenteval.report.html import write_report
from agenteval.report.html_inputs import load_runs
from agenteval.report.result_files import run_document, write_json, write_result
from agenteval.schema.result import EvalSetResult
from cli_process import run_cli
from sample_results import case_result, eval_set_result, metric


def _result(eval_set_id: str, score: float) -> EvalSetResult:
    return eval_set_result(eval_set_id, [case_result(eval_set_id, "c", [metric("m", score)])])


def test_run_documents_are_one_run_each_and_result_files_one_together(tmp_path: Path) -> None:
    first = write_json(tmp_path / "a.json", run_document([_result("s", 1.0), _result("t", 0.0)]))
    second = write_json(tmp_path / "b.json", run_document([_result("s", 0.0)], duration_seconds=2))
    folder = tmp_path / "results"
    write_result(_result("x", 1.0), folder, "app")
    write_result(_result("y", 1.0), folder, "app")
    runs = load_runs([first, second, folder])
    assert [run.label for run in runs] == ["a.json", "b.json", "results"]
    assert [run.eval_set_ids for run in runs] == [["s", "t"], ["s"], ["x", "y"]]
    assert runs[1].extras["durationSeconds"] == 2
    # Nothing is read whole until asked: the page is built from the cases as they are read.
    assert [run.results for run in runs] == [[], [], []]
    assert runs[0].whole()[0].case_results()[0].final_eval_status.value == "passed"


def test_bad_inputs_are_located_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"evalSetResults": [{"evalCaseResults": [{"finalEvalStatus": "great"}]}]}')
    [run] = load_runs([broken])
    page = tmp_path / "page.html"
    for read in (run.whole, lambda: write_report(page, [run])):
        with pytest.raises(ConfigError) as caught:
            read()
        (problem,) = caught.value.problems
        assert problem.file == str(broken)
        assert problem.path == "evalSetResults[0].evalCaseResults[0].finalEvalStatus"
    assert not page.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match="no result files"):
        load_runs([empty])
    with pytest.raises(ConfigError, match="file not found"):
        load_runs([tmp_path / "missing.json"])


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(["report", *args], timeout=120)


def test_report_command_refuses_three_runs_and_unreadable_files(tmp_path: Path) -> None:
    docs = [write_json(tmp_path / f"{n}.json", run_document([_result("s", 1.0)])) for n in "abc"]
    three = _cli(*map(str, docs), "--html", str(tmp_path / "r.html"))
    assert three.returncode == 2
    assert "3 runs given" in three.stderr and "Traceback" not in three.stderr
    not_json = tmp_path / "notes.json"
    not_json.write_text("<html>")
    bad = _cli(str(not_json), "--html", str(tmp_path / "r.html"))
    assert bad.returncode == 2 and str(not_json) in bad.stderr
    assert not (tmp_path / "r.html").exists()
    compared = _cli(str(docs[1]), "--base", str(docs[0]), "--html", str(tmp_path / "r.html"))
    assert compared.returncode == 0, compared.stderr
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    index = page.split('id="report-index">', 1)[1].split("</script>", 1)[0]
    data = json.loads(index)
    assert [run["label"] for run in data["runs"]] == ["a.json", "b.json"]
    assert data["comparison"]["regressed"] is False
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    unwritable = _cli(str(docs[0]), "--html", str(blocked / "r.html"))
    assert unwritable.returncode == 2
    assert f"{blocked / 'r.html'}: --html: Not a directory" in unwritable.stderr


def test_shards_of_one_eval_set_are_merged_and_overlaps_refused(tmp_path: Path) -> None:
    shards = tmp_path / "shards"
    for eval_id, score in (("a", 1.0), ("b", 0.0)):
        part = eval_set_result("s", [case_result("s", eval_id, [metric("m", score)])])
        part.eval_set_result_id = part.eval_set_result_name = ""  # a file of its own
        write_result(part, shards, "app")
    (run,) = load_runs([shards])
    (joined,) = run.results
    assert sorted(c.eval_id for c in joined.case_results()) == ["a", "b"]
    assert joined.summary is not None and joined.summary.run_status_counts is not None
    counts = joined.summary.run_status_counts
    assert (counts.passed, counts.failed) == (0, 1)  # one run over both cases: failed
    again = eval_set_result("s", [case_result("s", "a", [metric("m", 1.0)])])
    again.eval_set_result_id = again.eval_set_result_name = ""
    write_result(again, shards, "app")
    with pytest.raises(ConfigError, match="is also in"):
        load_runs([shards])
