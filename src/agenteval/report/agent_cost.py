"""How the reports word what the agent under test spent, apart from the judge's cost.

Reads the ``agentUsage`` JSON of a case, an eval set or a run
(:mod:`agenteval.results.agent_usage`): ``agent usage: 4 model calls, 1,000 input + 200
output tokens · $0.0051``.  Turns whose model has no price are said (``cost unknown:
no price for 2 turns (openai:house-model)``), as are turns whose trace carried no usage
(``· 1 turn without usage``), so a partial sum never reads as the whole.  Model names
come from input files: callers escape the text before printing it.

Tested in tests/report/test_agent_cost.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agenteval.report.judge_cost import priced_text
from agenteval.results.agent_usage import AgentUsage


def agent_cost_text(usage: Mapping[str, Any]) -> str:
    """``$0.0051``, or ``$0.0051 + 2 turns without a price (openai:x)``: the dollars of an
    ``agentUsage``, never its priced part as the whole."""
    return priced_text(usage, "unpricedTurns", "turn")


def agent_usage_text(usage: object) -> str:
    """``4 model calls, 1,000 input + 200 output tokens · $0.0051``; "" without usage."""
    spent = AgentUsage()
    spent.add(usage)  # the counts read as agent_usage reads them back (whole numbers only)
    counts = spent.counts
    if not isinstance(usage, Mapping) or not counts["turns"]:
        return ""
    calls = counts["inferenceCalls"]
    text = (
        f"{calls:,} model call{'s' if calls != 1 else ''}, "
        f"{counts['inputTokens']:,} input + {counts['outputTokens']:,} output tokens"
        f" · {agent_cost_text(usage)}"
    )
    missing = counts["turnsWithoutUsage"]
    if missing:
        text += f" · {missing:,} turn{'s' if missing != 1 else ''} without usage"
    return text


__all__ = ["agent_cost_text", "agent_usage_text"]
