"""Simulated users, ``llmGenerator`` mocks and ``--expected-agent``, end to end: the example
agent over the cmd: protocol and the loopback judge over real HTTP playing the LLM."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from agent_cli import EXACT_FINAL, EXAMPLE_AGENT, case_results, echo_case, run_cli, write_evalset

from agenteval.agents.user_simulator import ScenarioError, check_scenario
from agenteval.schema.evalset import ConversationScenario
from judge_server import JudgeServer, Reply

RUBRICS = '{"rubricScores": [{"id": "useful", "score": 1, "reason": "It helps."}]}'


def _judge_metrics(base_url: str) -> list[dict[str, Any]]:
    return [
        {
            "metricName": "useful",
            "evaluatorName": "llm_rubric_response",
            "threshold": 1.0,
            "criterion": {
                "llmJudge": {
                    "judgeModel": {
                        "providerName": "openai",
                        "modelName": "sim-model",
                        "baseURL": base_url,
                        "apiKey": "sk-simulator-secret",
                    },
                    "rubrics": [{"id": "useful", "content": {"text": "The answer helps."}}],
                }
            },
        }
    ]


def _scenario(**fields: Any) -> dict[str, Any]:
    return {
        "evalId": "chat",
        "conversationScenario": {
            "conversationPlan": "Greet the assistant, then get the sum of 2 and 3.",
            "stopSignal": "</done>",
            **fields,
        },
        "sessionInput": {"appName": "sim", "userId": "u"},
    }


def _simulator_requests(judge: JudgeServer) -> list[dict[str, Any]]:
    return [r.body for r in judge.recorded() if "You play a human user" in r.prompt]


def test_simulated_user_drives_the_conversation_until_the_stop_signal(
    tmp_path: Path, judge_server: JudgeServer
) -> None:
    judge_server.when("You are the grader of an AI agent", Reply(content=RUBRICS))
    judge_server.when("calc result: 5", Reply(content="Thanks! </done>"))
    judge_server.when("I can calculate", Reply(content="calc add 2 3"))
    judge_server.when("The conversation starts now", Reply(content="hello"))
    evalset = write_evalset(
        tmp_path, "sim", [_scenario(maxAllowedInvocations=0)], _judge_metrics(judge_server.base_url)
    )
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{EXAMPLE_AGENT}", "--json", str(out)
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    turns = [
        t["actualInvocation"] for t in case_results(out)["chat"]["evalMetricResultPerInvocation"]
    ]
    assert [t["userContent"]["content"] for t in turns] == ["hello", "calc add 2 3"]
    assert turns[1]["finalResponse"]["content"] == "calc result: 5"
    requests = _simulator_requests(judge_server)
    assert len(requests) == 3  # hello, the sum, then the stop signal
    system = requests[0]["messages"][0]
    assert (
        system["role"] == "system" and "Greet the assistant, then get the sum" in system["content"]
    )
    assert '"</done>"' in system["content"]
    # The agent's replies are the simulator's "user" side, its own messages the "assistant" side.
    assert [m["role"] for m in requests[2]["messages"]] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert requests[2]["model"] == "sim-model"
    assert "sk-simulator-secret" not in out.read_text()


def test_starting_prompt_and_max_invocations(tmp_path: Path, judge_server: JudgeServer) -> None:
    judge_server.when("You are the grader of an AI agent", Reply(content=RUBRICS))
    judge_server.when("You play a human user", Reply(content="calc mul 6 7"))
    scenario = _scenario(startingPrompt="calc add 1 1", maxAllowedInvocations=2)
    evalset = write_evalset(tmp_path, "sim", [scenario], _judge_metrics(judge_server.base_url))
    out = tmp_path / "run.json"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{EXAMPLE_AGENT}", "--json", str(out)
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    turns = [
        t["actualInvocation"] for t in case_results(out)["chat"]["evalMetricResultPerInvocation"]
    ]
    assert [t["finalResponse"]["content"] for t in turns] == ["calc result: 2", "calc result: 42"]
    assert len(_simulator_requests(judge_server)) == 1  # the starting prompt needs no LLM


def test_llm_generator_mock_goes_through_the_cached_judge(
    tmp_path: Path, judge_server: JudgeServer
) -> None:
    judge_server.when(
        "Invent a weather report", Reply(content='{"city": "Oslo", "condition": "fog", "tempC": 3}')
    )
    case = echo_case("generated", "weather in Oslo")
    turn = case["conversation"][0]
    turn["finalResponse"]["content"] = "Oslo: fog, 3 °C"
    turn["toolMock"] = {
        "actual": [
            {"name": "get_weather", "llmGenerator": {"prompt": "Invent a weather report as JSON."}}
        ]
    }
    metrics = [*EXACT_FINAL, *_judge_metrics(judge_server.base_url)]
    judge_server.when("You are the grader of an AI agent", Reply(content=RUBRICS))
    evalset = write_evalset(tmp_path, "gen", [case], metrics)
    cache = tmp_path / "cache.sqlite"
    for _ in range(2):
        out = tmp_path / "run.json"
        proc = run_cli(
            "run",
            "--evalset",
            str(evalset),
            "--agent",
            f"cmd:{EXAMPLE_AGENT}",
            "--cache",
            str(cache),
            "--json",
            str(out),
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        actual = case_results(out)["generated"]["evalMetricResultPerInvocation"][0][
            "actualInvocation"
        ]
        assert actual["tools"][0]["result"] == {"city": "Oslo", "condition": "fog", "tempC": 3}
    generator = [r.body for r in judge_server.recorded() if "Invent a weather report" in r.prompt]
    assert len(generator) == 1  # the second run answered from the cache
    assert generator[0]["messages"] == [
        {"role": "system", "content": "Invent a weather report as JSON."},
        {"role": "user", "content": '{"city": "Oslo"}'},
    ]


def test_a_slow_llm_generator_mock_is_bounded_by_the_agent_timeout(
    tmp_path: Path, judge_server: JudgeServer
) -> None:
    """The judge writing a mock's result takes 6 s; the turn may take 1 s: the case fails
    after about 1 s, not after the judge answered."""
    judge_server.when("Invent a weather", Reply(content='{"city": "Oslo"}', delay=6))
    case = echo_case("slow", "weather in Oslo")
    case["conversation"][0]["toolMock"] = {
        "actual": [{"name": "get_weather", "llmGenerator": {"prompt": "Invent a weather."}}]
    }
    metrics = [*EXACT_FINAL, *_judge_metrics(judge_server.base_url)]
    evalset = write_evalset(tmp_path, "slow", [case], metrics)
    out = tmp_path / "run.json"
    started = time.monotonic()
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{EXAMPLE_AGENT}", "--no-cache",
        "--agent-timeout", "1", "--json", str(out),
    )  # fmt: skip
    took = time.monotonic() - started
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert case_results(out)["slow"]["errorMessage"] == (
        "agent turn 1 of 1: no final reply within 1 s (--agent-timeout; the mock of "
        "'get_weather' was still being answered)"
    )
    assert took < 5.5, took  # the run did not wait for the judge's 6 s


def test_unmatched_mock_fails_the_turn_with_the_reason(tmp_path: Path) -> None:
    case = echo_case("unmatched", "weather in Oslo")
    case["conversation"][0]["toolMock"] = {
        "actual": [
            {"name": "get_weather", "arguments": {"expected": {"city": "Paris"}}, "result": {}}
        ]
    }
    evalset = write_evalset(tmp_path, "unmatched", [case, echo_case("other", "hello")], EXACT_FINAL)
    out = tmp_path / "run.json"
    proc = run_cli(
        "run",
        "--evalset",
        str(evalset),
        "--agent",
        f"cmd:{EXAMPLE_AGENT}",
        "--no-cache",
        "--json",
        str(out),
    )
    assert proc.returncode == 1
    message = case_results(out)["unmatched"]["errorMessage"]
    assert message.startswith(
        "agent turn 1 of 1: tool 'get_weather' configured for mock but no rule matched"
    )
    assert "Paris" in message


def test_expected_agent_produces_the_expected_turns(tmp_path: Path) -> None:
    same = echo_case("same_agent", "calc add 2 2")
    del same["conversation"][0]["finalResponse"]
    same["expectedRunnerEnabled"] = True
    mocked = echo_case("expected_mock", "weather in Oslo")
    del mocked["conversation"][0]["finalResponse"]
    mocked["expectedRunnerEnabled"] = True
    # Only the expected agent's weather tool is mocked: the two agents then disagree.
    mocked["conversation"][0]["toolMock"] = {
        "expected": [
            {"name": "get_weather", "result": {"city": "Oslo", "condition": "snow", "tempC": -4}}
        ]
    }
    metrics = [{"metricName": "tool_trajectory_avg_score", "threshold": 1.0}, *EXACT_FINAL]
    evalset = write_evalset(tmp_path, "expected", [same, mocked], metrics)
    out = tmp_path / "run.json"
    agent = f"cmd:{EXAMPLE_AGENT}"
    proc = run_cli(
        "run",
        "--evalset",
        str(evalset),
        "--agent",
        agent,
        "--expected-agent",
        agent,
        "--no-cache",
        "--json",
        str(out),
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    results = case_results(out)
    assert results["same_agent"]["finalEvalStatus"] == "passed"
    turn = results["expected_mock"]["evalMetricResultPerInvocation"][0]
    assert turn["expectedInvocation"]["finalResponse"]["content"] == "Oslo: snow, -4 °C"
    assert turn["actualInvocation"]["finalResponse"]["content"] == "Oslo: sunny, 21 °C"
    without = run_cli(
        "run", "--evalset", str(evalset), "--agent", agent, "--no-cache", "--json", str(out)
    )
    assert (
        without.returncode == 2 and "expectedRunnerEnabled needs --expected-agent" in without.stderr
    )
    assert json.loads(out.read_text())  # the earlier document is untouched by the refused run


def test_expected_agent_turns_are_recorded_and_replayed(tmp_path: Path) -> None:
    """--record keeps what --expected-agent produced (expectedRunnerEnabled, a scenario driven
    by the expected agent, toolMock.expected); replayed, the record scores exactly as the live
    run did: not "needs a second agent", and not against the eval set's own expected turns."""
    runner = echo_case("runner", "weather in Oslo")
    del runner["conversation"][0]["finalResponse"]
    runner["expectedRunnerEnabled"] = True
    mocked = echo_case("mocked", "weather in Oslo")  # the eval set's reference: sunny
    mocked["conversation"][0]["finalResponse"]["content"] = "Oslo: sunny, 21 °C"
    for case in (runner, mocked):
        case["conversation"][0]["toolMock"] = {
            "expected": [
                {
                    "name": "get_weather",
                    "result": {"city": "Oslo", "condition": "snow", "tempC": -4},
                }
            ]
        }
    led = _scenario(startingPrompt="calc add 2 2", maxAllowedInvocations=1, driver="expected")
    metrics = [{"metricName": "tool_trajectory_avg_score", "threshold": 1.0}, *EXACT_FINAL]
    evalset = write_evalset(tmp_path, "expected", [runner, mocked, led], metrics)
    record, live, replayed = (tmp_path / name for name in ("r.jsonl", "live.json", "re.json"))
    agent = f"cmd:{EXAMPLE_AGENT}"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", agent, "--expected-agent", agent,
        "--no-cache", "--record", str(record), "--json", str(live),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = {r["evalId"]: r for r in map(json.loads, record.read_text().splitlines())}
    expected = lines["mocked"]["expectedConversation"][0]
    assert expected["finalResponse"]["content"] == "Oslo: snow, -4 °C"
    assert lines["chat"]["expectedConversation"][0]["userContent"]["content"] == "calc add 2 2"
    replay = run_cli(
        "run", "--evalset", str(evalset), "--traces", str(record), "--no-cache",
        "--json", str(replayed),
    )  # fmt: skip
    assert replay.returncode == 1, replay.stdout + replay.stderr
    first, second = case_results(live), case_results(replayed)
    assert {k: r["finalEvalStatus"] for k, r in first.items()} == {
        "runner": "failed",  # the expected agent got snow from its mock, the agent sunny
        "mocked": "failed",
        "chat": "passed",
    }
    for results in (first, second):
        for result in results.values():
            result.pop("sessionId")
    assert first == second


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"driver": "robot", "conversationPlan": "p", "stopSignal": "x"},
            "driver 'robot' is unknown",
        ),
        ({"conversationPlan": "  ", "stopSignal": "x"}, "conversationPlan is empty"),
        ({"conversationPlan": "p"}, "cannot both be disabled"),
        ({"conversationPlan": "p", "maxAllowedInvocations": -1}, ">= 0"),
    ],
)
def test_scenarios_go_would_refuse(fields: dict[str, Any], message: str) -> None:
    scenario = ConversationScenario.model_validate(fields)
    with pytest.raises(ScenarioError, match=message):
        check_scenario(scenario)


