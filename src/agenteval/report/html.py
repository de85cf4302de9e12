"""``--html FILE``: one self-contained, offline HTML report of one run, or a comparison of two.

The page is a Jinja2 shell (``html_assets/report.html.j2``) with the
package's own CSS and JavaScript inlined and the run's data embedded as JSON
in ``<script type="application/json">`` elements (see
:mod:`agenteval.report.html_model`).  Nothing is loaded from elsewhere: the
Content-Security-Policy allows no network at all, and only the one script
whose hash it names may run.

Text from a trace is inert twice over: inside the JSON, ``<``, ``>`` and
``&`` are written as ``\\u003c`` escapes, so no ``</script>`` can end a data
block; and the page puts every text into the document with ``textContent``,
never as markup (control characters such as ANSI escapes are shown as
visible symbols).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import orjson

from agenteval.report.atomic_write import write_bytes_atomic
from agenteval.report.gc_pause import collector_paused
from agenteval.report.html_inputs import ReportRun
from agenteval.report.html_model import detail_chunks, report_index, run_model
from agenteval.schema.result import EvalSetResult

_ASSETS = "html_assets"
# Characters that could end or confuse a <script> data block; valid JSON keeps them in strings.
_SCRIPT_ESCAPES = [
    (b"<", b"\\u003c"),
    (b">", b"\\u003e"),
    (b"&", b"\\u0026"),
    ("\u2028".encode(), b"\\u2028"),
    ("\u2029".encode(), b"\\u2029"),
]
_CHUNKS_MARK = "\x00agenteval-chunks\x00"


def script_safe_json(data: bytes) -> bytes:
    """JSON bytes that can sit inside a ``<script>`` element: nothing in them can close it."""
    for raw, escape in _SCRIPT_ESCAPES:
        if raw in data:
            data = data.replace(raw, escape)
    return data


def _asset(name: str) -> str:
    return (
        resources.files(__package__ or "agenteval.report")
        .joinpath(_ASSETS, name)
        .read_text(encoding="utf-8")
    )


@cache
def _environment() -> jinja2.Environment:
    loader = jinja2.FunctionLoader(lambda name: _asset(name))
    return jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined)


def _script_hash(script: str) -> str:
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def render_report(runs: Sequence[ReportRun], *, title: str = "", tolerance: float = 0.0) -> bytes:
    """The whole page as UTF-8 bytes (two runs: the second compared with the first)."""
    if not runs:
        raise ValueError("a report needs at least one run")
    with collector_paused():
        models = [run_model(position, run) for position, run in enumerate(runs)]
        index = report_index(runs, models, title or _default_title(runs), tolerance)
        index_json = script_safe_json(orjson.dumps(index)).decode("utf-8")
        script = _asset("report.js")
        shell = (
            _environment()
            .get_template("report.html.j2")
            .render(
                title=index["title"],
                css=_asset("report.css"),
                script=script,
                script_hash=_script_hash(script),
                index_json=index_json,
                chunks=_CHUNKS_MARK,
            )
        )
        head, tail = shell.split(_CHUNKS_MARK, 1)
        parts: list[bytes] = [head.encode("utf-8")]
        for position, model in enumerate(models):
            for number, chunk in enumerate(detail_chunks(model)):
                parts.append(
                    f'<script type="application/json" id="chunk-{position}-{number}">'.encode()
                )
                parts.append(script_safe_json(chunk))
                parts.append(b"</script>\n")
        parts.append(tail.encode("utf-8"))
        return b"".join(parts)


def _default_title(runs: Sequence[ReportRun]) -> str:
    if len(runs) == 2:
        return f"agenteval: {runs[0].label} → {runs[1].label}"
    eval_sets = sorted({r.eval_set_id for run in runs for r in run.results})
    return "agenteval: " + ", ".join(eval_sets[:3]) + (" …" if len(eval_sets) > 3 else "")


def write_report(
    path: Path, runs: Sequence[ReportRun], *, title: str = "", tolerance: float = 0.0
) -> Path:
    """Write the report atomically to ``path``; returns the path."""
    return write_bytes_atomic(path, render_report(runs, title=title, tolerance=tolerance))


def write_run_report(
    path: Path,
    results: Sequence[EvalSetResult],
    *,
    extras: dict[str, Any] | None = None,
    label: str = "run",
) -> Path:
    """``run --html FILE``: the report of the run that just finished."""
    run = ReportRun(label=label, results=list(results), extras=dict(extras or {}))
    return write_report(path, [run])


__all__ = ["render_report", "script_safe_json", "write_report", "write_run_report"]
