"""The reports of a run from Python: ``api.evaluate(..., reports=RunReports(...))`` writes what
``agenteval run`` writes with the same flags, byte for byte.

What is inherently run-specific is normalised before comparing, and only that: the uuids
(result ids and file names, session ids), the wall-clock start (``createdAt``,
``creationTimestamp``) and the run's duration (``durationSeconds``, JUnit ``time=``, the
Markdown ``· 0.23 s``).  Everything else — every key, number, reason, warning, the order of
cases and eval sets, the HTML page — must be the same bytes.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import agenteval
from agenteval import api
from agenteval.errors import ConfigError
from agenteval.report import run_reports
from agenteval.report.report_jobs import ReportJob
from agenteval.report.run_reports import RunReports
from agenteval.schema.result import EvalCaseResult, EvalSetResult
from agenteval.schema.status import EvalStatus
from tests.cli.store_workspace import invoke
from tests.cli.test_commands import agenteval_cli, write_suite

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
CLOCK = re.compile(r'("(?:createdAt|creationTimestamp|durationSeconds)": ?)-?[0-9][0-9.e+-]*')
JUNIT_TIME = re.compile(r'\btime="[0-9.]+"')
MARKDOWN_TIME = re.compile(r"· [0-9][0-9.,]* (?:ms|s|min)\b")


def normalised(data: bytes) -> str:
    """``data`` with the uuids, clock readings and durations of a run replaced by markers."""
    text = UUID.sub("<uuid>", data.decode())
    text = CLOCK.sub(r"\1<clock>", text)
    text = JUNIT_TIME.sub('time="<clock>"', text)
    return MARKDOWN_TIME.sub("· <clock>", text)


def two_eval_sets(root: Path) -> list[Path]:
    """`suite` (one case passes, one fails) and `other` (the same cases, plus a key the
    formats do not define: a warning every report carries)."""
    suite = write_suite(root)
    data = json.loads(suite.read_text())
    data["evalSetId"] = "other"
    data["evalCases"][0]["notAField"] = 1
    other = root / "other.evalset.json"
    other.write_text(json.dumps(data))
    shutil.copy(root / "suite.metrics.json", root / "other.metrics.json")
    return [suite, other]


def destinations(root: Path) -> RunReports:
    root.mkdir()
    return RunReports(
        output=root / "out",
        json=root / "run.json",
        junit=root / "run.xml",
        markdown=root / "run.md",
        html=root / "run.html",
    )


def written_files(root: Path) -> dict[str, str]:
    """Every file under ``root`` by its path (uuids in names normalised), normalised."""
    return {
        UUID.sub("<uuid>", str(p.relative_to(root))): normalised(p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_the_api_writes_the_reports_run_writes_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    evalsets = two_eval_sets(tmp_path)
    cli, py = destinations(tmp_path / "cli"), destinations(tmp_path / "py")
    ci = {"GITHUB_ACTIONS": "true"}
    env = {**os.environ, **ci, "GITHUB_STEP_SUMMARY": str(tmp_path / "cli" / "summary.md")}
    args = ["--evalset", str(evalsets[0]), "--evalset", str(evalsets[1])]
    flags = ["--output", str(cli.output), "--json", str(cli.json), "--junit", str(cli.junit)]
    flags += ["--markdown", str(cli.markdown), "--html", str(cli.html)]
    proc = agenteval_cli("run", *args, *flags, env=env)
    assert proc.returncode == 1, proc.stderr

    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "py" / "summary.md"))
    capfd.readouterr()
    result = agenteval.evaluate(evalsets, reports=py)
    annotations = capfd.readouterr().out

    assert result.exit_code == proc.returncode == 1
    assert result.status is EvalStatus.FAILED
    cli_files, py_files = written_files(tmp_path / "cli"), written_files(tmp_path / "py")
    assert (
        sorted(py_files)
        == sorted(cli_files)
        == [
            "out/agenteval_other_<uuid>.evalset_result.json",
            "out/agenteval_suite_<uuid>.evalset_result.json",
            "run.html",
            "run.json",
            "run.md",
            "run.xml",
            "summary.md",
        ]
    )
    for name, text in cli_files.items():
        assert py_files[name] == text, name
    # The warning and both eval sets are in them (the comparison compared something).
    assert "notAField" in cli_files["run.md"] and "notAField" in cli_files["run.xml"]
    run_document = json.loads(cli_files["run.json"].replace("<clock>", "0"))
    assert [s["evalSetId"] for s in run_document["evalSetResults"]] == ["suite", "other"]
    # The CI annotations printed (stdout) are the same lines too.
    cli_annotations = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert len(cli_annotations) == 3  # two failed cases and one warning
    assert annotations.splitlines() == cli_annotations
    # What was written is said, in the order run prints its "wrote" lines.
    assert result.reports is not None and result.reports.failures == []
    wrote = [line.removeprefix("wrote ") for line in proc.stdout.splitlines() if "wrote " in line]
    assert [UUID.sub("", p) for p in result.reports.written] == [
        UUID.sub("", p).replace(str(tmp_path / "cli"), str(tmp_path / "py")) for p in wrote
    ]
    # The cases are returned too, as evaluate() without reports returns them.
    assert [r.eval_set_id for r in result.results] == ["suite", "other"]
    assert [c.eval_id for c in result.results[0].eval_case_results] == ["good", "bad"]


class ReplacesDirectoryWithFile:
    """A caller's sink that, once scoring ends, puts a file where a report's directory was."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.cases: list[str] = []

    def begin_set(self, eval_set_id: str, num_runs: int) -> None:
        pass

    def add(self, case: EvalCaseResult) -> None:
        self.cases.append(case.eval_id)

    def end_set(self, head: EvalSetResult) -> None:
        shutil.rmtree(self.directory)
        self.directory.write_text("not a directory any more")

    def overall_status(self) -> EvalStatus:
        return EvalStatus.PASSED


