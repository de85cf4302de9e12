"""The console rendering of an :class:`~agenteval.explain.model.Explanation` (rich).

Every text that came from an input (answers, tool names, judge replies, paths) goes
through :func:`~agenteval.inputs.safe_text.escape_control` and into ``rich.text.Text``
(never markup); lines wrap at spaces only (a long word stays whole).

Tested in tests/explain/test_core.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.text import Text

from agenteval.explain.model import CriterionField, Explanation
from agenteval.inputs.safe_text import escape_control
from agenteval.inputs.score_text import exact_number, reason_numbers
from agenteval.schema.result import EvalCaseResult
from agenteval.steps.record import Step

# Longest value shown inline; judge replies and prompts have their own cap.
VALUE_CHARS = 400
TEXT_CHARS = 4000
_STATUS_STYLE = {"passed": "green", "failed": "red", "not_evaluated": "yellow"}

Lines = list[Text]


def safe(text: str, limit: int = VALUE_CHARS) -> str:
    """``text`` escaped for a terminal and cut to ``limit`` characters (the cut counted)."""
    if len(text) > limit:
        text = text[:limit] + f"… ({len(text) - limit} more characters)"
    return escape_control(text)


def value(data: Any, limit: int = VALUE_CHARS) -> str:
    """A JSON value as compact JSON, escaped and cut."""
    try:
        text = json.dumps(data, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        text = repr(data)
    return safe(text, limit)


def _line(indent: int, *parts: str | tuple[str, str]) -> Text:
    text = Text(" " * indent)
    for part in parts:
        if isinstance(part, tuple):
            text.append(part[0], style=part[1])
        else:
            text.append(part)
    return text


def _heading(indent: int, label: str, *parts: str | tuple[str, str]) -> Text:
    """A step's first line: its name in bold, then what it found."""
    return _line(indent, (f"{label} ", "bold"), *parts)


def _verdict(ok: bool) -> tuple[str, str]:
    return ("match", "green") if ok else ("mismatch", "red")


def _text_step(data: dict[str, Any]) -> Lines:
    lines = [
        _heading(
            4,
            "text",
            f"strategy {data['strategy']} · case folding ",
            "on" if data["caseInsensitive"] else "off",
            " · ",
            _verdict(data["ok"]),
        ),
        _line(6, "actual   ", value(data["actual"])),
        _line(6, "expected ", value(data["expected"])),
    ]
    if data.get("reason"):
        lines.append(_line(6, "→ ", safe(data["reason"])))
    return lines


def _json_step(data: dict[str, Any]) -> Lines:
    tolerance = f"numberTolerance {data['numberTolerance']:g}"
    tolerance += " (default)" if data["toleranceIsDefault"] else ""
    head: list[str | tuple[str, str]] = [
        ("json ", "bold"),
        f"strategy {data['strategy']} · {tolerance}",
    ]
    if data.get("ignoreTree"):
        head.append(f" · ignoreTree {value(data['ignoreTree'])}")
    if data.get("onlyTree"):
        head.append(f" · onlyTree {value(data['onlyTree'])}")
    if data.get("schema"):
        head.append(" · schema checked")
    lines = [_line(4, *head, " · ", _verdict(data["ok"]))]
    if not (data["actualParsed"] and data["expectedParsed"]):
        lines.append(_line(6, "actual   ", value(data["actual"])))
        lines.append(_line(6, "expected ", value(data["expected"])))
    for row in data.get("paths", ()):
        style = {"differs": "red", "tolerated": "yellow", "ignored": "dim"}.get(row["verdict"], "")
        parts: list[str | tuple[str, str]] = [safe(row["path"]), "  ", (row["verdict"], style)]
        if row["verdict"] in ("differs", "tolerated", "missing in expected", "missing in actual"):
            parts.append(f"  actual {value(row['actual'])}  expected {value(row['expected'])}")
        elif row["verdict"] == "equal":
            parts.append(f"  {value(row['actual'])}")
        lines.append(_line(6, *parts))
    if data.get("pathsLeftOut"):
        lines.append(_line(6, f"… {data['pathsLeftOut']} more paths"))
    difference = data.get("difference")
    if difference:
        lines.append(_line(6, "first difference at ", safe(difference["path"])))
    if data.get("reason"):
        lines.append(_line(6, "→ ", safe(data["reason"])))
    return lines


