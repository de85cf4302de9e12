"""``--agent cmd:``: captured turns equal the agent's own log, mocks, record/replay, faults."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from agent_cli import (
    EXACT_FINAL,
    EXAMPLE_AGENT,
    FAULT_AGENT,
    REPO,
    case_results,
    echo_case,
    fault_agent_run,
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
    cases = [
        echo_case("fine", "hello", "again"),
        echo_case("crashes", "hello", "crash"),
        echo_case("hangs", "hang"),
        echo_case("garbage", "garbage"),
        echo_case("agent_error", "fail"),
        echo_case("fine_after", "bye"),
    ]
    proc, results = fault_agent_run(
        tmp_path, cases, "--agent-timeout", "2", "--agent-concurrency", "2"
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
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


def test_output_after_the_final_reply_fails_its_case_and_reaches_no_other(
    tmp_path: Path,
) -> None:
    """A second ``final`` (at once or 0.3 s later) fails the case whose session wrote it; the
    next case on the same worker gets its own answer, and the record holds no stray line as
    an answer."""
    record = tmp_path / "record.jsonl"
    cases = [
        echo_case("doubles", "double"),
        echo_case("next", "hello"),
        echo_case("late", "double late"),
        echo_case("after_late", "bye"),
        echo_case("two_turns", "double", "again"),
        echo_case("last", "end"),
    ]
    proc, results = fault_agent_run(
        tmp_path, cases, "--agent-concurrency", "1", "--record", str(record)
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    status = {k: v["finalEvalStatus"] for k, v in results.items()}
    assert status == {
        "doubles": "failed", "next": "passed", "late": "failed", "after_late": "passed",
        "two_turns": "failed", "last": "passed",
    }  # fmt: skip
    stray = "protocol error: the agent wrote after its final reply"
    assert results["doubles"]["errorMessage"].startswith(f"agent session: {stray} to turn 1: ")
    assert "echo: stray" in results["doubles"]["errorMessage"]
    assert results["late"]["errorMessage"].startswith(f"agent session: {stray} to turn 1: ")
    # Within a session the stray is caught before turn 2 when it is already there, else the
    # real answer to turn 2 is left over at the session's end: the case fails either way.
    assert results["two_turns"]["errorMessage"].startswith(
        (f"agent turn 2 of 2: {stray} to turn 1: ", f"agent session: {stray} to turn 2: ")
    )
    recorded = {r["evalId"]: r for r in map(json.loads, record.read_text().splitlines())}
    assert sorted(recorded) == sorted(results)
    for eval_id in ("next", "after_late", "last"):
        assert "echo: stray" not in json.dumps(recorded[eval_id])


def test_an_agent_that_never_reads_its_stdin_fails_its_turn_by_the_deadline(
    tmp_path: Path,
) -> None:
    """A 1 MB user message to an agent that never reads: the write has the turn's deadline."""
    cases = [echo_case("big", "x" * 1_000_000)]
    evalset = write_evalset(tmp_path, "deaf", cases, EXACT_FINAL)
    out = tmp_path / "run.json"
    deaf = f"{sys.executable} -c 'import time; time.sleep(600)'"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{deaf}", "--agent-timeout", "2",
        "--no-cache", "--json", str(out), timeout=60,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert case_results(out)["big"]["errorMessage"] == (
        "agent turn 1 of 1: the agent did not read its input within 2 s (--agent-timeout)"
    )


def test_a_child_of_the_agent_is_killed_with_it(tmp_path: Path) -> None:
    """The worker exits cleanly at the end of the run; the process it started goes too, and
    nothing is printed about the event loop."""
    children = tmp_path / "children.txt"
    proc, results = fault_agent_run(
        tmp_path, [echo_case("kid", "child")], env={"FAULT_AGENT_CHILDREN": str(children)}
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert results["kid"]["finalEvalStatus"] == "passed"
    (pid,) = (int(line) for line in children.read_text().split())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)
    assert "Exception ignored" not in proc.stderr and "Event loop is closed" not in proc.stderr


