"""The HTML trend page in real headless Chromium: inline SVG charts, change points, flaky cases.

The page is opened from ``file://``; every request but its own file is refused and
recorded, and so is every console error (a Content-Security-Policy violation is one).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from agenteval.store import trend_page
from agenteval.store.adding import add_results
from agenteval.store.connection import Store, open_store
from agenteval.store.trend import TrendFilters, trend
from agenteval.store.trend_page import render_trend_page
from agenteval.store.urls import parse_store_url
from report.test_html import SCREENSHOTS
from sample_results import case_result, eval_set_result, metric
from store.store_support import add_history, write_result

HOSTILE = '<img src=x onerror="document.title=1">\x1b[2J'


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[Store]:
    store = open_store(parse_store_url(f"sqlite:///{tmp_path}/h.sqlite", "--store"), write=True)
    yield store
    store.close()


def _open(browser: Browser, path: Path) -> tuple[Page, list[str], list[str]]:
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    url = path.resolve().as_uri()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.route("**/*", lambda r: r.abort() if r.request.url != url else r.continue_())
    page.goto(url)
    return page, requests, errors


def test_trend_page_charts_change_points_and_flaky_cases(
    browser: Browser, sqlite_store: Store, tmp_path: Path
) -> None:
    ids = add_history(sqlite_store, tmp_path / "runs", 9, drift_from=4)
    hostile = eval_set_result("suite", [case_result("suite", HOSTILE, [metric("exact", 0.0)])])
    hostile.eval_set_result_id = "hostile"
    hostile.creation_timestamp = 1_767_225_600.0 + 10 * 3600
    ids += add_results(sqlite_store, [write_result(hostile, tmp_path / "h")], commit="c010")
    with sqlite_store.transaction() as conn:
        found = trend(conn, TrendFilters())
    page_file = tmp_path / "trend.html"
    page_file.write_bytes(render_trend_page(found, title="nightly trend"))
    page, requests, errors = _open(browser, page_file)
    try:
        assert page.title() == "nightly trend"
        assert page.inner_text("#span") == (
            "10 finished runs, 2026-01-01T01:00:00Z → 2026-01-01T10:00:00Z"
        )
        charts = page.locator("article.chart")
        names = [charts.nth(i).get_attribute("data-metric") for i in range(charts.count())]
        assert names == ["suite / exact", "suite / quality"]
        quality = page.locator("article.chart[data-metric='suite / quality']")
        # Nine points (the tenth run scored no quality): one polyline through all nine.
        assert quality.locator("circle.point").count() == 9
        points = quality.locator("polyline.series").get_attribute("points") or ""
        assert len(points.split()) == 9
        ys = [float(p.split(",")[1]) for p in points.split()]
        assert ys[0] == ys[2] < ys[3] == ys[8]  # higher scores are drawn higher (smaller y)
        assert quality.locator("circle.point").first.locator("title").text_content() == (
            f"run {ids[0]} · commit c001: 0.9"
        )
        assert quality.locator("line.threshold title").text_content() == "threshold 0.5"
        mark = quality.locator("line.change title").text_content()
        assert mark == f"change at run {ids[3]} (commit c004): 0.9 → 0.6"
        assert quality.locator("p.numbers").inner_text() == "0.9 0.9 0.9 0.6 0.6 0.6 0.6 0.6 0.6 ·"
        rows = page.locator("table.cases tbody tr")
        first = rows.nth(0)
        assert first.locator(".case-name").inner_text() == "suite / flappy"
        assert first.locator(".verdict").inner_text() == "flaky"
        assert first.locator("td.num").nth(0).inner_text() == "6/9"
        cells = first.locator("svg.strip rect")
        states = [cells.nth(i).get_attribute("class") for i in range(cells.count())]
        assert states == ["pass", "pass", "fail"] * 3 + ["none"]
        assert ids[2] in first.locator(".flips").inner_text()
        # The hostile case id is text: no element was made of it, no script ran.
        names_text = page.locator("table.cases .case-name").all_inner_texts()
        assert f"suite / {HOSTILE[:-4]}\\x1b[2J" in names_text
        assert page.locator("table.cases img").count() == 0
        assert page.title() == "nightly trend"
        assert page.inner_text("p.counts").startswith("1 flaky")
        assert requests == [page_file.resolve().as_uri()]
        assert errors == []
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "trend-page.png"), full_page=True)
    finally:
        page.close()


def test_an_empty_selection_is_a_page_that_says_so(
    browser: Browser, sqlite_store: Store, tmp_path: Path
) -> None:
    with sqlite_store.transaction() as conn:
        found = trend(conn, TrendFilters(branch="nowhere"))
    page_file = tmp_path / "empty.html"
    page_file.write_bytes(render_trend_page(found, title="empty"))
    page, requests, errors = _open(browser, page_file)
    try:
        assert page.inner_text("#span") == "no finished runs match"
        assert page.locator("svg.trend").count() == 0
        assert errors == [] and len(requests) == 1
    finally:
        page.close()


def test_every_text_from_the_store_is_escaped_in_the_html(
    sqlite_store: Store, tmp_path: Path
) -> None:
    # Eval set, case, metric, branch, commit, run group and title all carry markup: every one
    # is text on the page (autoescaped), none makes an element (no browser needed to see it).
    markup = "<img src=x onerror=alert(1)>"
    escaped = "&lt;img src=x onerror=alert(1)&gt;"
    for i in range(3):
        case = case_result(f"S{markup}", f"C{markup}", [metric(f"M{markup}", i % 2, 0.5)])
        result = eval_set_result(f"S{markup}", [case])
        result.eval_set_result_id = f"r{i}"
        result.creation_timestamp = 1_767_225_600.0 + i * 3600
        path = write_result(result, tmp_path / str(i))
        group = f"G{markup}{i}"
        add_results(sqlite_store, [path], commit=f"K{markup}", branch=f"B{markup}", run_group=group)
    with sqlite_store.transaction() as conn:
        found = trend(conn, TrendFilters())
    html = render_trend_page(found, title=f"T{markup}").decode()
    assert "<img" not in html
    for text in (
        f"<h1>T{escaped}</h1>",
        f'data-metric="S{escaped} / M{escaped}"',
        f'<td class="case-name">S{escaped} / C{escaped}</td>',
        f"<td>G{escaped}0</td>",
        f"<td>B{escaped}</td><td>K&lt;img sr</td>",  # the commit cut to 8 characters
        f"<title>run G{escaped}0 · commit K&lt;img sr: 0</title>",
    ):
        assert text in html


def test_cases_cut_past_the_page_limit_are_not_called_stable_passes(
    sqlite_store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Past MAX_CASES listed, the cut flaky and failing cases were counted with the stable
    # passes: "2 more cases (stable passes) not listed" when one of them always failed.
    monkeypatch.setattr(trend_page, "MAX_CASES", 1)
    add_history(sqlite_store, tmp_path / "runs", 3)  # flappy (flaky), broken, steady
    with sqlite_store.transaction() as conn:
        found = trend(conn, TrendFilters())
    html = render_trend_page(found, title="t").decode()
    assert '<td class="case-name">suite / flappy</td>' in html
    assert "suite / broken" not in html
    assert '<p class="muted" id="cut">1 more flaky, failing or undecided cases' in html
    assert '<p class="muted" id="unlisted">1 more cases (stable passes) not listed</p>' in html


def test_each_outcome_of_a_case_is_said_in_words_not_only_in_colour(
    browser: Browser, sqlite_store: Store, tmp_path: Path
) -> None:
    """The strip of a case's runs was red and green squares only, its one title "suite /
    flappy: outcome per run": which runs failed was there for no screen reader and for no
    one who tells red from green poorly.  Each square and the strip now say it."""
    ids = add_history(sqlite_store, tmp_path / "runs", 3)
    with sqlite_store.transaction() as conn:
        found = trend(conn, TrendFilters())
    page_file = tmp_path / "trend.html"
    page_file.write_bytes(render_trend_page(found, title="t"))
    page, requests, errors = _open(browser, page_file)
    try:
        flappy = page.locator("table.cases tbody tr").first
        assert flappy.locator(".case-name").inner_text() == "suite / flappy"
        strip = flappy.locator("svg.strip")
        assert strip.locator(":scope > title").text_content() == (
            "suite / flappy: outcome per run, oldest first: passed, passed, failed"
        )
        cells = strip.locator("rect")
        assert [cells.nth(i).locator("title").text_content() for i in range(3)] == [
            f"run {ids[0]}: passed",
            f"run {ids[1]}: passed",
            f"run {ids[2]}: failed",
        ]
        assert requests == [page_file.resolve().as_uri()]
        assert errors == []
    finally:
        page.close()