def _rouge_tokens(data: dict[str, Any]) -> Lines:
    if "targetSentences" in data:
        return [
            _heading(4, "tokens", safe(data["rougeType"]), " (per sentence)"),
            _line(6, "target     ", value(data["targetSentences"], TEXT_CHARS)),
            _line(6, "prediction ", value(data["predictionSentences"], TEXT_CHARS)),
            _line(
                6,
                f"precision {data['precision']:.6f} recall {data['recall']:.6f} F {data['f1']:.6f}",
            ),
        ]
    matched = data.get("matchedNgrams", data.get("lcs", []))
    label = "LCS" if "lcs" in data else "matched n-grams"
    return [
        _heading(4, "tokens", safe(data["rougeType"])),
        _line(6, "target     ", value(data["targetTokens"], TEXT_CHARS)),
        _line(6, "prediction ", value(data["predictionTokens"], TEXT_CHARS)),
        _line(6, f"{label} ({len(matched)}) ", value(matched, TEXT_CHARS)),
        _line(
            6, f"precision {data['precision']:.6f} recall {data['recall']:.6f} F {data['f1']:.6f}"
        ),
    ]


def _rouge_step(data: dict[str, Any]) -> Lines:
    t = data["thresholds"]
    return [
        _heading(
            4,
            "rouge",
            safe(data["rougeType"]),
            f" · measure {data['measure']}",
            f" · stemmer {'on' if data['useStemmer'] else 'off'}",
            " · ",
            _verdict(data["ok"]),
        ),
        _line(
            6,
            f"precision {data['precision']:.6f} >= {t['precision']:g}, "
            f"recall {data['recall']:.6f} >= {t['recall']:g}, "
            f"F1 {data['f1']:.6f} >= {t['f1']:g} (all three must hold)",
        ),
    ]


def _rouge1_step(data: dict[str, Any]) -> Lines:
    return [
        _heading(4, "ROUGE-1", "tokens after tokenisation and stemming"),
        _line(6, "candidate ", value(data["candidateTokens"], TEXT_CHARS)),
        _line(6, "reference ", value(data["referenceTokens"], TEXT_CHARS)),
        _line(6, f"matched ({data['overlap']}) ", value(data["matched"], TEXT_CHARS)),
        _line(
            6, f"precision {data['precision']:.6f} recall {data['recall']:.6f} F {data['f1']:.6f}"
        ),
    ]


def _final_response(data: dict[str, Any]) -> Lines:
    checks = ", ".join(data["checks"]) or "none"
    lines = [_heading(4, "final response", f"checks {checks}")]
    if data.get("compareName"):
        lines.append(_line(6, "compare function ", safe(data["compareName"])))
    lines.append(_line(6, "actual   ", value(data["actual"], TEXT_CHARS)))
    lines.append(_line(6, "expected ", value(data["expected"], TEXT_CHARS)))
    return lines


def _answer_match(data: dict[str, Any]) -> Lines:
    return [
        _line(4, (f"{data['comparison']} answers ", "bold"), _verdict(data["ok"])),
        _line(6, "actual   ", value(data["actual"], TEXT_CHARS)),
        _line(6, "expected ", value(data["expected"], TEXT_CHARS)),
    ]


def _length(data: dict[str, Any]) -> Lines:
    return [
        _heading(
            4,
            "length",
            f"{data['length']} code points in {data['range']} · ",
            _verdict(data["ok"]),
        ),
    ]


def _xml(data: dict[str, Any]) -> Lines:
    lines = [
        _heading(
            4,
            "xml",
            f"strategy {safe(data['strategy'] or '(empty)')} · well-formedness "
            f"{'checked' if data['valid'] else 'not checked'} · ",
            _verdict(data["ok"]),
        ),
        _line(6, "text ", value(data["text"], TEXT_CHARS)),
    ]
    if data.get("reason"):
        lines.append(_line(6, "→ ", safe(data["reason"])))
    return lines


