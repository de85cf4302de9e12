"""Reading results in every form: result files (also legacy-wrapped), run documents, directories."""

from __future__ import annotations

import gc
import gzip
import json
import os
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agenteval.errors import ConfigError, Problem
from agenteval.inputs import result_inputs
from agenteval.inputs.loading import load_result, validation_problems
from agenteval.inputs.long_lived import FREEZE_FROM_CHARS
from agenteval.inputs.result_inputs import case_count, parse_results, read_parts, read_results
from agenteval.report.diff import diff_results
from agenteval.report.set_tally import ConsoleView, set_report, source_report
from agenteval.schema.base import dump_json
from agenteval.schema.result import EvalSetResult
from tests.sample_results import criteria_result, generated_result

RESULT = {
    "evalSetResultId": "r1",
    "evalSetId": "s",
    "evalCaseResults": [
        {"evalSetId": "s", "evalId": "c1", "finalEvalStatus": "passed", "score": 1}
    ],
}


def test_a_result_file_and_its_legacy_string_wrapped_form() -> None:
    (plain,), problems = parse_results(json.dumps(RESULT), "r.json")
    assert problems == []
    (wrapped,), _ = parse_results(json.dumps(json.dumps(RESULT)), "r.json")
    assert plain == wrapped
    assert [c.eval_id for c in plain.case_results()] == ["c1"]


def test_a_run_document_gives_each_eval_set_result() -> None:
    other = {**RESULT, "evalSetId": "t"}
    document = {"agentevalVersion": "1", "evalSetResults": [RESULT, other]}
    results, problems = parse_results(json.dumps(document), "run.json")
    assert problems == []
    assert [r.eval_set_id for r in results] == ["s", "t"]
    assert case_count(results) == 2


def test_a_bad_entry_of_a_run_document_is_located() -> None:
    document = {"agentevalVersion": "1", "evalSetResults": [{"evalCaseResults": 3}]}
    _, problems = parse_results(json.dumps(document), "run.json")
    assert [(p.path, p.message) for p in problems] == [
        ("evalSetResults[0].evalCaseResults", "expected an array, got a number")
    ]


@pytest.mark.parametrize(
    ("text", "looks_like"),
    [
        ("{}", "an empty document"),
        ('{"evalSetId": "s", "evalCases": []}', "an eval set"),
        ('[{"metricName": "m"}]', "a metric file"),
        ('{"resourceSpans": []}', "an OpenTelemetry (OTLP/JSON) export"),
    ],
)
def test_anything_else_is_named(text: str, looks_like: str) -> None:
    results, problems = parse_results(text, "x.json")
    assert results == []
    assert [p.message for p in problems] == [
        f"not an agenteval or trpc-agent-go result (looks like {looks_like})"
    ]


