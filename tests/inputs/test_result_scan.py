"""The first pass over result files and run documents: heads, case spans and ids, skeletons."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agenteval.inputs.file_kind import FileKind, kind_of
from agenteval.inputs.json_scan import ScanError, bytes_reader
from agenteval.inputs.result_scan import SAMPLE, ResultScan, ScannedDocument, ScannedResult
from agenteval.schema.base import dump_json
from sample_results import generated_result


def scan(data: bytes, window: int = 4 << 20) -> ScannedDocument:
    return ResultScan(bytes_reader(data), len(data), window=window).scan()


def spans(flat: Any) -> list[tuple[int, int]]:
    return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]


def check_cases(data: bytes, scanned: ScannedResult, file_data: dict[str, Any]) -> None:
    cases = file_data["evalCaseResults"]
    assert [json.loads(data[a:b]) for a, b in spans(scanned.cases)] == cases
    assert scanned.eval_ids == [c["evalId"] for c in cases]
    assert list(scanned.run_ids) == [c.get("runId", 0) for c in cases]
    summaries = file_data["summary"].get("evalCaseSummaries", [])
    assert [json.loads(data[a:b]) for a, b in spans(scanned.summaries)] == summaries
    head = {k: v for k, v in file_data.items() if k != "evalCaseResults"}
    head["summary"] = {k: v for k, v in head["summary"].items() if k != "evalCaseSummaries"}
    assert scanned.head == head
    assert scanned.case_list and scanned.summary_list == bool(summaries)


@pytest.mark.parametrize("window", [16, 333, 1 << 20])
@pytest.mark.parametrize("num_runs", [1, 3])
def test_a_result_file_gives_its_head_and_every_case_span(window: int, num_runs: int) -> None:
    result = generated_result(cases=9, num_runs=num_runs, seed=num_runs)
    result.judge_failures = ["case_001"]
    data = dump_json(result).replace('"turn 1', '"tûrn ① 1').encode("utf-8")
    document = scan(data, window)
    assert document.top is not None and document.entries is None
    assert kind_of(document.skeleton) is FileKind.RESULT
    check_cases(data, document.top, json.loads(data))
    assert len(document.skeleton["evalCaseResults"]) == min(SAMPLE, 9 * num_runs)


def test_a_run_document_gives_each_entry() -> None:
    entries = [generated_result("a", 4, 2, seed=1), generated_result("b", 3, 1, seed=2)]
    document_data = {
        "agentevalVersion": "0.1",
        "evalSetResults": [json.loads(dump_json(r)) for r in entries],
        "warnings": ["w"],
    }
    data = json.dumps(document_data, indent=2).encode()
    document = scan(data, window=64)
    assert kind_of(document.skeleton) is FileKind.RUN
    assert document.entries is not None
    assert [e.where for e in document.entries] == ["evalSetResults[0]", "evalSetResults[1]"]
    for scanned, entry in zip(document.entries, document_data["evalSetResults"], strict=True):
        check_cases(data, scanned, entry)
    assert document.skeleton["warnings"] == ["w"]


def test_the_last_of_a_key_given_twice_counts_as_in_a_whole_parse() -> None:
    data = b'{"evalSetId": "a", "evalCaseResults": [{"evalId": "x"}], "evalCaseResults": 3}'
    document = scan(data)
    assert document.top is not None
    assert document.top.head == {"evalSetId": "a", "evalCaseResults": 3}
    assert not document.top.case_list and document.top.case_count == 0
    data = b'{"evalCaseResults": 3, "evalCaseResults": [{"evalId": "x", "runId": 2}]}'
    document = scan(data)
    assert document.top is not None
    assert document.top.head == {} and document.top.eval_ids == ["x"]
    assert list(document.top.run_ids) == [2]


def test_an_eval_set_is_only_sampled_for_its_kind() -> None:
    cases = [{"evalId": f"c{i}", "conversation": []} for i in range(50)]
    data = json.dumps({"evalSetId": "s", "evalCases": cases}).encode()
    document = scan(data, window=100)
    assert kind_of(document.skeleton) is FileKind.EVALSET
    assert len(document.skeleton["evalCases"]) == SAMPLE


@pytest.mark.parametrize(
    ("data", "message", "at"),
    [
        (b"", "the file is empty", 0),
        (b'{"evalCaseResults": [{"evalId": "a"}', "unexpected end of the data", 36),
        (b'{"evalCaseResults": [1 2]}', "expected ',' or ']'", 23),
        (b'{"a": 1} x', "extra data after the document", 9),
        (b'{"a": tru}', "Expecting value", 6),
        (b'{"n": ' + b"9" * 5000 + b"}", "a number with more than 4,300 digits", 6),
    ],
)
def test_what_is_no_json_is_refused_at_its_byte(data: bytes, message: str, at: int) -> None:
    with pytest.raises(ScanError) as caught:
        scan(data, window=8)
    assert caught.value.message.startswith(message)
    assert caught.value.offset == at
