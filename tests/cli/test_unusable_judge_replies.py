"""A judge reply that cannot be used is never a pass: which exit code, and the manual saying so.

Two kinds, as the manual's exit-code table (docs/exit-codes.md) gives them.  A verdict the metric cannot
parse (the judge answered, but not in the form the scorer reads) fails its case
with the scorer's reason, exit 1, as trpc-agent-go does (its ``evaluateCase``
turns the evaluator's ``score based on response`` error into a ``failed`` case
with that ``errorMessage``).  A reply the judge API layer cannot read
(malformed JSON, an error body, no choices) is a failed judge call, like an
unreachable judge: the turn is ``not_evaluated``, the case INCOMPLETE, exit 3.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cli_process import run_cli
from judge_server import JudgeServer, Reply

ROOT = Path(__file__).resolve().parents[2]


def agenteval(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=180)


def suite(tmp: Path, base_url: str) -> list[str]:
    """``run`` arguments: one case judged by ``llm_final_response`` at ``base_url``."""
    question = {"role": "user", "content": "What is the capital of France?"}
    answer = {"role": "model", "content": "Paris"}
    case: dict[str, Any] = {
        "evalId": "capital",
        "evalMode": "trace",
        "actualConversation": [{"userContent": question, "finalResponse": answer}],
        "conversation": [{"userContent": question, "finalResponse": answer}],
        "sessionInput": {"appName": "app", "userId": "u"},
    }
    judge = {"providerName": "openai", "modelName": "m", "baseURL": base_url, "apiKey": "sk-t"}
    metric = {
        "metricName": "judged",
        "evaluatorName": "llm_final_response",
        "threshold": 1,
        "criterion": {"llmJudge": {"judgeModel": judge}},
    }
    sets, metrics = tmp / "capital.evalset.json", tmp / "judged.metrics.json"
    sets.write_text(json.dumps({"evalSetId": "capital", "evalCases": [case]}))
    metrics.write_text(json.dumps([metric]))
    return ["--evalset", str(sets), "--metrics", str(metrics), "--no-cache"]


def outcome(tmp: Path, server: JudgeServer) -> tuple[subprocess.CompletedProcess[str], Any]:
    run_json = tmp / "run.json"
    proc = agenteval("run", *suite(tmp, server.base_url), "--json", str(run_json))
    return proc, json.loads(run_json.read_text())


@pytest.mark.parametrize(
    "verdict",
    [
        "reasoning: it matches\nthe answer is fine",  # no label line
        "",
    ],
    ids=["no-label", "empty"],
)
def test_an_unparsable_verdict_fails_the_case(
    judge_server: JudgeServer, tmp_path: Path, verdict: str
) -> None:
    judge_server.default = Reply(content=verdict)
    proc, document = outcome(tmp_path, judge_server)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert document["overallStatus"] == "failed"
    assert document["caseStatusCounts"]["passed"] == 0
    assert "run evaluation for metric judged: score based on response: " in proc.stdout
    assert "Traceback" not in proc.stderr


def openai_reply(message: dict[str, Any], finish_reason: str) -> Reply:
    """An OpenAI chat completion with this message and finish reason."""
    choice = {"index": 0, "message": message, "finish_reason": finish_reason}
    usage = {"prompt_tokens": 11, "completion_tokens": 0}
    return Reply(body=json.dumps({"choices": [choice], "usage": usage}).encode())


# OpenAI's refusal (content null, the words in message.refusal) and a reply its content
# filter removed: no verdict to read, like Anthropic's refusal or Gemini's blocked prompt.
REFUSED = openai_reply(
    {"role": "assistant", "content": None, "refusal": "I can't help with that."}, "stop"
)
FILTERED = openai_reply({"role": "assistant", "content": None}, "content_filter")


@pytest.mark.parametrize(
    "reply",
    [
        Reply.malformed(),
        Reply.error_body("model overloaded"),
        Reply.no_choices(),
        REFUSED,
        FILTERED,
    ],
    ids=["malformed-json", "error-body", "no-choices", "refused", "content-filter"],
)
def test_an_unreadable_reply_makes_the_case_incomplete(
    judge_server: JudgeServer, tmp_path: Path, reply: Reply
) -> None:
    judge_server.default = reply
    proc, document = outcome(tmp_path, judge_server)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert document["overallStatus"] == "incomplete"
    assert document["caseStatusCounts"]["incomplete"] == 1
    assert judge_server.count == 1  # a 200 that cannot be read is not retried


def test_readme_exit_codes_say_which_reply_gives_which() -> None:
    text = (ROOT / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| ([0-4]) \| (.*) \|$", text, re.M)}
    assert "judge verdict that cannot be parsed" in rows["1"]
    assert "judge reply that cannot be read" in rows["3"]
    assert "unusable judge replies" not in text
