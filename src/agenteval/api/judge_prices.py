"""``--max-judge-cost`` needs a price for every judge it bounds: checked before anything runs.

A judge metric whose model the price table does not name could never be counted
against the bound, so the run would either overspend or refuse every call late; it
is a configuration error (exit 2) naming the metric file, the metric and the model.
Judges reached only at run time (an agent's simulated user) are refused per call by
the client instead.

Tested in tests/checks/test_judge_prices.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agenteval.errors import Problem

if TYPE_CHECKING:
    from agenteval.judge.prices import PriceTable
    from agenteval.run.runner import EvalSetPlan


def unpriced_judges(plans: Sequence[EvalSetPlan], prices: PriceTable) -> list[Problem]:
    """One problem per judge metric whose resolved provider and model have no price."""
    from agenteval.judge import JudgeConfigError, resolve_settings
    from agenteval.judge.prices import price_key

    problems: list[Problem] = []
    seen: set[tuple[str, int]] = set()
    for plan in plans:
        file = str(plan.metrics_path) if plan.metrics_path is not None else plan.eval_set_id
        for planned in plan.metrics:
            metric = planned.metric
            llm_judge = metric.criterion.llm_judge if metric.criterion else None
            if not planned.evaluator.needs_judge or llm_judge is None:
                continue
            model = llm_judge.judge_model
            if model is None:
                continue
            try:
                settings = resolve_settings(model)
            except JudgeConfigError:
                continue  # the judge-config checks report it
            if prices.lookup(settings.provider, settings.model) is not None:
                continue
            index = next(i for i, m in enumerate(plan.all_metrics) if m is metric)
            if (file, index) in seen:
                continue
            seen.add((file, index))
            key = price_key(settings.provider, settings.model)
            problems.append(
                Problem(
                    file,
                    f"[{index}].criterion.llmJudge.judgeModel",
                    f"metric {metric.metric_name!r}: no price for {key}, so --max-judge-cost "
                    "cannot count its calls",
                    f'give its price with --prices FILE, e.g. {{"{key}": '
                    '{"inputPerMillion": 1, "outputPerMillion": 2}}',
                )
            )
    return problems


__all__ = ["unpriced_judges"]
