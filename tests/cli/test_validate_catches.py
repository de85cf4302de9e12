"""``validate`` catches everything ``run`` would trip on, before any judge call: exit 2, located.

Each input of issue 12 that ``validate`` used to pass is a located one-line
error with a hint from ``validate`` and from ``run`` (which makes no judge
call), and files of another kind are named.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cli_process import run_cli
from judge_server import JudgeServer


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=120)


TURN = {
    "userContent": {"role": "user", "content": "hello"},
    "finalResponse": {"role": "assistant", "content": "hi"},
}


def case(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "evalId": "c1",
        "evalMode": "trace",
        "sessionInput": {"appName": "a", "userId": "u"},
        "conversation": [TURN],
        "actualConversation": [TURN],
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def judge_metric(base_url: str, **model: Any) -> list[dict[str, Any]]:
    judge = {"providerName": "openai", "modelName": "m", "baseURL": base_url, "apiKey": "sk-x"}
    judge.update(model)
    return [
        {
            "metricName": "llm_final_response",
            "threshold": 1,
            "criterion": {"llmJudge": {"judgeModel": judge}},
        }
    ]


TEXT_METRIC = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
]


def write(
    tmp_path: Path, evalset: Any, metrics: Any, *, raw_metrics: str | None = None
) -> tuple[Path, Path]:
    evalset_path = tmp_path / "s.evalset.json"
    evalset_path.write_text(evalset if isinstance(evalset, str) else json.dumps(evalset))
    metrics_path = tmp_path / "s.metrics.json"
    metrics_path.write_text(raw_metrics if raw_metrics is not None else json.dumps(metrics))
    return evalset_path, metrics_path


def evalset_of(*cases: dict[str, Any]) -> dict[str, Any]:
    return {"evalSetId": "s", "evalCases": list(cases)}


# (name, eval set, metrics or raw metric text, file ("evalset"/"metrics"), location, message part, hint part)
CASES: list[tuple[str, Any, Any, str, str, str, str]] = [
    (
        "no sessionInput",
        evalset_of(case(sessionInput=None)),
        TEXT_METRIC,
        "evalset",
        "evalCases[0]",
        "session input is nil",
        '"sessionInput"',
    ),
    (
        "actualConversation without trace mode",
        evalset_of(case(evalMode=None)),
        TEXT_METRIC,
        "evalset",
        "evalCases[0]",
        "actualConversation is only supported in trace mode",
        '"evalMode": "trace"',
    ),
    (
        "turn counts that cannot be aligned",
        evalset_of(case(conversation=[TURN, TURN])),
        TEXT_METRIC,
        "evalset",
        "evalCases[0]",
        "actual conversation length 1 does not match conversation length 2",
        "one turn each per user message",
    ),
    (
        "NaN threshold",
        evalset_of(case()),
        '[{"metricName": "final_response_avg_score", "threshold": NaN}]',
        "metrics",
        "[0].threshold",
        "nan is not a finite number",
        "cannot be compared",
    ),
    (
        "Infinity tolerance",
        evalset_of(case()),
        '[{"metricName": "final_response_avg_score", "threshold": 1, "criterion":'
        ' {"finalResponse": {"json": {"numberTolerance": Infinity}}}}]',
        "metrics",
        "[0].criterion.finalResponse.json.numberTolerance",
        "inf is not a finite number",
        "cannot be compared",
    ),
    (
        "1e400 threshold",
        evalset_of(case()),
        '[{"metricName": "final_response_avg_score", "threshold": 1e400}]',
        "metrics",
        "[0].threshold",
        "inf is not a finite number",
        "cannot be compared",
    ),
    (
        "integer beyond float64 as threshold",
        evalset_of(case()),
        '[{"metricName": "final_response_avg_score", "threshold": 1' + "0" * 400 + "}]",
        "metrics",
        "[0].threshold",
        "an integer of 401 digits is not a finite number",
        "cannot be compared",
    ),
    (
        "integer beyond float64 in tool arguments",
        evalset_of(
            case(
                actualConversation=[{**TURN, "tools": [{"name": "t", "arguments": {"n": 10**400}}]}]
            )
        ),
        TEXT_METRIC,
        "evalset",
        "evalCases[0].actualConversation[0].tools[0].arguments.n",
        "an integer of 401 digits is not a finite number",
        "cannot be compared",
    ),
]

JUDGE_CASES: list[tuple[str, dict[str, Any], str, str, str]] = [
    (
        "numSamples 10^12",
        {"numSamples": 10**12},
        "numSamples",
        "num samples must be at most 100, got 1000000000000",
        "one judge call per turn",
    ),
    (
        "API key with CR/LF",
        {"apiKey": "sk-abc\r\nX-Injected: 1"},
        "apiKey",
        "no HTTP header can carry",
        "stray newline",
    ),
    (
        "API key with non-ASCII",
        {"apiKey": "sk-ключ"},
        "apiKey",
        "no HTTP header can carry",
        "check apiKey",
    ),
    (
        "ftp base URL",
        {"baseURL": "ftp://127.0.0.1/v1"},
        "baseURL",
        "base URL 'ftp://127.0.0.1/v1' is not an http(s) URL with a host",
        "e.g. https://",
    ),
    (
        "base URL that does not parse",
        {"baseURL": "http://127.0.0.1:99999/v1"},
        "baseURL",
        "base URL does not parse",
        "",
    ),
]


def assert_located(
    proc: subprocess.CompletedProcess[str], file: Path, where: str, message: str, hint: str
) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    matching = [line for line in lines if line.startswith(f"error: {file}: {where}: ")]
    assert matching, proc.stderr
    assert message in matching[0]
    assert hint in matching[0]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(("name", "evalset", "metrics", "file", "where", "message", "hint"), CASES)
def test_validate_and_run_refuse_what_run_would_trip_on(
    tmp_path: Path,
    name: str,
    evalset: Any,
    metrics: Any,
    file: str,
    where: str,
    message: str,
    hint: str,
) -> None:
    raw = metrics if isinstance(metrics, str) else None
    evalset_path, metrics_path = write(tmp_path, evalset, metrics, raw_metrics=raw)
    located = evalset_path if file == "evalset" else metrics_path
    for command in ("validate", "run"):
        proc = cli(command, "--evalset", str(evalset_path), "--metrics", str(metrics_path))
        assert_located(proc, located, where, message, hint)


@pytest.mark.parametrize(("name", "model", "key", "message", "hint"), JUDGE_CASES)
def test_judge_settings_that_can_never_work_are_config_errors_never_retried(
    judge_server: JudgeServer,
    tmp_path: Path,
    name: str,
    model: dict[str, Any],
    key: str,
    message: str,
    hint: str,
) -> None:
    metrics = judge_metric(judge_server.base_url, **model)
    evalset_path, metrics_path = write(tmp_path, evalset_of(case()), metrics)
    where = f"[0].criterion.llmJudge.judgeModel.{key}"
    for command in ("validate", "run"):
        proc = cli(command, "--evalset", str(evalset_path), "--metrics", str(metrics_path))
        assert_located(proc, metrics_path, where, message, hint)
        assert "sk-abc" not in proc.stderr and "ключ" not in proc.stderr
    assert judge_server.count == 0  # refused before any judge call, never retried


def test_an_integer_beyond_float64_in_a_number_field_is_one_error(tmp_path: Path) -> None:
    # The type check and the non-finite check both find it: one line, not also
    # "expected a number, got a number".
    metrics = '[{"metricName": "final_response_avg_score", "threshold": 1' + "0" * 400 + "}]"
    evalset_path, metrics_path = write(tmp_path, evalset_of(case()), None, raw_metrics=metrics)
    proc = cli("validate", "--evalset", str(evalset_path), "--metrics", str(metrics_path))
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [
        f"error: {metrics_path}: [0].threshold: an integer of 401 digits is not a finite number"
        " (NaN, Infinity and numbers beyond ±1.8e308 cannot be compared)"
    ]
    assert "1 problem found" in proc.stderr


def test_num_runs_past_the_bound_is_exit_2(tmp_path: Path) -> None:
    evalset_path, metrics_path = write(tmp_path, evalset_of(case()), TEXT_METRIC)
    proc = cli(
        "run", "--evalset", str(evalset_path), "--metrics", str(metrics_path), "--num-runs", "5000"
    )
    assert proc.returncode == 2
    assert "error: --num-runs: must be at most 1000, got 5000" in proc.stderr


ADK_EVALSET = {
    "eval_set_id": "adk",
    "eval_cases": [
        {
            "eval_id": "e1",
            "conversation": [
                {
                    "user_content": {"parts": [{"text": "hi"}], "role": "user"},
                    "final_response": None,
                }
            ],
        }
    ],
}
ADK_CAMEL = {
    "evalSetId": "adk",
    "evalCases": [
        {
            "evalId": "e1",
            "conversation": [{"userContent": {"parts": [{"text": "hi"}], "role": "user"}}],
        }
    ],
}
OTLP = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": []}]}
RESULT = {"evalSetResultId": "r", "evalSetId": "s", "evalCaseResults": []}
RUN_DOCUMENT = {"agentevalVersion": "0.1.0", "overallStatus": "passed", "evalSetResults": []}


@pytest.mark.parametrize(
    ("document", "looks_like", "hint"),
    [
        (ADK_EVALSET, "a Google ADK eval set", "agenteval import adk"),
        (ADK_CAMEL, "a Google ADK eval set", "agenteval import adk"),
        (OTLP, "an OpenTelemetry (OTLP/JSON) export", "agenteval import otel"),
        (RESULT, "a result file", "show, diff, merge"),
        (RUN_DOCUMENT, "an agenteval --json run document", "show, diff, merge"),
        (TEXT_METRIC, "a metric file", "--metrics"),
    ],
)
def test_files_of_another_kind_given_as_eval_set_are_named(
    tmp_path: Path, document: Any, looks_like: str, hint: str
) -> None:
    evalset_path, metrics_path = write(tmp_path, document, TEXT_METRIC)
    proc = cli("validate", "--evalset", str(evalset_path), "--metrics", str(metrics_path))
    assert proc.returncode == 2
    assert f"error: {evalset_path}: not an eval set (looks like {looks_like}) (" in proc.stderr
    assert hint in proc.stderr


def test_an_eval_set_given_as_metric_file_is_named(tmp_path: Path) -> None:
    evalset_path, metrics_path = write(tmp_path, evalset_of(case()), evalset_of(case()))
    proc = cli("validate", "--evalset", str(evalset_path), "--metrics", str(metrics_path))
    assert proc.returncode == 2
    assert (
        f"error: {metrics_path}: not a metric file (looks like an eval set) (pass it with --evalset)"
        in proc.stderr
    )


def test_an_adk_test_config_given_as_metric_file_is_named(tmp_path: Path) -> None:
    config = {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}
    evalset_path, metrics_path = write(tmp_path, evalset_of(case()), config)
    proc = cli("validate", "--evalset", str(evalset_path), "--metrics", str(metrics_path))
    assert proc.returncode == 2
    assert (
        f"error: {metrics_path}: not a metric file (looks like a Google ADK test_config.json) "
        "(`agenteval import adk EVALSET -o DIR` converts it with the eval set beside it)"
    ) in proc.stderr.splitlines()


def test_json_lines_of_traces_given_as_eval_set_or_metric_file_are_named(tmp_path: Path) -> None:
    evalset_path, metrics_path = write(tmp_path, evalset_of(case()), TEXT_METRIC)
    traces = tmp_path / "recorded.jsonl"
    record = {"evalId": "c1", "actualConversation": []}
    traces.write_text(json.dumps(record) + "\n" + json.dumps({**record, "evalId": "c2"}) + "\n")
    for flags, noun in (
        (["--evalset", str(evalset_path), "--metrics", str(traces)], "a metric file"),
        (["--evalset", str(traces), "--metrics", str(metrics_path)], "an eval set"),
    ):
        proc = cli("validate", *flags)
        assert proc.returncode == 2, proc.stderr
        assert (
            f"error: {traces}: not {noun} (looks like a traces file) (pass it with --traces)"
            in proc.stderr.splitlines()
        ), proc.stderr


def test_the_valid_suite_still_validates(tmp_path: Path) -> None:
    evalset_path, metrics_path = write(tmp_path, evalset_of(case()), TEXT_METRIC)
    proc = cli("validate", "--evalset", str(evalset_path), "--metrics", str(metrics_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
