"""``agenteval calibrate --evalset PATH [--metrics PATH] --labels FILE``: the labelled cases
scored on the spot, judge answers from the cache only.

The eval sets are loaded, checked and planned by :func:`agenteval.api.prepare` and scored
by :func:`agenteval.api.stream_prepared`, the path ``agenteval run`` takes, with
``--offline`` semantics: a judge call the cache cannot answer is never sent, its metric
ends ``not_evaluated`` (the labelled items it leaves without a verdict are listed and make
the calibration incomplete, exit 3) and the judge's reason is kept (:attr:`Spot.misses`).
Only the cases some label names are scored.  A live judge is deliberately not offered:
the calibration measures the verdicts a run gave (a run that saved them, or filled the
cache), and spending on judge calls stays with ``agenteval run`` and its budgets.

Tested in tests/calibrate/test_spot.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

from agenteval import api
from agenteval.calibrate.agreement import labelled_cases, labelled_items
from agenteval.calibrate.items import Item, ItemKey
from agenteval.calibrate.labels import Label
from agenteval.errors import Problem


@dataclass(frozen=True, slots=True)
class SpotScoring:
    """What to score on the spot: eval sets, their metrics, the judge cache, plugins."""

    evalsets: tuple[str, ...]
    metrics: str | None = None
    cache: str | None = None  # None: the default cache ($AGENTEVAL_CACHE)
    plugins: tuple[str, ...] = ()

    def explain_source(self) -> tuple[str, ...]:
        """The ``agenteval explain`` flags that score one of these items the same way."""
        words: list[str] = []
        for evalset in self.evalsets:
            words += ["--evalset", evalset]
        if self.metrics is not None:
            words += ["--metrics", self.metrics]
        for plugin in self.plugins:
            words += ["--plugin", plugin]
        if self.cache is not None:
            words += ["--cache", self.cache]
        return (*words, "--offline")


@dataclass(slots=True)
class Spot:
    """The labelled items as scored, what the run warned of, and why judge turns were missed."""

    items: dict[ItemKey, Item]
    warnings: list[Problem] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)


def _labelled(wanted: set[tuple[str, str, int]], eval_set_id: str, eval_id: str) -> bool:
    return (eval_set_id, eval_id, 1) in wanted


def score_labelled(scoring: SpotScoring, labels: Sequence[Label]) -> Spot:
    """Score the cases ``labels`` name (judge from the cache only); ConfigError on bad input."""
    options = api.Options(
        metrics=scoring.metrics,
        plugins=scoring.plugins,
        cache=scoring.cache if scoring.cache is not None else api.default_cache_path(),
        offline=True,
    )
    prepared = api.prepare(scoring.evalsets, options)
    wanted = labelled_cases(labels)
    for plan in prepared.plans:
        # One run per case: a label naming runId 2 or more names nothing scored here.
        plan.cases = plan.cases.where(partial(_labelled, wanted, plan.eval_set_id))
    sink = api.CollectedResults()
    judge = api.JudgeOutcome()
    with api.relaxed_gc():
        asyncio.run(api.stream_prepared(prepared, options, sink, judge))
    cases = ((r.eval_set_id, case) for r in sink.results for case in r.eval_case_results or ())
    return Spot(labelled_items(cases, labels), prepared.warnings, judge.failures)


__all__ = ["Spot", "SpotScoring", "score_labelled"]
