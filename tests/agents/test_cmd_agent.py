"""``--agent cmd:``: captured turns equal the agent's own log, mocks, record/replay, faults."""

from __future__ import annotations

import json
from pathlib import Path

from agent_cli import (
    EXACT_FINAL,
    EXAMPLE_AGENT,
    FAULT_AGENT,
    REPO,
    case_results,
    echo_case,
    run_cli,
    write_evalset,
)

EVALSET = REPO / "evalsets" / "agent" / "calculator-agent.evalset.json"


def _drive(tmp_path: Path, *extra: str) -> tuple[int, Path, Path]:
    log = tmp_path / "agent.log"
    out = tmp_path / "run.json"
    proc = run_cli(
        "run",
        "--evalset",
        str(EVALSET),
        "--agent",
        f"cmd:{EXAMPLE_AGENT}",
        "--no-cache",
        "--json",
        str(out),
        *extra,
        env={"EXAMPLE_AGENT_LOG": str(log)},
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, out, log


def test_captured_turns_equal_the_agents_own_log(tmp_path: Path) -> None:
    code, out, log = _drive(tmp_path, "--agent-concurrency", "2")
    assert code == 1  # one case fails on purpose (a wrong mocked result)
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    by_user = {entry["user"]: entry for entry in logged}
    results = case_results(out)
    assert {r["finalEvalStatus"] for r in results.values()} == {"passed", "failed"}
    seen = 0
    for case in results.values():
        for turn in case["evalMetricResultPerInvocation"]:
            actual = turn["actualInvocation"]
            entry = by_user[actual["userContent"]["content"]]
            assert actual["finalResponse"]["content"] == entry["final"]
            tools = [
                {
                    "id": t["id"],
                    "name": t["name"],
                    "arguments": t["arguments"],
                    "result": t["result"],
                }
                for t in entry["tools"]
            ]
            assert actual.get("tools", []) == tools
            seen += 1
    assert seen == len(logged) == 4
    # The mocked weather call got the mock's Oslo result; the agent's real tool says "sunny".
    weather = by_user["weather in Oslo"]
    assert weather["tools"][0]["mocked"] is True
    assert weather["tools"][0]["result"] == {"city": "Oslo", "condition": "snow", "tempC": -4}
    assert not any(
        t["mocked"] is False and t["name"] == "get_weather" for e in logged for t in e["tools"]
    )
    assert results["weather_mocked"]["finalEvalStatus"] == "passed"
    failed = results["mocked_calculator_is_wrong_on_purpose"]
    assert failed["finalEvalStatus"] == "failed"
    assert "7 vs 6" in json.dumps(failed)


def test_record_then_traces_scores_identically_without_the_agent(tmp_path: Path) -> None:
    record = tmp_path / "recorded.jsonl"
    code, out, _log = _drive(tmp_path, "--record", str(record))
    assert len(record.read_text().splitlines()) == 3
    replay_out = tmp_path / "replay.json"
    replay_log = tmp_path / "replay-agent.log"
    proc = run_cli(
        "run",
        "--evalset",
        str(EVALSET),
        "--traces",
        str(record),
        "--no-cache",
        "--json",
        str(replay_out),
        env={"EXAMPLE_AGENT_LOG": str(replay_log)},
    )
    assert proc.returncode == code == 1
    assert not replay_log.exists()  # zero agent sessions
    first, second = case_results(out), case_results(replay_out)
    for results in (first, second):
        for case in results.values():
            case.pop("sessionId")
    assert first == second


def test_num_runs_drives_the_agent_each_time(tmp_path: Path) -> None:
    code, _out, log = _drive(tmp_path, "--num-runs", "2", "--case", "add_then_multiply")
    assert code == 0
    assert len(log.read_text().splitlines()) == 4  # 2 runs x 2 turns
    assert len({json.loads(line)["sessionId"] for line in log.read_text().splitlines()}) == 2


def test_each_fault_fails_only_its_case(tmp_path: Path) -> None:
    evalset = write_evalset(
        tmp_path,
        "faults",
        [
            echo_case("fine", "hello", "again"),
            echo_case("crashes", "hello", "crash"),
            echo_case("hangs", "hang"),
            echo_case("garbage", "garbage"),
            echo_case("agent_error", "fail"),
            echo_case("fine_after", "bye"),
        ],
        EXACT_FINAL,
    )
    out = tmp_path / "run.json"
    proc = run_cli(
        "run",
        "--evalset",
        str(evalset),
        "--agent",
        f"cmd:{FAULT_AGENT}",
        "--agent-timeout",
        "2",
        "--agent-concurrency",
        "2",
        "--no-cache",
        "--json",
        str(out),
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    results = case_results(out)
    assert results["fine"]["finalEvalStatus"] == "passed"
    assert results["fine_after"]["finalEvalStatus"] == "passed"
    errors = {k: v.get("errorMessage", "") for k, v in results.items()}
    assert errors["crashes"].startswith("agent turn 2 of 2: agent process exited with code 3")
    assert "boom: the disk is on fire\\x1b[31m" in errors["crashes"]
    assert errors["hangs"] == "agent turn 1 of 1: no final reply within 2 s (--agent-timeout)"
    assert errors["garbage"].startswith("agent turn 1 of 1: protocol error:")
    assert "this is not json" in errors["garbage"]
    assert (
        errors["agent_error"] == "agent turn 1 of 1: agent reported an error: model quota exceeded"
    )
    # The agent's stderr never reaches agenteval's own streams raw.
    assert "\x1b[31m" not in proc.stdout + proc.stderr
    assert "boom" not in proc.stderr
    assert "agent: 6 sessions" in proc.stdout and "4 failed" in proc.stdout


def test_unknown_agent_spec_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli("run", "--evalset", str(EVALSET), "--agent", "ssh:somewhere")
    assert proc.returncode == 2
    assert "--agent: unknown agent spec 'ssh:somewhere'" in proc.stderr


def test_validate_checks_the_cases_it_would_drive(tmp_path: Path) -> None:
    case = echo_case("bad_mock", "hello")
    case["conversation"][0]["toolMock"] = {
        "actual": [{"name": "t", "arguments": {"ignore": True, "expected": {}}, "result": 1}]
    }
    evalset = write_evalset(tmp_path, "mocks", [case, echo_case("ok", "x")], EXACT_FINAL)
    proc = run_cli("validate", "--evalset", str(evalset), "--agent", f"cmd:{FAULT_AGENT}")
    assert proc.returncode == 2
    assert (
        "evalCases[0].conversation[0].toolMock.actual[0].arguments: ignore cannot be configured"
        in proc.stderr
    )
    good = run_cli("validate", "--evalset", str(EVALSET), "--agent", f"cmd:{EXAMPLE_AGENT}")
    assert good.returncode == 0 and "3 case(s) will be driven" in good.stdout


def test_record_with_num_runs_replays_every_run(tmp_path: Path) -> None:
    record = tmp_path / "recorded.jsonl"
    code, out, _ = _drive(tmp_path, "--num-runs", "2", "--record", str(record))
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert sorted(line.get("runId", 1) for line in lines) == [1, 1, 1, 2, 2, 2]
    replay_out = tmp_path / "replay.json"
    proc = run_cli(
        "run", "--evalset", str(EVALSET), "--traces", str(record), "--num-runs", "2",
        "--no-cache", "--json", str(replay_out),
    )  # fmt: skip
    assert proc.returncode == code == 1
    first = json.loads(out.read_text())["evalSetResults"][0]["evalCaseResults"]
    second = json.loads(replay_out.read_text())["evalSetResults"][0]["evalCaseResults"]
    for case in (*first, *second):
        case.pop("sessionId")
    key = lambda c: (c["runId"], c["evalId"])  # noqa: E731
    assert sorted(first, key=key) == sorted(second, key=key)


def test_a_command_that_cannot_start_makes_the_run_incomplete(tmp_path: Path) -> None:
    evalset = write_evalset(tmp_path, "missing", [echo_case("one", "hi")], EXACT_FINAL)
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", "cmd:./no-such-agent --flag",
        "--no-cache", "--json", str(out),
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout + proc.stderr
    message = case_results(out)["one"]["errorMessage"]
    assert message.startswith("agent turn 1 of 1: agent process exited with code 127; stderr: ")
    assert "no-such-agent" in message
    assert json.loads(out.read_text())["agent"]["notStarted"] == 1