def test_a_process_that_left_the_agents_session_is_killed_with_it(tmp_path: Path) -> None:
    """A process the agent started in a session of its own (setsid) is out of the agent's
    process group: the kill after turn 2 timed out reaches it all the same."""
    children = tmp_path / "children.txt"
    proc, results = fault_agent_run(
        tmp_path, [echo_case("loner", "detached", "hang")], "--agent-timeout", "1",
        env={"FAULT_AGENT_CHILDREN": str(children)},
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert results["loner"]["errorMessage"] == (
        "agent turn 2 of 2: no final reply within 1 s (--agent-timeout)"
    )
    (pid,) = (int(line) for line in children.read_text().split())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = _alive(pid)
    if alive:
        os.kill(pid, 9)  # not left behind by a failing test
    assert not alive


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) counts as gone.
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    return True


def _mocked(case: dict[str, Any], expected_x: int) -> dict[str, Any]:
    case["conversation"][0]["toolMock"] = {
        "actual": [{"name": "get_x", "arguments": {"expected": {"x": expected_x}}, "result": 7}]
    }
    return case


def test_counters_count_what_the_agent_did(tmp_path: Path) -> None:
    """An unmatched mock still ran a session, a turn and a call; an own tool is not mocked."""
    out = tmp_path / "run.json"
    for name, case, code, line in [
        ("unmatched", _mocked(echo_case("u", "call get_x"), 2), 1,
         "agent: 1 sessions, 1 turns, 1 tool calls (0 mocked), 1 failed"),
        ("matched", _mocked(echo_case("m", "call get_x"), 1), 0,
         "agent: 1 sessions, 1 turns, 1 tool calls (1 mocked), 0 failed"),
        ("own", echo_case("o", "call own_tool"), 0,
         "agent: 1 sessions, 1 turns, 1 tool calls (0 mocked), 0 failed"),
    ]:  # fmt: skip
        evalset = write_evalset(tmp_path, name, [case], EXACT_FINAL)
        proc = run_cli(
            "run", "--evalset", str(evalset), "--agent", f"cmd:{FAULT_AGENT}", "--no-cache",
            "--json", str(out),
        )  # fmt: skip
        assert proc.returncode == code, (name, proc.stdout + proc.stderr)
        assert line in proc.stdout, (name, proc.stdout)
    assert json.loads(out.read_text())["agent"]["mockedToolCalls"] == 0


def test_an_agent_that_runs_a_mocked_tool_itself_fails_its_case(tmp_path: Path) -> None:
    """The agent's own result for a mocked call would replace the mock's result: with the
    reference holding the agent's result, the case would pass while the mock was ignored."""
    cheat = _mocked(echo_case("cheat", "cheat get_x"), 1)
    cheat["conversation"][0]["tools"] = [
        {"name": "get_x", "arguments": {"x": 1}, "result": {"own": True}}
    ]
    honest = _mocked(echo_case("honest", "call get_x"), 1)
    honest["conversation"][0]["tools"] = [{"name": "get_x", "arguments": {"x": 1}, "result": 7}]
    metrics = [{"metricName": "tool_trajectory_avg_score", "threshold": 1.0}, *EXACT_FINAL]
    evalset = write_evalset(tmp_path, "cheats", [cheat, honest], metrics)
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{FAULT_AGENT}", "--no-cache",
        "--json", str(out),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    results = case_results(out)
    assert results["cheat"]["finalEvalStatus"] == "failed"
    assert results["cheat"]["errorMessage"] == (
        "agent turn 1 of 1: the agent ran mocked tool 'get_x' itself"
        " (a tool_result line for a mocked call)"
    )
    assert results["honest"]["finalEvalStatus"] == "passed"


