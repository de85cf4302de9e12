"""The terminal views of history and trend: sparklines with their numbers, flaky cases first."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from agenteval.store.adding import add_results
from agenteval.store.connection import Store
from agenteval.store.console import render_history, render_trend, sparkline
from agenteval.store.history import HistoryFilters, history_rows
from agenteval.store.trend import TrendFilters, trend
from sample_results import case_result, eval_set_result, metric
from store.store_support import (
    add_history,
    scripted_result,
    with_agent_usage,
    with_judge_usage,
    write_result,
)


def _console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=160, color_system=None, force_terminal=False), buffer


def test_sparkline_scales_to_the_series() -> None:
    assert sparkline([0.0, 0.5, 1.0]) == "▁▅█"
    assert sparkline([0.9, 0.9, None, 0.6]) == "██·▁"
    assert sparkline([0.7, 0.7]) == "▅▅"
    assert sparkline([None]) == "·"


def test_trend_view(store: Store, tmp_path: Path) -> None:
    ids = add_history(store, tmp_path, 9, drift_from=4)
    with store.transaction() as conn:
        found = trend(conn, TrendFilters())
    console, buffer = _console()
    render_trend(console, found, "the store", max_shown=50)
    text = buffer.getvalue()
    assert "trend over 9 runs (2026-01-01 01:00 → 2026-01-01 09:00) from the store" in text
    assert "suite / quality  ███▁▁▁▁▁▁  last 0.6 · min 0.6 · max 0.9" in text
    assert "  0.9 0.9 0.9 0.6 0.6 0.6 0.6 0.6 0.6" in text
    assert f"  change at run {ids[3]} (commit c004): 0.9 → 0.6" in text
    assert "cases: 1 flaky · 1 stable fail · 1 stable pass" in text
    rows = [line.split() for line in text.splitlines() if "/9" in line]
    flappy = next(line for line in text.splitlines() if "suite / flappy" in line)
    assert "flaky" in flappy and "6/9" in flappy and "✓✓✗✓✓✗✓✓✗" in flappy
    assert ids[2] in flappy and ids[3] in flappy
    # Flaky first, then the failure; stable passes are counted, not listed.
    assert [row[2] for row in rows] == ["flappy", "broken"]
    assert "1 more case not shown (--max-shown 0 shows all" in text
    console, buffer = _console()
    render_trend(console, found, "the store", max_shown=None)
    assert "suite / steady" in buffer.getvalue()


def test_history_view(store: Store, tmp_path: Path) -> None:
    ids = add_history(store, tmp_path, 2)
    with store.transaction() as conn:
        rows = history_rows(conn, HistoryFilters())
    console, buffer = _console()
    render_history(console, rows, "the store")
    text = buffer.getvalue()
    first = next(line for line in text.splitlines() if line.strip().startswith(ids[1]))
    assert "2026-01-01 02:00" in first and "failed" in first and "2/3 67%" in first
    assert "exact 0.6667" in first and "main" in first and "c002" in first
    assert text.rstrip().endswith("2 runs from the store")
    console, buffer = _console()
    render_history(console, [], "the store")
    assert buffer.getvalue() == "no runs in the store match\n"


def test_history_view_shows_the_agents_spend_when_a_run_recorded_it(
    store: Store, tmp_path: Path
) -> None:
    add_history(store, tmp_path / "old", 1)
    with store.transaction() as conn:
        before = history_rows(conn, HistoryFilters())
    console, buffer = _console()
    # Rows of a store without the agent's spend: the table is the one history always showed.
    render_history(
        console, [{k: v for k, v in row.items() if k != "agentUsage"} for row in before], "s"
    )
    unchanged = buffer.getvalue()
    console, buffer = _console()
    render_history(console, before, "s")
    assert buffer.getvalue() == unchanged and " agent " not in unchanged
    priced = add_results(
        store, [write_result(with_agent_usage(scripted_result(2)), tmp_path / "p")]
    )
    unpriced = add_results(
        store, [write_result(with_agent_usage(scripted_result(3), "acme:x"), tmp_path / "u")]
    )
    with store.transaction() as conn:
        rows = history_rows(conn, HistoryFilters())
    buffer = io.StringIO()
    render_history(Console(file=buffer, width=200, color_system=None), rows, "s")
    lines = buffer.getvalue().splitlines()
    assert lines[1].split() == [
        "run", "started", "(UTC)", "status", "passed", "metric", "averages", "judge", "agent",
        "branch", "commit",
    ]  # fmt: skip
    line = {
        run_id: next(x for x in lines if x.strip().startswith(run_id))
        for run_id in priced + unpriced
    }
    assert "6 model calls · 8,100 tok · $0.00171" in line[priced[0]]
    # Some turns had no price: the cost is unknown and says so, not the priced part as the whole.
    assert (
        "6 model calls · 8,100 tok · cost unknown: no price for 3 turns (give --prices FILE)"
        in line[unpriced[0]]
    )


def test_history_view_words_the_judges_cost_as_the_run_did(store: Store, tmp_path: Path) -> None:
    def added(index: int, priced: int, unpriced: int, unreported: int = 0) -> str:
        result = with_judge_usage(scripted_result(index), priced, unpriced, unreported)
        return add_results(store, [write_result(result, tmp_path / str(index))])[0]

    priced, mixed, unpriced = added(1, 1, 0), added(2, 2, 1), added(3, 0, 2)
    unreported, both = added(4, 0, 1, 1), added(5, 1, 3, 2)
    with store.transaction() as conn:
        rows = history_rows(conn, HistoryFilters())
    buffer = io.StringIO()
    render_history(Console(file=buffer, width=200, color_system=None), rows, "s")
    line = {
        run_id: next(x for x in buffer.getvalue().splitlines() if x.strip().startswith(run_id))
        for run_id in (priced, mixed, unpriced, unreported, both)
    }
    # $0.0045 was printed $0.00; $0.009 of the mixed run's calls was printed as its whole cost.
    assert "1 call · 1,100 tok · $0.0045 " in line[priced]
    assert (
        "3 calls · 3,300 tok · $0.009 + 1 call without a price (openai:house-model) " in line[mixed]
    )
    assert (
        "2 calls · 2,200 tok · cost unknown: no price for 2 calls (openai:house-model) "
        "(give --prices FILE) " in line[unpriced]
    )
    # A reply without token usage has no cost any price could give: no --prices hint (it was
    # "no price for 1 call … (give --prices FILE)"), worded as the run's console words it.
    assert (
        "1 call · 1,100 tok · cost unknown: 1 call reported no token usage (openai:house-model) "
        in line[unreported]
    )
    assert "--prices" not in line[unreported]
    assert (
        "4 calls · 4,400 tok · $0.0045 + 1 call without a price, 2 calls without reported token "
        "usage" in line[both]
    )


def test_history_view_never_rounds_a_pass_rate_onto_all_or_none(
    store: Store, tmp_path: Path
) -> None:
    # 199 of 200 passed read "199/200 100%", 1 of 200 "1/200 0%".
    for name, passing in (("most", 199), ("few", 1), ("all", 200)):
        cases = [
            case_result("suite", f"c{i:03}", [metric("m", 1.0 if i < passing else 0.0)])
            for i in range(200)
        ]
        result = eval_set_result("suite", cases)
        result.eval_set_result_id = name
        add_results(store, [write_result(result, tmp_path / name)], branch=name)
    with store.transaction() as conn:
        rows = history_rows(conn, HistoryFilters())
    console, buffer = _console()
    render_history(console, rows, "the store")
    lines = buffer.getvalue().splitlines()
    for branch, shown in (("most", "199/200 99%"), ("few", "1/200 1%"), ("all", "200/200 100%")):
        assert any(shown in line and branch in line for line in lines), (branch, lines)


def test_history_view_escapes_the_commit(store: Store, tmp_path: Path) -> None:
    # $GITHUB_SHA or store add --commit holding a clear-screen and a colour; "[red]" is markup.
    hostile = "\x1b[2J\x1b[31mdeadbeefcafe"
    add_results(store, [write_result(scripted_result(1), tmp_path / "a")], commit=hostile)
    add_results(store, [write_result(scripted_result(2), tmp_path / "b")], commit="[red]x]y")
    with store.transaction() as conn:
        rows = history_rows(conn, HistoryFilters())
    console, buffer = _console()
    render_history(console, rows, "the store")
    text = buffer.getvalue()
    assert "\x1b" not in text
    # The first 8 characters of each commit, escaped: "\x1b[2J\x1b[31" and "[red]x]y".
    assert "\\x1b[2J\\x1b[31" in text
    assert "[red]x]y" in text


def test_trend_view_prints_different_ids_differently(store: Store, tmp_path: Path) -> None:
    # "z" + BEL, the four characters "z\x07" and "z" + a zero-width space: three cases.
    ids = ["z\x07", "z\\x07", "z\u200b"]
    result = eval_set_result("s", [case_result("s", i, [metric("m", 0.0)]) for i in ids])
    add_results(store, [write_result(result, tmp_path)])
    with store.transaction() as conn:
        found = trend(conn, TrendFilters())
    console, buffer = _console()
    render_trend(console, found, "the store", max_shown=None)
    rows = [line.split()[2] for line in buffer.getvalue().splitlines() if "s / z" in line]
    assert sorted(rows) == sorted(["z\\x07", "z\\\\x07", "z\\u200b"])


def test_trend_view_escapes_the_runs_it_flipped_in(store: Store, tmp_path: Path) -> None:
    # A --run-group name is the logical run's id: a colour and "[bold]" (markup) in it.
    for index in (1, 2, 3):
        result = write_result(scripted_result(index), tmp_path / str(index))
        add_results(store, [result], run_group=f"g[bold]{index}\x1b[31m")
    with store.transaction() as conn:
        found = trend(conn, TrendFilters())
    console, buffer = _console()
    render_trend(console, found, "the store", max_shown=None)
    text = buffer.getvalue()
    flappy = next(line for line in text.splitlines() if "suite / flappy" in line)
    assert "\x1b" not in text
    assert flappy.rstrip().endswith("g[bold]3\\x1b[31m")
