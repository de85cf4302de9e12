"""Which reports a run writes, and writing them: ``agenteval run`` and ``api.evaluate(reports=)``.

:class:`RunReports` says which reports a run writes — the result files (``--output``), the
run document (``--json``), JUnit, Markdown, the HTML page, and the CI outputs (GitHub step
summary and annotations, taken from the environment).  :class:`RunReporter` writes them
for one run: its :attr:`~RunReporter.sink` takes the cases as they finish (spooled, tallied,
added to the page; see :mod:`agenteval.report.streamed_run`), and
:meth:`~RunReporter.write`, once scoring is over, writes every report, each on its own
(one that fails neither hides nor stops the others; :mod:`agenteval.report.report_jobs`).

The command line and the Python API both write through this module, so the files are the
same bytes either way (tests/report/test_run_reports.py holds them to it).
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

from agenteval.errors import Problem
from agenteval.exit_codes import ExitCode
from agenteval.report import github, result_files
from agenteval.report.atomic_write import is_stdout
from agenteval.report.markdown import STEP_SUMMARY_ENV
from agenteval.report.output_paths import check_output_file, check_outputs
from agenteval.report.report_jobs import ReportJob, attempt, write_reports
from agenteval.report.reporters import reporter_problems, write_with
from agenteval.report.result_stream import write_result_document, write_run_document
from agenteval.report.run_notes import RunNotes
from agenteval.report.set_tally import ReportSink, SetReport, overall_status
from agenteval.report.streamed_run import CaseSink, StreamedRun, StreamedSet
from agenteval.report.verdicts import run_document_verdicts
from agenteval.results.share_workers import ShareWorker, can_fork
from agenteval.schema.status import EvalStatus

if TYPE_CHECKING:
    from agenteval.report.html_model import RunBuilder


class ReportPage(CaseSink, Protocol):
    """A tab a command adds to the run's HTML page (calibrate's), fed every case as it
    finishes; :meth:`page` is read when the page is written (see report/html.py's pages)."""

    def page(self) -> dict[str, Any]:
        """The tab: ``{"id", "label", "run"?, "blocks"}``."""


@dataclass(frozen=True, slots=True)
class RunReports:
    """Which reports a run writes (None: not that one); ``agenteval run``'s report flags.

    ``output``: a directory for ``<app>_<evalSetId>_<uuid>.evalset_result.json`` files;
    ``json``, ``junit``, ``markdown``, ``html``: one file each (``-`` is stdout);
    ``ci``: the GitHub Actions outputs when the environment asks for them
    (``$GITHUB_STEP_SUMMARY`` gets the Markdown summary; with ``GITHUB_ACTIONS=true`` an
    annotation per case not passed and per warning is printed), as ``agenteval run`` does;
    ``pages``: more tabs of the HTML page (``run --labels``' Calibration page);
    ``formats``: (reporter name, file) of more files (``--report NAME=FILE``: a plugin's
    format, or ``junit`` / ``markdown`` again; report/reporters.py).
    """

    output: Path | None = None
    json: Path | None = None
    junit: Path | None = None
    markdown: Path | None = None
    html: Path | None = None
    ci: bool = True
    pages: tuple[ReportPage, ...] = ()
    formats: tuple[tuple[str, Path], ...] = ()

    def problems(self) -> list[Problem]:
        """What is wrong with the destinations, found before anything is scored (a plugin's
        reporter is known once the plugins are loaded)."""
        problems = reporter_problems([name for name, _ in self.formats])
        problems += check_outputs(
            {"--output": self.output},
            {"--json": self.json, "--junit": self.junit, "--markdown": self.markdown},
        )
        # One check per --report: the same reporter may write several files.
        for name, path in self.formats:
            problems += check_output_file(f"--report {name}", path)
        return problems + check_outputs({}, {"--html": self.html})

    def files(self) -> list[tuple[str, Path]]:
        """(reporter name, file) of every file a reporter writes, in the order written."""
        given = [("junit", self.junit), ("markdown", self.markdown)]
        return [(name, path) for name, path in given if path is not None] + list(self.formats)

    @property
    def writes_stdout(self) -> bool:
        """Whether a report is written to stdout (``-``): then nothing else may be."""
        given = [self.json, self.junit, self.markdown, self.html, *(p for _, p in self.formats)]
        return any(path is not None and is_stdout(path) for path in given)

    @property
    def needs_documents(self) -> bool:
        """Whether a report is copied out of the eval sets' result documents."""
        return self.output is not None or self.json is not None


class ScoredRun(Protocol):
    """What the reports read of a scored run (``api.RunResult`` has it all)."""

    @property
    def elapsed(self) -> float:
        """Seconds the run took."""

    @property
    def sources(self) -> Sequence[Path]:
        """The eval set files, in report order."""

    @property
    def exit_code(self) -> int:
        """The exit code scoring decided."""

    @property
    def interrupted(self) -> bool:
        """Whether a signal stopped the run."""

    @property
    def judge_failures(self) -> Sequence[str]:
        """Why judge turns ended not evaluated."""


@dataclass(frozen=True, slots=True)
class ReportsWritten:
    """What :meth:`RunReporter.write` did: the files written, the ones that failed, the verdict.

    ``notes``: the warnings and why the run is unfinished, as every report said them;
    ``exit_code``: the run's, 3 when a report could not be written or a signal came while
    writing; ``document_keys``: the run document's own keys (the store keeps the same bytes).
    """

    written: list[str]
    failures: list[str]
    notes: RunNotes
    exit_code: int
    document_keys: dict[str, Any] = field(default_factory=dict)


def _write_html(
    path: Path, page: RunBuilder, extras: dict[str, Any], pages: Sequence[ReportPage]
) -> Path:
    """The run's HTML page, with the tabs ``pages`` make now that every case is in."""
    from agenteval.report.html import write_run_report

    return write_run_report(path, page, extras=extras, pages=[made.page() for made in pages])


class RunReporter:
    """The reports of one run, from its first case to its last file (module docstring).

    ``app_name`` names the result files; ``tallies`` is the console's view of the cases
    (how many are kept in detail); ``named``: give every result document its result id
    also without ``--output`` (the run store keeps them); ``also``: other sinks that get
    every case too.
    """

    def __init__(
        self,
        reports: RunReports,
        *,
        app_name: str = "agenteval",
        tallies: ReportSink | None = None,
        named: bool = False,
        documents: bool = False,
        also: Sequence[CaseSink] = (),
        environ: Mapping[str, str] | None = None,
        jobs: int = 1,
    ) -> None:
        self.reports = reports
        self.environ = environ
        self.jobs = jobs  # --jobs: the cores the run may use (see start_result_files)
        # The result files being written by a forked process (start_result_files).
        self._early: ShareWorker | None = None
        # The page is built from the cases as they finish (report/html_model.py).
        self.page: RunBuilder | None = None
        if reports.html is not None:
            from agenteval.report.html_model import RunBuilder

            self.page = RunBuilder("run")
        self.sink = StreamedRun(
            output=reports.output,
            app_name=app_name,
            documents=documents or named or reports.needs_documents,
            tallies=tallies,
            also=[
                *([self.page, *reports.pages] if self.page is not None else []),
                *also,
            ],
            named=named,
        )

    def statuses(self) -> Mapping[str, EvalStatus]:
        """The last finished eval set's status per evalId (read after each ``end_set``)."""
        return self.sink.reports[-1].statuses

    @property
    def set_reports(self) -> list[SetReport]:
        """What the console, JUnit, Markdown and GitHub reports print, per eval set."""
        return self.sink.reports

    def start_result_files(self) -> None:
        """With ``--jobs`` of 2 or more, start writing the result files in a forked process,
        while this one prints the console; :meth:`write` takes what it wrote.

        Copying a 10,000-case run's 64 MB result file and syncing it took ~45 ms, as long
        as printing its 200 failed cases (bench/adk_side_by_side.py); a thread would wait
        for the interpreter lock after each of its system calls.  The bytes are the same:
        the same call writes them.  If the process fails, :meth:`write` writes the files.
        """
        if self.jobs < 2 or not can_fork() or self.reports.output is None or self._early:
            return
        size = sum(item.document.size for item in self.sink.sets if item.document is not None)
        if size >= EARLY_BYTES:
            self._early = ShareWorker.start(
                partial(_outcomes, self._result_jobs(self.reports.output))
            )

    def write(
        self,
        run: ScoredRun,
        notes: RunNotes,
        *,
        stopped_writing: Callable[[], bool] = lambda: False,
    ) -> ReportsWritten:
        """Write every report of the scored ``run``; ``notes``: its warnings (as shown).

        ``stopped_writing`` tells whether a signal came while writing (the run is then
        INCOMPLETE although every report is whole).
        """
        before = unfinished_reasons(run, self.sink.reports, 0, stopped_writing())
        notes = dataclasses.replace(notes, unfinished=tuple(before))
        keys = self._document_keys(run, notes)
        outcome = write_reports(self._jobs(run, notes, keys))
        after = unfinished_reasons(run, self.sink.reports, len(outcome.failures), stopped_writing())
        return ReportsWritten(
            written=outcome.written,
            failures=outcome.failures,
            notes=dataclasses.replace(notes, unfinished=tuple(after)),
            exit_code=ExitCode.INCOMPLETE if after else run.exit_code,
            document_keys=keys,
        )

    def _jobs(self, run: ScoredRun, notes: RunNotes, keys: dict[str, Any]) -> list[ReportJob]:
        """The reports, in the order they are written; each is written even if another fails."""
        wanted = self.reports
        reports = self.sink.reports
        elapsed = run.elapsed
        jobs: list[ReportJob] = []
        if wanted.output is not None:
            jobs.extend(self._early_jobs(wanted.output))
        if wanted.json is not None:
            jobs.append(ReportJob(str(wanted.json), partial(self._write_json, wanted.json, keys)))
        for name, path in wanted.files():
            formatted = partial(write_with, name, path, reports, elapsed=elapsed, notes=notes)
            jobs.append(ReportJob(str(path), formatted))
        if wanted.html is not None and self.page is not None:
            extras = {"durationSeconds": elapsed, "warnings": notes.lines()}
            write = partial(_write_html, wanted.html, self.page, extras, wanted.pages)
            jobs.append(ReportJob(str(wanted.html), write))
        if wanted.ci:
            environ = self.environ if self.environ is not None else os.environ
            summary = environ.get(STEP_SUMMARY_ENV) or f"${STEP_SUMMARY_ENV}"
            ci_outputs = partial(
                github.write_ci_outputs,
                reports,
                environ,
                sources=run.sources,
                elapsed=elapsed,
                notes=notes,
                # GitHub reads workflow commands on stderr too; stdout is the report's.
                emit=partial(print, file=sys.stderr) if wanted.writes_stdout else print,
            )
            jobs.append(ReportJob(summary, ci_outputs, listed=False))
        return jobs

    def _result_jobs(self, output: Path) -> list[ReportJob]:
        return [_result_job(item, output) for item in self.sink.sets]

    def _early_jobs(self, output: Path) -> list[ReportJob]:
        """The result files' jobs: what the early process wrote, or to write here."""
        jobs = self._result_jobs(output)
        early, self._early = self._early, None
        if early is None:
            return jobs
        try:
            outcomes = early.result()
        finally:
            early.close()
        if not isinstance(outcomes, list) or len(outcomes) != len(jobs):
            return jobs  # the process failed: the files are written here
        return [
            dataclasses.replace(job, write=partial(_outcome, outcome))
            for job, outcome in zip(jobs, outcomes, strict=True)
        ]

    def _document_keys(self, run: ScoredRun, notes: RunNotes) -> dict[str, Any]:
        """The run document's own keys, made once: ``--json`` and the store hold the same bytes."""
        reports = self.sink.reports
        header = result_files.run_header(
            [report.statuses.values() for report in reports], duration_seconds=run.elapsed
        )
        if notes.unfinished:
            # The run's one verdict: an interrupted run is incomplete whatever its cases say.
            header["overallStatus"] = EvalStatus.INCOMPLETE.value
        trailer = {**result_files.run_trailer(run, notes.lines()), **run_document_verdicts(reports)}
        return {"header": header, "trailer": trailer}

    def _write_json(self, path: Path, keys: dict[str, Any]) -> Path:
        """The run document, copied together from the eval sets' spooled documents."""
        documents = [item.finished() for item in self.sink.sets]
        return write_run_document(path, documents, keys["header"], keys["trailer"])

    def close(self) -> None:
        """Drop the spools and the page's parts (the files written from them stay)."""
        if self._early is not None:
            # Interrupted while it wrote: let it finish (whole files only), then go.
            self._early.result()
            self._early.close()
            self._early = None
        self.sink.close()
        if self.page is not None:
            self.page.close()

    def __enter__(self) -> RunReporter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


# Result files smaller than this together are written here: forking costs ~5 ms.
EARLY_BYTES = 4 << 20


def _outcomes(jobs: Sequence[ReportJob]) -> list[object]:
    """Each job's :func:`attempt` (shipped to :func:`_outcome`)."""
    return [attempt(job) for job in jobs]


def _outcome(outcome: object) -> object:
    """A job written elsewhere: its path again, or its error raised here."""
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome


def _result_job(item: StreamedSet, output: Path) -> ReportJob:
    def write() -> Path:
        document = item.finished()
        if item.file_name is None:  # named whenever --output is given
            raise OSError("the result file was not named")
        return write_result_document(document, output / item.file_name)

    return ReportJob(f"{output} (result file of {item.eval_set_id})", write)


def unfinished_reasons(
    run: ScoredRun, reports: Sequence[SetReport], unwritten: int, stopped_writing: bool
) -> list[str]:
    """Why the run is INCOMPLETE beyond its case statuses (empty: the statuses say it all)."""
    reasons: list[str] = []
    if run.interrupted or stopped_writing:
        reasons.append("interrupted")
    if unwritten:
        reasons.append(f"{unwritten} report{'s' if unwritten != 1 else ''} not written")
    cases_say_so = overall_status(reports) is EvalStatus.INCOMPLETE
    if run.exit_code == ExitCode.INCOMPLETE and not reasons and not cases_say_so:
        # A judge call for no case (an agent's simulated user or tool mock) failed for good.
        n = len(run.judge_failures)
        reasons.append(f"{n} judge call{'s' if n != 1 else ''} failed" if n else "unfinished")
    return reasons


__all__ = [
    "ReportPage",
    "ReportsWritten",
    "RunReporter",
    "RunReports",
    "ScoredRun",
    "unfinished_reasons",
]