def test_agent_time_is_wall_time_and_session_time_labelled(tmp_path: Path) -> None:
    """Four 1 s sessions side by side: about 1 s of wall time, at least 4 s summed."""
    cases = [echo_case(f"p{i}", "pause 1") for i in range(4)]
    cases = [{**c, "conversation": c["conversation"]} for c in cases]
    for c in cases:
        c["conversation"][0]["finalResponse"]["content"] = "echo: pause 1"
    proc, _ = fault_agent_run(tmp_path, cases, "--agent-concurrency", "4")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    agent = json.loads((tmp_path / "run.json").read_text())["agent"]
    assert agent["sessionSeconds"] >= 4.0
    assert 1.0 <= agent["wallSeconds"] <= agent["sessionSeconds"]
    wall, summed = agent["wallSeconds"], agent["sessionSeconds"]
    assert f"agent time {wall:.1f} s wall ({summed:.1f} s summed over 4 sessions)" in proc.stdout


def test_intermediate_messages_are_capped_with_a_count(tmp_path: Path) -> None:
    case = echo_case("talks", "chatty 2500")
    proc, results = fault_agent_run(tmp_path, [case])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    turn = results["talks"]["evalMetricResultPerInvocation"][0]["actualInvocation"]
    messages = [m["content"] for m in turn["intermediateResponses"]]
    assert len(messages) == 1001
    assert messages[:2] == ["thinking 0", "thinking 1"] and messages[999] == "thinking 999"
    assert messages[1000] == "… 1500 more intermediate responses (not kept)"