def test_offline_cache_miss_of_the_simulator_makes_the_run_incomplete(
    tmp_path: Path, judge_server: JudgeServer
) -> None:
    """The judge playing the user or writing a mock's result failed, not the agent: those
    cases are incomplete everywhere (not failed), the case beside them still passes."""
    generated = echo_case("generated", "weather in Oslo")
    generated["conversation"][0]["toolMock"] = {
        "actual": [{"name": "get_weather", "llmGenerator": {"prompt": "Invent a weather."}}]
    }
    plain = echo_case("plain", "calc add 2 3")
    plain["conversation"][0]["finalResponse"]["content"] = "calc result: 5"
    evalset = write_evalset(
        tmp_path, "sim", [_scenario(maxAllowedInvocations=2), generated, plain], EXACT_FINAL
    )
    # The judge model of the simulated user and of llmGenerator comes from the metric file.
    metrics = json.loads((tmp_path / "sim.metrics.json").read_text())
    metrics[0]["criterion"]["llmJudge"] = _judge_metrics(judge_server.base_url)[0]["criterion"][
        "llmJudge"
    ]
    (tmp_path / "sim.metrics.json").write_text(json.dumps(metrics))
    out, junit = tmp_path / "run.json", tmp_path / "junit.xml"
    proc = run_cli(
        "run", "--evalset", str(evalset), "--agent", f"cmd:{EXAMPLE_AGENT}",
        "--offline", "--cache", str(tmp_path / "empty.sqlite"), "--json", str(out),
        "--junit", str(junit),
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout + proc.stderr
    results = case_results(out)
    message = results["chat"]["errorMessage"]
    assert message.startswith("user simulator before turn 1: offline: no cached judge reply")
    assert results["generated"]["errorMessage"].startswith(
        "agent turn 1 of 1: llmGenerator: offline: no cached judge reply"
    )
    assert "● chat  INCOMPLETE" in proc.stdout
    assert "● generated  INCOMPLETE" in proc.stdout
    assert "● plain  PASSED" in proc.stdout
    assert "0 failed" in proc.stdout.split("cases:")[1].splitlines()[0]
    assert junit.read_text().count('type="incomplete"') == 2
    assert judge_server.count == 0
