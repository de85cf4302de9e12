"""agenteval.inputs.loading: eval sets, metric files, results and traces read into schema objects.

Each reader is called on real files in a temporary directory; problems must come
back located (file, JSON path) and complete, never as the first one only.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agenteval.errors import ConfigError, Problem
from agenteval.inputs.go_escapes import go_escapes
from agenteval.inputs.loading import (
    default_metrics_path,
    evalset_id_for,
    expand_evalset_paths,
    load_evalset,
    load_metrics,
    load_result,
    parse_evalset,
    parse_metrics,
    parse_result,
    parse_traces,
    read_text,
    read_traces,
    validation_problems,
)
from agenteval.schema.result import EvalSetResult
from tests.sample_results import criteria_result


def turn(question: str, answer: str) -> dict[str, Any]:
    """One invocation with a user question and a final answer."""
    return {
        "invocationId": question,
        "userContent": {"role": "user", "content": question},
        "finalResponse": {"role": "assistant", "content": answer},
    }


def evalset_json(*ids: str, mode: str = "") -> str:
    """An eval set with one single-turn case per id."""
    cases = [{"evalId": i, "evalMode": mode, "conversation": [turn("q", "a")]} for i in ids]
    return json.dumps({"evalSetId": "s", "evalCases": cases})


def texts(problems: list[Problem]) -> list[str]:
    """Every problem as its one-line text."""
    return [str(p) for p in problems]


def test_evalset_loads_cases_and_turns(tmp_path: Path) -> None:
    path = tmp_path / "s.evalset.json"
    path.write_text(evalset_json("c1", "c2"))
    evalset = load_evalset(path)
    assert evalset.eval_set_id == "s"
    assert [c.eval_id for c in evalset.eval_cases] == ["c1", "c2"]
    final = evalset.eval_cases[1].conversation[0].final_response
    assert final is not None and final.content == "a"


def test_a_lone_surrogate_escape_reads_as_u_fffd_as_go_reads_it(tmp_path: Path) -> None:
    # Go's encoding/json reads it as U+FFFD; every file was refused with "invalid JSON:
    # unexpected end of hex escape" (eval sets, metric files, result files alike).
    path = tmp_path / "s.evalset.json"
    text = evalset_json("c-lone").replace("c-lone", "c\\ud800")
    path.write_text(text.replace('"a"', '"x\\udc00y \\\\ud800"'))
    evalset = load_evalset(path)
    assert [c.eval_id for c in evalset.eval_cases] == ["c\ufffd"]
    final = evalset.eval_cases[0].conversation[0].final_response
    assert final is not None and final.content == "x\ufffdy \\ud800"
    metrics = tmp_path / "s.metrics.json"
    metrics.write_text('[{"metricName": "m\\ud800", "threshold": 1}]')
    assert [m.metric_name for m in load_metrics(metrics)] == ["m\ufffd"]
    # A CSV is no JSON: its text is kept as written.
    table = tmp_path / "labels.csv"
    table.write_text("evalId\nc\\ud800\n")
    assert read_text(table, csv=True) == "evalId\nc\\ud800\n"
    assert read_text(table) == "evalId\nc\\ufffd\n"


def test_every_case_rule_is_reported_with_its_location() -> None:
    evalset, problems = parse_evalset(evalset_json("c1", "c1", " ", mode="live"), "f.json")
    assert evalset is not None
    assert texts(problems) == [
        "f.json: evalCases[0].evalMode: unknown evalMode 'live' (use \"trace\" or leave it empty)",
        "f.json: evalCases[1].evalId: duplicate evalId 'c1' (first used at evalCases[0])",
        "f.json: evalCases[1].evalMode: unknown evalMode 'live' (use \"trace\" or leave it empty)",
        "f.json: evalCases[2].evalId: evalId is empty (every case needs an id)",
        "f.json: evalCases[2].evalMode: unknown evalMode 'live' (use \"trace\" or leave it empty)",
    ]


def test_type_problems_and_rule_problems_come_together() -> None:
    data = {"evalSetId": "s", "evalCases": [{"evalId": "a"}, {"evalId": "a", "conversation": 3}]}
    evalset, problems = parse_evalset(json.dumps(data), "f.json")
    assert evalset is None
    paths = [p.path for p in problems]
    assert "evalCases[1].conversation" in paths
    assert "evalCases[1].evalId" in paths


def test_read_text_says_why_a_file_cannot_be_read(tmp_path: Path) -> None:
    # (b"\xff\xfe" is UTF-16's byte order mark: named as such below)
    (tmp_path / "latin1.json").write_bytes(b"\xff\xfd")
    (tmp_path / "bom.json").write_bytes(b'\xef\xbb\xbf{"evalCases": []}')
    (tmp_path / "utf16.json").write_bytes('{"evalCases": []}'.encode("utf-16"))
    cases = {
        tmp_path / "absent.json": "file not found",
        tmp_path: "is a directory, expected a file",
        tmp_path / "latin1.json": "not UTF-8 text (invalid start byte)",
        tmp_path / "bom.json": "starts with a byte order mark (U+FEFF), which JSON does not "
        "allow (save it as UTF-8 without a BOM)",
        tmp_path / "utf16.json": "UTF-16 text (it starts with a UTF-16 byte order mark), not "
        "UTF-8 (save it as UTF-8)",
    }
    for path, message in cases.items():
        with pytest.raises(ConfigError) as caught:
            read_text(path)
        assert str(caught.value) == f"{path}: {message}"


def test_an_empty_or_blank_json_file_says_so(tmp_path: Path) -> None:
    # Was "invalid JSON: EOF while parsing a value at line 1 column 0" (eval set, metrics,
    # --prices, import adk); formats of lines say themselves that they hold nothing.
    (tmp_path / "empty.json").write_bytes(b"")
    (tmp_path / "blank.json").write_bytes(b" \n\t\n")
    for name, message in (("empty", "the file is empty"), ("blank", "the file holds only blanks")):
        path = tmp_path / f"{name}.json"
        with pytest.raises(ConfigError) as caught:
            read_text(path)
        assert str(caught.value) == f"{path}: {message} (expected a JSON document)"
        assert read_text(path, allow_empty=True).strip() == ""


def test_metrics_rules_and_null_tool_strategy() -> None:
    metrics = [
        {"metricName": "m", "threshold": 1},
        {"metricName": "m", "threshold": 1},
        {"metricName": "t", "criterion": {"toolTrajectory": {"toolStrategy": {"lookup": None}}}},
    ]
    parsed, problems = parse_metrics(json.dumps(metrics), "m.json")
    assert [m.metric_name for m in parsed] == ["m", "m", "t"]
    assert texts(problems) == [
        "m.json: [1].metricName: duplicate metricName 'm' (first defined at [0])",
        "m.json: [2].criterion.toolTrajectory.toolStrategy.lookup: tool strategy is null "
        "(use {} to accept any pair, or remove the entry)",
    ]


def test_judge_model_fields_expand_from_the_given_environment(tmp_path: Path) -> None:
    judge = {
        "providerName": "openai",
        "modelName": "${MODEL}",
        "baseURL": "http://127.0.0.1:${PORT}/v1",
        "apiKey": "$KEY",
    }
    metric = {
        "metricName": "j",
        "evaluatorName": "llm_final_response",
        "criterion": {"llmJudge": {"judgeModel": judge}},
    }
    path = tmp_path / "j.metrics.json"
    path.write_text(json.dumps([metric]))
    environ = {"MODEL": "gpt-x", "PORT": "8123", "KEY": "k-1"}
    [loaded] = load_metrics(path, environ)
    criterion = loaded.criterion
    assert criterion is not None and criterion.llm_judge is not None
    model = criterion.llm_judge.judge_model
    assert model is not None
    assert (model.model_name, model.base_url, model.api_key) == (
        "gpt-x",
        "http://127.0.0.1:8123/v1",
        "k-1",
    )


def test_broken_metric_file_raises_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "bad.metrics.json"
    path.write_text(json.dumps([{"metricName": ""}, {"metricName": "x", "threshold": "high"}]))
    with pytest.raises(ConfigError) as caught:
        load_metrics(path, {})
    lines = str(caught.value).splitlines()
    assert f"{path}: [0].metricName: metricName is empty" in lines
    assert any(line.startswith(f"{path}: [1].threshold: ") for line in lines)


def result_json() -> dict[str, Any]:
    """A minimal result file with one case and one turn of one metric."""
    return {
        "evalSetResultId": "r1",
        "evalSetId": "s",
        "evalCaseResults": [
            {
                "evalSetId": "s",
                "evalId": "c1",
                "finalEvalStatus": "passed",
                "overallEvalMetricResults": [
                    {"metricName": "m", "score": 1, "evalStatus": "passed"}
                ],
                "evalMetricResultPerInvocation": [
                    {
                        "actualInvocation": turn("q", "said"),
                        "expectedInvocation": turn("q", "want"),
                        "evalMetricResults": [
                            {"metricName": "m", "score": 1, "evalStatus": "passed"}
                        ],
                    }
                ],
            }
        ],
    }


def test_result_files_load_in_both_layouts(tmp_path: Path) -> None:
    plain = json.dumps(result_json())
    wrapped = json.dumps(plain)  # the legacy layout: the whole document as one JSON string
    for name, text in (("plain.json", plain), ("wrapped.json", wrapped)):
        path = tmp_path / name
        path.write_text(text)
        result = load_result(path)
        [case] = result.case_results()
        assert (result.eval_set_result_id, case.eval_id, case.final_eval_status.value) == (
            "r1",
            "c1",
            "passed",
        )
    result, problems = parse_result('"\\q"', "w.json")
    assert result is None
    assert texts(problems) == ["w.json: invalid JSON: Invalid \\escape at line 1 column 2"]


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(criteria_result(cases=6, num_runs=2)),
        json.dumps(criteria_result(cases=3, num_runs=1)).replace('"passed"', '"PASSED"', 1),
        json.dumps(criteria_result(cases=3, num_runs=1)).replace('"min": 10', '"min": 1.5'),
        '{"evalSetId": "a\\ud800b", "evalCaseResults": [{"evalId": "\\udc00"}]}',
        '{"evalCaseResults": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"evalCaseResults": [{"runId": true}]',
        "[]",
    ],
    ids=["valid", "status", "criterion", "surrogate", "nesting", "truncated", "array"],
)
def test_parse_result_gives_what_json_mode_gives(text: str) -> None:
    """parse_result reads the text piece by piece (result_inputs.py); the text's route is the
    reference: the same result, the same validation problems; text that is no JSON is one
    "invalid JSON" problem placed by line and column (the scanner's words, not pydantic's;
    text that ends inside its document is said to be cut short)."""
    # The reference reads a lone surrogate escape as Go does, as U+FFFD (go_escapes).
    try:
        expected = (EvalSetResult.model_validate_json(go_escapes(text)), [])
    except ValidationError as exc:
        expected = (None, validation_problems("r.json", exc))
    got = parse_result(text, "r.json")
    if expected[1] and expected[1][0].message.startswith("invalid JSON"):
        assert got[0] is None
        (problem,) = got[1]
        assert (problem.file, problem.path) == ("r.json", "")
        # Text cut short says so, placed where it ends (result_inputs._cut_short).
        placed = r"invalid JSON: (.+ at|the file ends at) line 1 column \d+(, inside its document)?"
        assert re.fullmatch(placed, problem.message)
        return
    assert got == expected


def test_traces_from_jsonl_array_and_result_file() -> None:
    records = [
        {"evalId": "c1", "actualConversation": [turn("q", "one")]},
        {"evalId": "c2", "actualConversation": [turn("q", "two"), turn("q2", "three")]},
    ]
    jsonl = "\n".join(json.dumps(r) for r in records) + "\n\n"
    for text in (jsonl, json.dumps(records)):
        traces, problems = parse_traces(text, "t")
        assert problems == []
        assert {k: len(v) for k, v in traces.items()} == {"c1": 1, "c2": 2}
    traces, problems = parse_traces(json.dumps(result_json()), "r")
    assert problems == []
    final = traces["c1"][0].final_response
    assert final is not None and final.content == "said"


def test_each_run_of_a_result_file_is_its_own_trace() -> None:
    """A --num-runs 2 result file as --traces: run 2's turns were dropped, and both runs
    replayed run 1's answer ("said"); now run 2 replays its own ("again")."""
    result = result_json()
    first = result["evalCaseResults"][0]
    second = json.loads(json.dumps(first))
    first["runId"], second["runId"] = 1, 2
    second["evalMetricResultPerInvocation"][0]["actualInvocation"] = turn("q", "again")
    result["evalCaseResults"].append(second)
    traces, problems = parse_traces(json.dumps(result), "r")
    assert problems == []
    answers = {k: [t.final_response.content for t in v if t.final_response] for k, v in traces.items()}  # fmt: skip
    assert answers == {"c1": ["said"], "c1\x00run 2": ["again"]}


