"""The summary line about the driven agent (``run --agent``).

Tested in tests/agents/test_cmd_agent.py and tests/agents/test_agui_agent.py.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import Console


def render_agent_stats(out: Console, stats: Mapping[str, object], first_failure: str = "") -> None:
    """One line on the driven agent: sessions, turns, tool calls, failures, time.

    "agent time" is wall time with at least one session open; in brackets, the sessions'
    own times summed (larger with --agent-concurrency above 1).
    """
    failures = stats.get("failures", 0)
    sessions = stats.get("sessions", 0)
    wall = _seconds(stats.get("wallSeconds"))
    summed = _seconds(stats.get("sessionSeconds"))
    line = (
        f"agent: {sessions} sessions, {stats.get('turns', 0)} turns, "
        f"{stats.get('toolCalls', 0)} tool calls ({stats.get('mockedToolCalls', 0)} mocked), "
        f"{failures} failed, agent time {wall:.1f} s wall "
        f"({summed:.1f} s summed over {sessions} sessions)"
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


def _seconds(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0
