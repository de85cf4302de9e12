"""Result files: Go-style JSON, safe names, atomic writes (formats.md §0.2, §1; ARCHITECTURE §4)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

from agenteval import __version__
from agenteval.report.result_files import (
    RESULT_SUFFIX,
    run_document,
    safe_name,
    to_go_json,
    write_json,
    write_result,
    write_run_json,
)
from agenteval.results.aggregation import PASS_AT_K_KEY, build_summary
from agenteval.schema.evalset import Invocation
from agenteval.schema.result import (
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    MetricDetails,
)
from agenteval.schema.status import EvalStatus
from trpc_fixtures import FIXTURES

P = EvalStatus.PASSED
F = EvalStatus.FAILED

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"


def sample_result(eval_set_id: str = "math-basic", runs: int = 1) -> EvalSetResult:
    cases = []
    for run in range(1, runs + 1):
        turn = EvalMetricResult(
            metric_name="final_response_avg_score",
            score=0.0 if run == 2 else 1.0,
            eval_status=F if run == 2 else P,
            threshold=1.0,
            details=MetricDetails(reason="expected <b> & got “ß”\u2028", score=0.0),
        )
        cases.append(
            EvalCaseResult(
                eval_set_id=eval_set_id,
                eval_id="calc_add",
                run_id=run,
                score=turn.score,
                final_eval_status=turn.eval_status,
                overall_eval_metric_results=[turn],
                eval_metric_result_per_invocation=[
                    EvalMetricResultPerInvocation(
                        actual_invocation=Invocation.model_validate_json(
                            '{"invocationId": "i1", "finalResponse": '
                            '{"role": "assistant", "content": "3 < 4 && 0.5"}}'
                        ),
                        eval_metric_results=[turn],
                    )
                ],
            )
        )
    result = EvalSetResult(eval_set_id=eval_set_id, eval_case_results=cases)
    result.summary = build_summary(result.case_results(), runs)
    return result


# --- encoding -----------------------------------------------------------------------------


def test_to_go_json_layout_and_escapes() -> None:
    data: dict[str, Any] = {
        "b": [1, 0.5, 1.5e-5],
        "a": "<tag> & \u2028\u2029 é 中",
        "c": {},
        "d": [],
        "e": None,
    }
    text = to_go_json(data)
    assert text == (
        "{\n"
        '  "b": [\n    1,\n    0.5,\n    0.000015\n  ],\n'
        '  "a": "\\u003ctag\\u003e \\u0026 \\u2028\\u2029 é 中",\n'
        '  "c": {},\n  "d": [],\n  "e": null\n'
        "}\n"
    )
    assert json.loads(text) == data


def test_to_go_json_control_characters_and_surrogates() -> None:
    text = to_go_json({"s": 'q"\\\n\t\x01\ud800'})
    assert text == '{\n  "s": "q\\"\\\\\\n\\t\\u0001\\ufffd"\n}\n'
    text.encode("utf-8")


def test_to_go_json_placeholder_never_leaks() -> None:
    values = [1.5e-5 * i for i in range(1, 30)]
    assert json.loads(to_go_json(values)) == values
    assert "\\u0000" not in to_go_json(values)


# --- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("math-basic", "math-basic"),
        ("jieba-rouge-zh", "jieba-rouge-zh"),
        ("天气.v2", "天气.v2"),
        ("../../x", "___.._x"),
        ("a/b\\c\x00d", "a_b_c_d"),
        (".hidden", "_hidden"),
        ("..", "__"),
        ("", "_"),
        ("C:evil name", "C_evil_name"),
    ],
)
def test_safe_name(raw: str, safe: str) -> None:
    assert safe_name(raw) == safe


def test_safe_name_limits_bytes() -> None:
    name = safe_name("语" * 100)
    assert len(name.encode("utf-8")) <= 80
    assert name == "语" * 26


@pytest.mark.parametrize("eval_set_id", ["../../x", "/etc/passwd", "..\\..\\x", "a\x00b", ".."])
def test_write_result_stays_inside_output_dir(tmp_path: Path, eval_set_id: str) -> None:
    out = tmp_path / "deep" / "out"
    path = write_result(sample_result(eval_set_id), out, app_name="../app")
    assert path.parent.resolve() == out.resolve()
    assert path.resolve().is_relative_to(out.resolve())
    assert [p.name for p in out.iterdir()] == [path.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep"]
    assert not path.name.startswith(".")


def test_write_result_names_and_round_trip(tmp_path: Path) -> None:
    result = sample_result(runs=2)
    before = time.time()
    path = write_result(result, tmp_path, app_name="math-eval-app")
    assert re.fullmatch(rf"math-eval-app_math-basic_{UUID}", result.eval_set_result_id)
    assert result.eval_set_result_name == result.eval_set_result_id
    assert path.name == result.eval_set_result_id + RESULT_SUFFIX
    assert result.creation_timestamp is not None
    assert before <= result.creation_timestamp <= time.time()

    text = path.read_text(encoding="utf-8")
    loaded = EvalSetResult.model_validate_json(text)
    assert loaded == result
    assert loaded.summary is not None
    assert PASS_AT_K_KEY in (loaded.summary.model_extra or {})

    # Go layout on disk: 2-space indent, escapes, integral floats, newline at EOF
    assert text.startswith('{\n  "evalSetResultId": ')
    assert text.endswith("}\n")
    assert "\\u003cb\\u003e \\u0026" in text
    assert "“ß”\\u2028" in text
    assert '"threshold": 1,' in text
    assert '"score": 1,' in text  # result scores are written like Go's integral floats
    assert oct(path.stat().st_mode & 0o777) == oct(0o644)


def test_write_result_keeps_given_ids(tmp_path: Path) -> None:
    result = sample_result()
    result.eval_set_result_id = "fixed/id"
    result.eval_set_result_name = "nice name"
    path = write_result(result, tmp_path, app_name="app")
    assert path.name == "fixed_id" + RESULT_SUFFIX
    assert result.eval_set_result_id == "fixed/id"
    assert result.eval_set_result_name == "nice name"


def test_write_leaves_no_temp_file(tmp_path: Path) -> None:
    for _ in range(3):
        write_result(sample_result(), tmp_path, app_name="app")
    write_json(tmp_path / "run.json", {"x": 1})
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 4
    assert not [n for n in names if n.startswith(".") or n.endswith(".tmp")]


def test_failed_write_keeps_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "run.json"
    write_json(target, {"version": 1})
    with pytest.raises(TypeError):
        write_json(target, {"bad": object()})
    assert json.loads(target.read_text(encoding="utf-8")) == {"version": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]


def test_failed_rename_removes_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()
    (target / "child").write_text("x")
    # os.replace cannot put a file over a non-empty directory
    with pytest.raises(OSError):
        write_json(target, {"x": 1})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_write_json_creates_parent_dirs(tmp_path: Path) -> None:
    path = write_json(tmp_path / "a" / "b" / "run.json", [1, "<"])
    assert path.read_text(encoding="utf-8") == '[\n  1,\n  "\\u003c"\n]\n'


def test_run_document_shape(tmp_path: Path) -> None:
    passing = sample_result("set-a")
    failing = sample_result("set-b", runs=2)
    document = run_document([passing, failing], duration_seconds=0.5, extra={"judgeUsage": {}})
    assert document["agentevalVersion"] == __version__
    # set-b: run 1 passed, run 2 failed → averaged score 0.5 < 1 → failed
    assert document["overallStatus"] == "failed"
    assert document["caseStatusCounts"] == {"passed": 1, "failed": 1, "notEvaluated": 0}
    assert document["numEvalSets"] == 2
    assert document["durationSeconds"] == 0.5
    assert document["judgeUsage"] == {}
    path = write_json(tmp_path / "run.json", document)
    reread = json.loads(path.read_text(encoding="utf-8"))
    results = [EvalSetResult.model_validate_json(json.dumps(r)) for r in reread["evalSetResults"]]
    assert results == [passing, failing]


def test_fixture_result_survives_rewrite(tmp_path: Path) -> None:
    source = next((FIXTURES / "caseaggregation" / "output").rglob("*" + RESULT_SUFFIX))
    stored = EvalSetResult.model_validate_json(source.read_text(encoding="utf-8"))
    path = write_result(stored, tmp_path, app_name="case-aggregation-app")
    assert path.name == source.name
    assert EvalSetResult.model_validate_json(path.read_text(encoding="utf-8")) == stored
    # the Go file and ours agree as JSON on everything Go wrote (we only add explicit zeros)
    ours = json.loads(path.read_text(encoding="utf-8"))
    theirs = json.loads(source.read_text(encoding="utf-8"))
    assert ours["summary"]["overallStatus"] == theirs["summary"]["overallStatus"]
    assert ours["evalCaseResults"][0]["score"] == theirs["evalCaseResults"][0]["score"] == 0.8


def test_output_dir_is_created(tmp_path: Path) -> None:
    out = tmp_path / "new"
    path = write_result(sample_result(), out, app_name="app")
    assert path.is_file()
    assert os.path.dirname(path) == str(out)


def test_write_run_json_from_api_run_result(tmp_path: Path) -> None:
    from agenteval.api import RunResult
    from agenteval.errors import Problem

    results = [sample_result("set-a")]
    run = RunResult(
        results=results,
        sources=[tmp_path / "set-a.evalset.json"],
        status=P,
        exit_code=0,
        elapsed=1.25,
        warnings=[Problem("m.json", "[0]", "metric file not found", "pass --metrics")],
    )
    path = write_run_json(tmp_path / "out" / "run.json", run)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["overallStatus"] == "passed"
    assert document["durationSeconds"] == 1.25
    assert document["warnings"] == ["m.json: [0]: metric file not found (pass --metrics)"]
    assert document["caseStatusCounts"] == {"passed": 1, "failed": 0, "notEvaluated": 0}
    assert [
        EvalSetResult.model_validate_json(json.dumps(r)) for r in document["evalSetResults"]
    ] == (results)
