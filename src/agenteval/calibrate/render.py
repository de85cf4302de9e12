"""``agenteval calibrate`` on the console and as a standalone HTML page.

Both read the ``--json`` document (:meth:`Calibration.to_json`), so the three
outputs cannot disagree.  Every name from the inputs is escaped
(:mod:`agenteval.report.safe_text` on the console, HTML escaping in the page).

Tested in tests/calibrate/test_calibrate.py.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.padding import Padding
from rich.table import Table

from agenteval.report.safe_text import escape_control


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
    table.add_column("judge \\ people")
    for name in classes:
        table.add_column(escape_control(name), justify="right")
    for name, row in zip(classes, confusion["matrix"], strict=True):
        table.add_row(escape_control(name), *(str(n) for n in row))
    return table


def render_console(console: Console, data: Mapping[str, Any]) -> None:
    """The calibration as tables and lines."""
    for group in data["groups"]:
        console.print(
            f"{escape_control(group['name'])}  {group['items']} labelled items"
            + (
                f", {group['notEvaluated']} not evaluated by the judge"
                if group["notEvaluated"]
                else ""
            ),
            style="bold",
        )
        pass_fail = group.get("passFail")
        if pass_fail:
            console.print("  pass/fail labels: " + _kappa_line(pass_fail))
            console.print(
                Padding(confusion_table(pass_fail["confusion"]), (0, 0, 0, 2), expand=False)
            )
            console.print(
                f"  fail: precision {number(pass_fail['failPrecision'])} · "
                f"recall {number(pass_fail['failRecall'])}"
            )
            best = pass_fail.get("suggestedThreshold")
            if best is not None:
                console.print(
                    f"  threshold {number(pass_fail['threshold'])} · the threshold that maximises κ "
                    f"on these labels: {number(best['value'])} (κ {number(best['kappa'])}), not applied"
                )
        categories = group.get("categories")
        if categories:
            console.print("  category labels: " + _kappa_line(categories))
            console.print(
                Padding(confusion_table(categories["confusion"]), (0, 0, 0, 2), expand=False)
            )
        scores = group.get("scores")
        if scores:
            console.print(
                f"  score labels: {scores['items']} items · Spearman ρ {number(scores['spearman'])}"
            )
        consistency = group.get("selfConsistency")
        if consistency:
            console.print(
                f"  self-consistency: samples agreed with the verdict {number(consistency['meanAgreement'])}"
                f" of the time ({consistency['unanimous']} of {consistency['items']} items unanimous)"
            )
        bias = group.get("positionBias")
        if bias:
            console.print(
                f"  position bias: the preferred answer flipped when the candidates were swapped "
                f"in {bias['flips']} of {bias['turns']} turns ({bias['flipRate']:.0%})"
            )
        if group["disagreements"]:
            console.print(f"  disagreements ({len(group['disagreements'])}):")
            for entry in group["disagreements"]:
                console.print(
                    f"    {_item(entry)}: judge {escape_control(entry['judge'])}, people "
                    f"{escape_control(entry['people'])} ({escape_control(entry['line'])})\n"
                    f"      {escape_control(entry['explain'])}"
                )
    for key, plural, singular in (
        (
            "notEvaluated",
            "labelled items the judge did not evaluate",
            "labelled item the judge did not evaluate",
        ),
        ("unknownLabels", "labels that name no scored item", "label that names no scored item"),
    ):
        listed = data[key]
        if listed:
            words = plural if len(listed) != 1 else singular
            console.print(f"{len(listed)} {words}:", style="yellow")
            for entry in listed:
                console.print(f"  {escape_control(entry['line'])}: {_item(entry)}")


def render_html(data: Mapping[str, Any]) -> str:
    """A self-contained page of the calibration (no script, no external resource)."""
    e = html.escape
    parts = [
        "<!doctype html><html lang=en><meta charset=utf-8>",
        f"<title>agenteval calibrate: {e(str(data['result']))}</title>",
        "<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
        "td:first-child,th:first-child{text-align:left}code{background:#f4f4f4}</style>",
        f"<h1>Judge calibration of {e(str(data['result']))}</h1>",
    ]
    for group in data["groups"]:
        parts.append(
            f'<section class=group data-name="{e(group["name"])}"><h2>{e(group["name"])}</h2>'
        )
        parts.append(
            f"<p>{group['items']} labelled items, {group['notEvaluated']} not evaluated</p>"
        )
        for key in ("passFail", "categories"):
            block = group.get(key)
            if not block:
                continue
            parts.append(f"<p class=kappa>{e(_kappa_line(block))}</p>")
            classes = block["confusion"]["classes"]
            head = "".join(f"<th>people {e(c)}</th>" for c in classes)
            rows = "".join(
                f"<tr><th>judge {e(c)}</th>" + "".join(f"<td>{n}</td>" for n in row) + "</tr>"
                for c, row in zip(classes, block["confusion"]["matrix"], strict=True)
            )
            parts.append(f"<table class=confusion><tr><th></th>{head}</tr>{rows}</table>")
            best = block.get("suggestedThreshold")
            if best is not None:
                parts.append(
                    f"<p class=threshold>threshold {e(number(block['threshold']))}; κ-maximising "
                    f"threshold {e(number(best['value']))} (κ {e(number(best['kappa']))}), not applied</p>"
                )
        if group.get("positionBias"):
            bias = group["positionBias"]
            parts.append(
                f"<p class=position-bias>position flips {bias['flips']} of {bias['turns']} "
                f"turns ({bias['flipRate']:.0%})</p>"
            )
        if group.get("scores"):
            parts.append(f"<p>Spearman ρ {e(number(group['scores']['spearman']))}</p>")
        if group["disagreements"]:
            parts.append("<h3>Disagreements</h3><ul class=disagreements>")
            for entry in group["disagreements"]:
                parts.append(
                    f"<li>{e(_item(entry))}: judge {e(entry['judge'])}, people {e(entry['people'])} "
                    f"<code>{e(entry['explain'])}</code></li>"
                )
            parts.append("</ul>")
        parts.append("</section>")
    if data["unknownLabels"]:
        parts.append("<h2>Labels that name no scored item</h2><ul class=unknown>")
        parts += [
            f"<li>{e(entry['line'])}: {e(_item(entry))}</li>" for entry in data["unknownLabels"]
        ]
        parts.append("</ul>")
    return "".join(parts) + "</html>\n"


__all__ = ["confusion_table", "number", "render_console", "render_html"]