def test_trace_problems_are_located_per_record() -> None:
    records = [
        [1],
        {"actualConversation": []},
        {"evalId": "c1", "actualConversation": []},
        {"evalId": "c1", "actualConversation": []},
    ]
    traces, problems = parse_traces(json.dumps(records), "t.json")
    assert list(traces) == ["c1"]
    assert texts(problems) == [
        "t.json: [0]: expected an object, got an array",
        "t.json: [1].evalId: evalId is missing or not a string",
        "t.json: [3].evalId: duplicate evalId 'c1'",
    ]
    traces, problems = parse_traces('{"evalId": "a"}\n{oops\n', "t.jsonl")
    assert traces == {}
    assert texts(problems) == [
        "t.jsonl: line 2: invalid JSON: Expecting property name enclosed in double quotes"
    ]


def test_a_bad_byte_on_the_first_json_line_is_located_as_on_any_other(tmp_path: Path) -> None:
    """Line 1 was "not UTF-8 text (invalid start byte)": no line, no column, no byte."""
    record = b'{"evalId": "c\xff", "actualConversation": []}\n'
    good = b'{"evalId": "b", "actualConversation": []}\n'
    for lineno, data in ((1, record + good), (2, good + record)):
        path = tmp_path / f"t{lineno}.jsonl"
        path.write_bytes(data)
        with pytest.raises(ConfigError) as refused:
            read_traces(path)
        assert str(refused.value) == (
            f"{path}: line {lineno}: not UTF-8 text: byte 0xff at column 14 (invalid start byte)"
        )


