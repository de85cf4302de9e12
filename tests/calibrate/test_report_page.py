"""``agenteval report RESULT --labels FILE --html FILE``: the Calibration page of the report,
in real headless Chromium through Playwright, opened from ``file://`` and clicked like a user.

The verdicts come from a run against the loopback judge (tests/calibrate/test_calibrate.py's
ten cases, κ 0.4): the page shows the console's own lines, and a disagreement's link opens
that case's view in the same report.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from agenteval.calibrate.report_page import RunCalibration
from judge_server import JudgeServer
from report.test_html import Opened
from tests.calibrate.test_calibrate import (
    RUBRIC,
    UNKNOWN,
    cli,
    lab,
    label_file,
    one_turn_case,
    scored_result,
    write_inputs,
    write_labels,
)


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with JudgeServer() as server:
        return scored_result(tmp_path_factory.mktemp("report-page"), server)


def open_page(browser: Browser, path: Path, fragment: str = "") -> Opened:
    """The report open in Chromium, every request it made recorded (only its own file allowed)."""
    page: Page = browser.new_page(viewport={"width": 1400, "height": 1000})
    url = path.resolve().as_uri()
    opened = Opened(page, url)
    page.on("request", lambda request: opened.requests.append(request.url.split("#")[0]))
    page.on("pageerror", lambda error: opened.errors.append(str(error)))
    page.on("console", lambda m: opened.errors.append(m.text) if m.type == "error" else None)
    page.route(
        "**/*",
        lambda r: r.continue_() if opened.allowed(r.request.url.split("#")[0]) else r.abort(),
    )
    page.goto(url + fragment)
    page.wait_for_selector("html[data-ready='1']")
    return opened


def words(text: str) -> str:
    return " ".join(text.split())


def test_the_calibration_page_shows_the_consoles_numbers_and_links_to_the_case(
    browser: Browser, result: Path, tmp_path: Path
) -> None:
    labels = write_labels(tmp_path, [*UNKNOWN, *RUBRIC])
    console = cli("calibrate", str(result), "--labels", str(labels))
    assert console.returncode == 0, console.stdout + console.stderr
    html = tmp_path / "report.html"
    written = cli("report", str(result), "--labels", str(labels), "--html", str(html))
    assert written.returncode == 0, written.stdout + written.stderr
    assert "warning: 2 labels name no scored item (listed on its Calibration page)" in words(
        written.stderr
    )
    opened = open_page(browser, html)
    page = opened.page
    assert page.locator("#page-calibration").is_hidden()
    page.click("#tabs button[data-tab=page-calibration]")
    section = page.locator("#page-calibration")
    assert section.is_visible()
    shown = words(section.inner_text())
    # Every line the console printed is on the page, word for word (the numbers with them).
    lines = [words(line) for line in console.stdout.splitlines() if line.strip()]
    assert "pass/fail labels: accuracy 0.7 · Cohen's κ 0.4 (95% bootstrap interval" in lines[1]
    assert [line for line in lines if line not in shown] == []
    confusion = section.locator("table.confusion").first
    assert [words(row) for row in confusion.locator("tr").all_inner_texts()] == [
        "judge \\ people pass fail",
        "pass 4 1",
        "fail 2 3",
    ]
    # The three disagreements of the metric, each with its explain line, link to their cases.
    first = section.locator("ul.disagreements").first
    links = first.locator("a.case-link")
    assert links.all_inner_texts() == [
        "qa/c4 llm_rubric_response: judge pass, people fail (line 5)",
        "qa/c5 llm_rubric_response: judge fail, people pass (line 6)",
        "qa/c6 llm_rubric_response: judge fail, people pass (line 7)",
    ]
    assert first.locator("code").first.inner_text() == (
        f"agenteval explain {result} --case c4 --metric llm_rubric_response"
    )
    links.nth(1).click()
    assert section.is_hidden() and page.locator("#cases").is_visible()
    assert "qa / c5" in page.locator("#case .case-title").inner_text()
    assert page.evaluate("location.hash") == "#case/0/5"
    # The unknown labels are listed, linking nowhere (they name no case of the report).
    page.click("#tabs button[data-tab=page-calibration]")
    unknown = section.locator("ul.unknownLabels li")
    assert unknown.all_inner_texts() == [
        "line 11: qa/ghost llm_rubric_response",
        "line 12: qa/c0 no_such_metric",
    ]
    assert section.locator("ul.unknownLabels a").count() == 0
    opened.check_offline()
    # The page's own address opens it.
    again = open_page(browser, html, "#page-calibration")
    assert again.page.locator("#page-calibration").is_visible()
    again.check_offline()


def test_an_item_the_judge_did_not_evaluate_is_linked_and_the_report_exits_3(
    browser: Browser, result: Path, tmp_path: Path
) -> None:
    data = json.loads(result.read_text())
    data["evalCaseResults"][0]["overallEvalMetricResults"][0]["evalStatus"] = "not_evaluated"
    edited = tmp_path / "edited.evalset_result.json"
    edited.write_text(json.dumps(data))
    html = tmp_path / "report.html"
    written = cli(
        "report", str(edited), "--labels", str(write_labels(tmp_path, [])), "--html", str(html)
    )
    assert written.returncode == 3, written.stdout + written.stderr
    assert (
        "incomplete: the judge did not evaluate 1 labelled item (listed on its Calibration page)"
        in words(written.stderr)
    )
    assert html.exists()  # the report is written all the same
    opened = open_page(browser, html, "#page-calibration")
    section = opened.page.locator("#page-calibration")
    assert "llm_rubric_response 9 labelled items, 1 not evaluated by the judge" in words(
        section.inner_text()
    )
    missing = section.locator("ul.notEvaluated a.case-link")
    assert missing.all_inner_texts() == ["line 1: qa/c0 llm_rubric_response"]
    missing.click()
    assert "qa / c0" in opened.page.locator("#case .case-title").inner_text()
    opened.check_offline()


def test_labels_with_the_trend_page_are_refused(tmp_path: Path) -> None:
    labels = write_labels(tmp_path, [])
    run = cli(
        "report", "--trend", "--store", f"sqlite:///{tmp_path}/h.sqlite", "--labels", str(labels),
        "--html", str(tmp_path / "trend.html"),
    )  # fmt: skip
    assert run.returncode == 2, run.stdout + run.stderr
    assert "report --trend: reads the store only; give no result files or --labels" in run.stderr


def test_in_a_comparison_the_page_calibrates_the_new_run_and_links_into_it(
    browser: Browser, result: Path, tmp_path: Path
) -> None:
    data = json.loads(result.read_text())
    # The new run: c4's judge verdict turned to fail, so it agrees with people now.
    c4 = data["evalCaseResults"][4]
    assert c4["evalId"] == "c4"
    c4["overallEvalMetricResults"][0]["evalStatus"] = "failed"
    new = tmp_path / "new" / "qa.evalset_result.json"
    new.parent.mkdir()
    new.write_text(json.dumps(data))
    html = tmp_path / "compare.html"
    labels = write_labels(tmp_path, [])
    written = cli("report", str(new), "--base", str(result), "--labels", str(labels),
                  "--html", str(html))  # fmt: skip
    assert written.returncode == 0, written.stdout + written.stderr
    opened = open_page(browser, html, "#page-calibration")
    section = opened.page.locator("#page-calibration")
    # [[4, 0], [2, 4]]: pₒ = .8, pₑ = .4·.6 + .6·.4 = .48, κ = .32/.52 = 0.6154.
    assert "accuracy 0.8 · Cohen's κ 0.6154 (" in words(section.inner_text())
    links = section.locator("ul.disagreements a.case-link")
    assert links.all_inner_texts() == [
        "qa/c5 llm_rubric_response: judge fail, people pass (line 6)",
        "qa/c6 llm_rubric_response: judge fail, people pass (line 7)",
    ]
    # The explain line reads the new run's file; the link opens the case in the new run.
    assert section.locator("ul.disagreements code").first.inner_text() == (
        f"agenteval explain {new} --case c5 --metric llm_rubric_response"
    )
    links.first.click()
    assert opened.page.evaluate("location.hash") == "#case/1/5"
    assert (
        opened.page.locator("#run-picker button[aria-pressed=true]")
        .inner_text()
        .startswith("new: ")
    )
    opened.check_offline()


def test_run_labels_html_adds_the_same_page_the_report_of_its_results_has(
    browser: Browser, judge_server: JudgeServer, tmp_path: Path
) -> None:
    evalset, metrics = write_inputs(tmp_path, judge_server)
    labels = write_labels(tmp_path, UNKNOWN)
    out, html = tmp_path / "out", tmp_path / "run.html"
    run = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), "--no-cache",
        "--output", str(out), "--html", str(html), "--labels", str(labels),
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    assert "warning: 2 labels name no scored item (listed on the report's Calibration page)" in (
        words(run.stderr)
    )
    report = tmp_path / "report.html"
    again = cli("report", str(out), "--labels", str(labels), "--html", str(report))
    assert again.returncode == 0, again.stdout + again.stderr
    opened = open_page(browser, html, "#page-calibration")
    section = opened.page.locator("#page-calibration")
    assert "accuracy 0.7 · Cohen's κ 0.4 (" in words(section.inner_text())
    assert section.locator("ul.disagreements code").first.inner_text() == (
        f"agenteval explain {out} --case c4 --metric llm_rubric_response"
    )
    # Everything but the first line (which names the run) is the report's page, word for word.
    blocks = section.locator(":scope > *").all_inner_texts()
    from_report = open_page(browser, report, "#page-calibration")
    assert from_report.page.locator("#page-calibration > *").all_inner_texts()[1:] == blocks[1:]
    section.locator("ul.disagreements a.case-link").first.click()
    assert opened.page.evaluate("location.hash") == "#case/0/4"
    assert "qa / c4" in opened.page.locator("#case .case-title").inner_text()
    opened.check_offline()
    from_report.check_offline()


def test_run_labels_needs_html_and_a_good_labels_file_before_scoring(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    evalset, metrics = write_inputs(tmp_path, judge_server)
    inputs = ["run", "--evalset", str(evalset), "--metrics", str(metrics), "--no-cache"]
    alone = cli(*inputs, "--labels", str(write_labels(tmp_path, [])))
    assert alone.returncode == 2, alone.stdout + alone.stderr
    assert "--labels: adds a Calibration page to the HTML report (give --html FILE)" in (
        words(alone.stderr)
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"evalSetId": "qa", "evalId": "c0", "metricName": "m", "lable": "pass"}\n')
    refused = cli(*inputs, "--html", str(tmp_path / "r.html"), "--labels", str(bad))
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert f"{bad}: line 1: lable: unknown key (did you mean 'label'?)" in words(refused.stderr)
    assert judge_server.count == 0  # nothing was scored
    assert not (tmp_path / "r.html").exists()


def test_text_from_the_labels_is_shown_as_text(
    browser: Browser, result: Path, tmp_path: Path
) -> None:
    hostile = '<img src=x onerror="document.title=1">\x1b[2J'
    labels = write_labels(
        tmp_path, [{"evalSetId": "qa", "evalId": hostile, "metricName": "m", "label": "pass"}]
    )
    html = tmp_path / "report.html"
    written = cli("report", str(result), "--labels", str(labels), "--html", str(html))
    assert written.returncode == 0, written.stdout + written.stderr
    opened = open_page(browser, html, "#page-calibration")
    page = opened.page
    listed = page.locator("#page-calibration ul.unknownLabels li").all_inner_texts()
    assert listed == ['line 11: qa/<img src=x onerror="document.title=1">\\x1b[2J m']
    assert page.locator("#page-calibration img").count() == 0
    assert page.title() != "1"
    opened.check_offline()


def test_a_stored_runs_explain_lines_name_it_by_its_id_not_latest(
    result: Path, tmp_path: Path
) -> None:
    # `@latest` moves on with the next run and the exported copy is deleted after the
    # command: the page's explain lines must name the run itself.
    store = f"sqlite:///{tmp_path / 'history.sqlite'}"
    added = cli("store", "add", str(result), "--store", store)
    assert added.returncode == 0, added.stdout + added.stderr
    listed = cli("history", "--store", store, "--json")
    (run_id,) = [run["runId"] for run in json.loads(listed.stdout)]
    labels = write_labels(tmp_path, [])
    html = tmp_path / "report.html"
    written = cli(
        "report", "@latest", "--store", store, "--labels", str(labels), "--html", str(html)
    )
    assert written.returncode == 0, written.stdout + written.stderr
    page = html.read_text(encoding="utf-8")
    assert f"agenteval explain @{run_id} --case c4 --metric llm_rubric_response" in page
    assert "explain @latest" not in page and "agenteval-stored-" not in page
    # The line works after the command: explain reads the stored run by that id (offline,
    # with an empty cache, it scores nothing again: exit 3, the saved verdict still shown).
    explained = cli(
        "explain", f"@{run_id}", "--case", "c4", "--metric", "llm_rubric_response",
        "--store", store, "--offline", "--cache", str(tmp_path / "empty.sqlite"),
    )  # fmt: skip
    assert explained.returncode == 3, explained.stdout + explained.stderr
    assert "saved result: score 1 passed" in words(explained.stdout)
    # It names the run as the page does, not the copy it read (gone when it ends).
    assert f"from result @{run_id}" in explained.stdout
    assert "agenteval-stored-" not in explained.stdout


def test_run_labels_explain_lines_name_the_runs_metric_file(
    browser: Browser, tmp_path: Path
) -> None:
    """``calls`` is tool_call_count under another name: the result does not say which
    evaluator scored it, so its explain line needs a metric file.  It said ``--metrics FILE``
    even though the run was given one; a directory of them is named in what to fill in."""
    repo = Path(__file__).resolve().parents[2]
    evalset = repo / "evalsets/replay/travel-replay.evalset.json"
    traces = repo / "evalsets/replay/agent-v1.traces.jsonl"
    metrics = tmp_path / "metrics" / "travel-replay.metrics.json"
    metrics.parent.mkdir()
    metrics.write_text(
        json.dumps([{"metricName": "calls", "evaluatorName": "tool_call_count", "threshold": 0.5}])
    )
    labels = tmp_path / "labels.jsonl"
    line = {"evalSetId": "travel-replay", "evalId": "weather_berlin", "metricName": "calls"}
    labels.write_text(json.dumps({**line, "label": "pass"}) + "\n")
    shown = {}
    for given in (metrics, metrics.parent):
        out, html = tmp_path / f"out-{given.name}", tmp_path / f"{given.name}.html"
        run = cli(
            "run", "--evalset", str(evalset), "--traces", str(traces), "--metrics", str(given),
            "--output", str(out), "--html", str(html), "--labels", str(labels),
        )  # fmt: skip
        assert run.returncode == 1, run.stdout + run.stderr  # 1 call against a bound of 0.5
        opened = open_page(browser, html, "#page-calibration")
        (item,) = opened.page.locator("#page-calibration ul.disagreements li").all_inner_texts()
        shown[given] = (out, words(item))
    out, text = shown[metrics]
    assert f"agenteval explain {out} --case weather_berlin --metric calls --metrics {metrics}" in (
        text
    )
    assert "FILE" not in text
    out, text = shown[metrics.parent]
    assert text.endswith(
        f"agenteval explain {out} --case weather_berlin --metric calls --metrics FILE (FILE: "
        f"the metric file in {metrics.parent} that defines calls; the result does not say "
        "which evaluator scored it)"
    )
    # The line works as shown.
    explained = cli("explain", str(shown[metrics][0]), "--case", "weather_berlin", "--metric",
                    "calls", "--metrics", str(metrics))  # fmt: skip
    assert explained.returncode == 1, explained.stdout + explained.stderr


def test_a_disagreement_in_a_later_run_opens_that_run_of_its_case(
    browser: Browser, judge_server: JudgeServer, tmp_path: Path
) -> None:
    """``--num-runs 2`` and a label naming run 2 (``"runId": 2``): its disagreement linked
    to the case's view open on run 1, another run's verdict than the one disagreed with."""
    evalset, metrics = write_inputs(tmp_path, judge_server)
    second = {"evalSetId": "qa", "evalId": "c5", "metricName": "llm_rubric_response",
              "label": "pass", "runId": 2}  # fmt: skip
    labels = write_labels(tmp_path, [second])
    html = tmp_path / "run.html"
    run = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), "--no-cache",
        "--num-runs", "2", "--html", str(html), "--labels", str(labels),
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    opened = open_page(browser, html, "#page-calibration")
    page = opened.page
    links = page.locator("#page-calibration ul.disagreements a.case-link")
    texts = links.all_inner_texts()
    first = texts.index("qa/c5 llm_rubric_response: judge fail, people pass (line 6)")
    later = texts.index("qa/c5 llm_rubric_response run 2: judge fail, people pass (line 11)")
    for link, run_id in ((later, "2"), (first, "1")):
        page.click("#tabs button[data-tab=page-calibration]")
        links.nth(link).click()
        assert "qa / c5" in page.locator("#case .case-title").inner_text()
        pressed = page.locator("#case .runs button[aria-pressed=true]").inner_text()
        assert pressed.split()[0] == run_id
    opened.check_offline()


def test_run_labels_that_find_one_turn_twice_fail_the_page_not_the_run(tmp_path: Path) -> None:
    # Known only once the case is scored (a one-turn case with no case-level verdict of m):
    # the page cannot be made, as a page that cannot be written is noted among the reports.
    labels = label_file(tmp_path, lab("a", "m", "fail", invocationId="t1"), lab("a", "m", "fail"))
    made = RunCalibration(labels, ["out"])
    made.begin_set("s", 1)
    made.add(one_turn_case("a", overall=False))
    with pytest.raises(ValueError) as caught:
        made.page()
    assert str(caught.value) == (
        f"{labels}: line 2: labels the same item as line 1: turn 't1', the one turn of its "
        "case (keep one label per item)"
    )
