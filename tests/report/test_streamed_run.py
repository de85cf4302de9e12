"""The sink of ``agenteval run``: documents spooled as cases arrive, failures kept for the reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval.report.result_stream import write_result_document
from agenteval.report.streamed_run import StreamedRun
from agenteval.results.aggregation import case_statuses, overall_status
from agenteval.schema.result import EvalCaseResult, EvalSetResult
from agenteval.schema.status import EvalStatus
from sample_results import generated_result


def _feed(sink: StreamedRun, result: EvalSetResult, num_runs: int, *, partial: bool = True) -> None:
    sink.begin_set(result.eval_set_id, num_runs)
    for case in result.case_results():
        sink.add(case)
    sink.end_set(EvalSetResult(eval_set_id=result.eval_set_id, partial=partial or None))


def test_documents_status_and_read_back(tmp_path: Path) -> None:
    one = generated_result("one", cases=15, num_runs=1, seed=2)
    two = generated_result("two", cases=8, num_runs=2, seed=5)
    sink = StreamedRun(output=tmp_path, app_name="my app", documents=True)
    _feed(sink, one, 1)
    _feed(sink, two, 2)
    assert [report.statuses for report in sink.reports] == [case_statuses(one), case_statuses(two)]
    # A partial eval set (a stopped run) is never green, whatever its cases say.
    assert sink.overall_status() is EvalStatus.INCOMPLETE
    first, second = sink.sets
    assert first.file_name is not None and first.file_name.startswith("my_app_one_")
    assert first.document is not None
    written = write_result_document(first.document, tmp_path / first.file_name)
    data = json.loads(written.read_bytes())
    assert data["evalSetResultId"] == first.file_name.removesuffix(".evalset_result.json")
    assert data["partial"] is True and len(data["evalCaseResults"]) == 15
    back = EvalSetResult.model_validate_json(
        write_result_document(second.finished(), tmp_path / "second.json").read_bytes()
    )
    assert [c.eval_id for c in back.case_results()] == [c.eval_id for c in two.case_results()]
    assert back.summary is not None and back.summary.num_runs == 2
    sink.close()


def test_without_documents_nothing_is_spooled() -> None:
    sink = StreamedRun(output=None, app_name="a", documents=False)
    _feed(sink, generated_result("s", cases=3, num_runs=1), 1)
    (only,) = sink.sets
    assert only.document is None and only.error is None
    with pytest.raises(OSError, match="not kept"):
        only.finished()


def test_a_spool_that_cannot_be_made_is_kept_as_the_reports_error(tmp_path: Path) -> None:
    missing = tmp_path / "file"
    missing.write_text("")  # a file where the spool directory should be
    sink = StreamedRun(output=None, app_name="a", documents=True, spool_dir=missing)
    _feed(sink, generated_result("s", cases=3, num_runs=1), 1, partial=False)
    (only,) = sink.sets
    assert only.document is None and isinstance(only.error, OSError)
    with pytest.raises(OSError):
        only.finished()
    # Scoring went on: the status still counts every case.
    assert sink.overall_status() is overall_status([generated_result("s", 3, 1)])


def test_other_sinks_get_every_case_as_it_finishes() -> None:
    class Recorder:
        def __init__(self) -> None:
            self.calls: list[str] = []

        def begin_set(self, eval_set_id: str, num_runs: int) -> None:
            self.calls.append(f"begin {eval_set_id} {num_runs}")

        def add(self, case: EvalCaseResult) -> None:
            self.calls.append(f"add {case.eval_id} {case.run_id}")

        def end_set(self, head: EvalSetResult) -> None:
            self.calls.append(f"end {head.eval_set_id}")

    recorder = Recorder()
    sink = StreamedRun(output=None, app_name="a", documents=False, also=[recorder])
    result = generated_result("s", cases=2, num_runs=2)
    _feed(sink, result, 2)
    assert recorder.calls == [
        "begin s 2",
        *(f"add {c.eval_id} {c.run_id}" for c in result.case_results()),
        "end s",
    ]
