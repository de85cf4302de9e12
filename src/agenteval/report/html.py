"""``--html FILE``: one offline HTML report of one run, or a comparison of two.

The page is a Jinja2 shell (``html_assets/report.html.j2``) with the package's own
CSS and JavaScript inlined and the run's index embedded as JSON in a
``<script type="application/json">`` element (see :mod:`agenteval.report.html_model`).
The case details follow in the page as JSON chunks while they are at most
``inline_limit`` bytes (:data:`INLINE_LIMIT`): one self-contained file.  Above that
(the details of 50,000 cases made a 256 MB page) they go to a sidecar directory next
to the page, ``NAME.cases/`` for ``NAME.html``, one script per chunk that hands its
data to the page (``agentevalShard(token, run, chunk, data)``); the page loads a chunk
when a case in it is opened.  A page written to ``-``, a FIFO or a device has nowhere
for a sidecar and always holds everything.

Why scripts: a page opened from ``file://`` may not ``fetch`` or ``XMLHttpRequest``
other files (Chromium refuses every file URL as cross-origin), but it may run
``<script src>`` files beside it, and Chromium's CSP ``'self'`` matches them from a
``file://`` page (checked: without it the hash-only policy blocks them).  Nothing is
loaded from the network either way: the Content-Security-Policy allows no connection,
image or font from elsewhere, and scripts only by the page script's hash (and, with a
sidecar, from the page's own place).  The shards carry a random token the page knows,
so the shards of an older report in the same place are never mixed in.

Text from a trace is inert twice over: inside the JSON, ``<``, ``>`` and ``&`` are
written as ``\\u003c`` escapes, so no ``</script>`` can end a data block; and the page
puts every text into the document with ``textContent``, never as markup (control and
bidi characters shown as visible symbols, very long texts cut with "show more").
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import orjson

from agenteval.errors import Problem
from agenteval.inputs.result_inputs import raise_problems
from agenteval.report.atomic_write import StreamedFile, is_stdout
from agenteval.report.gc_pause import collector_paused
from agenteval.report.html_inputs import ReportRun
from agenteval.report.html_model import CHUNK_SIZE, RunBuilder, comparison, report_index

# Bytes of case details a page holds itself; above this they go to the sidecar.
INLINE_LIMIT = 32 << 20
SIDECAR_SUFFIX = ".cases"
# The file in a sidecar directory that marks it as agenteval's (only such a one is replaced).
SIDECAR_MARK = "README.txt"
SHARD_CALLBACK = "agentevalShard"

_ASSETS = "html_assets"
# Characters that could end or confuse a <script> data block; valid JSON keeps them in strings.
_SCRIPT_ESCAPES = [
    (b"<", b"\\u003c"),
    (b">", b"\\u003e"),
    (b"&", b"\\u0026"),
    ("\u2028".encode(), b"\\u2028"),
    ("\u2029".encode(), b"\\u2029"),
]
_INDEX_MARK = "\x00agenteval-index\x00"
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


def sidecar_path(page: Path) -> Path:
    """Where the case details of ``page`` go above the inline limit: ``NAME.cases``."""
    return page.with_name(page.stem + SIDECAR_SUFFIX)


def shard_name(run: int, chunk: int) -> str:
    """File name of one chunk in the sidecar (the page builds the same name)."""
    return f"{run}-{chunk:05d}.js"


def _page_parts(
    index: dict[str, Any], builders: Sequence[RunBuilder], *, inline: bool
) -> Iterator[bytes]:
    """The page, piece by piece: shell head, index, script, inline chunks, shell tail."""
    script = _asset("report.js")
    sources = f"'{_script_hash(script)}'" + ("" if inline else " 'self'")
    shell = (
        _environment()
        .get_template("report.html.j2")
        .render(
            title=index["title"],
            css=_asset("report.css"),
            script=script,
            script_src=sources,
            index_json=_INDEX_MARK,
            chunks=_CHUNKS_MARK,
        )
    )
    head, rest = shell.split(_INDEX_MARK, 1)
    middle, tail = rest.split(_CHUNKS_MARK, 1)
    yield head.encode("utf-8")
    yield script_safe_json(orjson.dumps(index))
    yield middle.encode("utf-8")
    if inline:
        for position, builder in enumerate(builders):
            for number, chunk in enumerate(builder.details.chunks()):
                yield f'<script type="application/json" id="chunk-{position}-{number}">'.encode()
                yield script_safe_json(chunk)
                yield b"</script>\n"
    yield tail.encode("utf-8")


def _sidecar_possible(path: Path) -> bool:
    """A regular file (or a new one) can have a directory beside it; stdout or a FIFO cannot."""
    if is_stdout(path):
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return True


def _is_ours(directory: Path) -> bool:
    return (
        directory.is_dir() and not directory.is_symlink() and (directory / SIDECAR_MARK).is_file()
    )


class _Sidecar:
    """The chunks of a page written into a new directory beside it, until put in place.

    The directory is complete before anything is replaced, and an existing ``NAME.cases``
    is replaced only when agenteval wrote it (its :data:`SIDECAR_MARK`).
    """

    def __init__(self, page: Path, builders: Sequence[RunBuilder], token: str) -> None:
        self.final = sidecar_path(page)
        if self.final.exists() and not _is_ours(self.final):
            raise FileExistsError(
                17, f"{self.final} exists and is not an agenteval report's sidecar", str(self.final)
            )
        self.staging: Path | None = Path(
            tempfile.mkdtemp(prefix=f".{self.final.name}.", suffix=".tmp", dir=page.parent)
        )
        try:
            self._write(page, builders, token, self.staging)
        except BaseException:
            self.discard()
            raise

    @staticmethod
    def _write(page: Path, builders: Sequence[RunBuilder], token: str, into: Path) -> None:
        (into / SIDECAR_MARK).write_text(
            f"Case details of {page.name}, written by agenteval: the page loads them from here.\n"
            "Keep this directory next to the page (move or copy both together).\n",
            encoding="utf-8",
        )
        prefix = f"{SHARD_CALLBACK}({orjson.dumps(token).decode()},".encode()
        for position, builder in enumerate(builders):
            for number, chunk in enumerate(builder.details.chunks()):
                with open(into / shard_name(position, number), "wb") as out:
                    out.write(prefix + f"{position},{number},".encode())
                    out.write(script_safe_json(chunk))
                    out.write(b");\n")
        os.chmod(into, 0o755)

    def place(self) -> None:
        """Put the directory in place of ``NAME.cases`` (an older one is removed)."""
        assert self.staging is not None
        old = None
        if self.final.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{self.final.name}.old.", dir=self.final.parent))
            os.replace(self.final, old / self.final.name)
        os.replace(self.staging, self.final)
        self.staging = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def discard(self) -> None:
        """Remove the new directory if it was not put in place."""
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None


def write_page(
    path: Path,
    builders: Sequence[RunBuilder],
    *,
    title: str,
    compared: dict[str, Any] | None = None,
    inline_limit: int = INLINE_LIMIT,
    pages: Sequence[dict[str, Any]] = (),
) -> Path:
    """Write the page of the built runs to ``path`` (and its sidecar when the details are large).

    ``pages`` are more tabs a command adds (calibrate's): ``{"id", "label", "run"?, "blocks"}``,
    each block ``{"heading"}``, ``{"subheading"}``, ``{"text"}``, ``{"table": {"head", "rows"}}``
    or ``{"items": [{"text", "case"?: [evalSetId, evalId, runId?], "code"?}]}`` (a ``case`` links
    to that case's view of run ``run``, the last by default, open on its result of ``runId``,
    the first by default); every text is shown as text.
    """
    with collector_paused():
        chunk_size = builders[0].details.chunk_size if builders else CHUNK_SIZE
        index = report_index([b.index() for b in builders], title, compared, chunk_size=chunk_size)
        index["pages"] = list(pages)
        details = sum(builder.details.size for builder in builders)
        inline = details <= inline_limit or not _sidecar_possible(path)
        sidecar: _Sidecar | None = None
        if not inline:
            token = secrets.token_hex(8)
            index["shards"] = {"dir": sidecar_path(path).name, "token": token}
            sidecar = _Sidecar(path, builders, token)
        try:
            with StreamedFile(path) as out:
                for part in _page_parts(index, builders, inline=inline):
                    out.write(part)
                if sidecar is not None:
                    sidecar.place()
                elif _sidecar_possible(path) and _is_ours(sidecar_path(path)):
                    # An earlier, larger report's details: this page does not use them.
                    shutil.rmtree(sidecar_path(path), ignore_errors=True)
                return out.commit()
        finally:
            if sidecar is not None:
                sidecar.discard()


def _default_title(runs: Sequence[ReportRun]) -> str:
    if len(runs) == 2:
        return f"agenteval: {runs[0].label} → {runs[1].label}"
    eval_sets = sorted({eval_set_id for run in runs for eval_set_id in run.eval_set_ids})
    return "agenteval: " + ", ".join(eval_sets[:3]) + (" …" if len(eval_sets) > 3 else "")


def _built(runs: Sequence[ReportRun]) -> list[RunBuilder]:
    """Each run's page model, its parts read case by case; ConfigError if a case is invalid."""
    builders: list[RunBuilder] = []
    problems: list[Problem] = []
    try:
        for run in runs:
            builder = RunBuilder(run.label, sources=run.sources, extras=run.extras)
            builders.append(builder)
            builder.feed(run.results)
            for part in run.parts:
                builder.feed_source(part, problems)
        raise_problems(problems)
    except BaseException:
        for builder in builders:
            builder.close()
        raise
    return builders


def _compared(
    runs: Sequence[ReportRun], builders: Sequence[RunBuilder], tolerance: float
) -> dict[str, Any] | None:
    if len(runs) != 2:
        return None
    base, new = builders[0].index(), builders[1].index()
    return comparison(runs[0].whole(), runs[1].whole(), base, new, tolerance)


def write_report(
    path: Path,
    runs: Sequence[ReportRun],
    *,
    title: str = "",
    tolerance: float = 0.0,
    inline_limit: int = INLINE_LIMIT,
    pages: Sequence[dict[str, Any]] = (),
) -> Path:
    """Write the report of saved runs (two: the second compared with the first), with ``pages``
    (see :func:`write_page`); returns the path."""
    if not runs:
        raise ValueError("a report needs at least one run")
    builders = _built(runs)
    try:
        return write_page(
            path,
            builders,
            title=title or _default_title(runs),
            compared=_compared(runs, builders, tolerance),
            inline_limit=inline_limit,
            pages=pages,
        )
    finally:
        for builder in builders:
            builder.close()


def render_report(runs: Sequence[ReportRun], *, title: str = "", tolerance: float = 0.0) -> bytes:
    """The self-contained page of ``runs`` as bytes (every detail inline)."""
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        write_report(page, runs, title=title, tolerance=tolerance, inline_limit=1 << 62)
        return page.read_bytes()


def write_run_report(
    path: Path,
    builder: RunBuilder,
    *,
    extras: dict[str, Any] | None = None,
    inline_limit: int = INLINE_LIMIT,
    pages: Sequence[dict[str, Any]] = (),
) -> Path:
    """``run --html FILE``: the report of the run that just finished, built as its cases came
    (``pages``: more tabs, see :func:`write_page`)."""
    builder.extras.update(extras or {})
    ids = sorted({eval_set["evalSetId"] for eval_set in builder.eval_sets})
    title = "agenteval: " + ", ".join(ids[:3]) + (" …" if len(ids) > 3 else "")
    return write_page(path, [builder], title=title, inline_limit=inline_limit, pages=pages)


__all__ = [
    "INLINE_LIMIT",
    "SHARD_CALLBACK",
    "SIDECAR_SUFFIX",
    "render_report",
    "script_safe_json",
    "shard_name",
    "sidecar_path",
    "write_page",
    "write_report",
    "write_run_report",
]
