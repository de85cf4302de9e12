"""The progress bar's judge column: calls, cache hits and tokens so far."""

from __future__ import annotations

import time

from rich.progress import Task, TaskID

from agenteval.report.progress import JudgeUsageColumn


def column_text(judge: object) -> str:
    task = Task(TaskID(0), "cases", None, 0, _get_time=time.monotonic, fields={"judge": judge})
    return JudgeUsageColumn().render(task).plain


def test_the_judge_column_counts_one_call_as_a_call() -> None:
    usage = {"calls": 1, "cacheHits": 2, "promptTokens": 1200, "completionTokens": 34}
    assert column_text(usage) == "judge 1 call · 2 cached · 1,234 tokens"
    assert column_text({**usage, "calls": 3}) == "judge 3 calls · 2 cached · 1,234 tokens"
    assert column_text(None) == ""