def test_evalset_paths_from_files_directories_and_globs(tmp_path: Path) -> None:
    (tmp_path / "b.evalset.json").write_text("{}")
    (tmp_path / "a.evalset.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("")
    empty = tmp_path / "empty"
    empty.mkdir()
    specs = [
        str(tmp_path),
        str(tmp_path / "a.evalset.json"),  # already found through the directory: once only
        str(tmp_path / "*.txt"),
        str(tmp_path / "*.yaml"),
        str(empty),
        str(tmp_path / "missing.json"),
    ]
    paths, problems = expand_evalset_paths(specs)
    assert [p.name for p in paths] == ["a.evalset.json", "b.evalset.json", "notes.txt"]
    assert [(p.file, p.message) for p in problems] == [
        (str(tmp_path / "*.yaml"), "the pattern matches no file"),
        (str(empty), "no *.evalset.json files in this directory"),
        (str(tmp_path / "missing.json"), "file not found"),
    ]


def test_ids_and_metric_paths_follow_the_go_convention() -> None:
    assert evalset_id_for(Path("d/order-api.evalset.json")) == "order-api"
    assert evalset_id_for(Path("d/cases.json")) == "cases"
    assert default_metrics_path(Path("d/order-api.evalset.json")) == Path(
        "d/order-api.metrics.json"
    )


def test_every_arm_of_a_union_refusing_a_value_is_one_problem() -> None:
    from agenteval.schema.result import EvalSetResult

    with pytest.raises(ValidationError) as raised:
        EvalSetResult.model_validate_json('{"judgeFailures": "x", "partial": "y"}')
    assert [str(p) for p in validation_problems("r.json", raised.value)] == [
        "r.json: partial: expected true or false, got a string",
        "r.json: judgeFailures: expected an array or an integer, got a string",
    ]


def test_a_csv_with_a_bom_and_a_stray_byte_is_named_for_the_byte(tmp_path: Path) -> None:
    """A format that takes a BOM (CSV) was refused for the BOM when a later byte was bad."""
    path = tmp_path / "labels.csv"
    path.write_bytes(b"\xef\xbb\xbfevalId,label\nc1,pa\xffss\n")
    with pytest.raises(ConfigError) as refused:
        read_text(path, allow_bom=True, csv=True)
    (problem,) = refused.value.problems
    assert problem.message.startswith("not UTF-8 text"), problem