def _f1(data: dict[str, Any]) -> Lines:
    actual, expected = data["actualNames"], data["expectedNames"]
    lines = [
        _heading(
            4,
            "trajectory F1",
            f"{data['order']} · {data['matched']} matched of "
            f"{data['actualCalls']} actual, {data['expectedCalls']} expected",
        ),
    ]
    for pair in data["pairs"]:
        lines.append(
            _line(
                6,
                f"expected #{pair['expected'] + 1} {safe(expected[pair['expected']])}"
                f" ↔ actual #{pair['actual'] + 1} {safe(actual[pair['actual']])}",
            )
        )
    if data["missing"]:
        lines.append(_line(6, "missing ", value([expected[i] for i in data["missing"]])))
    if data["extra"]:
        lines.append(_line(6, "extra ", value([actual[i] for i in data["extra"]])))
    m, a, e = data["matched"], data["actualCalls"], data["expectedCalls"]
    lines.append(
        _line(
            6,
            f"precision {m}/{a} = {data['precision']:.6g} · recall {m}/{e} = "
            f"{data['recall']:.6g} · F1 {data['f1']:.6g}",
        )
    )
    return lines


def _parts(parts: list[dict[str, Any]]) -> list[str | tuple[str, str]]:
    shown: list[str | tuple[str, str]] = []
    for part in parts:
        if not part["compared"]:
            shown.append(f"{part['part']} not compared  ")
        else:
            shown.append(f"{part['part']} ")
            shown.append(("ok", "green") if part["ok"] else ("differs", "red"))
            shown.append("  ")
    return shown


def _pair_lines(entry: dict[str, Any], indent: int) -> Lines:
    lines = [
        _line(
            indent,
            f"expected #{entry['expected'] + 1} {safe(entry['expectedName'])} ↔ "
            f"actual #{entry['actual'] + 1} {safe(entry['actualName'])}  ",
            *_parts(entry["parts"]),
        ),
        _line(indent + 2, "strategy: ", safe(entry["strategy"])),
    ]
    for part in entry["parts"]:
        if part["compared"] and not part["ok"]:
            where = f" at {safe(part['path'])}" if part.get("path") else ""
            lines.append(_line(indent + 2, f"{part['part']}{where}: ", safe(part["reason"])))
            if "path" in part:
                lines.append(
                    _line(
                        indent + 4,
                        f"actual {value(part['actual'])}  expected {value(part['expected'])}",
                    )
                )
    return lines


def _trajectory_step(data: dict[str, Any]) -> Lines:
    mode = data["mode"] + (", subset (extra actual calls allowed)" if data["subset"] else "")
    lines = [
        _heading(4, "trajectory", f"pairing {mode} · ", _verdict(data["ok"])),
        _line(6, "actual calls   ", value(data["actualCalls"])),
        _line(6, "expected calls ", value(data["expectedCalls"])),
    ]
    for entry in data.get("pairs", ()):
        lines.extend(_pair_lines(entry, 6))
    for miss in data.get("unmatched", ()):
        lines.append(
            _line(
                6,
                (f"expected #{miss['expected'] + 1} {safe(miss['expectedName'])} unmatched", "red"),
            )
        )
        if miss.get("tried"):
            lines.append(_line(8, "closest candidate:"))
            lines.extend(_pair_lines(miss["tried"], 10))
    if data.get("extra"):
        names = [data["actualCalls"][i] for i in data["extra"]]
        lines.append(_line(6, "actual calls left unpaired ", value(names)))
    if data.get("reason"):
        lines.append(_line(6, "→ ", safe(data["reason"])))
    return lines


def _judge_request(data: dict[str, Any]) -> Lines:
    lines = [
        _heading(
            4,
            "judge",
            safe(f"{data['provider']}/{data['model']}"),
            f" · samples {', '.join(str(k + 1) for k in data['samples'])}",
        )
    ]
    for message in data["messages"]:
        lines.append(_line(6, (f"{safe(message['role'])} message sent:", "bold")))
        lines.append(_line(8, safe(message["content"], TEXT_CHARS)))
    for reply in data.get("replies", ()):
        origin = "from the cache" if reply["cached"] else "from the judge"
        cut = " (cut)" if reply["truncated"] else ""
        lines.append(
            _line(
                6,
                (f"sample {reply['sample'] + 1} raw reply", "bold"),
                f" ({reply['chars']} chars, {origin}){cut}:",
            )
        )
        lines.append(_line(8, safe(reply["text"], TEXT_CHARS)))
    if data.get("missing"):
        shown = ", ".join(str(k + 1) for k in data["missing"])
        lines.append(_line(6, (f"not in the cache (offline): sample(s) {shown}", "yellow")))
    elif data.get("error"):
        lines.append(_line(6, ("judge failed: ", "yellow"), safe(data["error"])))
    return lines