def test_reply_line_and_turn_byte_caps_are_configurable(tmp_path: Path) -> None:
    cases = [echo_case("long", "y" * 3000), echo_case("chatty", "chatty 200")]
    proc, results = fault_agent_run(
        tmp_path, cases, "--agent-max-event-bytes", "2000", "--agent-max-turn-bytes", "5000"
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert results["long"]["errorMessage"] == (
        "agent turn 1 of 1: protocol error: a reply line is longer than 2,000 bytes "
        "(--agent-max-event-bytes)"
    )
    assert results["chatty"]["errorMessage"] == (
        "agent turn 1 of 1: protocol error: the agent sent more than 5,000 bytes in one turn "
        "(--agent-max-turn-bytes)"
    )


def test_resume_with_record_replaces_the_case_runs_it_drives_again(tmp_path: Path) -> None:
    """Cases left incomplete (the agent could not start) are recorded as such and replay as
    incomplete; --resume drives them again and the appended record keeps only their new
    lines, so it still replays (a case twice is exit 2)."""
    evalset = write_evalset(
        tmp_path, "again", [echo_case("one", "hi"), echo_case("two", "a", "b")], EXACT_FINAL
    )
    record, first, second = tmp_path / "record.jsonl", tmp_path / "first", tmp_path / "second"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{tmp_path / 'missing_agent'}",
        "--no-cache", "--record", str(record), "--output", str(first),
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout + proc.stderr
    recorded = [json.loads(line) for line in record.read_text().splitlines()]
    assert sorted(line["evalId"] for line in recorded) == ["one", "two"]
    assert all("errorMessage" in line and line["incomplete"] is True for line in recorded)
    # Replayed, the record scores as the run did: incomplete (exit 3), not failed (exit 1).
    replay = run_cli("run", "--evalset", str(evalset), "--traces", str(record), "--no-cache")
    assert replay.returncode == 3, replay.stdout + replay.stderr
    assert "● one  INCOMPLETE" in replay.stdout and "● two  INCOMPLETE" in replay.stdout
    assert "warning" not in replay.stdout
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{FAULT_AGENT}", "--no-cache",
        "--record", str(record), "--resume", str(first), "--output", str(second),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert sorted(line["evalId"] for line in lines) == ["one", "two"]
    assert all("errorMessage" not in line for line in lines)
    out = tmp_path / "replay.json"
    replay = run_cli(
        "run", "--evalset", str(evalset), "--traces", str(record), "--no-cache", "--json", str(out)
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert {k: r["finalEvalStatus"] for k, r in case_results(out).items()} == {
        "one": "passed",
        "two": "passed",
    }


def test_a_failed_case_still_counts_what_its_finished_turns_spent(tmp_path: Path) -> None:
    """Turn 1 spent 1,000 input + 200 output tokens before the agent crashed in turn 2: the
    case, the eval set and the run report that spend, live and replayed from the record."""
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"test:model": {"inputPerMillion": 3, "outputPerMillion": 15}}))
    cases = [echo_case("crashes", "spend 1000 200", "crash"), echo_case("fine", "spend 10 2")]
    record, live, replayed = (tmp_path / name for name in ("r.jsonl", "run.json", "re.json"))
    proc, _ = fault_agent_run(
        tmp_path, cases, "--prices", str(prices), "--record", str(record), name="spend"
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    evalset = tmp_path / "spend.evalset.json"
    replay = run_cli(
        "run", "--evalset", str(evalset), "--traces", str(record), "--no-cache",
        "--prices", str(prices), "--json", str(replayed),
    )  # fmt: skip
    assert replay.returncode == 1, replay.stdout + replay.stderr
    for out in (live, replayed):
        crashed = case_results(out)["crashes"]
        assert crashed["errorMessage"].startswith("agent turn 2 of 2: agent process exited")
        spent = crashed["agentUsage"]
        assert (spent["turns"], spent["inferenceCalls"]) == (1, 1)
        assert (spent["inputTokens"], spent["outputTokens"]) == (1000, 200)
        # 1,000 x $3/M + 200 x $15/M = $0.003 + $0.003
        assert spent["costUsd"] == pytest.approx(0.006)
        run_spent = json.loads(out.read_text())["agentUsage"]
        assert (run_spent["inputTokens"], run_spent["outputTokens"]) == (1010, 202)
        # + 10 x $3/M + 2 x $15/M = $0.00003 + $0.00003 for the case that passed
        assert run_spent["costUsd"] == pytest.approx(0.00606)


def test_a_failed_turn_counts_what_it_spent_before_it_failed(tmp_path: Path) -> None:
    """Turn 2 reported a model call of 500 + 100 tokens, then an error: the case counts both
    turns' spend, live and replayed from the record, which keeps turn 2 as far as it got."""
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"test:model": {"inputPerMillion": 3, "outputPerMillion": 15}}))
    evalset = write_evalset(
        tmp_path, "waste", [echo_case("fails", "spend 1000 200", "waste 500 100")], EXACT_FINAL
    )
    record, live, replayed = (tmp_path / name for name in ("r.jsonl", "live.json", "re.json"))
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{FAULT_AGENT}", "--no-cache",
        "--prices", str(prices), "--record", str(record), "--json", str(live),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (line,) = (json.loads(text) for text in record.read_text().splitlines())
    assert [t["userContent"]["content"] for t in line["actualConversation"]] == [
        "spend 1000 200",
        "waste 500 100",
    ]
    assert "finalResponse" not in line["actualConversation"][1]  # the turn did not finish
    replay = run_cli(
        "run", "--evalset", str(evalset), "--traces", str(record), "--no-cache",
        "--prices", str(prices), "--json", str(replayed),
    )  # fmt: skip
    assert replay.returncode == 1, replay.stdout + replay.stderr
    for out in (live, replayed):
        failed = case_results(out)["fails"]
        assert failed["errorMessage"] == (
            "agent turn 2 of 2: agent reported an error: model quota exceeded"
        )
        spent = failed["agentUsage"]
        assert (spent["turns"], spent["inferenceCalls"]) == (2, 2)
        assert (spent["inputTokens"], spent["outputTokens"]) == (1500, 300)
        # 1,500 x $3/M + 300 x $15/M = $0.0045 + $0.0045
        assert spent["costUsd"] == pytest.approx(0.009)
        assert json.loads(out.read_text())["agentUsage"]["inputTokens"] == 1500


