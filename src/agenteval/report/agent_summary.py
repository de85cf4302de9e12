"""The summary line about the driven agent (``run --agent``).

Tested in tests/agents/test_cmd_agent.py and tests/agents/test_agui_agent.py.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import Console


def render_agent_stats(out: Console, stats: Mapping[str, object], first_failure: str = "") -> None:
    """One line on the driven agent: sessions, turns, tool calls, failures, time."""
    failures = stats.get("failures", 0)
    line = (
        f"agent: {stats.get('sessions', 0)} sessions, {stats.get('turns', 0)} turns, "
        f"{stats.get('toolCalls', 0)} tool calls ({stats.get('mockedToolCalls', 0)} mocked), "
        f"{failures} failed, agent time {stats.get('agentSeconds', 0)} s"
    )
    out.print(line, highlight=False, markup=False, soft_wrap=True)
    missing = stats.get("notStarted", 0)
    if missing:
        out.print(
            # A detail, not a verdict: the run's final line says INCOMPLETE.
            f"  the agent could not be started or reached for {missing} case run(s): "
            "those cases are incomplete, not failed",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    if failures and first_failure:
        out.print(
            f"  first agent failure: {first_failure}", highlight=False, markup=False, soft_wrap=True
        )
