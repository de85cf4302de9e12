"""``agenteval report --store URL --trend --html FILE``: the trend as one offline HTML page.

The same data as ``agenteval trend`` (:class:`agenteval.store.trend.Trend`): per metric
an inline SVG line chart of its average per run (threshold dashed, change points marked,
every point titled with its run, commit and value) and the numbers beside it; per case
its verdict, pass rate with the Wilson interval, a strip of its outcomes and the runs
where it flipped, flaky cases first.

The page is rendered whole on this side (Jinja2, autoescaped: every text from a run is
inert; control characters are shown escaped, as on the console) from ``trend_assets/``;
it runs no script at all, and its Content-Security-Policy
allows nothing but its own stylesheet (by hash), so it loads nothing from anywhere.

Tested in tests/store/test_trend_page.py (in real Chromium).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jinja2

from agenteval import __version__
from agenteval.inputs.safe_text import escape_control
from agenteval.inputs.score_text import format_score
from agenteval.results.flakiness import Verdict
from agenteval.store.history import iso
from agenteval.store.queries import LogicalRun
from agenteval.store.trend import MetricSeries, Trend

_ASSETS = "trend_assets"
WIDTH, HEIGHT, PAD = 640, 160, 28
CELL = 10
# Non-stable-pass cases listed on the page (the rest are counted).
MAX_CASES = 2000


def _asset(name: str) -> str:
    return resources.files("agenteval.store").joinpath(_ASSETS, name).read_text(encoding="utf-8")


@cache
def _environment() -> jinja2.Environment:
    loader = jinja2.FunctionLoader(_asset)
    return jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined)


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


@dataclass(frozen=True, slots=True)
class _Scale:
    low: float
    high: float
    count: int

    def x(self, index: int) -> float:
        if self.count <= 1:
            return PAD + (WIDTH - 2 * PAD) / 2
        return round(PAD + index * (WIDTH - 2 * PAD) / (self.count - 1), 2)

    def y(self, value: float) -> float:
        return round(
            HEIGHT - PAD - (value - self.low) / (self.high - self.low) * (HEIGHT - 2 * PAD), 2
        )


def _every(series: MetricSeries) -> list[float]:
    """The values a chart shows: every average and the last threshold."""
    thresholds = [p.threshold for p in series.points if p is not None]
    return [v for v in series.values if v is not None] + thresholds[-1:]


def _scale(series: MetricSeries, count: int) -> _Scale:
    every = _every(series)
    low, high = (min(every), max(every)) if every else (0.0, 1.0)
    if high - low < 1e-9:
        low, high = low - 0.05, high + 0.05
    pad = (high - low) * 0.05
    return _Scale(low - pad, high + pad, count)


def _chart(series: MetricSeries, trend: Trend) -> dict[str, Any]:
    runs = trend.runs
    scale = _scale(series, len(runs))
    lines: list[str] = []
    current: list[str] = []
    dots = []
    for index, value in enumerate(series.values):
        if value is None:
            if current:
                lines.append(" ".join(current))
            current = []
            continue
        x, y = scale.x(index), scale.y(value)
        current.append(f"{x},{y}")
        run = runs[index]
        commit = f" · commit {run.first.commit[:8]}" if run.first.commit else ""
        title = escape_control(f"run {run.id}{commit}: {format_score(value)}")
        dots.append({"x": x, "y": y, "title": title})
    if current:
        lines.append(" ".join(current))
    thresholds = [p.threshold for p in series.points if p is not None]
    marks = [
        {
            "x": scale.x(point.index),
            "title": escape_control(
                f"{'change' if point.shift else 'inputs changed'} at run {point.run_id}"
                + (f" (commit {point.commit[:8]})" if point.commit else "")
                + f": {format_score(point.before)} → {format_score(point.after)}"
                + (" · " + "; ".join(point.reasons) if point.reasons else "")
            ),
        }
        for point in series.change_points
    ]
    return {
        "name": escape_control(f"{series.eval_set_id} / {series.metric_name}"),
        "width": WIDTH,
        "height": HEIGHT,
        "pad": PAD,
        "lines": lines,
        "dots": dots,
        "threshold": scale.y(thresholds[-1]) if thresholds else None,
        "threshold_label": format_score(thresholds[-1]) if thresholds else "",
        "low": format_score(min(every)) if (every := _every(series)) else "",
        "high": format_score(max(every)) if every else "",
        "marks": marks,
        "numbers": ["·" if v is None else format_score(v) for v in series.values],
        "changes": [mark["title"] for mark in marks],
    }


# A run's outcome in a case's strip: its colour's class and its words (the colour is not
# all: the squares were red and green only, nothing said which runs failed).
_OUTCOMES = {True: ("pass", "passed"), False: ("fail", "failed"), None: ("none", "no outcome")}


def _case(case: Any, runs: Sequence[LogicalRun]) -> dict[str, Any]:
    verdict = case.verdict
    said = [_OUTCOMES[outcome] for outcome in case.outcomes]
    return {
        "name": escape_control(f"{case.eval_set_id} / {case.eval_id}"),
        "verdict": verdict.verdict.value,
        "label": verdict.verdict.label,
        "passed": f"{verdict.passed}/{verdict.runs}",
        "interval": f"{format_score(verdict.low)}–{format_score(verdict.high)}",
        "cells": [
            {"x": i * CELL, "state": state, "title": escape_control(f"run {run.id}: {words}")}
            for i, ((state, words), run) in enumerate(zip(said, runs, strict=True))
        ],
        "outcomes": ", ".join(words for _, words in said),
        "strip_width": max(1, len(case.outcomes)) * CELL,
        "flips": escape_control(", ".join(case.flip_runs)),
    }


def trend_model(trend: Trend, title: str) -> dict[str, Any]:
    """The page's data: charts with their SVG coordinates, cases, runs."""
    listed = [c for c in trend.cases if c.verdict.verdict is not Verdict.STABLE_PASS]
    counts = trend.verdict_counts()
    return {
        "title": title,
        "generator": f"agenteval {__version__}",
        "runs": [
            {
                "id": escape_control(run.id),
                "started": iso(run.started_at),
                "branch": escape_control(run.first.branch or ""),
                "commit": escape_control((run.first.commit or "")[:8]),
            }
            for run in trend.runs
        ],
        "charts": [_chart(series, trend) for series in trend.series],
        "cases": [_case(case, trend.runs) for case in listed[:MAX_CASES]],
        # Apart: past MAX_CASES the cut flaky and failing cases were counted as stable passes.
        "cut": max(0, len(listed) - MAX_CASES),
        "unlisted": len(trend.cases) - len(listed),
        "counts": [
            {"verdict": v.value, "label": v.label, "count": counts[v.value]}
            for v in (Verdict.FLAKY, Verdict.STABLE_FAIL, Verdict.STABLE_PASS, Verdict.UNDECIDED)
        ],
    }


def render_trend_page(trend: Trend, *, title: str) -> bytes:
    """The whole page as UTF-8 bytes."""
    css = _asset("trend.css")
    page = (
        _environment()
        .get_template("trend.html.j2")
        .render(model=trend_model(trend, title), css=css, style_hash=_hash(css), cell=CELL)
    )
    return page.encode("utf-8")


__all__ = ["render_trend_page", "trend_model"]
