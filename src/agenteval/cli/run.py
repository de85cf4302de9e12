"""``agenteval run``: score eval sets, print the outcome, write the reports, exit with the verdict.

The flags are declared by, and become, a frozen :class:`~agenteval.cli.run_settings.RunFlags`;
:func:`run_flags` then does the run: the signal policy (``run_signals.py``), the run store, the progress bar,
:func:`agenteval.api.evaluate` into the reports' sink
(:class:`~agenteval.report.run_reports.RunReporter`, which decides what is written), and
the console (``run_console.py``).

Tested in tests/cli/test_commands.py (and the other end-to-end tests in tests/cli/).
"""

from __future__ import annotations

import contextlib
import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from agenteval import api, entry
from agenteval.cli.flags import context_settings_command
from agenteval.cli.guard import print_problems, print_warnings, stderr, stdout, stdout_taken
from agenteval.cli.run_console import report_run
from agenteval.cli.run_settings import RunFlags
from agenteval.cli.saved_results import given_once, stored_inputs
from agenteval.errors import ConfigError, Problem
from agenteval.exit_codes import ExitCode
from agenteval.plugins import load_plugins
from agenteval.report.progress import RunProgress
from agenteval.report.run_reports import RunReporter, RunReports
from agenteval.report.set_tally import ReportSink
from agenteval.run.run_signals import RunSignals, run_signal_policy
from agenteval.run.runner import StopSignal

if TYPE_CHECKING:
    from agenteval.store.recording import StoreRun


def run_command(flags: RunFlags, ctx: typer.Context) -> int:
    """``agenteval run``: print the settings (``--show-config``), watch, or run once."""
    from agenteval.cli.project_config import located_in_sources, strictness_by_source

    flags = strictness_by_source(flags, ctx)
    if flags.show_config:
        from agenteval.cli.project_config import show_config

        return show_config(ctx)
    if flags.no_cache and flags.offline:
        print_problems([Problem("--offline", "", "needs the cache; drop --no-cache")])
        raise typer.Exit(ExitCode.BAD_INPUT)
    with located_in_sources(ctx):
        return _watch(flags) if flags.watch else run_flags(flags)


def _watch(flags: RunFlags) -> int:
    """``run --watch``: re-score what each save changed (watch/command.py)."""
    from agenteval.watch.command import watch_run

    options = flags.options(
        resume=[Path(p) for p in flags.resume], stop=StopSignal(), progress=None, sink=None
    )
    reports = {"--output": flags.output, "--json": flags.json_file, "--junit": flags.junit, "--markdown": flags.markdown, "--report": flags.report or None, "--html": flags.html, "--labels": flags.labels, "--record": flags.record, "--store": flags.store, "--baseline": flags.baseline, "--run-group": flags.run_group}  # fmt: skip
    code = watch_run(list(flags.evalset), options, flags.view(), reports)
    entry.interrupt_handled()  # Ctrl-C is how a watch ends: exit 0, not "interrupted"
    return code


def run_flags(flags: RunFlags) -> int:
    """Run what the flags say: score, print, write the reports; the exit code."""
    # `--json -`: the report alone on stdout; what is printed goes to stderr.
    with stdout_taken(flags.reports().writes_stdout):
        return _run_flags(flags)


def _run_flags(flags: RunFlags) -> int:
    out = stdout()
    progress = RunProgress(out, enabled=not (flags.quiet or flags.no_progress))
    stop = StopSignal()
    policy = RunSignals(stop, signal_notice)
    stored = flags.store_run()
    given_once(flags.resume, "--resume")
    resumed = [Path(path) for path in flags.resume]
    # The handlers stay until the last report is written (run_signals.py says why).
    with (
        api.relaxed_gc(caller_froze=False),  # what entry.py froze is agenteval's own
        run_signal_policy(policy),
        stored_inputs(resumed, flags.store, None, (("--resume", len(resumed)),)) as resume_files,
    ):
        load_plugins(flags.plugin)  # a plugin's reporter is named by --report
        problems = flags.reports().problems()
        if problems:
            raise ConfigError(problems)
        if stored is not None:
            stored.start()  # store, baseline and the run's row: exit 2 before scoring
            print_warnings(stored.warnings, verbose=flags.verbose)
        try:
            code = _score_and_report(flags, stored, policy, progress, resume_files)
        finally:
            if stored is not None:
                stored.close()
    if policy.during_writing:
        # A signal after the verdict line: the reports are whole, the run still stopped.
        if not entry.interrupt_reported():
            stderr().print("interrupted after the reports were written", highlight=False)
            entry.note_interrupted()
        return max(code, ExitCode.INCOMPLETE)
    return code


def _score_and_report(
    flags: RunFlags,
    stored: StoreRun | None,
    policy: RunSignals,
    progress: RunProgress,
    resume_files: list[Path],
) -> int:
    """Score into the reports' sink (and the store's), then print and write; the exit code."""
    recording = stored is not None and stored.records
    tallies = ReportSink(view=flags.view())
    with RunReporter(
        flags.reports(),
        app_name=flags.app_name,
        tallies=tallies,
        named=recording,
        documents=stored is not None,  # --baseline compares the spooled documents
        jobs=flags.jobs,
    ) as reporter:
        sink: api.ResultSink = reporter.sink
        if stored is not None:
            sink = stored.sink(reporter.sink, reporter.statuses)
        options = flags.options(resume=resume_files, stop=policy.stop, progress=progress, sink=sink)
        try:
            with progress:
                result = api.evaluate(flags.evalset, options)
        except BaseException:
            if stored is not None:
                stored.abandon()
            raise
        policy.writing()
        stopped = lambda: policy.during_writing  # noqa: E731 - read after each report
        conclude = (
            None
            if stored is None
            else partial(
                stored.conclude,
                result,
                reporter.sink,
                out=stdout(),
                err=stderr(),
                quiet=flags.quiet,
            )
        )
        written = report_run(
            result,
            reporter,
            quiet=flags.quiet,
            verbose=flags.verbose,
            stopped_writing=stopped,
            conclude=conclude,
        )
        return max(written.exit_code, _calibration_gaps(reporter.reports))


def _calibration_gaps(reports: RunReports) -> int:
    """``--labels``: what the Calibration page lacks, said on stderr (3 when incomplete)."""
    if not reports.pages:
        return 0  # no --labels: calibrate is not imported
    from agenteval.calibrate.command import report_gaps
    from agenteval.calibrate.report_page import RunCalibration

    codes = [
        report_gaps(made.data, [], stderr(), ("on the report's Calibration page",) * 2)
        for made in reports.pages
        if isinstance(made, RunCalibration) and made.data is not None
    ]
    return max(codes, default=0)


def signal_notice(text: str) -> None:
    """Tell the user a signal was heard, from inside the signal handler.

    A plain write to fd 2, not rich: the handler can interrupt rich in the middle of a lazy
    import, and printing through rich there re-enters the half-imported module (seen as
    "cannot import name 'EMOJI'" in the signal trials).
    """
    with contextlib.suppress(OSError):
        os.write(2, (text + "\n").encode())


run = context_settings_command(
    RunFlags,
    run_command,
    doc="Score eval sets and print per-turn and overall results. Exit 0 all passed, 1 failures, 2 bad input, 3 incomplete.",
)

__all__ = ["run", "run_command", "run_flags", "signal_notice"]
