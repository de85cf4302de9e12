"""File-kind detection: ADK and OTLP files given as ``--evalset`` are named, trpc files are not."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from otel_spans import Recorder, record_semconv

from agenteval.inputs.foreign_files import adk_case, kind_of_data, kind_of_file
from agenteval.schema.evalset import Invocation, Message, Tool
from cli_process import run_cli
from trpc_fixtures import FIXTURES as TRPC_FIXTURES

TURNS = [
    Invocation(
        user_content=Message(role="user", content="Rain in Oslo?"),
        final_response=Message(role="assistant", content="Likely."),
        tools=[Tool(name="get_forecast", arguments={"city": "Oslo"}, result={"rain": 0.7})],
    )
]

REPO = Path(__file__).resolve().parents[2]


def agenteval(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m agenteval ARGS``."""
    return run_cli(args, timeout=120)


def _trpc_files() -> list[Path]:
    files = sorted((REPO / "evalsets").rglob("*.json*")) + sorted(
        (REPO / "metrics").rglob("*.json")
    )
    files += sorted(TRPC_FIXTURES.rglob("*.json"))
    return [f for f in files if "adk" not in f.parts and "otel" not in f.parts]


def test_no_trpc_file_is_taken_for_a_foreign_one() -> None:
    files = _trpc_files()
    assert len(files) >= 10
    assert [f for f in files if kind_of_file(f) is not None] == []


def test_trpc_result_files_are_not_adk_results(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = agenteval(
        "run",
        "--evalset",
        str(REPO / "evalsets" / "help-center.evalset.json"),
        "--output",
        str(out),
    )
    assert proc.returncode in (0, 1), proc.stderr
    (result,) = out.glob("*.evalset_result.json")
    assert kind_of_file(result) is None


@pytest.fixture(scope="module")
def foreign_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("foreign")
    recorder = Recorder()
    record_semconv(recorder.tracer, "s-1", TURNS)
    adk_set = {
        "eval_set_id": "x",
        "eval_cases": [{"eval_id": "a", "conversation": []}],
    }
    camel_set = {
        "evalSetId": "x",
        "evalCases": [
            {
                "evalId": "a",
                "conversation": [{"userContent": {"role": "user", "parts": [{"text": "hi"}]}}],
            }
        ],
    }
    files = {
        "otlp-json": recorder.write_json(directory / "t.otlp.jsonl"),
        "otlp-protobuf": recorder.write_protobuf(directory / "t.otlp.pb"),
        "adk-evalset": directory / "snake.evalset.json",
        "adk-camel": directory / "camel.evalset.json",
        "adk-legacy": directory / "dice.test.json",
        "adk-result": directory / "r.evalset_result.json",
        "adk-camel-result": directory / "camel.evalset_result.json",
    }
    camel_result = {
        "evalSetResultId": "r",
        "evalSetId": "x",
        "evalCaseResults": [
            {
                "evalId": "a",
                "finalEvalStatus": 1,
                "evalMetricResultPerInvocation": [
                    {"actualInvocation": camel_set["evalCases"][0]["conversation"][0]}
                ],  # type: ignore[index]
            }
        ],
    }
    files["adk-camel-result"].write_text(json.dumps(camel_result), encoding="utf-8")
    files["adk-evalset"].write_text(json.dumps(adk_set), encoding="utf-8")
    files["adk-camel"].write_text(json.dumps(camel_set), encoding="utf-8")
    files["adk-legacy"].write_text(json.dumps([{"query": "q", "reference": "r"}]), encoding="utf-8")
    files["adk-result"].write_text(
        json.dumps(
            json.dumps({"eval_set_result_id": "r", "eval_set_id": "x", "eval_case_results": []})
        ),
        encoding="utf-8",
    )
    return files


# The format named (by checks/file_kind.py for one parsed document, else by importers/detect.py)
# and the command that converts it.
EXPECTED = {
    "otlp-json": ("OpenTelemetry", "agenteval import otel"),
    "otlp-protobuf": ("OpenTelemetry OTLP protobuf trace export", "agenteval import otel"),
    "adk-evalset": ("Google ADK eval set", "agenteval import adk"),
    "adk-camel": ("Google ADK eval set", "agenteval import adk"),
    "adk-legacy": ("Google ADK", "agenteval import adk"),
    "adk-result": ("Google ADK eval result file", "agenteval import adk"),
    "adk-camel-result": ("Google ADK", "agenteval import adk"),
}


@pytest.mark.parametrize("command", ["run", "validate"])
@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_foreign_file_as_evalset_names_format_and_import_command(
    foreign_files: dict[str, Path], kind: str, command: str
) -> None:
    proc = agenteval(
        command, "--evalset", str(foreign_files[kind]), "--no-cache" if command == "run" else "-v"
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    name, import_command = EXPECTED[kind]
    assert name in proc.stderr and import_command in proc.stderr
    assert str(foreign_files[kind]) in proc.stderr
    assert "Traceback" not in proc.stderr


def test_import_refuses_the_other_kind(foreign_files: dict[str, Path], tmp_path: Path) -> None:
    proc = agenteval("import", "adk", str(foreign_files["otlp-json"]), "-o", str(tmp_path))
    assert proc.returncode == 2
    assert "OTLP JSON trace export (use agenteval import otel)" in proc.stderr
    proc = agenteval("import", "otel", str(foreign_files["adk-camel"]), "-o", str(tmp_path))
    assert proc.returncode == 2
    assert "Google ADK eval set (use agenteval import adk)" in proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "case",
    [
        {"evalId": "a", "conversation": [{"userContent": {"parts": [{"text": "hi"}]}}]},
        {"conversation": [None, {"intermediateData": {}}]},
        {"conversation": [{"user_content": {"role": "user"}}]},
        {"conversation": [{"userContent": {"content": "hi"}}]},
        {"conversation": "not turns"},
        {"actualConversation": [{"intermediateData": {}}]},
        [{"intermediateData": {}}],
        None,
    ],
)
def test_one_case_is_adk_as_its_one_case_eval_set_is(case: object) -> None:
    assert adk_case(case) == (kind_of_data({"evalCases": [case]}) == "adk-evalset")