def test_nan_in_a_reply_line_is_a_protocol_error(tmp_path: Path) -> None:
    """JSON has no NaN: read as a number it was recorded as null, and the replay of the
    record scored another value than the live run."""
    proc, results = fault_agent_run(tmp_path, [echo_case("nan", "nan")], name="nan")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert results["nan"]["errorMessage"].startswith(
        "agent turn 1 of 1: protocol error: arguments.x[1]: nan is not a finite number"
    )


def test_record_into_the_traces_file_is_refused_before_it_is_emptied(tmp_path: Path) -> None:
    """The record file is opened empty: the --traces file it also is would lose its turns."""
    evalset = write_evalset(tmp_path, "same", [echo_case("one", "hi")], EXACT_FINAL)
    traces = tmp_path / "traces.jsonl"
    kept = json.dumps({"evalId": "other", "actualConversation": []}) + "\n"
    traces.write_text(kept)
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{FAULT_AGENT}", "--no-cache",
        "--traces", str(traces), "--record", str(tmp_path / "." / "traces.jsonl"),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--record is also the --traces file" in proc.stdout + proc.stderr
    assert traces.read_text() == kept


def test_record_of_two_eval_sets_sharing_an_evalid_is_refused(tmp_path: Path) -> None:
    """A traces file holds one record per evalId: recording both cases 'same' wrote a file
    that --traces then refused (duplicate evalId); the run stops first, before any agent."""
    log = tmp_path / "agent.log"
    for name, text in (("first", "alpha"), ("second", "beta")):
        write_evalset(tmp_path, name, [echo_case("same", text)], EXACT_FINAL)
    record = tmp_path / "record.jsonl"
    proc = run_cli(
        "run", "--evalset", str(tmp_path), "--agent", f"cmd:{FAULT_AGENT}", "--no-cache",
        "--record", str(record), env={"FAULT_AGENT_LOG": str(log)},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (
        f"error: {tmp_path / 'second.evalset.json'}: evalCases[0].evalId: --record: evalId "
        f"'same' is also driven from {tmp_path / 'first.evalset.json'}"
    ) in proc.stdout + proc.stderr
    assert not log.exists() and not record.exists()
    # Without --record the run drives both.
    proc = run_cli(
        "run", "--evalset", str(tmp_path), "--agent", f"cmd:{FAULT_AGENT}", "--no-cache",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_record_path_that_cannot_be_written_is_a_usage_error(tmp_path: Path) -> None:
    """Found before the agent is started: exit 2 with the located line, not exit 4."""
    evalset = write_evalset(tmp_path, "rec", [echo_case("one", "hi")], EXACT_FINAL)
    log = tmp_path / "agent.log"
    (tmp_path / "a_dir").mkdir()
    (tmp_path / "a_file").write_text("{}")
    for record, problem in [
        (tmp_path / "a_dir", "--record is a directory (give a file name)"),
        (tmp_path / "a_file" / "r.jsonl", "--record: Not a directory"),
    ]:
        proc = run_cli(
            "run", "--evalset", str(evalset), "--agent", f"cmd:{FAULT_AGENT}", "--no-cache",
            "--record", str(record), env={"FAULT_AGENT_LOG": str(log)},
        )  # fmt: skip
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert f"error: {record}: {problem}" in proc.stdout + proc.stderr
        assert "internal error" not in proc.stdout + proc.stderr
    assert not log.exists()  # the agent never answered a turn


def test_record_keeps_failed_cases_and_a_replay_reproduces_them(tmp_path: Path) -> None:
    """Crashes, protocol errors, agent errors and unmatched mocks are recorded with their
    error; replaying the record fails the same cases with the same messages, no agent needed."""
    record = tmp_path / "record.jsonl"
    cases = [
        echo_case("fine", "hello", "again"),
        echo_case("crashes", "hello", "crash"),
        echo_case("garbage", "garbage"),
        echo_case("agent_error", "fail"),
        _mocked(echo_case("unmatched", "call get_x"), 2),
    ]
    proc, driven = fault_agent_run(tmp_path, cases, "--record", str(record))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert sorted(line["evalId"] for line in lines) == sorted(driven)
    by_id = {line["evalId"]: line for line in lines}
    assert "errorMessage" not in by_id["fine"] and len(by_id["fine"]["actualConversation"]) == 2
    assert by_id["crashes"]["errorMessage"] == driven["crashes"]["errorMessage"]
    assert [t["finalResponse"]["content"] for t in by_id["crashes"]["actualConversation"]] == [
        "echo: hello"
    ]  # the turn before the crash
    evalset = tmp_path / "faults.evalset.json"
    out = tmp_path / "replay.json"
    replay = run_cli(
        "run", "--evalset", str(evalset), "--traces", str(record), "--no-cache", "--json", str(out)
    )
    assert replay.returncode == 1, replay.stdout + replay.stderr
    assert "needs an agent run" not in replay.stdout + replay.stderr
    replayed = case_results(out)
    for eval_id, case in driven.items():
        assert replayed[eval_id]["finalEvalStatus"] == case["finalEvalStatus"], eval_id
        assert replayed[eval_id].get("errorMessage") == case.get("errorMessage"), eval_id


def test_an_inherited_api_key_the_agent_prints_stays_out_of_results_and_records(
    tmp_path: Path,
) -> None:
    """The agent inherits agenteval's environment; what it writes to stderr or says in an
    error line becomes the errorMessage: the key is *** there, in the run document, the
    --record line and the console, and the rest of the text is kept."""
    key = "sk-test-4b1d9a7c3e2f"
    record = tmp_path / "record.jsonl"
    cases = [echo_case("stderr", "leak"), echo_case("error_line", "leak error")]
    proc, results = fault_agent_run(
        tmp_path, cases, "--record", str(record), env={"FAULT_AGENT_API_KEY": key}
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert results["stderr"]["errorMessage"] == (
        "agent turn 1 of 1: agent process exited with code 22; stderr: "
        "+ curl -H 'Authorization: Bearer ***' https://llm.test/v1"
    )
    assert results["error_line"]["errorMessage"] == (
        "agent turn 1 of 1: agent reported an error: upstream refused key ***"
    )
    for text in (proc.stdout, proc.stderr, (tmp_path / "run.json").read_text()):
        assert key not in text
    assert key not in record.read_text() and "Bearer ***" in record.read_text()


def test_num_runs_over_one_recorded_run_says_the_runs_share_it(tmp_path: Path) -> None:
    """Three runs over a trace recorded once score the same turns: the run says so (and a
    record of every run does not)."""
    once, every = tmp_path / "once.jsonl", tmp_path / "every.jsonl"
    _drive(tmp_path, "--record", str(once))
    _drive(tmp_path, "--record", str(every), "--num-runs", "3")
    warning = (
        "warning: --traces: 3 case(s) have one recorded run: all 3 runs (--num-runs) score "
        "that same trace, so their pass@k and pass^k say nothing about how stable the agent "
        "is (record every run: --agent SPEC --num-runs N --record FILE)"
    )
    for traces, shared in ((once, True), (every, False)):
        out = tmp_path / f"{traces.stem}.json"
        proc = run_cli(
            "run", "--evalset", str(EVALSET), "--traces", str(traces), "--num-runs", "3",
            "--no-cache", "--json", str(out),
        )  # fmt: skip
        assert proc.returncode == 1, proc.stdout + proc.stderr
        said = " ".join((proc.stdout + proc.stderr).split())
        assert (warning in said) is shared, said
        warnings = json.loads(out.read_text())["warnings"]
        assert any("one recorded run" in w for w in warnings) is shared
