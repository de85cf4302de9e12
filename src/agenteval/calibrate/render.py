"""``agenteval calibrate`` on the console and as a standalone HTML page.

Both read the ``--json`` document (:meth:`Calibration.to_json`), so the three
outputs cannot disagree.  Every name from the inputs is escaped
(:mod:`agenteval.inputs.safe_text` on the console, HTML escaping in the page).

Tested in tests/calibrate/test_calibrate.py.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from agenteval.inputs.safe_text import escape_control
from agenteval.inputs.score_text import pass_percent


def number(value: float | None, digits: int = 4) -> str:
    """A statistic as printed: up to 4 decimals, ``n/a`` when undefined."""
    if value is None:
        return "n/a"
    return f"{value:.{digits}f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def _item(entry: Mapping[str, Any]) -> str:
    words = [f"{entry['evalSetId']}/{entry['evalId']}", str(entry["metricName"])]
    if "runId" in entry:
        words.append(f"run {entry['runId']}")
    if "invocationId" in entry:
        words.append(f"turn {entry['invocationId']}")
    if "rubricId" in entry:
        words.append(f"rubric {entry['rubricId']}")
    return escape_control(" ".join(words))


def _kappa_line(block: Mapping[str, Any]) -> str:
    text = f"accuracy {number(block['accuracy'])} · Cohen's κ {number(block['kappa'])}"
    interval = block.get("kappaInterval")
    if interval:
        text += (
            f" (95% bootstrap interval {number(interval['low'])} .. {number(interval['high'])}"
            + (
                f", {interval['resamples']} resamples, seed {interval['seed']}"
                if "seed" in interval
                else ""
            )
            + ")"
        )
    return text


def confusion_table(confusion: Mapping[str, Any]) -> Table:
    """Rows: the judge's verdict; columns: people's label."""
    classes: Sequence[str] = confusion["classes"]
    table = Table(box=None, pad_edge=False, show_edge=False)
    table.add_column(Text("judge \\ people"))
    # Text cells: a class is a category from the labels or the judge, never rich markup.
    for name in classes:
        table.add_column(Text(escape_control(name)), justify="right")
    for name, row in zip(classes, confusion["matrix"], strict=True):
        table.add_row(Text(escape_control(name)), *(Text(str(n)) for n in row))
    return table


# One part of a group as shown: ("heading" | "line", text), ("confusion", the matrix),
# ("disagreements", the entries).  The console, the page and the report page all show these.
Part = tuple[str, Any]


def _group_parts(group: Mapping[str, Any]) -> list[Part]:
    """What is shown of one group, in order, every number as the console prints it."""
    not_evaluated = group["notEvaluated"]
    parts: list[Part] = [
        (
            "heading",
            f"{escape_control(group['name'])}  {group['items']} labelled items"
            + (f", {not_evaluated} not evaluated by the judge" if not_evaluated else ""),
        )
    ]
    pass_fail = group.get("passFail")
    if pass_fail:
        parts.append(("line", "pass/fail labels: " + _kappa_line(pass_fail)))
        parts.append(("confusion", pass_fail["confusion"]))
        parts.append(
            (
                "line",
                f"fail: precision {number(pass_fail['failPrecision'])} · "
                f"recall {number(pass_fail['failRecall'])}",
            )
        )
        best = pass_fail.get("suggestedThreshold")
        if best is not None:
            parts.append(
                (
                    "line",
                    f"threshold {number(pass_fail['threshold'])}"
                    + (" (an upper bound)" if pass_fail.get("upperBound") else "")
                    + " · the threshold that maximises "
                    f"κ on these labels: {number(best['value'])} (κ {_best_kappa(best)}), "
                    "not applied",
                )
            )
    categories = group.get("categories")
    if categories:
        parts.append(("line", "category labels: " + _kappa_line(categories)))
        parts.append(("confusion", categories["confusion"]))
    return parts + _judge_parts(group)


def _best_kappa(best: Mapping[str, Any]) -> str:
    """κ of the suggested threshold; undefined when judge and people give every item one
    same label (they agree on all of them)."""
    kappa = best["kappa"]
    return number(kappa) if kappa is not None else "n/a: every item has one same label"


def _judge_parts(group: Mapping[str, Any]) -> list[Part]:
    """Scores, the judge's own consistency and position bias, the disagreements."""
    parts: list[Part] = []
    scores = group.get("scores")
    if scores:
        parts.append(
            (
                "line",
                f"score labels: {scores['items']} items · Spearman ρ {number(scores['spearman'])}",
            )
        )
    consistency = group.get("selfConsistency")
    if consistency:
        parts.append(
            (
                "line",
                "self-consistency: samples agreed with the verdict "
                f"{number(consistency['meanAgreement'])} of the time "
                f"({consistency['unanimous']} of {consistency['items']} items unanimous)",
            )
        )
    bias = group.get("positionBias")
    if bias:
        parts.append(
            (
                "line",
                "position bias: the preferred answer flipped when the candidates were swapped "
                f"in {bias['flips']} of {bias['turns']} turns "
                f"({pass_percent(bias['flips'], bias['turns'])})",
            )
        )
    if group["disagreements"]:
        parts.append(("disagreements", group["disagreements"]))
    return parts


