"""The labels file: JSONL or CSV, one verdict per item, every problem located."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval.calibrate.labels import read_labels
from agenteval.errors import ConfigError
from agenteval.schema.base import dump_json
from sample_results import case_result, eval_set_result, metric


def test_jsonl_and_csv_read_the_same_labels(tmp_path: Path) -> None:
    jsonl = tmp_path / "l.jsonl"
    jsonl.write_text(
        '{"evalSetId": "s", "evalId": "a", "metricName": "m", "label": "pass"}\n\n'
        '{"evalSetId": "s", "evalId": "a", "metricName": "m", "rubricId": "r1", "score": 0.5}\n'
        '{"evalSetId": "s", "evalId": "b", "metricName": "m", "runId": 2, "category": "x"}\n'
    )
    csv = tmp_path / "l.csv"
    csv.write_text(
        "evalSetId,evalId,metricName,rubricId,runId,label,score,category\n"
        "s,a,m,,,pass,,\ns,a,m,r1,,,0.5,\ns,b,m,,2,,,x\n"
    )
    from_jsonl, from_csv = read_labels(jsonl), read_labels(csv)
    assert [label.line for label in from_jsonl] == [label.line for label in from_csv]
    assert [label.kind for label in from_jsonl] == ["label", "score", "category"]
    assert from_jsonl[2].item == ("s", "b", "m", 2, None, None)
    assert [label.where for label in from_jsonl] == ["line 1", "line 3", "line 4"]


def test_two_labels_for_one_item_are_an_error(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    line = '{"evalSetId": "s", "evalId": "a", "metricName": "m", "label": "pass"}\n'
    path.write_text(line + line)
    with pytest.raises(ConfigError) as caught:
        read_labels(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}: line 2: labels the same item as line 1 (keep one label per item)"
    ]


def test_csv_cells_beyond_the_header_and_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "l.csv"
    path.write_text("evalSetId,evalId,metricName,label\ns,a,m,pass,extra\n")
    with pytest.raises(ConfigError) as caught:
        read_labels(path)
    assert "line 2: more cells than the header's 4 columns" in str(caught.value.problems[0])
    empty = tmp_path / "e.jsonl"
    empty.write_text("\n")
    with pytest.raises(ConfigError, match="no labels"):
        read_labels(empty)


LINE = '{"evalSetId": "s", "evalId": "a", "metricName": "m", "label": "pass"}'


def problems_of(path: Path) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        read_labels(path)
    return [str(p) for p in caught.value.problems]


def test_a_file_of_another_kind_is_named_once(tmp_path: Path) -> None:
    metrics = tmp_path / "m.metrics.json"
    metrics.write_text(json.dumps([{"metricName": "m", "threshold": 1}], indent=2))
    assert problems_of(metrics) == [
        f"{metrics}: not a labels file (looks like a metric file) (pass it with --metrics)"
    ]
    result = tmp_path / "r.evalset_result.json"
    data = json.loads(dump_json(eval_set_result("s", [case_result("s", "a", [metric("m", 1)])])))
    result.write_text(json.dumps(data, indent=2))
    assert problems_of(result) == [
        f"{result}: not a labels file (looks like a result file) "
        "(give it as the RESULT: agenteval calibrate RESULT --labels FILE)"
    ]
    traces = tmp_path / "t.jsonl"
    record = {"evalId": "a", "actualConversation": []}
    traces.write_text(json.dumps(record) + "\n" + json.dumps(record) + "\n")
    assert problems_of(traces) == [
        f"{traces}: not a labels file (looks like a traces file) (pass it with --traces)"
    ]
    array = tmp_path / "a.jsonl"
    array.write_text(f"[{LINE}]\n")
    assert problems_of(array) == [
        f"{array}: a JSON array of labels (write one JSON object per line)"
    ]
    pretty = tmp_path / "p.jsonl"
    pretty.write_text(json.dumps(json.loads(LINE), indent=2) + "\n")
    assert problems_of(pretty) == [
        f"{pretty}: one label spread over 6 lines (write each label on one line)"
    ]


def test_a_line_that_is_no_json_object_says_so(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    path.write_text(LINE + '\n"label: must be pass or fail"\n[1]\n')
    assert problems_of(path) == [
        f"{path}: line 2: expected a JSON object (one label per line)",
        f"{path}: line 3: expected a JSON object (one label per line)",
    ]
    # A first line that lacks its metric and verdict is still a label, not an eval set.
    path.write_text('{"evalSetId": "s", "evalId": "a"}\n' + LINE + "\n")
    (problem,) = problems_of(path)
    assert problem.startswith(f"{path}: line 1: ") and "looks like" not in problem


def test_lines_end_at_newlines_only(tmp_path: Path) -> None:
    # U+2028, U+0085 and U+2029 may stand raw in a JSON string; \r\n is a line end too.
    path = tmp_path / "l.jsonl"
    path.write_text(
        '{"evalSetId": "s", "evalId": "a\u2028b\x85c\u2029d", "metricName": "m", "label": "pass"}\r\n'
        + LINE.replace('"a"', '"e"')
        + "\r\n",
        newline="",
    )
    labels = read_labels(path)
    assert [(label.line.eval_id, label.where) for label in labels] == [
        ("a\u2028b\x85c\u2029d", "line 1"),
        ("e", "line 2"),
    ]


def test_a_csv_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    # Excel's "CSV UTF-8" starts with U+FEFF; a JSONL file with one is still refused.
    path = tmp_path / "l.csv"
    path.write_bytes("\ufeffevalSetId,evalId,metricName,label\ns,a,m,pass\n".encode())
    (label,) = read_labels(path)
    assert label.item == ("s", "a", "m", 1, None, None) and label.line.label == "pass"
    jsonl = tmp_path / "l.jsonl"
    jsonl.write_bytes(("\ufeff" + LINE + "\n").encode())
    assert "byte order mark" in problems_of(jsonl)[0]


def test_a_key_or_column_given_twice_is_an_error(tmp_path: Path) -> None:
    jsonl = tmp_path / "l.jsonl"
    jsonl.write_text(LINE.replace('"label": "pass"', '"label": "pass", "label": "fail"') + "\n")
    assert problems_of(jsonl) == [
        f'{jsonl}: line 1: label: key "label" given twice; the last value ("fail") is used'
        " (give each key once)"
    ]
    table = tmp_path / "l.csv"
    table.write_text("evalSetId,evalId,metricName,label,label\ns,a,m,pass,fail\n")
    assert problems_of(table) == [
        f'{table}: line 1: column "label" named twice (name each column once)'
    ]
