"""The terminal views of ``agenteval history`` and ``agenteval trend``.

Every text that came from an input (eval set and case ids, metric names, branch names
from git or CI) is escaped through ``inputs.safe_text`` before it is printed; times are
UTC so two machines print the same history the same way.

Tested in tests/store/test_console.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from agenteval.inputs.safe_text import escape_control
from agenteval.inputs.score_text import format_score, pass_percent
from agenteval.report.judge_cost import cost_text, priced_text, usd
from agenteval.results.flakiness import Verdict
from agenteval.store.history import iso
from agenteval.store.trend import MetricSeries, Trend

SPARKS = "▁▂▃▄▅▆▇█"
DEFAULT_MAX_SHOWN = 50
_STATE_STYLES = {
    "passed": "green",
    "failed": "red",
    "incomplete": "yellow",
    "not_evaluated": "dim",
    "unfinished": "yellow",
    "interrupted": "yellow",
    "partial": "yellow",
}
_VERDICT_STYLES = {
    Verdict.FLAKY: "yellow",
    Verdict.STABLE_FAIL: "red",
    Verdict.STABLE_PASS: "green",
    Verdict.UNDECIDED: "dim",
}


def _safe(text: str | None) -> str:
    # exact: two different ids never print alike ("z" + BEL and the text "z\x07").
    return escape_control(text, exact=True) if text else ""


def _when(iso_text: str | None) -> str:
    return (iso_text or "").replace("T", " ").removesuffix("Z")[:16]


def _status(row: dict[str, Any]) -> Text:
    state = row["state"]
    if state == "finished":
        shown = (row["outcome"] or "finished").replace("_", " ")
        return Text(shown, style=_STATE_STYLES.get(row["outcome"] or "", ""))
    if state == "partial" and row["shards"]:
        shards = row["shards"]
        return Text(f"partial {shards['reported']}/{shards['expected']}", style="yellow")
    return Text(state, style=_STATE_STYLES.get(state, ""))


def _judge(judge: dict[str, Any]) -> Text:
    """``3 calls · 3,300 tok · $0.0135``, worded as the run worded it (report.judge_cost):
    ``$0.0045 + 2 calls without a price (openai:x)``, never the priced part as the whole, and
    ``1 call reported no token usage`` (no ``--prices`` hint) where no price would help."""
    if not judge["calls"] and not judge["cacheHits"]:
        return Text("")
    tokens = judge["promptTokens"] + judge["completionTokens"]
    calls = judge["calls"]
    text = f"{calls:,} call{'s' if calls != 1 else ''} · {tokens:,} tok"
    unpriced = judge.get("unpricedCalls") or 0
    if unpriced:
        # pricedCostUsd None: what the priced calls cost is not known either ("cost unknown").
        usage = {
            "costUsd": judge.get("pricedCostUsd") or 0,
            "unpricedCalls": unpriced,
            "unreportedCalls": judge.get("unreportedCalls") or 0,
            "unpricedModels": judge.get("unpricedModels"),
        }
        text += f" · {cost_text(usage)}"
    elif judge["costUsd"] is not None:
        text += f" · {usd(judge['costUsd'])}"
    # Model names come from the judged metrics' files.
    return Text(_safe(text))


def _agent(usage: dict[str, Any] | None) -> str:
    """``6 model calls · 8,100 tok · $0.00171``, worded as the run worded it (report.agent_cost):
    a cost not known says so, never a partial sum."""
    if not usage:
        return ""
    calls = usage["inferenceCalls"]
    tokens = usage["inputTokens"] + usage["outputTokens"]
    # costUsd None: some turns had no price, so the whole is unknown (store.agent_spend).
    priced = {"costUsd": usage["costUsd"] or 0, "unpricedTurns": usage["unpricedTurns"]}
    text = f"{calls:,} model call{'s' if calls != 1 else ''} · {tokens:,} tok"
    text += f" · {priced_text(priced, 'unpricedTurns', 'turn')}"
    missing = usage["turnsWithoutUsage"]
    if missing:
        text += f" · {missing:,} turn{'s' if missing != 1 else ''} without usage"
    return text


def _percent(passed: int, total: int) -> str:
    """`` 67%`` (:func:`pass_percent`), or "" when there are no cases."""
    return f" {pass_percent(passed, total)}" if total else ""


def render_history(console: Console, rows: Sequence[dict[str, Any]], where: str) -> None:
    """The ``history`` table, newest first (an ``agent`` column when a run recorded its spend)."""
    if not rows:
        console.print(f"no runs in {where} match", markup=False, highlight=False)
        return
    agent = any(row.get("agentUsage") for row in rows)
    spend = ("judge", "agent") if agent else ("judge",)
    table = Table(
        "run", "started (UTC)", "status", "passed", "metric averages", *spend, "branch", "commit",
        box=box.SIMPLE_HEAD, pad_edge=False,
    )  # fmt: skip
    for row in rows:
        cases = row["cases"]
        passed = f"{cases['passed']}/{cases['total']}" + _percent(cases["passed"], cases["total"])
        averages = "\n".join(
            f"{_safe(name)} {format_score(value)}" for name, value in row["metricAverages"].items()
        )
        # The commit comes from git or $GITHUB_SHA / store add --commit: input like any other.
        commit = _safe((row["commit"] or "")[:8]) + ("*" if row["dirty"] else "")
        reruns = len(row.get("replacedRuns") or ())
        group = f" (group, {reruns} rerun{'s' if reruns != 1 else ''})" if reruns else " (group)"
        run_id = row["runId"] + (group if row["group"] else "")
        spent = (_judge(row["judge"]), _agent(row.get("agentUsage")))[: len(spend)]
        table.add_row(
            Text(_safe(run_id)),
            _when(row["startedAt"]),
            _status(row),
            passed,
            Text(averages),
            *spent,
            Text(_safe(row["branch"])),
            Text(commit),
        )
    console.print(table)
    console.print(
        f"{len(rows)} run{'s' if len(rows) != 1 else ''} from {where}",
        markup=False,
        highlight=False,
    )


def sparkline(values: Sequence[float | None]) -> str:
    """One block character per value, scaled to the series' own range (· where missing)."""
    present = [v for v in values if v is not None]
    if not present:
        return "·" * len(values)
    low, high = min(present), max(present)
    span = high - low
    out = []
    for value in values:
        if value is None:
            out.append("·")
        elif span < 1e-9:
            out.append(SPARKS[len(SPARKS) // 2])
        else:
            out.append(SPARKS[round((value - low) / span * (len(SPARKS) - 1))])
    return "".join(out)


def _numbers(values: Sequence[float | None]) -> str:
    return " ".join("·" if v is None else format_score(v) for v in values)


def _series(console: Console, series: MetricSeries) -> None:
    values = series.values
    present = [v for v in values if v is not None]
    name = f"{_safe(series.eval_set_id)} / {_safe(series.metric_name)}"
    head = Text(name, style="bold")
    head.append("  " + sparkline(values))
    if present:
        head.append(
            f"  last {format_score(present[-1])} · min {format_score(min(present))} · "
            f"max {format_score(max(present))}",
            style="dim",
        )
    console.print(head)
    console.print(Text("  " + _numbers(values), style="dim"), soft_wrap=True)
    for point in series.change_points:
        line = Text("  ")
        line.append("change" if point.shift else "inputs changed", style="yellow")
        line.append(f" at run {_safe(point.run_id)}")
        if point.commit:
            line.append(f" (commit {_safe(point.commit[:8])})")
        line.append(f": {format_score(point.before)} → {format_score(point.after)}")
        if point.reasons:
            line.append(" · " + _safe("; ".join(point.reasons)))
        console.print(line, soft_wrap=True)


def _outcomes(outcomes: Sequence[bool | None]) -> str:
    return "".join("·" if o is None else ("✓" if o else "✗") for o in outcomes)


def render_trend(console: Console, trend: Trend, where: str, max_shown: int | None) -> None:
    """The ``trend`` view: a sparkline per metric with its numbers and change points, then cases."""
    runs = trend.runs
    if not runs:
        console.print(f"no finished runs in {where} match", markup=False, highlight=False)
        return
    first, last = runs[0], runs[-1]
    console.print(
        Text(
            f"trend over {len(runs)} run{'s' if len(runs) != 1 else ''} "
            f"({_when_run(first.started_at)} → {_when_run(last.started_at)}) from {where}",
            style="bold",
        )
    )
    for series in trend.series:
        _series(console, series)
    counts = trend.verdict_counts()
    summary = " · ".join(
        f"{counts[v.value]} {v.label}"
        for v in (Verdict.FLAKY, Verdict.STABLE_FAIL, Verdict.STABLE_PASS, Verdict.UNDECIDED)
        if counts[v.value] or v is not Verdict.UNDECIDED
    )
    console.print(Text(f"cases: {summary}", style="bold"))
    shown = list(trend.cases)
    if max_shown:
        # Flaky and failing cases only (they come first), at most max_shown of them.
        shown = [c for c in shown if c.verdict.verdict is not Verdict.STABLE_PASS][:max_shown]
    hidden = len(trend.cases) - len(shown)
    if shown:
        table = Table(
            "case", "verdict", "passed", "95% interval", "runs (oldest → newest)", "flipped in",
            box=box.SIMPLE_HEAD, pad_edge=False,
        )  # fmt: skip
        for case in shown:
            verdict = case.verdict
            # Run ids and --run-group names are input: escaped, and no markup in a Text.
            shown_flips = ", ".join(_safe(run_id) for run_id in case.flip_runs[:5])
            flips = Text(shown_flips + (" …" if len(case.flip_runs) > 5 else ""))
            table.add_row(
                Text(f"{_safe(case.eval_set_id)} / {_safe(case.eval_id)}"),
                Text(verdict.verdict.label, style=_VERDICT_STYLES[verdict.verdict]),
                f"{verdict.passed}/{verdict.runs}",
                f"{format_score(verdict.low)}–{format_score(verdict.high)}",
                _outcomes(case.outcomes),
                flips,
            )
        console.print(table)
    if hidden:
        console.print(
            f"{hidden} more case{'s' if hidden != 1 else ''} not shown "
            "(--max-shown 0 shows all, --json gives every case)",
            markup=False,
            highlight=False,
        )


def _when_run(seconds: float) -> str:
    return _when(iso(seconds))


__all__ = ["DEFAULT_MAX_SHOWN", "render_history", "render_trend", "sparkline"]
