"""The labels file: JSONL or CSV, one verdict per item, every problem located."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenteval.calibrate.labels import read_labels
from agenteval.errors import ConfigError


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