def explain_text(entry: Mapping[str, Any]) -> str:
    """The explain line of a disagreement, and what to fill in it (``(FILE: …)``)."""
    needs = entry.get("explainNeeds")
    return escape_control(entry["explain"] + (f"  ({needs})" if needs else ""))


def disagreement_text(entry: Mapping[str, Any]) -> str:
    """``set/case metric: judge pass, people fail (line 3)``."""
    return (
        f"{_item(entry)}: judge {escape_control(entry['judge'])}, people "
        f"{escape_control(entry['people'])} ({escape_control(entry['line'])})"
    )


def listed(data: Mapping[str, Any]) -> list[tuple[str, str, list[Mapping[str, Any]]]]:
    """(key, heading, entries) of the labelled items not evaluated and the unknown labels."""
    found = []
    for key, plural, singular in (
        (
            "notEvaluated",
            "labelled items the judge did not evaluate",
            "labelled item the judge did not evaluate",
        ),
        ("unknownLabels", "labels that name no scored item", "label that names no scored item"),
    ):
        entries = data[key]
        if entries:
            words = plural if len(entries) != 1 else singular
            found.append((key, f"{len(entries)} {words}:", entries))
    return found


def entry_text(entry: Mapping[str, Any]) -> str:
    """``line 7: set/case metric``: a label listed as not evaluated or naming nothing."""
    return f"{escape_control(entry['line'])}: {_item(entry)}"


def render_console(console: Console, data: Mapping[str, Any]) -> None:
    """The calibration as tables and lines.

    Names come from the labels and the result: printed without markup, or a ``[/bold]``
    in an evalId would be read as a style (and an unmatched one raise)."""

    def say(text: str, style: str | None = None) -> None:
        console.print(text, style=style, markup=False, highlight=False)

    for group in data["groups"]:
        for kind, value in _group_parts(group):
            if kind == "heading":
                say(value, "bold")
            elif kind == "line":
                say("  " + value)
            elif kind == "confusion":
                console.print(Padding(confusion_table(value), (0, 0, 0, 2), expand=False))
            else:
                say(f"  disagreements ({len(value)}):")
                for entry in value:
                    say(f"    {disagreement_text(entry)}\n      {explain_text(entry)}")
    for _, heading, entries in listed(data):
        say(heading, "yellow")
        for entry in entries:
            say(f"  {entry_text(entry)}")


def _html_confusion(confusion: Mapping[str, Any]) -> str:
    e = html.escape
    classes = confusion["classes"]
    head = "".join(f"<th>people {e(c)}</th>" for c in classes)
    rows = "".join(
        f"<tr><th>judge {e(c)}</th>" + "".join(f"<td>{n}</td>" for n in row) + "</tr>"
        for c, row in zip(classes, confusion["matrix"], strict=True)
    )
    return f"<table class=confusion><tr><th></th>{head}</tr>{rows}</table>"