def _judge_verdict(data: dict[str, Any]) -> Lines:
    if "error" in data:
        return [_line(6, (f"sample {data['sample']}: parse error ", "red"), safe(data["error"]))]
    lines = [
        _line(
            6,
            f"sample {data['sample']} parsed: score {exact_number(data['score'])} vs threshold "
            f"{exact_number(data['threshold'])} → ",
            (data["status"], _style(data["status"])),
            " · ",
            safe(data["reason"]),
        )
    ]
    for rubric in data.get("rubricScores", ()):
        lines.append(
            _line(
                8,
                f"rubric {safe(str(rubric.get('id', '')))}: score {rubric.get('score', 0):g} · ",
                safe(str(rubric.get("reason", ""))),
            )
        )
    return lines


def _judge_vote(data: dict[str, Any]) -> Lines:
    return [
        _heading(
            6,
            "vote",
            f"{data['aggregator']}: votes {', '.join(data['votes'])} "
            f"→ chosen score {data['chosenScore']:g} ",
            (data["chosenStatus"], _style(data["chosenStatus"])),
        )
    ]


def _bindings(data: dict[str, Any]) -> Lines:
    lines = [_line(4, ("template bindings", "bold"))]
    for b in data["bindings"]:
        source = b["source"] + (f" [nodeID {b['nodeID']}]" if b["nodeID"] else "")
        source += f" path {b['path']}" if b["path"] else ""
        lines.append(
            _line(6, "{{" + safe(b["variable"]) + "}} ← ", safe(source), " = ", value(b["value"]))
        )
    return lines


def _gate(data: dict[str, Any]) -> Lines:
    f1, bar = reason_numbers(data["rougeF1"], data["rougeF1Bar"])
    return [
        _heading(4, "gate", f"method {data['method']}"),
        _line(
            6,
            f"exact (normalised): {'yes' if data['exact'] else 'no'} · ROUGE-1 F1 "
            f"{f1} vs {bar} · judge {'on' if data['judgeOn'] else 'off'}",
        ),
        _line(6, "normalised actual   ", value(data["normalizedActual"])),
        _line(6, "normalised expected ", value(data["normalizedExpected"])),
    ]


def _gate_vote(data: dict[str, Any]) -> Lines:
    outcome = "passed" if data["passed"] else "failed"
    lines = [_heading(6, "gate vote", f"pass {data['pass']} · fail {data['fail']} → {outcome}")]
    for k, verdict in enumerate(data["verdicts"]):
        lines.append(_line(8, f"sample {k + 1}: ", value(verdict)))
    return lines


def _generic(kind: str) -> Callable[[dict[str, Any]], Lines]:
    def render(data: dict[str, Any]) -> Lines:
        return [_line(4, (kind + " ", "bold"), value(data, TEXT_CHARS))]

    return render


def _style(status: str) -> str:
    return _STATUS_STYLE.get(status, "")


_RENDERERS: dict[str, Callable[[dict[str, Any]], Lines]] = {
    "text": _text_step,
    "json": _json_step,
    "rouge": _rouge_step,
    "rouge.tokens": _rouge_tokens,
    "rouge1": _rouge1_step,
    "trajectory": _trajectory_step,
    "judge.samples": _judge_request,
    "judge.ask": _judge_request,
    "judge.verdict": _judge_verdict,
    "judge.vote": _judge_vote,
    "template.bindings": _bindings,
    "gate": _gate,
    "gate.vote": _gate_vote,
    "final_response": _final_response,
    "answer_match": _answer_match,
    "length": _length,
    "xml": _xml,
    "trajectory_f1": _f1,
}


def step_lines(step: Step) -> Lines:
    """The lines of one step."""
    return _RENDERERS.get(step.kind, _generic(step.kind))(step.data)


def criterion_lines(fields: list[CriterionField]) -> Lines:
    """Fields set in a file or with a note one per line; plain defaults folded per parent."""
    lines: Lines = []
    plain: dict[tuple[str, str], list[str]] = {}
    for item in fields:
        parent, _, leaf = item.path.rpartition(".")
        if item.note or not _is_default(item.source):
            note = f"  ({item.note})" if item.note else ""
            lines.append(
                _line(
                    2,
                    safe(item.path),
                    " = ",
                    value(item.value),
                    ("  ← ", "dim"),
                    (safe(item.source), "dim"),
                    note,
                )
            )
        else:
            plain.setdefault((parent, item.source), []).append(f"{leaf}={value(item.value)}")
    for (parent, source), leaves in plain.items():
        lines.append(
            _line(
                2,
                safe(parent or "metric"),
                ": ",
                ", ".join(leaves),
                ("  ← ", "dim"),
                (safe(source), "dim"),
            )
        )
    return lines


