"""``agenteval run --watch``: stay running, re-score what each save changed, Ctrl-C to leave.

The files watched are the ones the run reads: the eval sets (a directory given as
``--evalset`` is watched for new ones), their metric files (``--metrics`` or beside each
eval set), the ``--traces`` file and every ``--plugin`` file, from the command line or
the project file.  `watchfiles <https://watchfiles.helpmanual.io>`_ (Rust ``notify``)
reports the saves; several writes within :data:`DEBOUNCE_MS` (an editor's temp file,
rename and touch) are one pass.

Each pass prints what changed since the previous one first (newly failing, newly
passing, score changes, new problems), then what it re-scored (watch/pairs.py), the
judge's calls and cache hits, and the results as ``run`` prints them.  A save that
leaves a file invalid prints the located problems and waits for the next save; the
last good results are kept.  Ctrl-C (or SIGTERM) ends the watch with exit 0 and leaves
no file behind.

Tested in tests/cli/test_watch.py.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from rich.console import Console
from rich.markup import escape as markup_escape
from rich.text import Text

from agenteval import api
from agenteval.errors import ConfigError, Problem
from agenteval.inputs.loading import EVALSET_SUFFIX, METRICS_SUFFIX, expand_evalset_paths
from agenteval.inputs.safe_text import escape_control
from agenteval.inputs.score_text import counted
from agenteval.report.console import ConsoleView, render_results
from agenteval.watch.changes import pass_changes
from agenteval.watch.pairs import PairKey, PairResult, PassOutcome, score_pass

# An editor's save is several writes within a few milliseconds; a person saves again after
# seconds.  The pass starts this long after the last write of a burst.
DEBOUNCE_MS = 300
STEP_MS = 50
# How long the watcher waits for a change before it says it is ready (and then idles).
READY_MS = 200


def refusals(flags: Mapping[str, object], options: api.Options) -> list[Problem]:
    """The ``run`` options ``--watch`` does not combine with (reports, store, agents, runs)."""
    problems = [
        Problem(flag, "", "cannot be combined with --watch", "a watch prints to the terminal")
        for flag, value in flags.items()
        if value not in (None, False, [], ())
    ]
    if options.num_runs != 1:
        problems.append(Problem("--num-runs", "", "--watch scores one run per case"))
    for flag, value in (("--agent", options.agent), ("--expected-agent", options.expected_agent)):
        if value is not None:
            problems.append(
                Problem(flag, "", "cannot be combined with --watch", "score recorded traces")
            )
    if options.resume:
        problems.append(Problem("--resume", "", "cannot be combined with --watch"))
    return problems


class Watcher:
    """The state kept between passes: the last good results and the files to watch."""

    def __init__(self, specs: list[str], options: api.Options, view: ConsoleView) -> None:
        """``view``: how each pass prints its results (``run``'s flags)."""
        self.specs = specs
        self.options = options
        self.view = view
        self.out = Console(highlight=False, soft_wrap=True)
        self.err = Console(stderr=True, highlight=False, soft_wrap=True)
        self.last: PassOutcome | None = None
        self.pairs: dict[PairKey, PairResult] = {}
        self.files: set[Path] = set()
        self.stamps: dict[Path, tuple[int, int] | None] = {}
        self.passes = 0

    def run_pass(self, reason: str) -> None:
        """Validate, score what changed, print; on bad input print the problems and keep state."""
        self.passes += 1
        self.out.rule(Text(f"pass {self.passes} · {escape_control(reason)}"), align="left")
        # Taken before the files are read: a save during the pass shows as a difference.
        self.stamps = _stamps(self.files | self._named_files(None))
        try:
            prepared = api.prepare(self.specs, self.options)
        except ConfigError as exc:
            self._problems(exc.problems, "error", "red")
            self._problems(exc.warnings, "warning", "yellow")
            n = len(exc.problems)
            kept = "keeping the last good results; " if self.last is not None else ""
            self.err.print(
                f"{n} problem{'s' if n != 1 else ''} found; {kept}waiting for the next save",
                highlight=False,
            )
            self.files |= self._named_files(None)
            return
        self.files = self._named_files(prepared)
        self.stamps = _stamps(self.files) | self.stamps
        outcome = score_pass(prepared, self.options, self.pairs)
        self._report(outcome)
        self.last, self.pairs = outcome, outcome.pairs

    def _report(self, outcome: PassOutcome) -> None:
        if self.last is None:
            self._problems(outcome.warnings, "warning", "yellow")
        else:
            lines = pass_changes(self.last, outcome).lines()
            for line in lines or ["no result changed"]:
                self.out.print(line, highlight=False, markup=False)
        self.out.print(_rescored_text(outcome), highlight=False, markup=False)
        total = (outcome.judge_usage or {}).get("total")
        if isinstance(total, dict):
            self.out.print(
                f"judge: {counted(total.get('calls', 0), 'call')}, "
                f"{total.get('cacheHits', 0)} from cache",
                highlight=False,
            )
        for failure in outcome.judge_failures[:1]:
            self.out.print(f"judge: not evaluated: {escape_control(failure)}", markup=False)
        render_results(self.out, outcome.results, view=self.view)

    def _problems(self, problems: Iterable[Problem], label: str, style: str) -> None:
        for problem in problems:
            text = markup_escape(escape_control(str(problem)))
            self.err.print(f"[{style}]{label}:[/{style}] {text}", highlight=False)

    def _named_files(self, prepared: api.Prepared | None) -> set[Path]:
        """Every file the run reads, as given (the watch filter compares resolved paths)."""
        paths, _ = expand_evalset_paths(self.specs)
        found = set(paths)
        if prepared is not None:
            for plan in prepared.plans:
                found.add(plan.path)
                if plan.metrics_path is not None:
                    found.add(plan.metrics_path)
        else:
            for path in paths:
                found.add(api.metrics_path_for(path, self.options.metrics))
        if self.options.traces is not None:
            found.add(Path(self.options.traces))
        for spec in self.options.plugins:
            if spec.endswith(".py") or "/" in spec:
                found.add(Path(spec))
        return {path.absolute() for path in found}

    def folders(self) -> tuple[set[Path], Callable[[object, str], bool]]:
        """The directories to watch and the filter of the paths that start a pass."""
        files = {path.resolve() for path in self.files}
        spec_dirs = {Path(s).resolve() for s in self.specs if Path(s).is_dir()}
        metric_dirs = set()
        if self.options.metrics is not None and Path(self.options.metrics).is_dir():
            metric_dirs.add(Path(self.options.metrics).resolve())
        folders = {path.parent for path in files} | spec_dirs | metric_dirs

        def wanted(_change: object, raw: str) -> bool:
            path = Path(raw).resolve()
            # The files as the last pass named them, not as when this watcher started: a
            # metric file first read by a pass (beside an eval set added to a watched
            # folder) was never wanted, its save never scored.
            if path in files or path in {known.resolve() for known in self.files}:
                return True
            if path.parent in spec_dirs and path.name.endswith(EVALSET_SUFFIX):
                return True
            return path.parent in metric_dirs and path.name.endswith(METRICS_SUFFIX)

        return {folder for folder in folders if folder.is_dir()}, wanted

    def loop(self) -> None:
        """Watch until interrupted, one pass per burst of saves."""
        import watchfiles

        while True:
            folders, wanted = self.folders()
            ready = False
            restart = False
            # yield_on_timeout: an empty set once the watcher runs, so "watching" is printed
            # only when a save can no longer be missed.
            for changes in watchfiles.watch(
                *sorted(folders),
                watch_filter=wanted,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                rust_timeout=READY_MS,
                yield_on_timeout=True,
                recursive=False,
            ):
                if changes:
                    self.run_pass(_changed_text(change[1] for change in changes))
                elif ready:
                    continue
                elif self.stamps != _stamps(self.files):
                    # Saved while the last pass ran, before this watcher started.
                    self.run_pass("saved while scoring")
                if self.folders()[0] != folders:
                    restart = True  # a new eval set or metric file elsewhere: watch it too
                    break
                self.out.print(
                    f"watching {len(self.files)} files · Ctrl-C to stop",
                    style="dim",
                    highlight=False,
                )
                ready = True
            if not restart:
                return


def _stamps(files: Iterable[Path]) -> dict[Path, tuple[int, int] | None]:
    """Each file's modification time and size (None: gone), to notice a save between watchers."""
    found: dict[Path, tuple[int, int] | None] = {}
    for path in files:
        try:
            stat = path.stat()
        except OSError:
            found[path] = None
            continue
        found[path] = (stat.st_mtime_ns, stat.st_size)
    return found


def _changed_text(paths: Iterable[str]) -> str:
    shown = sorted({os.path.relpath(path) for path in paths})
    more = f" and {len(shown) - 3} more" if len(shown) > 3 else ""
    return "saved: " + ", ".join(shown[:3]) + more


def _rescored_text(outcome: PassOutcome) -> str:
    """``re-scored 4 pairs (answer_similarity × 4); kept 35``."""
    if not outcome.rescored:
        return f"re-scored nothing; kept {outcome.kept} pairs"
    by_metric = Counter(metric for _, _, metric in outcome.rescored)
    parts = ", ".join(f"{escape_control(m)} × {n}" for m, n in sorted(by_metric.items()))
    n = len(outcome.rescored)
    return f"re-scored {n} pair{'s' if n != 1 else ''} ({parts}); kept {outcome.kept}"


def watch_run(
    specs: list[str], options: api.Options, view: ConsoleView, flags: Mapping[str, object]
) -> int:
    """``run --watch``: a first pass, then one per save, until Ctrl-C (exit 0)."""
    problems = refusals(flags, options)
    if problems:
        raise ConfigError(problems)
    watcher = Watcher(specs, options, view)
    try:
        watcher.run_pass("start")
        watcher.loop()
    except KeyboardInterrupt:
        # Ctrl-C is how a watch ends, not an interrupted run: the command line marks the
        # signal handled (entry.interrupt_handled) when this returns.
        watcher.out.print("stopped watching", highlight=False)
    return 0


__all__ = ["DEBOUNCE_MS", "Watcher", "refusals", "watch_run"]
