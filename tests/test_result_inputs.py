"""Reading results in every form: result files (also legacy-wrapped), run documents, directories."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from agenteval.errors import ConfigError
from agenteval.loading import load_result, validation_problems
from agenteval.long_lived import FREEZE_FROM_CHARS
from agenteval.result_inputs import case_count, parse_results, read_results
from agenteval.schema.base import dump_json
from agenteval.schema.result import EvalSetResult
from tests.sample_results import criteria_result

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
