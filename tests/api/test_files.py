"""agenteval.load_evalset: the eval set checked as ``agenteval validate`` checks it."""

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