def render_html(data: Mapping[str, Any]) -> str:
    """A self-contained page of the calibration (no script, no external resource)."""
    e = html.escape
    parts = [
        "<!doctype html><html lang=en><meta charset=utf-8>",
        # No script and nothing fetched: the policy keeps it so whatever a label holds.
        "<meta http-equiv=Content-Security-Policy"
        " content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>agenteval calibrate: {e(str(data['result']))}</title>",
        "<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
        "td:first-child,th:first-child{text-align:left}code{background:#f4f4f4}</style>",
        f"<h1>Judge calibration of {e(str(data['result']))}</h1>",
    ]
    for group in data["groups"]:
        parts.append(f'<section class=group data-name="{e(group["name"])}">')
        for kind, value in _group_parts(group):
            if kind == "heading":
                parts.append(f"<h2>{e(value)}</h2>")
            elif kind == "line":
                parts.append(f"<p>{e(value)}</p>")
            elif kind == "confusion":
                parts.append(_html_confusion(value))
            else:
                parts.append("<h3>Disagreements</h3><ul class=disagreements>")
                parts += [
                    f"<li>{e(disagreement_text(entry))} <code>{e(entry['explain'])}</code>"
                    + (f" ({e(entry['explainNeeds'])})" if "explainNeeds" in entry else "")
                    + "</li>"
                    for entry in value
                ]
                parts.append("</ul>")
        parts.append("</section>")
    for key, heading, entries in listed(data):
        parts.append(f"<h2>{e(heading)}</h2><ul class={e(key)}>")
        parts += [f"<li>{e(entry_text(entry))}</li>" for entry in entries]
        parts.append("</ul>")
    return "".join(parts) + "</html>\n"


def page_blocks(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The calibration as blocks of the HTML report's page (``report/html.py``'s pages): the
    console's text, each disagreement and unevaluated item linked to its case."""
    blocks: list[dict[str, Any]] = []
    for group in data["groups"]:
        for kind, value in _group_parts(group):
            if kind == "heading":
                blocks.append({"heading": value})
            elif kind == "line":
                blocks.append({"text": value})
            elif kind == "confusion":
                blocks.append({"table": _confusion_rows(value), "class": "confusion"})
            else:
                blocks.append({"subheading": f"disagreements ({len(value)}):"})
                items = [_linked(disagreement_text(e), e, explain_text(e)) for e in value]
                blocks.append({"items": items, "class": "disagreements"})
    for key, heading, entries in listed(data):
        blocks.append({"subheading": heading})
        linked = key == "notEvaluated"  # an unknown label names no case of the report
        items = [_linked(entry_text(e), e if linked else None, None) for e in entries]
        blocks.append({"items": items, "class": key})
    return blocks


def _confusion_rows(confusion: Mapping[str, Any]) -> dict[str, Any]:
    classes = [escape_control(c) for c in confusion["classes"]]
    rows = [
        [c, *(str(n) for n in row)] for c, row in zip(classes, confusion["matrix"], strict=True)
    ]
    return {"head": ["judge \\ people", *classes], "rows": rows}


def _linked(text: str, entry: Mapping[str, Any] | None, code: str | None) -> dict[str, Any]:
    item: dict[str, Any] = {"text": text}
    if entry is not None:
        # With its run, if the label names one: the case view opens on that run's verdict.
        item["case"] = [
            entry["evalSetId"],
            entry["evalId"],
            *([entry["runId"]] if "runId" in entry else []),
        ]
    if code is not None:
        item["code"] = escape_control(code)
    return item


__all__ = [
    "confusion_table",
    "disagreement_text",
    "entry_text",
    "explain_text",
    "listed",
    "number",
    "page_blocks",
    "render_console",
    "render_html",
]
