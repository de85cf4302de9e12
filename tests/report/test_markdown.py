"""Markdown summary: numbers, escaping checked through a real GFM table parser, step summary."""

from __future__ import annotations

import os
from html.parser import HTMLParser
from pathlib import Path

from markdown_it import MarkdownIt

from agenteval.errors import Problem
from agenteval.report.markdown import (
    append_step_summary,
    cell,
    markdown_report,
    markdown_summary,
    write_markdown,
)
from agenteval.report.run_notes import RunNotes
from agenteval.report.set_tally import set_report
from sample_results import N, case_result, eval_set_result, metric
from tests.report.report_inputs import near_threshold_run

NASTY = "want `a|b` <script>x</script> & *not bold* [link](http://x) \\ end\r\nnext\x1b[0m"


class Tables(HTMLParser):
    """Collects the text of every table cell; <br> becomes a newline."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "br" and self._cell is not None:
            self._cell.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def rendered_tables(markdown: str) -> list[list[list[str]]]:
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    parser = Tables()
    parser.feed(html)
    return parser.tables


def test_cells_survive_a_gfm_renderer_verbatim() -> None:
    result = eval_set_result(
        "shop|main",
        [
            case_result("shop|main", "a*b", [metric("m_1", 0.25, 0.5, reason=NASTY)]),
            case_result("shop|main", "ok", [metric("m_1", 1.0, 0.5)]),
        ],
    )
    tables = rendered_tables(markdown_summary([result]))
    assert len(tables) == 3
    failing = tables[2]
    assert failing[0] == ["eval set", "case", "status", "why"]
    assert len(failing) == 2 and len(failing[1]) == 4
    # Every character comes through as text: no cell split, no HTML, no emphasis, no link.
    assert failing[1] == [
        "shop|main",
        "a*b",
        "failed",
        "m_1: score 0.25 < threshold 0.5: "
        "want `a|b` <script>x</script> & *not bold* [link](http://x) \\ end\nnext␛[0m",
    ]
    html = MarkdownIt("commonmark").enable("table").render(markdown_summary([result]))
    assert "<script>" not in html and "<em>" not in html and "<a " not in html


def test_pass_rates_and_metric_averages() -> None:
    shop = eval_set_result(
        "shop",
        [
            case_result("shop", "greets", [metric("final_response_avg_score", 1.0)]),
            case_result(
                "shop",
                "refund",
                [metric("final_response_avg_score", 0.25), metric("rouge_l", 0.9, 0.6)],
            ),
            case_result("shop", "no_metrics", []),
            case_result("shop", "no_trace", [], error="no actual turns"),
        ],
    )
    beta = eval_set_result(
        "beta",
        [
            case_result("beta", eval_id, [metric("m", score)], run_id=run)
            for run in (1, 2, 3)
            for eval_id, score in (("x", 1.0), ("y", 0.0 if run == 2 else 1.0))
        ],
        num_runs=3,
    )
    text = markdown_summary([shop, beta], elapsed=1.5)
    assert text.startswith("## ❌ agenteval: FAILED\n\n**2 of 6 cases passed** (33.3%)")
    assert "· 3 failed · 1 not evaluated · 2 eval sets · 1.50 s\n" in text
    rates, averages, failing = rendered_tables(text)
    assert rates == [
        ["eval set", "cases", "passed", "failed", "not evaluated", "pass rate", "runs"],
        ["shop", "4", "1", "2", "1", "25%", "1"],
        ["beta", "2", "1", "1", "0", "50%", "3"],
        ["total", "6", "2", "3", "1", "33.3%", ""],
    ]
    # (1 + 0.25) / 2 = 0.625 against threshold 1; beta: 5 of 6 runs scored 1.
    assert averages[1:] == [
        ["shop", "final_response_avg_score", "0.625", "1", "failed", "1", "1", "0"],
        ["shop", "rouge_l", "0.9", "0.6", "passed", "1", "0", "0"],
        ["beta", "m", "0.8333", "1", "failed", "5", "1", "0"],
    ]
    assert [row[:3] for row in failing[1:]] == [
        ["shop", "refund", "failed"],
        ["shop", "no_metrics", "not evaluated"],
        ["shop", "no_trace", "failed"],
        ["beta", "y", "failed (2/3 runs passed)"],
    ]
    assert failing[1][3] == "final_response_avg_score: score 0.25 < threshold 1"
    assert failing[2][3] == "no metric was evaluated for this case"
    assert failing[3][3] == "error: no actual turns"
    assert failing[4][3] == "m: average over 3 runs 0.6667 < threshold 1"


def test_incomplete_cases_have_their_own_column_not_the_not_evaluated_one() -> None:
    # The headline said "1 not evaluated · 2 incomplete"; the table below it, 3 not evaluated.
    shop = eval_set_result(
        "shop",
        [
            case_result("shop", "ok", [metric("m", 1.0)]),
            case_result("shop", "bad", [metric("m", 0.0)]),
            case_result("shop", "no_metrics", []),
            case_result("shop", "judge_down", [metric("m", 1.0), metric("j", 0.0, status=N)]),
            case_result("shop", "crashed", [metric("m", 0.0, status=N)]),
        ],
    )
    beta = eval_set_result("beta", [case_result("beta", "x", [metric("m", 1.0)])])
    text = markdown_summary([shop, beta])
    assert "**2 of 6 cases passed** (33.3%) · 1 failed · 1 not evaluated · 2 incomplete ·" in text
    rates = rendered_tables(text)[0]
    assert rates == [
        [
            "eval set",
            "cases",
            "passed",
            "failed",
            "not evaluated",
            "incomplete",
            "pass rate",
            "runs",
        ],
        ["shop", "5", "1", "1", "1", "2", "20%", "1"],
        ["beta", "1", "1", "0", "0", "0", "100%", "1"],
        ["total", "6", "2", "1", "1", "2", "33.3%", ""],
    ]


def test_all_passed_has_no_failing_table() -> None:
    result = eval_set_result("s", [case_result("s", "a", [metric("m", 1.0)])])
    text = markdown_summary([result])
    assert text.startswith("## ✅ agenteval: PASSED\n")
    assert "did not pass" not in text
    assert len(rendered_tables(text)) == 2


def test_what_the_judge_and_the_agent_spent_is_a_cost_table() -> None:
    judged = eval_set_result("judged", [case_result("judged", "a", [metric("m", 1.0)])])
    judged.judge_usage = {
        "total": {
            "calls": 12, "cacheHits": 3, "retries": 1, "promptTokens": 1200,
            "completionTokens": 300, "costUsd": 0.0123, "unpricedCalls": 0,
        }
    }  # fmt: skip
    judged.agent_usage = {
        "turns": 2, "inferenceCalls": 4, "inputTokens": 1000, "outputTokens": 200,
        "costUsd": 0.0051, "unpricedTurns": 0, "turnsWithoutUsage": 0,
    }  # fmt: skip
    plain = eval_set_result("plain", [case_result("plain", "b", [metric("m", 1.0)])])
    _, _, cost = rendered_tables(markdown_summary([judged, plain]))
    assert cost == [
        ["eval set", "judge", "agent under test"],
        [
            "judged",
            "12 calls, 3 from cache, 1 retry, 1,200 prompt + 300 completion tokens · $0.0123",
            "4 model calls, 1,000 input + 200 output tokens · $0.0051",
        ],
    ]
    assert "### Cost" not in markdown_summary([plain])


def test_long_reasons_and_many_cases_are_capped() -> None:
    cases = [
        case_result("s", f"c{i:03d}", [metric("m", 0.0, reason=f"{i} " + "x" * 1000)])
        for i in range(130)
    ]
    text = markdown_summary([eval_set_result("s", cases)])
    failing = rendered_tables(text)[2]
    assert len(failing) == 1 + 100
    why = failing[1][3]
    reason = why.removeprefix("m: score 0 < threshold 1: ")
    assert len(reason) == 300 and reason.endswith("x…") and reason.startswith("0 xx")
    assert text.rstrip().endswith("_… and 30 more not listed; every case is in the result files._")
    several = markdown_summary([eval_set_result("s", cases)], max_cases=None, reason_cap=None)
    assert len(rendered_tables(several)[2]) == 131
    assert "x" * 1000 in several


def test_the_listed_cases_stay_under_githubs_summary_limit_whatever_their_reasons() -> None:
    # 120 cases whose 40 metrics each failed with a long reason: a 1.32 MiB summary, which
    # GitHub drops whole (its limit is 1 MiB per step).
    reason = "why " * 100
    cases = [
        case_result("s", f"c{i}", [metric(f"m{k}", 0.0, reason=reason) for k in range(40)])
        for i in range(120)
    ]
    text = markdown_summary([eval_set_result("s", cases)])
    assert len(text.encode()) < 1 << 20
    failing = rendered_tables(text)[2]
    listed = len(failing) - 1
    assert 0 < listed < 100
    assert [row[1] for row in failing[1:]] == [f"c{i}" for i in range(listed)]
    assert text.rstrip().endswith(
        f"_… and {120 - listed} more not listed; every case is in the result files._"
    )
    # Asked for every case, every case is listed.
    several = markdown_summary([eval_set_result("s", cases)], max_cases=None)
    assert len(rendered_tables(several)[2]) == 121


def test_several_failing_metrics_are_bulleted() -> None:
    result = eval_set_result(
        "s", [case_result("s", "a", [metric("m1", 0.0, reason="a\nb"), metric("m2", 0.5)])]
    )
    failing = rendered_tables(markdown_summary([result]))[2]
    assert failing[1][3] == "• m1: score 0 < threshold 1: a\nb\n• m2: score 0.5 < threshold 1"


def test_cell_escapes() -> None:
    assert cell("a|b") == "a\\|b"
    assert cell("x\r\ny\nz\rw") == "x<br>y<br>z<br>w"
    assert cell("<b>&") == "\\<b\\>\\&"
    assert cell("\x00\x1b\x7f\t") == "␀␛␡"  # the trailing tab is whitespace and stripped
    assert cell("a\u202eb\u2066c\u200fd") == "a\\u202eb\\u2066c\\u200fd"
    assert cell("") == " "


def test_write_markdown_and_step_summary(tmp_path: Path) -> None:
    result = eval_set_result("s", [case_result("s", "a", [metric("m", 0.0)])])
    path = write_markdown(tmp_path / "out" / "summary.md", [result])
    assert path.read_text(encoding="utf-8") == markdown_summary([result])
    assert os.listdir(path.parent) == ["summary.md"]

    assert append_step_summary([result], {}) is None
    assert append_step_summary([result], {"GITHUB_STEP_SUMMARY": ""}) is None
    step = tmp_path / "step_summary.md"
    step.write_text("# earlier step\n", encoding="utf-8")
    env = {"GITHUB_STEP_SUMMARY": str(step)}
    assert append_step_summary([result], env) == step
    assert append_step_summary([result], env) == step
    text = step.read_text(encoding="utf-8")
    assert text == "# earlier step\n" + (markdown_summary([result]) + "\n") * 2


def test_warnings_are_listed_and_counted_in_the_headline() -> None:
    result = eval_set_result("shop", [case_result("shop", "ok", [])])
    warnings = [
        Problem("m.json", "[0].threshold", "no threshold | <b>"),
        Problem("m.json", "", "… and 3 more like this"),
    ]
    text = markdown_report([set_report(result)], notes=RunNotes(warnings, 5))
    assert "· 5 warnings" in text.splitlines()[2]
    assert text.endswith(
        "### Warnings\n\n"
        "- m.json: \\[0\\].threshold: no threshold \\| \\<b\\>\n"
        "- m.json: … and 3 more like this\n"
    )
    assert "Warnings" not in markdown_report([set_report(result)])


def test_an_unfinished_run_is_incomplete_in_the_headline_whatever_its_cases_say() -> None:
    result = eval_set_result("shop", [case_result("shop", "ok", [metric("m", 1.0)])])
    headline = markdown_report([set_report(result)], notes=RunNotes(unfinished=["interrupted"]))
    assert headline.startswith("## ❗ agenteval: INCOMPLETE\n")
    assert "· 1 eval set · interrupted" in headline.splitlines()[2]


def test_a_score_just_under_its_threshold_is_not_printed_as_the_threshold(
    tmp_path: Path,
) -> None:
    """Turns 1, 1 and 0.4 against 0.8: the average row read ``0.8 | 0.8 | failed`` and the
    case "score 0.8 < threshold 0.8"."""
    report = tmp_path / "summary.md"
    run = near_threshold_run(tmp_path, "--markdown", str(report))
    assert run.returncode == 1, run.stdout + run.stderr
    tables = rendered_tables(report.read_text(encoding="utf-8"))
    averages, failing = tables[1], tables[2]
    assert averages[0][2:5] == ["average", "threshold", "status"]
    assert averages[1][1:5] == ["response_match_score", "0.7999999999999999", "0.8", "failed"]
    assert failing[1][3].startswith(
        "response_match_score: score 0.7999999999999999 < threshold 0.8: "
    ), failing[1]


def test_a_pass_rate_never_rounds_onto_all_or_none() -> None:
    # 2,000 of 2,001 cases passed (99.95 %) read "(100%)" and "100%" in the pass rate table,
    # as a run where every case passed does; 1 of 2,001 (0.05 %) read "0%".
    for passing, shown in ((2_000, "99.9%"), (1, "0.1%"), (2_001, "100%"), (0, "0%")):
        cases = [
            case_result("big", f"c{i:04}", [metric("m", 1.0 if i < passing else 0.0)])
            for i in range(2_001)
        ]
        text = markdown_summary([eval_set_result("big", cases)])
        assert f"**{passing} of 2001 cases passed** ({shown})" in text, text[:200]
        rates = rendered_tables(text)[0]
        assert rates[1][5] == shown, rates
