"""The sink of ``agenteval run``: every case written down as it finishes, then let go.

Each finished case result is encoded into its eval set's result document (a spool file
in the temp directory, ``$TMPDIR``, see :mod:`agenteval.report.result_stream`) and
counted for the reports; the case result itself is not kept.  After scoring, the result files and the
``--json`` run document are copied out of the spools (flat memory), the other reports
are built from the tallies.  Other sinks (``also``: the HTML page's
:class:`~agenteval.report.html_model.RunBuilder`) get every case too, as it finishes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Protocol, TypeVar

from agenteval.report.result_files import result_file_name, result_id
from agenteval.report.result_stream import DocumentPart, ResultDocument
from agenteval.report.set_tally import ReportSink, SetReport, SetTally, overall_status
from agenteval.schema.result import EvalCaseResult, EvalSetResult
from agenteval.schema.status import EvalStatus

_Item = TypeVar("_Item", EvalCaseResult, EvalSetResult)


class CaseSink(Protocol):
    """Something else that takes a run's cases as they finish (an ``api.ResultSink`` part)."""

    def begin_set(self, eval_set_id: str, num_runs: int) -> None:
        """The eval set ``eval_set_id`` starts."""

    def add(self, case: EvalCaseResult) -> None:
        """One finished case run, in result-file order."""

    def end_set(self, head: EvalSetResult) -> None:
        """The eval set is done; ``head`` holds its run state."""


@dataclass(slots=True)
class StreamedSet:
    """One eval set of the run: its document (when one is written) and what the reports read."""

    eval_set_id: str
    document: ResultDocument | None
    # Why the document could not be spooled (disk full ...), for the reports that need it.
    error: OSError | None = None
    file_name: str | None = None

    def finished(self) -> ResultDocument:
        """The finished document; the spooling error, or OSError when none was kept."""
        if self.error is not None:
            raise self.error
        if self.document is None:
            raise OSError("the result was not kept")
        return self.document


class SetPart:
    """A later share of the current eval set's cases, counted apart (a worker process's,
    :mod:`agenteval.run.case_split`): made here, filled and :meth:`shipped` by the worker,
    then absorbed by the :class:`StreamedRun` it came from (its spools read in place)."""

    def __init__(self, document: ResultDocument | None, tally: SetTally) -> None:
        self.document = document
        self.tally = tally

    def add(self, case: EvalCaseResult) -> None:
        """Spool and count one case of the share (an OSError is raised: the share is redone)."""
        if self.document is not None:
            self.document.add(case)
        self.tally.add(case)

    def shipped(self) -> ShippedPart:
        """What the share counted, as plain data (the worker ships it)."""
        document = self.document.shipped() if self.document is not None else None
        return ShippedPart(document, self.tally)

    def discard(self) -> None:
        """Drop the share's spools (its worker failed: its cases are scored again)."""
        if self.document is not None:
            self.document.close()


class ShippedPart(NamedTuple):
    """What a worker ships of a :class:`SetPart`: its document's counts and its tally."""

    document: DocumentPart | None
    tally: SetTally


class StreamedRun:
    """A :class:`agenteval.api.ResultSink` that writes documents as cases finish.

    ``output``: the ``--output`` directory (result files get their names now);
    ``documents``: whether any report needs the documents (``--output``, ``--json``,
    ``--html``, ``--store``); the spools live in ``spool_dir`` (None: the system temp
    directory, so a full or read-only output directory fails only the report written
    there).  ``named``: give every document a result id as a result file has (the run
    store keeps each one as the result file ``store export`` writes), also without
    ``--output``.
    """

    def __init__(
        self,
        *,
        output: Path | None,
        app_name: str,
        documents: bool,
        spool_dir: Path | None = None,
        tallies: ReportSink | None = None,
        also: Sequence[CaseSink] = (),
        named: bool = False,
    ) -> None:
        self.output = output
        self.named = named
        self.app_name = app_name
        self.documents = documents
        self.spool_dir = spool_dir
        self.sets: list[StreamedSet] = []
        # What the console, JUnit, Markdown and GitHub reports read (report/set_tally.py).
        self.tallies = tallies if tallies is not None else ReportSink()
        self.also = list(also)
        # Every sink a case goes to besides the document, in order.
        self._sinks: tuple[CaseSink, ...] = (self.tallies, *self.also)
        self._current: StreamedSet | None = None

    def begin_set(self, eval_set_id: str, num_runs: int) -> None:
        """Start the eval set's document (a spool that cannot be made is noted, not raised)."""
        document = None
        error = None
        name = None
        if self.documents:
            named = self.output is not None or self.named
            rid = result_id(self.app_name, eval_set_id) if named else None
            if rid is not None and self.output is not None:
                name = result_file_name(rid)
            try:
                if self.spool_dir is not None:
                    self.spool_dir.mkdir(parents=True, exist_ok=True)
                document = ResultDocument(
                    eval_set_id, num_runs, result_id=rid, spool_dir=self.spool_dir
                )
            except OSError as exc:
                error = exc
        self._current = StreamedSet(eval_set_id, document, error, name)
        for sink in self._sinks:
            sink.begin_set(eval_set_id, num_runs)

    def add(self, case: EvalCaseResult) -> None:
        """Spool one finished case and count it."""
        self._write(ResultDocument.add, case)
        for sink in self._sinks:
            sink.add(case)

    def end_set(self, head: EvalSetResult) -> None:
        """Finish the eval set's document with ``head``'s run state."""
        current = self._write(ResultDocument.finish, head)
        for sink in self._sinks:
            sink.end_set(head)
        self.sets.append(current)
        self._current = None

    def _write(self, step: Callable[[ResultDocument, _Item], None], item: _Item) -> StreamedSet:
        """``step`` of the current eval set's document with ``item`` (a write that fails is
        noted on the set, not raised); the set."""
        current = self._current
        assert current is not None
        document = current.document
        if document is None:
            return current
        try:
            step(document, item)
        except OSError as exc:
            # The run goes on; the reports that needed this document say why they failed.
            current.error = exc
            current.document = None
            document.close()
        return current

    @property
    def parts(self) -> bool:
        """Whether the current eval set's cases can be counted in shares (no other sink)."""
        return not self.also

    def part(self) -> SetPart:
        """An empty share of the current eval set, for cases that come after every case
        added so far; :meth:`absorb` it with what it :meth:`SetPart.shipped` when done."""
        current = self._current
        assert current is not None, "part before begin_set"
        document = current.document.part() if current.document is not None else None
        return SetPart(document, self.tallies.part())

    def absorb(self, part: SetPart, shipped: ShippedPart) -> None:
        """Count a share's cases after the ones added so far, as if added here one by one."""
        current = self._current
        assert current is not None, "absorb before begin_set"
        self.tallies.absorb(shipped.tally)
        document = current.document
        if document is None or part.document is None or shipped.document is None:
            part.discard()
            return
        try:
            document.absorb(part.document, shipped.document)
        except OSError as exc:  # as in _write: noted on the set, not raised
            current.error = exc
            current.document = None
            document.close()
            part.discard()

    def overall_status(self) -> EvalStatus:
        """The overall status of every case added."""
        return overall_status(self.tallies.reports)

    @property
    def reports(self) -> list[SetReport]:
        """What the console, JUnit, Markdown and GitHub reports print, per eval set."""
        return self.tallies.reports

    def close(self) -> None:
        """Drop every spool (the files written from them stay)."""
        for item in self.sets:
            if item.document is not None:
                item.document.close()
        if self._current is not None and self._current.document is not None:
            self._current.document.close()


__all__ = ["CaseSink", "StreamedRun", "StreamedSet"]
