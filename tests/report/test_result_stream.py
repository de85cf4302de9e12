"""Result documents written case by case equal the whole write, byte for byte."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from agenteval.inputs.loading import load_result
from agenteval.report import result_stream
from agenteval.report.result_files import (
    run_document,
    write_json,
    write_result,
    write_whole_run,
)
from agenteval.report.result_stream import (
    ResultDocument,
    write_result_document,
    write_run_document,
)
from agenteval.results.aggregation import build_summary
from agenteval.schema.gojson import model_to_go_json_bytes
from agenteval.schema.result import EvalSetResult, Fingerprint
from sample_results import case_result, generated_result, metric
from trpc_fixtures import FIXTURES

STAMP = re.compile(rb'"creationTimestamp": [0-9.e+-]+')


def _streamed(result: EvalSetResult, num_runs: int, result_id: str | None) -> ResultDocument:
    document = ResultDocument(result.eval_set_id, num_runs, result_id=result_id, spool_dir=None)
    for case in result.case_results():
        document.add(case)
    document.finish(result.model_copy(update={"eval_case_results": None, "summary": None}))
    return document


def _whole(result: EvalSetResult, num_runs: int, directory: Path, rid: str) -> bytes:
    fresh = EvalSetResult(
        eval_set_id=result.eval_set_id,
        eval_case_results=result.case_results(),
        summary=build_summary(result.case_results(), num_runs),
    )
    for key in ("partial", "judge_usage", "judge_failures", "fingerprint"):
        value = getattr(result, key)
        if value is not None:
            setattr(fresh, key, value)
    fresh.eval_set_result_id = rid
    fresh.eval_set_result_name = rid
    # The reference: the models' own serializer over the whole result (write_result is a
    # fold over the streamed writer, so it is not a reference of its own).
    fresh.creation_timestamp = time.time()
    return model_to_go_json_bytes(fresh)


def _same(streamed: bytes, whole: bytes) -> None:
    assert STAMP.sub(b"", streamed) == STAMP.sub(b"", whole)
    assert STAMP.search(streamed) is not None


@pytest.mark.parametrize("num_runs", [1, 3])
def test_generated_results_stream_to_the_same_bytes(tmp_path: Path, num_runs: int) -> None:
    result = generated_result(cases=40, num_runs=num_runs, seed=num_runs)
    result.partial = True
    result.judge_usage = {"total": {"calls": 3}}
    result.judge_failures = ["case_002", "case_011"]
    result.fingerprint = Fingerprint(
        eval_set="sha256:e", metrics={"m": "sha256:1", "n<&>": "sha256:2"}, shard="2/3"
    )
    document = _streamed(result, num_runs, "app_gen_1")
    streamed = write_result_document(document, tmp_path / "s.json").read_bytes()
    _same(streamed, _whole(result, num_runs, tmp_path / "whole", "app_gen_1"))
    # Case summaries come sorted by evalId although cases arrive in file order.
    data = json.loads(streamed)
    ids = [c["evalId"] for c in data["summary"]["evalCaseSummaries"]]
    assert ids == sorted(ids) and len(ids) == 40
    assert list(data)[-1] == "fingerprint" and data["fingerprint"]["shard"] == "2/3"


@pytest.mark.parametrize("batch", [1 << 20, 100, 1], ids=["one read", "small runs", "each"])
def test_case_summaries_sorted_from_runs_in_and_out_of_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    # Summaries are read back from their spool in evalId order: on in runs where the cases
    # finished in that order, from elsewhere where they did not (b c a e d f); a run and a
    # written batch end at ``_BATCH`` bytes.
    monkeypatch.setattr(result_stream, "_BATCH", batch)
    ids = ["b", "c", "a", "e", "d", "f"]
    scores = [1.0, 0.25, 0.5, 0.0, 0.75, 1.0]
    result = EvalSetResult(
        eval_set_id="mixed",
        eval_case_results=[
            case_result("mixed", i, [metric("m", s, reason=i * 7)])
            for i, s in zip(ids, scores, strict=True)
        ],
    )
    streamed = write_result_document(_streamed(result, 1, "r"), tmp_path / "s.json").read_bytes()
    _same(streamed, _whole(result, 1, tmp_path / "whole", "r"))
    summaries = json.loads(streamed)["summary"]["evalCaseSummaries"]
    assert [c["evalId"] for c in summaries] == sorted(ids)


def test_zero_cases_and_odd_text(tmp_path: Path) -> None:
    empty = EvalSetResult(eval_set_id="e", eval_case_results=[])
    _same(
        write_result_document(_streamed(empty, 1, "r"), tmp_path / "a.json").read_bytes(),
        _whole(empty, 1, tmp_path / "w1", "r"),
    )
    odd = EvalSetResult(
        eval_set_id="o<&>",
        eval_case_results=[
            case_result("o<&>", "line\nbreak\u2028<b>", [metric("m", 0.5, reason="a\ud800b")]),
            case_result("o<&>", "z", [metric("m", 1.0, reason="x" * 3000)]),
        ],
    )
    streamed = write_result_document(_streamed(odd, 1, "r"), tmp_path / "b.json").read_bytes()
    whole = _whole(odd, 1, tmp_path / "w2", "r")
    assert json.loads(STAMP.sub(b'"creationTimestamp": 0', streamed)) == json.loads(
        STAMP.sub(b'"creationTimestamp": 0', whole)
    )
    assert b"\\u003c" in streamed and b"\n" not in streamed.split(b'"evalId": ')[1][:30]


def test_every_fixture_result_streams_to_the_bytes_of_a_whole_write(tmp_path: Path) -> None:
    files = sorted(FIXTURES.rglob("*.evalset_result.json"))
    assert files
    for index, file in enumerate(files):
        result = load_result(file)
        runs = max([1, *(c.run_id for c in result.case_results())])
        document = _streamed(result, runs, "app_x")
        streamed = write_result_document(document, tmp_path / f"{index}.json").read_bytes()
        _same(streamed, _whole(result, runs, tmp_path / f"w{index}", "app_x"))


def test_run_document_equals_the_whole_document(tmp_path: Path) -> None:
    generated = [generated_result("a", cases=12, num_runs=2), generated_result("b", 9, 1, seed=3)]
    # As --json holds eval sets written to no result file: no result id, no timestamp.
    results = [
        EvalSetResult(
            eval_set_id=r.eval_set_id,
            eval_case_results=r.case_results(),
            summary=build_summary(r.case_results(), 2 if r.eval_set_id == "a" else 1),
            partial=True,
        )
        for r in generated
    ]
    whole = run_document(results, duration_seconds=1.25, extra={"warnings": ["w <1>"]})
    header = {k: v for k, v in whole.items() if k not in ("evalSetResults", "warnings")}
    documents = [_streamed(r, 2 if r.eval_set_id == "a" else 1, result_id=None) for r in results]
    streamed = write_run_document(tmp_path / "run.json", documents, header, {"warnings": ["w <1>"]})
    expected = write_json(tmp_path / "whole.json", whole)
    assert streamed.read_bytes() == expected.read_bytes()
    # Whole results go through the same writer, each with its own ids, summary and stamp.
    results[1].eval_set_result_id = results[1].eval_set_result_name = "b_named"
    results[1].creation_timestamp = 1_767_225_600.5
    folded = write_whole_run(
        tmp_path / "folded.json", results, duration_seconds=1.25, extra={"warnings": ["w <1>"]}
    )
    again = run_document(results, duration_seconds=1.25, extra={"warnings": ["w <1>"]})
    again["createdAt"] = json.loads(folded.read_bytes())["createdAt"]
    assert folded.read_bytes() == write_json(tmp_path / "again.json", again).read_bytes()


def test_an_empty_run_document(tmp_path: Path) -> None:
    whole = run_document([], extra={"warnings": []})
    header = {k: v for k, v in whole.items() if k not in ("evalSetResults", "warnings")}
    streamed = write_run_document(tmp_path / "run.json", [], header, {"warnings": []})
    assert streamed.read_bytes() == write_json(tmp_path / "w.json", whole).read_bytes()


def test_a_whole_result_is_written_by_the_streamed_writer_with_its_own_summary(
    tmp_path: Path,
) -> None:
    # A summary that is not what the cases tally to (a Go file's, a hand-edited one) is
    # written as it is: the whole write is the stream fed the result's cases.
    result = generated_result(cases=5, num_runs=1, seed=7)
    result.summary = build_summary(result.case_results(), 1)
    result.summary.num_runs = 1
    result.summary.eval_case_summaries = (result.summary.eval_case_summaries or [])[:2]
    result.eval_set_result_id = result.eval_set_result_name = "given"
    path = write_result(result, tmp_path, "app")
    assert path.read_bytes() == model_to_go_json_bytes(result)
    assert len(json.loads(path.read_bytes())["summary"]["evalCaseSummaries"]) == 2


@pytest.mark.parametrize("cut", [0, 1, 12, 23])
@pytest.mark.parametrize("depth", [0, 2])
def test_a_part_absorbed_writes_the_bytes_of_one_document(cut: int, depth: int) -> None:
    cases = generated_result("parts", cases=23, num_runs=1).case_results()
    whole = ResultDocument("parts", 1, result_id=None, spool_dir=None)
    split = ResultDocument("parts", 1, result_id=None, spool_dir=None)
    part = split.part()
    for case in cases:
        whole.add(case)
    for case in cases[:cut]:
        split.add(case)
    for case in cases[cut:]:
        part.add(case)
    split.absorb(part, part.shipped())
    head = EvalSetResult(eval_set_id="parts")
    whole.finish(head)
    split.finish(head)
    written: list[bytes] = [b"", b""]
    for index, document in enumerate((whole, split)):
        document.copy_to(lambda data, i=index: written.__setitem__(i, written[i] + data), depth)
        document.close()
    assert written[0] == written[1]
    assert written[0].count(b'"evalId"') == 23 * 2  # each case and its summary


@pytest.mark.parametrize("batch", [1 << 20, 100, 1], ids=["one read", "small runs", "each"])
def test_case_summaries_of_absorbed_parts_are_read_in_place_in_evalid_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    """The shares' summaries stay in their own spools: written sorted across all of them,
    the document's bytes are the whole write's, and every spool is closed with it."""
    monkeypatch.setattr(result_stream, "_BATCH", batch)
    shares = [["b", "e", "g"], ["a", "d"], ["c", "f", "h"]]  # the sorted order hops spools
    ids = [eval_id for share in shares for eval_id in share]
    cases = [
        case_result("hops", eval_id, [metric("m", index / 8, reason="why " * index)])
        for index, eval_id in enumerate(ids)
    ]
    open_before = len(os.listdir("/proc/self/fd"))
    document = ResultDocument("hops", 1, result_id="r", spool_dir=tmp_path)
    parts = [document.part() for _ in shares[1:]]
    at = 0
    for holder, share in zip([document, *parts], shares, strict=True):
        for case in cases[at : at + len(share)]:
            holder.add(case)
        at += len(share)
    for part in parts:
        document.absorb(part, part.shipped())
    document.finish(EvalSetResult(eval_set_id="hops"))
    written = write_result_document(document, tmp_path / "s.json").read_bytes()
    document.close()
    assert len(os.listdir("/proc/self/fd")) == open_before
    result = EvalSetResult(eval_set_id="hops", eval_case_results=cases)
    _same(written, _whole(result, 1, tmp_path / "whole", "r"))
    summaries = json.loads(written)["summary"]["evalCaseSummaries"]
    assert [c["evalId"] for c in summaries] == sorted(ids)


def test_a_document_closed_unfinished_closes_its_case_summaries_spool(tmp_path: Path) -> None:
    """A part dropped without being absorbed (its worker failed, run/case_split.py) or a
    document closed before its end (a spool write failed) leaves no temp file open."""

    def open_files() -> int:
        return len(os.listdir("/proc/self/fd"))

    before = open_files()
    document = ResultDocument("s", 1, result_id=None, spool_dir=tmp_path)
    part = document.part()
    part.add(case_result("s", "a", [metric("m", 1.0)]))
    assert open_files() == before + 4  # each one's cases and case summaries
    part.close()
    document.close()
    assert open_files() == before