def test_a_result_file_that_is_no_utf8_json_or_empty_says_what_it_is(tmp_path: Path) -> None:
    # Named as every other reader names them, not "invalid JSON: Expecting value" (BOM)
    # or "not UTF-8 text (invalid start byte)" (gzip, UTF-16).
    text = json.dumps(RESULT)
    files = {
        "bom.json": b"\xef\xbb\xbf" + text.encode(),
        "r.json.gz": gzip.compress(text.encode()),
        "utf16.json": text.encode("utf-16"),
        "empty.json": b"",  # was "invalid JSON: the file is empty at line 1 column 1"
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    with pytest.raises(ConfigError) as caught:
        read_results([tmp_path / name for name in files])
    assert [(Path(p.file).name, p.message, p.hint) for p in caught.value.problems] == [
        (
            "bom.json",
            "starts with a byte order mark (U+FEFF), which JSON does not allow",
            "save it as UTF-8 without a BOM",
        ),
        ("r.json.gz", "gzip file: decompress first", ""),
        (
            "utf16.json",
            "UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8",
            "save it as UTF-8",
        ),
        ("empty.json", "the file is empty", "expected a JSON document"),
    ]


def test_a_result_file_cut_short_says_so(tmp_path: Path) -> None:
    # A file cut off at its end (still being written, copied in part) was "invalid JSON:
    # Expecting property name enclosed in double quotes at line 13 column 7": a syntax
    # error to hunt for, where nothing is wrong but the missing end.
    whole = json.dumps({**RESULT, "evalCaseResults": RESULT["evalCaseResults"] * 2}, indent=2)
    cuts = {
        "key.json": whole[: whole.index('"evalId"', whole.index('"evalId"') + 1)],
        "string.json": whole[: whole.index('"c1"') + 2],
        "value.json": whole[: whole.rindex("}") - 1] + "\n",
    }
    for name, text in cuts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "wrong.json").write_text(whole.replace('"r1"', "r1"), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        read_results([tmp_path / name for name in (*cuts, "wrong.json")])
    hint = "cut short: is it still being written, or was it copied in part?"
    found = [(Path(p.file).name, p.message, p.hint) for p in caught.value.problems]
    ends = [(text.count("\n") + 1, len(text) - text.rfind("\n")) for text in cuts.values()]
    assert found[:3] == [
        (
            name,
            f"invalid JSON: the file ends at line {line} column {column}, inside its document",
            hint,
        )
        for name, (line, column) in zip(cuts, ends, strict=True)
    ]
    assert ends[2][1] == 1  # a cut after a newline: the end is the next line's start
    # Bad JSON before the end is still said as the decoder says it, where it is.
    assert found[3] == ("wrong.json", "invalid JSON: Expecting value at line 2 column 22", "")


def test_a_directory_prefers_result_files_then_run_documents(tmp_path: Path) -> None:
    results_dir = tmp_path / "results"
    results_dir.mkdir()
    (results_dir / "a.evalset_result.json").write_text(json.dumps(RESULT))
    (results_dir / "run.json").write_text(json.dumps({"evalSetResults": [RESULT, RESULT]}))
    loaded, sources = read_results([results_dir])
    assert sources == [str(results_dir / "a.evalset_result.json")]
    (results_dir / "a.evalset_result.json").unlink()
    loaded, sources = read_results([results_dir])
    assert len(loaded) == 2 and sources == [str(results_dir / "run.json")] * 2


def test_problems_of_every_path_are_raised_together(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "set.json").write_text('{"evalCases": []}')
    with pytest.raises(ConfigError) as caught:
        read_results([tmp_path / "empty", tmp_path / "set.json", tmp_path / "missing.json"])
    assert [p.file for p in caught.value.problems] == [
        str(tmp_path / "empty"),
        str(tmp_path / "set.json"),
        str(tmp_path / "missing.json"),
    ]


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """Undo the freeze a large read leaves (long_lived.py) for the tests after."""
    yield
    gc.unfreeze()


def test_a_large_file_reads_to_what_json_mode_gives_and_is_frozen(
    tmp_path: Path, unfrozen: None
) -> None:
    text = json.dumps(criteria_result(cases=400, num_runs=2))
    assert len(text) >= FREEZE_FROM_CHARS
    path = tmp_path / "big.evalset_result.json"
    path.write_text(text)
    gc.unfreeze()
    (loaded,), _ = read_results([path])
    assert gc.get_freeze_count() > 0 and gc.isenabled()
    expected = EvalSetResult.model_validate_json(text)
    assert loaded == expected
    assert dump_json(loaded) == dump_json(expected)
    assert load_result(path) == expected


def test_run_document_entries_give_what_they_gave_as_json_text() -> None:
    good = criteria_result(cases=5, num_runs=1)
    bad = criteria_result(cases=5, num_runs=1)
    bad["evalCaseResults"][2]["finalEvalStatus"] = "PASSED"
    bad["evalCaseResults"][3]["overallEvalMetricResults"][0]["criterion"]["toolTrajectory"] = 4
    document = {"agentevalVersion": "1", "evalSetResults": [good, bad]}
    results, problems = parse_results(json.dumps(document), "run.json")
    assert [dump_json(r) for r in results] == [
        dump_json(EvalSetResult.model_validate_json(json.dumps(good)))
    ]
    with pytest.raises(ValidationError) as raised:
        EvalSetResult.model_validate_json(json.dumps(bad))
    assert problems == validation_problems("run.json", raised.value, "evalSetResults[1]")
    assert len(problems) == 2


def many_cases(path: Path, count: int) -> Path:
    """A result file of ``count`` copies of one case (each its own evalId), written as text."""
    template = json.dumps(criteria_result(cases=1, num_runs=1)["evalCaseResults"][0])
    cases = ",".join(template.replace('"case_000"', f'"case_{i:06d}"') for i in range(count))
    path.write_text(f'{{"evalSetResultId": "r", "evalSetId": "gen", "evalCaseResults": [{cases}]}}')
    return path


def test_reading_case_by_case_holds_no_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a reader holds does not grow with the file: only windows, spans and evalIds."""
    monkeypatch.setattr(result_inputs, "WINDOW", 64 << 10)
    monkeypatch.setattr(result_inputs, "BLOCK_BYTES", 64 << 10)
    peaks = []
    for count in (400, 1600):
        path = many_cases(tmp_path / f"r{count}.json", count)
        tracemalloc.start()
        (part,) = read_parts([path])
        assert sum(1 for _ in part.cases()) == count
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    size = path.stat().st_size
    assert peaks[1] < size / 5, (peaks, size)
    # Four times the cases: only the per-case spans and evalIds add up.
    assert peaks[1] < peaks[0] + 1200 * 200, peaks


def test_a_file_changed_between_the_passes_is_refused(tmp_path: Path) -> None:
    path = many_cases(tmp_path / "r.json", 5)
    (part,) = read_parts([path])
    many_cases(path, 6)
    with pytest.raises(ConfigError, match="changed while it was being read"):
        list(part.cases())


def test_special_files_are_refused_up_front(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError) as caught:
        read_parts([fifo])
    assert [p.message for p in caught.value.problems] == [
        "is a named pipe (FIFO), not a regular file"
    ]


def test_a_case_that_does_not_validate_is_found_when_read(tmp_path: Path) -> None:
    data = criteria_result(cases=3, num_runs=1)
    data["evalCaseResults"][1]["score"] = "high"
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(data))
    (part,) = read_parts([path])
    problems: list[Problem] = []
    kept = list(part.cases(problems))
    assert [c.eval_id for c in kept] == ["case_000", "case_002"]
    assert [(p.path, p.message) for p in problems] == [
        ("evalCaseResults[1].score", "expected a number, got a string")
    ]
    with pytest.raises(ConfigError):
        list(part.cases())


@pytest.mark.parametrize("num_runs", [1, 3])
def test_the_readers_fold_what_the_whole_result_gives(tmp_path: Path, num_runs: int) -> None:
    """show's tally and diff's snapshot read case by case equal those of the whole result,
    parsed on its own (JSON mode)."""
    texts = []
    for seed in (1, 2):
        result = generated_result(cases=25, num_runs=num_runs, seed=seed + num_runs)
        result.judge_failures = ["case_004"] if seed == 2 else None
        texts.append(dump_json(result))
    paths = []
    for index, text in enumerate(texts):
        paths.append(tmp_path / f"r{index}.evalset_result.json")
        paths[-1].write_text(text)
    wholes = [EvalSetResult.model_validate_json(text) for text in texts]
    parts = read_parts(paths)
    for part, whole in zip(parts, wholes, strict=True):
        for view in (
            ConsoleView(),
            ConsoleView(quiet=True),
            ConsoleView(verbose=True, max_shown=None),
        ):
            assert source_report(part, view=view) == set_report(whole, view=view)
    streamed = diff_results(parts[:1], parts[1:], 0.1).to_json()
    assert streamed == diff_results(wholes[:1], wholes[1:], 0.1).to_json()
    assert streamed["comparedCases"] == 25 and streamed["changes"]


def _written(tmp_path: Path, data: Any, name: str = "r.evalset_result.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _scored(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The case results of ``data`` that hold metric results (generated ones may not)."""
    return [c for c in data["evalCaseResults"] if c.get("overallEvalMetricResults")]


def _problems_of(path: Path) -> list[str]:
    found: list[Problem] = []
    for part in read_parts([path]):
        list(part.cases(found))
        list(part.case_summaries(found))
    return [str(problem) for problem in found]


def test_a_number_json_cannot_hold_is_an_error_where_it_stands(tmp_path: Path) -> None:
    # 1e400 reads as an infinite score: it passed every threshold in show and diff.
    data = criteria_result(cases=2, num_runs=1)
    data["evalCaseResults"][1]["score"] = 12345
    text = json.dumps(data).replace("12345", "1e400")
    path = tmp_path / "r.evalset_result.json"
    path.write_text(text, encoding="utf-8")
    (problem,) = _problems_of(path)
    assert problem == (
        f"{path}: evalCaseResults[1].score: inf is not a finite number "
        "(NaN, Infinity and numbers beyond ±1.8e308 cannot be compared)"
    )
    path.write_text(text.replace("1e400", "NaN"), encoding="utf-8")
    assert _problems_of(path) == [problem.replace("inf is", "nan is")]


def test_a_non_finite_number_in_the_head_stops_the_reading(tmp_path: Path) -> None:
    path = _written(tmp_path, {**RESULT, "creationTimestamp": float("inf")})
    with pytest.raises(ConfigError) as raised:
        read_parts([path])
    assert [str(p) for p in raised.value.problems] == [
        f"{path}: creationTimestamp: inf is not a finite number "
        "(NaN, Infinity and numbers beyond ±1.8e308 cannot be compared)"
    ]


def test_a_misspelt_key_of_a_result_object_is_an_error(tmp_path: Path) -> None:
    # Result objects keep keys of their own, but one that nearly spells a defined key
    # read as its absence: a metric's score of 0, a case not evaluated.
    data = criteria_result(cases=6, num_runs=1)
    scored = _scored(data)
    metric = scored[-1]["overallEvalMetricResults"][0]
    metric["scroe"] = metric.pop("score")
    data["evalCaseResults"][0]["finalEvalStaus"] = "passed"
    last = data["evalCaseResults"].index(scored[-1])
    assert _problems_of(_written(tmp_path, data)) == [
        f"{tmp_path / 'r.evalset_result.json'}: evalCaseResults[0].finalEvalStaus: "
        "'finalEvalStaus' is not a field of EvalCaseResult (did you mean 'finalEvalStatus'?)",
        f"{tmp_path / 'r.evalset_result.json'}: evalCaseResults[{last}].overallEvalMetricResults"
        "[0].scroe: 'scroe' is not a field of EvalMetricResult (did you mean 'score'?)",
    ]


def test_own_keys_are_kept_and_closed_objects_warn(tmp_path: Path) -> None:
    data = criteria_result(cases=6, num_runs=1)
    first = _scored(data)[0]
    first["teamNote"] = "kept, as Go keeps what it does not know"  # an open object's own key
    first["overallEvalMetricResults"][0]["details"]["samples"] = [1, 2]  # the evaluator's
    data["summary"]["runStatusCounts"]["skipped"] = 1  # a closed object: a warning
    for case in _scored(data):  # a criterion's key: once per file, not per case
        for metric in case["overallEvalMetricResults"]:
            if "finalResponse" in (metric.get("criterion") or {}):
                metric["criterion"]["finalResponse"]["zzz"] = {}
    path = _written(tmp_path, data)
    (part,) = read_parts([path])
    assert [str(w) for w in part.warnings] == [
        f"{path}: summary.runStatusCounts.skipped: 'skipped' is not a field of StatusCounts "
        "(known: passed, failed, notEvaluated)"
    ]
    cases = {case.eval_id: case for case in part.cases()}
    assert (cases[first["evalId"]].model_extra or {})["teamNote"].startswith("kept")
    criterion_warnings = [w for w in result_inputs.reading_warnings([part]) if "zzz" in w.path]
    assert len(criterion_warnings) == 1
    assert criterion_warnings[0].path.startswith(
        f"evalCaseResults[{data['evalCaseResults'].index(first)}]."
    )


def test_a_run_cut_out_or_given_twice_is_an_error(tmp_path: Path) -> None:
    # A deleted failing run made its case pass; a case joined twice was counted twice.
    data = criteria_result(cases=3, num_runs=2)
    cases = data["evalCaseResults"]
    cut = {
        **data,
        "evalCaseResults": [c for c in cases if (c["evalId"], c["runId"]) != ("case_001", 2)],
    }
    path = _written(tmp_path, cut, "cut.evalset_result.json")
    with pytest.raises(ConfigError) as raised:
        read_parts([path])
    assert [str(p) for p in raised.value.problems] == [
        f"{path}: evalCaseResults: case 'case_001' lacks run 2 of 2 (every case holds each "
        "run of a result: was the file cut short? a run stopped early is marked partial)"
    ]
    # Nor can a summary that says fewer runs hide it.
    for num_runs, extra in ((0, []), (1, ["summary.numRuns: 1, but case results hold run 2"])):
        lowered = {**cut, "summary": {**cut["summary"], "numRuns": num_runs}}
        path = _written(tmp_path, lowered, f"nr{num_runs}.evalset_result.json")
        with pytest.raises(ConfigError) as raised:
            read_parts([path])
        found = [f"{p.path}: {p.message}" for p in raised.value.problems]
        assert found == [*extra, "evalCaseResults: case 'case_001' lacks run 2 of 2"]
    # A run stopped early says so: its missing runs are no error.
    (part,) = read_parts([_written(tmp_path, {**cut, "partial": True}, "p.evalset_result.json")])
    assert part.case_count == len(cases) - 1
    twice = {**data, "evalCaseResults": [*cases, cases[1], {**cases[0], "runId": -2}]}
    path = _written(tmp_path, twice, "twice.evalset_result.json")
    with pytest.raises(ConfigError) as raised:
        read_parts([path])
    assert [str(p) for p in raised.value.problems] == [
        f"{path}: evalCaseResults[{len(cases)}]: case {cases[1]['evalId']!r} run "
        f"{cases[1]['runId']} is also at evalCaseResults[1] (a result holds each case's run "
        "once; agenteval merge joins shards)",
        f"{path}: evalCaseResults[{len(cases) + 1}].runId: -2 is no run: runs count from 1",
    ]


def test_a_run_id_past_any_run_count_is_not_held_as_bits(tmp_path: Path) -> None:
    # A hostile runId of 10**9 held as one bit a run would cost 125 MB.
    data = criteria_result(cases=2, num_runs=1)
    data["evalCaseResults"][0]["runId"] = 10**9
    data["summary"]["numRuns"] = 10**9
    tracemalloc.start()
    (part,) = read_parts([_written(tmp_path, data)])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert part.run_ids[0] == 10**9
    assert peak < 16 << 20, peak  # the reading windows (4 MB), not 125 MB of bits


def test_a_run_documents_own_keys_are_checked_too(tmp_path: Path) -> None:
    document = {
        "agentevalVersion": "1",
        "durationSeconds": float("nan"),
        "overallStatsu": "passed",
        "caseStatusCounts": {"passed": 1, "skipped": 0},
        "evalSetResults": [RESULT],
    }
    path = _written(tmp_path, document, "run.json")
    with pytest.raises(ConfigError) as raised:
        read_parts([path])
    assert [str(p).split(" (")[0] for p in raised.value.problems] == [
        f"{path}: durationSeconds: nan is not a finite number",
        f"{path}: overallStatsu: 'overallStatsu' is not a field of RunDocument",
    ]
    assert [w.path for w in raised.value.warnings] == ["caseStatusCounts.skipped"]


def _summary_warnings(path: Path) -> list[str]:
    found: list[Problem] = []
    (part,) = read_parts([path])
    list(part.cases(found))
    list(part.case_summaries(found))
    assert found == []
    return [str(w) for w in part.warnings if "runStatusCounts" in w.path]


def test_a_case_summary_whose_run_counts_are_not_its_case_results_warns(tmp_path: Path) -> None:
    # A summary edited apart from its cases said "2/2 stable pass" beside "0/2 runs passed".
    data = criteria_result(cases=4, num_runs=2)
    assert _summary_warnings(_written(tmp_path, data)) == []  # as written: no warning
    summaries = data["summary"]["evalCaseSummaries"]
    index, summary = next(
        (i, s) for i, s in enumerate(summaries) if s["runStatusCounts"].get("failed")
    )
    held = summary["runStatusCounts"]
    summary["runStatusCounts"] = {"passed": 2}
    path = _written(tmp_path, data)
    assert _summary_warnings(path) == [
        f"{path}: summary.evalCaseSummaries[{index}].runStatusCounts: says 2 passed, 0 failed, "
        f"0 not evaluated runs for case {summary['evalId']!r}, but its case results hold "
        f"{held.get('passed', 0)} passed, {held.get('failed', 0)} failed, "
        f"{held.get('notEvaluated', 0)} not evaluated runs (reports count the case results; "
        "was the summary edited or joined apart?)"
    ]


def test_the_run_counts_are_not_compared_when_a_case_was_not_read(tmp_path: Path) -> None:
    data = criteria_result(cases=4, num_runs=2)
    data["summary"]["evalCaseSummaries"][0]["runStatusCounts"] = {"notEvaluated": 5}
    data["evalCaseResults"][1]["runId"] = "two"  # does not validate: no case-result truth
    path = _written(tmp_path, data)
    found: list[Problem] = []
    (part,) = read_parts([path])
    list(part.cases(found))
    list(part.case_summaries(found))
    assert found and all("runStatusCounts" not in w.path for w in part.warnings)


def test_a_lone_surrogate_escape_reads_as_u_fffd_as_go_reads_it(tmp_path: Path) -> None:
    # Was "evalCaseResults[0]: invalid JSON: unexpected end of hex escape"; Go reads U+FFFD.
    text = json.dumps(RESULT).replace('"c1"', '"c\\ud800"').replace('"s"', '"s\\udc00"')
    plain = tmp_path / "plain.evalset_result.json"
    plain.write_text(text)
    # The legacy string-wrapped layout: the inner document's lone surrogate is raw there.
    wrapped = tmp_path / "wrapped.evalset_result.json"
    wrapped.write_text(json.dumps(text.replace("\\ud800", "\ud800"), ensure_ascii=True))
    results, _ = read_results([plain, wrapped])
    for result in results:
        assert result.eval_set_id == "s\ufffd"
        assert [c.eval_id for c in result.case_results()] == ["c\ufffd"]


def test_a_key_given_twice_in_a_case_result_is_a_located_warning(tmp_path: Path) -> None:
    text = dump_json(generated_result(cases=3, num_runs=1))
    # The second case result's status given twice: Go reads the last one, and so do we.
    first = text.index('"evalId"', text.index('"evalId"') + 1)
    text = text[:first] + '"errorMessage": "first", ' + text[first:]
    path = tmp_path / "dup.evalset_result.json"
    path.write_text(text)
    last = json.loads(text)["evalCaseResults"][1]["errorMessage"]
    warnings: list[Problem] = []
    (result,), _ = read_results([path], warnings)
    assert result.eval_case_results[1].error_message == last != "first"
    assert [(w.path, w.message) for w in warnings] == [
        (
            "evalCaseResults[1].errorMessage",
            f'key "errorMessage" given twice; the last value ({json.dumps(last)}) is used',
        )
    ]


def test_a_key_given_twice_in_a_result_head_or_summary_is_a_located_warning(
    tmp_path: Path,
) -> None:
    text = dump_json(generated_result(cases=2, num_runs=1))
    text = text.replace('"evalSetId": "gen",', '"evalSetId": "old", "evalSetId": "gen",', 1)
    text = text.replace('"summary": {', '"summary": {"numRuns": 7, ', 1)
    assert text.count('"numRuns"') == 2
    path = tmp_path / "head.evalset_result.json"
    path.write_text(text)
    warnings: list[Problem] = []
    (result,), _ = read_results([path], warnings)
    assert result.eval_set_id == "gen"
    assert sorted((w.path, w.message) for w in warnings) == [
        ("evalSetId", 'key "evalSetId" given twice; the last value ("gen") is used'),
        ("summary.numRuns", 'key "numRuns" given twice; the last value (1) is used'),
    ]
