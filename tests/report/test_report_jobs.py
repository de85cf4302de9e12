"""agenteval.report.report_jobs: each report written on its own, failures named."""

from __future__ import annotations

from pathlib import Path

from agenteval.report.atomic_write import write_text_atomic
from agenteval.report.report_jobs import ReportJob, write_reports


def test_a_failure_is_named_and_the_rest_still_written(tmp_path: Path) -> None:
    good, later = tmp_path / "a.md", tmp_path / "c.md"
    jobs = [
        ReportJob(str(good), lambda: write_text_atomic(good, "a")),
        ReportJob(str(tmp_path), lambda: write_text_atomic(tmp_path, "b")),
        ReportJob("label", lambda: write_text_atomic(later, "c")),
        ReportJob("summary", lambda: None, listed=False),
    ]
    outcome = write_reports(jobs)
    assert outcome.written == [str(good), str(later)]  # the path a job returns wins
    assert outcome.failures == [f"{tmp_path}: cannot write: Is a directory"]
    assert later.read_text() == "c"
