"""agenteval.load_evalset (checked as ``agenteval validate`` checks it), load_metrics,
load_result and load_traces (read as the command that takes each file reads it)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import agenteval
from agenteval.errors import ConfigError, Problem

CASE = {"evalId": "a", "evalMode": "trace", "actualConversation": []}


def write(path: Path, **keys: object) -> Path:
    path.write_text(json.dumps({"evalSetId": "s", "evalCases": [CASE], **keys}))
    return path


def test_a_near_miss_key_is_an_error_with_its_place(tmp_path: Path) -> None:
    # Loaded without a word before (the model reader alone); validate exits 2.
    path = write(tmp_path / "s.evalset.json", EvalCases=[], colour=1)
    with pytest.raises(ConfigError) as caught:
        agenteval.load_evalset(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}: EvalCases: 'EvalCases' is not a field of EvalSet (did you mean 'evalCases'?)"
    ]
    assert [w.path for w in caught.value.warnings] == ["colour"]
    # lenient: the near miss is a warning, as validate --lenient says.
    found: list[Problem] = []
    evalset = agenteval.load_evalset(str(path), lenient=True, warnings=found)
    assert [c.eval_id for c in evalset.eval_cases] == ["a"]
    assert [str(w) for w in found] == [
        str(caught.value.problems[0]),
        str(caught.value.warnings[0]),
    ]


def test_other_files_and_non_finite_numbers_are_refused(tmp_path: Path) -> None:
    result = tmp_path / "r.json"
    result.write_text(json.dumps({"evalSetResultId": "r", "evalCaseResults": []}))
    nan = tmp_path / "n.evalset.json"
    nan.write_text('{"evalSetId": "s", "evalCases": [], "creationTimestamp": NaN}')
    for path, words in ((result, "looks like a result file"), (nan, "NaN")):
        with pytest.raises(ConfigError) as caught:
            agenteval.load_evalset(path)
        assert words in str(caught.value)


def test_warnings_without_a_list_are_emitted_not_dropped(tmp_path: Path) -> None:
    path = write(tmp_path / "s.evalset.json", colour=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agenteval.load_evalset(path)
    assert [str(w.message) for w in caught] == [
        f"{path}: colour: 'colour' is not a field of EvalSet (known: evalSetId, name, "
        "description, evalCases, creationTimestamp, $schema)"
    ]
    assert caught[0].category is UserWarning and caught[0].filename == __file__
    with pytest.raises(ConfigError, match="'colour' is not a field"):  # strict: an error
        agenteval.load_evalset(path, strict=True)
    with pytest.raises(ConfigError, match="lenient: cannot be combined with strict"):
        agenteval.load_evalset(path, strict=True, lenient=True)


# load_metrics, load_result and load_traces: read as the command that takes the file reads it.

METRIC = {
    "metricName": "m",
    "evaluatorName": "final_response_avg_score",
    "threshold": 1.0,
    "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
}


def test_load_metrics_checks_as_run_and_takes_warnings(tmp_path: Path) -> None:
    path = tmp_path / "s.metrics.json"
    # A near miss was loaded without a word by the model reader alone.
    path.write_text(json.dumps([{**METRIC, "Threshold": 1}]))
    with pytest.raises(ConfigError, match=r"'Threshold' is not a field.*did you mean"):
        agenteval.load_metrics(path)
    # Invalid UTF-8 inside a string: refused before; now U+FFFD and a warning, as run reads it.
    path.write_bytes(json.dumps([{**METRIC, "metricName": "m?"}]).encode().replace(b"?", b"\xff"))
    found: list[Problem] = []
    (metric,) = agenteval.load_metrics(str(path), warnings=found)
    assert metric.metric_name == "m\ufffd" and metric.threshold == 1.0
    assert len(found) == 1 and "invalid UTF-8" in str(found[0]), found
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agenteval.load_metrics(path)
    assert [str(w.message) for w in caught] == [str(found[0])]
    assert caught[0].filename == __file__


def test_load_result_reads_as_show_and_takes_warnings(tmp_path: Path) -> None:
    result = {"evalSetResultId": "r", "evalSetId": "s?", "evalCaseResults": []}
    path = tmp_path / "r.evalset_result.json"
    path.write_bytes(json.dumps(result).encode().replace(b"?", b"\xff"))
    found: list[Problem] = []
    loaded = agenteval.load_result(path, warnings=found)
    assert loaded.eval_set_id == "s\ufffd"
    assert len(found) == 1 and "invalid UTF-8" in str(found[0]), found
    evalset = write(tmp_path / "s.evalset.json")
    with pytest.raises(ConfigError, match="eval set"):
        agenteval.load_result(evalset)


def test_load_traces_sorts_unknown_keys_as_run_traces_does(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"evalId": "a", "actualConversation": [], "colour": 1}) + "\n")
    found: list[Problem] = []
    traces = agenteval.load_traces(path, warnings=found)
    assert list(traces) == ["a"]
    assert [w.path for w in found] == ["line 1.colour"], found
    with pytest.raises(ConfigError, match="colour"):
        agenteval.load_traces(path, strict=True)