def _is_default(source: str) -> bool:
    return source == "default" or source.startswith(("toolStrategy[", "built-in"))


def explanation_lines(explanation: Explanation) -> Lines:
    """The whole explanation as lines of rich text."""
    e = explanation
    m = e.metric
    lines = [
        _heading(
            0,
            "explain",
            f"case {safe(e.case_id)} · metric {safe(m.name)} "
            f"({safe(m.evaluator)}) · run {e.run_id} · eval set {safe(e.eval_set_id)}",
        ),
        _line(0, "from ", safe(e.source)),
        Text(""),
        _line(0, ("resolved criterion", "bold")),
    ]
    lines.extend(criterion_lines(e.criterion))
    for index in sorted(
        {s.turn for s in e.steps if s.turn is not None} | {t.index for t in e.turns}
    ):
        if e.turn is not None and index != e.turn - 1:
            continue
        lines.extend(_turn_lines(e, index))
    lines.append(Text(""))
    lines.append(
        _heading(
            0,
            "metric",
            safe(m.name),
            ": ",
            (safe(m.arithmetic), _style(m.status)),
        )
    )
    if m.error:
        lines.append(_line(2, ("error: ", "red"), safe(m.error)))
    lines.append(_heading(0, "case", safe(e.case_id), ": ", safe(e.case.arithmetic)))
    if e.case.note:
        lines.append(_line(2, safe(e.case.note)))
    if e.saved is not None:
        lines.append(
            _line(0, "saved result: ", f"score {exact_number(e.saved.score)} {e.saved.status}")
        )
    for note in e.notes:
        lines.append(_line(0, ("note: ", "yellow"), safe(note)))
    if e.judge is not None:
        j = e.judge
        lines.append(
            _heading(
                0,
                "judge",
                f"{j.calls} call(s) sent, {j.cache_hits} answered from the cache",
            )
        )
        if j.missing:
            lines.append(
                _line(2, ("missing from the cache (offline): ", "yellow"), ", ".join(j.missing))
            )
        for failure in j.failures:
            lines.append(_line(2, ("not evaluated: ", "yellow"), safe(failure)))
    return lines


def _turn_lines(e: Explanation, index: int) -> Lines:
    lines = [Text(""), _line(0, (f"turn {index + 1}", "bold"))]
    for step in e.steps:
        if step.turn == index:
            lines.extend(step_lines(step))
    for turn in e.turns:
        if turn.index == index:
            lines.append(_line(2, "turn score ", (turn.arithmetic, _style(turn.status))))
            if turn.reason:
                lines.append(_line(4, "reason: ", safe(turn.reason)))
    return lines


def wrapped(line: Text, width: int) -> list[Text]:
    """``line`` cut at spaces into pieces of at most ``width`` characters; a longer word stays
    whole on a piece of its own (rich would fold it), so a path or an id is never split."""
    plain = line.plain
    offsets: list[int] = []
    start = 0
    indent = len(plain) - len(plain.lstrip(" "))
    while len(plain) - start > width:
        floor = start + (indent if start == 0 else 0) + 1
        cut = plain.rfind(" ", floor, start + width + 1)
        if cut < floor:
            cut = plain.find(" ", max(start + width, floor))
            if cut == -1:
                break
        offsets.append(cut + 1)
        start = cut + 1
    if not offsets:
        return [line]
    pieces = list(line.divide(offsets))
    for piece in pieces:
        piece.rstrip()
    return pieces


def print_explanation(explanation: Explanation, console: Console) -> None:
    """Print ``explanation``; lines wrap at spaces, never inside a word."""
    width = max(console.width, 20)
    for line in explanation_lines(explanation):
        for piece in wrapped(line, width):
            console.print(piece, crop=False, soft_wrap=True)


def metric_lines(case: EvalCaseResult, metric_name: str) -> list[str] | None:
    """Explain's console lines for one saved case's metric (deterministic ones), else None."""
    from agenteval.explain.core import explain_case_metric

    explanation = explain_case_metric(case, metric_name)
    return None if explanation is None else [line.plain for line in explanation_lines(explanation)]
