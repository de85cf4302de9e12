"""What the agent under test spent: tokens, model calls and dollars per case, eval set and run.

The turns' ``usage`` (:class:`agenteval.schema.evalset.Usage`: ``cmd:`` usage lines,
AG-UI ``RUN_FINISHED``, OTLP ``gen_ai.usage.*``, ADK ``usage_metadata``, trpc-agent-go's
``Usage``) is counted for every case whose trace carries it, whether or not a
``token_usage`` metric is configured (a case whose driven agent failed counts the turns it
finished and the usage the failing turn reported, live and replayed from ``--record``): the runner writes it on the case result as
``agentUsage``, an eval set's result adds up its cases under the same key, and the run
document adds up its eval sets.  It is kept apart from ``judgeUsage`` (what scoring the
run cost): the agent's spend is what the product costs, the judge's what testing it costs.

Dollars come from the run's price table (the built-in one with ``--prices`` / the
project config's ``prices`` over it), looked up by the turn's ``model``
(``"<providerName>:<modelName>"``).  A turn whose model has no price, or that names no
single model, is counted in ``unpricedTurns`` and its model in ``unpricedModels``: its
cost is never guessed, and a report shows ``costUsd`` as the whole only when no turn
is unpriced.  Turns whose trace carries no usage are counted in ``turnsWithoutUsage``.

Tested in tests/results/test_agent_usage.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agenteval.judge.prices import PriceTable
    from agenteval.schema.evalset import Invocation

# The extra key of a case result, an eval set result and a run document (Go readers ignore it).
AGENT_USAGE_KEY = "agentUsage"
# Dollar amounts are written with at most this many decimals (as judge/usage.py writes them).
_COST_DECIMALS = 12
# The counts of an ``agentUsage`` object, in the order it is written.
COUNTS = (
    "turns",
    "turnsWithoutUsage",
    "inferenceCalls",
    "inputTokens",
    "outputTokens",
    "unpricedTurns",
)


@dataclass
class AgentUsage:
    """The agent's spend over some turns: a case's, an eval set's or a run's.

    ``counts`` holds the :data:`COUNTS` by their JSON names; ``cost_usd`` the priced
    turns' dollars; ``unpriced_models`` the models of the others, first seen first.
    """

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    cost_usd: Decimal = field(default_factory=Decimal)
    unpriced_models: list[str] = field(default_factory=list)

    @property
    def active(self) -> bool:
        """Whether any turn carried usage."""
        return self.counts["turns"] > 0

    def add_turns(self, turns: Iterable[Invocation], prices: PriceTable | None) -> None:
        """Count each turn's usage, priced at ``prices`` (None: the built-in table)."""
        counts = self.counts
        for turn in turns:
            usage = turn.usage
            if usage is None:
                counts["turnsWithoutUsage"] += 1
                continue
            from agenteval.judge.prices import usage_cost  # the judge stack: only with usage

            counts["turns"] += 1
            counts["inferenceCalls"] += usage.inference_calls
            counts["inputTokens"] += usage.input_tokens
            counts["outputTokens"] += usage.output_tokens
            cost = usage_cost(usage, prices)
            if cost.usd is None:
                counts["unpricedTurns"] += 1
                self._unpriced((cost.key,))
            else:
                self.cost_usd += cost.usd

    def add(self, data: object) -> None:
        """Add an ``agentUsage`` object read back (anything else is ignored)."""
        if not isinstance(data, Mapping):
            return
        for key in COUNTS:
            value = data.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                self.counts[key] += value
        cost = data.get("costUsd")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            self.cost_usd += exact_usd(cost)
        models = data.get("unpricedModels")
        if isinstance(models, list):
            self._unpriced(str(m) for m in models)

    def absorb(self, other: AgentUsage) -> None:
        """Add ``other``'s spend exactly, as if its turns had been counted here after these
        (a worker's share of an eval set's cases, run/case_split.py)."""
        for key in COUNTS:
            self.counts[key] += other.counts[key]
        self.cost_usd += other.cost_usd
        self._unpriced(other.unpriced_models)

    def _unpriced(self, models: Iterable[str]) -> None:
        self.unpriced_models.extend(m for m in models if m not in self.unpriced_models)

    def to_json(self) -> dict[str, Any]:
        """camelCase JSON for result files and the run document."""
        data: dict[str, Any] = dict(self.counts)
        data["costUsd"] = usd_json(self.cost_usd)
        if self.unpriced_models:
            data["unpricedModels"] = list(self.unpriced_models)
        return data


def exact_usd(amount: float) -> Decimal:
    """A dollar amount read back from a file as the Decimal it was written from (the float's
    shortest form), so amounts read back add up exactly as they did when written."""
    return Decimal(repr(float(amount)))


def usd_json(amount: Decimal) -> float:
    """Dollars as the files hold them: at most :data:`_COST_DECIMALS` decimals."""
    return float(round(amount, _COST_DECIMALS))


def summed_usd(amounts: Iterable[float]) -> float:
    """Dollar amounts read back, added exactly and written again (eval sets into a run,
    runs into a group)."""
    return usd_json(sum((exact_usd(amount) for amount in amounts), Decimal()))


def case_agent_usage(
    turns: Iterable[Invocation], prices: PriceTable | None
) -> dict[str, Any] | None:
    """A case run's ``agentUsage``, None when none of its turns carries usage."""
    turns = list(turns)
    if all(turn.usage is None for turn in turns):
        return None  # most traces: nothing to build (measured 0.6 µs CPU a case, not 1.4)
    spent = AgentUsage()
    spent.add_turns(turns, prices)
    return spent.to_json() if spent.active else None


def summed(parts: Iterable[object]) -> dict[str, Any] | None:
    """The ``agentUsage`` of several (cases, eval sets), None when none carries usage."""
    total = AgentUsage()
    for part in parts:
        total.add(part)
    return total.to_json() if total.active else None


__all__ = [
    "AGENT_USAGE_KEY",
    "COUNTS",
    "AgentUsage",
    "case_agent_usage",
    "exact_usd",
    "summed",
    "summed_usd",
    "usd_json",
]
