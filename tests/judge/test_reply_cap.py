"""agenteval.judge.reply_cap: judge reply bodies are read with a size cap (default 8 MiB)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from judge_support import ask, fast_options, settings_for

from agenteval.judge import JudgeReplyError
from judge_server import JudgeServer, Reply

FIFTY_MB = 50 * 1024 * 1024


def wait_with_peak_rss(proc: subprocess.Popen[bytes], timeout: float) -> float:
    """Reap ``proc`` (killing it after ``timeout`` s) and return its own peak RSS in MiB."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_maxrss / 1024
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the run hung")
        time.sleep(0.05)


def big_reply(size: int) -> Reply:
    return Reply(content="", filler=size)


def test_reply_under_the_cap_is_read(judge_server: JudgeServer) -> None:
    judge_server.enqueue(big_reply(20_000))
    reply = ask(settings_for(judge_server), options=fast_options(max_reply_bytes=30_000))
    assert reply.text == "v" * 20_000


def test_reply_over_the_cap_is_a_final_reply_error(judge_server: JudgeServer) -> None:
    judge_server.enqueue(big_reply(20_000))
    with pytest.raises(JudgeReplyError, match="larger than 10,000 bytes"):
        ask(settings_for(judge_server), options=fast_options(max_reply_bytes=10_000))
    assert judge_server.count == 1  # not retried


def test_fifty_megabytes_refused_by_content_length(judge_server: JudgeServer) -> None:
    judge_server.enqueue(big_reply(FIFTY_MB))
    with pytest.raises(JudgeReplyError, match="larger than 8,388,608 bytes"):
        ask(settings_for(judge_server))


def test_endless_chunked_reply_stops_at_the_cap(judge_server: JudgeServer) -> None:
    judge_server.enqueue(Reply.endless_body())
    with pytest.raises(JudgeReplyError, match="larger than 1,000,000 bytes"):
        ask(settings_for(judge_server), options=fast_options(max_reply_bytes=1_000_000))
    # What the socket buffers took beyond the cap, not gigabytes.
    assert judge_server.endless_bytes < 64 * 1024 * 1024


def test_cli_endless_and_huge_replies_fail_their_turns_with_bounded_memory(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    """Through the CLI: turns not evaluated (exit 3), small result file, peak RSS bounded."""
    turn = {
        "userContent": {"role": "user", "content": "q"},
        "finalResponse": {"role": "assistant", "content": "a"},
    }
    cases = [
        {"evalId": f"c{i}", "evalMode": "trace", "actualConversation": [turn],
         "conversation": [turn], "sessionInput": {}}
        for i in range(4)
    ]  # fmt: skip
    evalset = tmp_path / "big.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "big", "evalCases": cases}))
    judge = {"providerName": "openai", "modelName": "m", "baseURL": judge_server.base_url,
             "apiKey": "sk-cap"}  # fmt: skip
    metrics = [{"metricName": "llm_final_response", "threshold": 1,
                "criterion": {"llmJudge": {"judgeModel": judge}}}]  # fmt: skip
    (tmp_path / "big.metrics.json").write_text(json.dumps(metrics))

    def run(name: str) -> tuple[int, str, float, Path]:
        out, log = tmp_path / name, tmp_path / f"{name}.log"
        with log.open("wb") as sink:
            proc = subprocess.Popen(
                [sys.executable, "-m", "agenteval", "run", "--evalset", str(evalset),
                 "--no-cache", "--judge-retries", "0", "--output", str(out)],
                stdout=sink, stderr=subprocess.STDOUT,
            )  # fmt: skip
            peak_mib = wait_with_peak_rss(proc, timeout=120)
        (result,) = out.glob("*.evalset_result.json")
        return proc.returncode or 0, log.read_text(), peak_mib, result

    judge_server.enqueue(*[Reply() for _ in range(4)])
    code, text, baseline_mib, _ = run("baseline")
    assert code == 0, text
    judge_server.enqueue(Reply.endless_body(), *[big_reply(FIFTY_MB) for _ in range(3)])
    code, text, peak_mib, result = run("capped")
    assert code == 3, text
    assert text.count("larger than 8,388,608 bytes") >= 1
    assert result.stat().st_size < 200_000
    # Four uncapped replies took ~215 MiB more than the baseline when measured.  A child's
    # ru_maxrss starts at the parent's size at fork, so small runs read as the same number.
    assert peak_mib < baseline_mib + 64, (baseline_mib, peak_mib)


def test_a_reply_echoing_the_api_key_is_redacted_before_cache_and_reports(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    key = "sk-test-echo-1234567890"
    judge_server.enqueue(Reply(content=f"your key is {key}; prefix {key[:12]}"))
    cache = tmp_path / "c.sqlite"
    reply = ask(settings_for(judge_server, api_key=key), options=fast_options(cache_path=cache))
    assert key not in reply.text and key[:12] not in reply.text
    assert all(key[:12].encode() not in p.read_bytes() for p in tmp_path.glob("c.sqlite*"))
