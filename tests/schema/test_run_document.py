"""The run document model reads what result_files.run_document writes, incomplete counts included."""

from __future__ import annotations

import json

from agenteval.report.result_files import run_document
from agenteval.schema.run_document import RunDocument
from agenteval.schema.status import EvalStatus
from sample_results import case_result, eval_set_result, metric


def test_the_model_reads_a_written_run_document() -> None:
    judged = case_result(
        "s", "judged", [metric("det", 1.0), metric("judge", 0.0, status=EvalStatus.NOT_EVALUATED)]
    )
    result = eval_set_result("s", [judged, case_result("s", "ok", [metric("det", 1.0)])])
    result.judge_failures = ["judged"]
    document = run_document([result], duration_seconds=1.5, extra={"warnings": []})
    read = RunDocument.model_validate_json(json.dumps(document))
    assert read.overall_status == "incomplete"
    assert read.case_status_counts is not None
    assert (read.case_status_counts.passed, read.case_status_counts.incomplete) == (1, 1)
    assert [r.eval_set_id for r in read.eval_set_results] == ["s"]
    assert read.eval_set_results[0].judge_failures == ["judged"]
