"""``agenteval merge``'s output: each merged eval set written as its cases are read.

Every merged eval set (:class:`agenteval.results.merging.MergedSet`) is spooled into its result
document (:class:`agenteval.report.result_stream.ResultDocument`, the bytes a whole
write gives) and tallied for the console (:func:`agenteval.report.set_tally.saved_tally`)
case by case; a case that does not validate is a problem, and nothing is written unless
every case of every eval set read.  Then the documents are copied into place: one
``.json`` file, or one ``<app>_<evalSetId>_<uuid>.evalset_result.json`` per eval set.

Tested in tests/report/test_merge_writer.py (and tests/cli/test_result_readers.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agenteval.errors import ConfigError, Problem
from agenteval.report.gc_pause import collector_paused
from agenteval.report.result_files import result_file_name, result_id
from agenteval.report.result_stream import ResultDocument, write_result_document
from agenteval.report.set_tally import ConsoleView, SetReport, saved_tally
from agenteval.results.merging import MergedSet

# merge prints the merged run's failures and its summary line, as ``run --quiet`` does.
MERGE_VIEW = ConsoleView(quiet=True)


@dataclass(slots=True)
class MergedDocument:
    """A merged eval set spooled: its document, its file name (directory output), its report."""

    document: ResultDocument
    file_name: str | None
    report: SetReport


def spool_merge(
    planned: Sequence[MergedSet], *, app_name: str | None, view: ConsoleView = MERGE_VIEW
) -> list[MergedDocument]:
    """Spool every merged eval set, case by case (``app_name``: name the results, for a
    directory; None: one ``.json`` file).  ConfigError lists every case that did not read."""
    problems: list[Problem] = []
    spooled: list[MergedDocument] = []
    try:
        with collector_paused():
            for merged in planned:
                spooled.append(_spooled(merged, app_name, view, problems))
        if problems:
            raise ConfigError(problems)
    except BaseException:
        close(spooled)
        raise
    return spooled


def _spooled(
    merged: MergedSet, app_name: str | None, view: ConsoleView, problems: list[Problem]
) -> MergedDocument:
    rid = result_id(app_name, merged.eval_set_id) if app_name is not None else None
    document = ResultDocument(merged.eval_set_id, merged.num_runs, result_id=rid, spool_dir=None)
    ids = [eval_id for _, eval_id in merged.case_keys()]
    tally = saved_tally(merged.eval_set_id, merged.num_runs, ids, view=view)
    try:
        for case in merged.cases(problems):
            document.add(case)
            tally.add(case)
        document.finish(merged.head)
    except BaseException:
        document.close()
        raise
    head = merged.head.model_copy(update={"summary": document.summary})
    name = result_file_name(rid) if rid is not None else None
    return MergedDocument(document, name, tally.finish(head))


def write_merged(spooled: Sequence[MergedDocument], out: Path) -> list[Path]:
    """Copy the spooled documents into place: ``out`` itself (one, no name), else files in it."""
    written: list[Path] = []
    for item in spooled:
        if item.file_name is None:
            written.append(write_result_document(item.document, out))
            continue
        out.mkdir(parents=True, exist_ok=True)
        written.append(write_result_document(item.document, out / item.file_name))
    return written


def close(spooled: Sequence[MergedDocument]) -> None:
    """Drop the spools (the files written from them stay)."""
    for item in spooled:
        item.document.close()


__all__ = ["MergedDocument", "close", "spool_merge", "write_merged"]