def test_a_report_that_cannot_be_written_makes_the_api_run_incomplete(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    (tmp_path / "md").mkdir()
    sink = ReplacesDirectoryWithFile(tmp_path / "md")
    reports = RunReports(json=tmp_path / "run.json", markdown=tmp_path / "md" / "run.md", ci=False)
    # The top-level names work too (agenteval.RunReports is this module's RunReports).
    assert agenteval.RunReports is RunReports
    result = agenteval.evaluate(suite, api.Options(sink=sink), reports=reports)
    # The other report is written; the failed one is named; the run is INCOMPLETE (exit 3).
    assert result.reports is not None
    assert result.reports.written == [str(tmp_path / "run.json")]
    assert result.reports.failures == [
        f"{tmp_path / 'md' / 'run.md'}: cannot write: Not a directory"
    ]
    assert result.reports.notes.unfinished == ("1 report not written",)
    assert (result.exit_code, result.status) == (3, EvalStatus.INCOMPLETE)
    # The run document was written before the Markdown failed, as on the command line.
    document = json.loads((tmp_path / "run.json").read_text())
    assert document["overallStatus"] == "failed"
    # The caller's sink got every case; the results are not collected twice.
    assert sink.cases == ["good", "bad"] and result.results == []


def test_report_destinations_are_checked_before_anything_is_scored(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    (tmp_path / "taken").write_text("a file")
    with pytest.raises(ConfigError) as caught:
        api.evaluate(suite, reports=RunReports(output=tmp_path / "taken", ci=False))
    assert [str(p) for p in caught.value.problems] == [
        f"{tmp_path / 'taken'}: --output is not a directory (give a directory)"
    ]


class CountedStarts:
    """Counts the forked processes run_reports starts (they write the result files)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = run_reports.ShareWorker.start
        monkeypatch.setattr(run_reports, "EARLY_BYTES", 0)  # the suite's files are small

        def start(work: Any) -> Any:
            self.count += 1
            return real(work)

        monkeypatch.setattr(run_reports.ShareWorker, "start", staticmethod(start))


def run_with_jobs(root: Path, evalset: Path, jobs: str) -> tuple[int, str, dict[str, str]]:
    """``agenteval run --jobs JOBS --output out`` in this process: exit code, stdout, files."""
    root.mkdir()
    result = invoke(root, "run", "--evalset", str(evalset), "--output", "out", "--jobs", jobs)
    return result.exit_code, normalised(result.stdout.encode()), written_files(root / "out")


def test_with_jobs_the_result_files_are_written_meanwhile_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    evalsets = two_eval_sets(tmp_path)
    starts = CountedStarts(monkeypatch)
    one = run_with_jobs(tmp_path / "one", evalsets[0], "1")
    assert starts.count == 0
    two = run_with_jobs(tmp_path / "two", evalsets[0], "2")
    assert starts.count == 1  # written by the other process
    assert one == two and len(two[2]) == 1 and "wrote" in two[1]


def test_with_jobs_a_failed_writer_leaves_the_files_to_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    evalsets = two_eval_sets(tmp_path)
    parent = os.getpid()
    real = run_reports._outcomes

    def dies(jobs: Any) -> Any:
        if os.getpid() != parent:
            os._exit(9)
        return real(jobs)

    monkeypatch.setattr(run_reports, "_outcomes", dies)
    starts = CountedStarts(monkeypatch)
    one = run_with_jobs(tmp_path / "one", evalsets[0], "1")
    two = run_with_jobs(tmp_path / "two", evalsets[0], "2")
    assert starts.count == 1
    assert one == two and len(two[2]) == 1


def test_with_jobs_a_result_file_that_cannot_be_written_says_so_as_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    evalsets = two_eval_sets(tmp_path)

    def full_disk(item: Any, output: Path) -> ReportJob:
        def write() -> Path:
            raise OSError(28, "No space left on device")

        return ReportJob(f"{output} (result file of {item.eval_set_id})", write)

    monkeypatch.setattr(run_reports, "_result_job", full_disk)
    starts = CountedStarts(monkeypatch)
    outputs = []
    for jobs in ("1", "2"):
        root = tmp_path / jobs
        root.mkdir()
        result = invoke(
            root, "run", "--evalset", str(evalsets[0]), "--output", "out", "--jobs", jobs
        )
        outputs.append((result.exit_code, normalised(result.stdout.encode()), result.stderr))
    assert starts.count == 1  # --jobs 2 wrote (tried to) in the other process
    assert outputs[0] == outputs[1]
    assert outputs[1][0] == 3 and "cannot write: No space left on device" in outputs[1][2]


def test_with_jobs_no_process_to_be_had_writes_the_files_here_as_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    evalsets = two_eval_sets(tmp_path)
    one = run_with_jobs(tmp_path / "one", evalsets[0], "1")

    def no_process() -> int:  # fork's EAGAIN: a process limit reached
        raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_process)
    starts = CountedStarts(monkeypatch)
    two = run_with_jobs(tmp_path / "two", evalsets[0], "2")
    assert starts.count == 1
    assert one == two and len(two[2]) == 1
