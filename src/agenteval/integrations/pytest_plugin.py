"""The pytest plugin (entry point ``pytest11``): every eval case is a test item.

Eval sets come from ``--agenteval-evalset`` (repeatable, with ``--agenteval-metrics``, as
``run``'s ``--evalset`` / ``--metrics``) or from ``evalset`` in the project file
(``[tool.agenteval]``); every other setting (traces, plugins, judge, cache, ``strict``,
…) is resolved exactly as ``agenteval run`` resolves it: ``run``'s own command parses
the two flags with the project file as its ``default_map``, so the environment
variables and defaults are the same too.

One item per case, named after its evalId (``-k`` selects by case id); an item scores
its own case only, so under pytest-xdist every case is scored once, by the worker that
runs it, and the workers share the judge cache (SQLite in WAL mode, judge/cache.py).
A case that is not PASSED fails, its failure text the case's metric table and reasons
as ``run`` prints them (NOT EVALUATED and INCOMPLETE fail too: never falsely green).
Warnings found while reading the inputs are pytest warnings (never hidden).

Eval sets named with ``--agenteval-evalset`` are always collected; those named only in
the project file are collected when pytest's own collection reaches them (a bare
``pytest``, or ``pytest evalsets/``), so ``pytest tests/test_x.py`` runs just that file.

Tested in tests/integrations/test_pytest_plugin.py.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from agenteval.errors import AgentEvalError

if TYPE_CHECKING:
    from agenteval import api

_STATE = pytest.StashKey["_Evals | None"]()


class AgentEvalWarning(pytest.PytestWarning):
    """A warning agenteval found in an eval set or metric file."""


class CaseNotPassed(AgentEvalError):
    """A case whose status is not PASSED; the message is its rendered table and reasons."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Evals:
    """The session's eval sets and the options every case is scored with."""

    files: frozenset[Path]
    options: api.Options
    explicit: bool  # named with --agenteval-evalset (always collected)


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--agenteval-evalset`` and ``--agenteval-metrics``."""
    group = parser.getgroup("agenteval", "agenteval eval cases as tests")
    group.addoption(
        "--agenteval-evalset",
        action="append",
        default=[],
        metavar="PATH",
        help="Eval set file, directory of *.evalset.json, or glob: one test per case. "
        "Repeatable. Default: evalset in [tool.agenteval].",
    )
    group.addoption(
        "--agenteval-metrics",
        default=None,
        metavar="PATH",
        help="Metric file or directory (default: as agenteval run: the project file, "
        "else <evalSetId>.metrics.json beside each eval set).",
    )


def _problems_text(exc: Exception, label: str = "error: ") -> str:
    """One line per problem of ``exc``; ``label=""`` for a UsageError, which pytest prints
    after its own ``ERROR: `` (``ERROR: error: …`` said it twice)."""
    from agenteval.errors import ConfigError

    if isinstance(exc, ConfigError):
        return "\n".join(f"{label}{_safe(problem)}" for problem in exc.problems)
    return _safe(exc)


def _safe(problem: object) -> str:
    """A problem's text for pytest's terminal: its input text (a key, a path) escaped."""
    from agenteval.inputs.safe_text import escape_control

    return escape_control(str(problem))


def pytest_configure(config: pytest.Config) -> None:
    """Resolve the eval sets and options once; named eval sets join the collection."""
    from agenteval.errors import AgentEvalError
    from agenteval.inputs.loading import expand_evalset_paths
    from agenteval.integrations.run_params import run_params, scoring_options

    specs: list[str] = config.getoption("agenteval_evalset") or []
    metrics: str | None = config.getoption("agenteval_metrics")
    flags = [arg for spec in specs for arg in ("--evalset", spec)]
    flags += ["--metrics", metrics] if metrics is not None else []
    cwd = config.invocation_params.dir
    try:
        params = run_params(flags, cwd)
    except AgentEvalError as exc:
        raise pytest.UsageError(_problems_text(exc, label="")) from None
    _project_file_warnings(config, cwd)
    if not params:
        if metrics is not None:
            # Metrics for no eval set: the run the user asked for would be silently absent.
            hint = "give --agenteval-evalset PATH, or evalset in [tool.agenteval]"
            raise pytest.UsageError(f"--agenteval-metrics: names no eval set ({hint})")
        config.stash[_STATE] = None
        return
    paths, problems = expand_evalset_paths(params["evalset"])
    if problems:
        raise pytest.UsageError("\n".join(_safe(p) for p in problems))
    options = scoring_options(params)
    files = frozenset(path.resolve() for path in paths)
    config.stash[_STATE] = _Evals(files, options, explicit=bool(specs))
    if specs:
        # Collected whatever else pytest was asked to collect (it drops overlaps).
        config.args.extend(str(path) for path in sorted(files))


def _project_file_warnings(config: pytest.Config, cwd: Path) -> None:
    """The project file's warnings (a pyproject.toml table not read), as pytest warnings."""
    from agenteval.config.project import find_project_file

    project = find_project_file(cwd)
    for problem in project.warnings() if project is not None else []:
        config.issue_config_time_warning(AgentEvalWarning(_safe(problem)), stacklevel=2)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> EvalSetFile | None:
    """An eval set of the session becomes a collector of its cases."""
    evals = parent.config.stash.get(_STATE, None)
    if evals is None or file_path.resolve() not in evals.files:
        return None
    return EvalSetFile.from_parent(parent, path=file_path)


class EvalSetFile(pytest.File):
    """An eval set file: one :class:`EvalCaseItem` per case, in file order."""

    def collect(self) -> Iterator[EvalCaseItem]:
        """The cases of the eval set (its inputs checked as ``run`` checks them)."""
        from agenteval import api
        from agenteval.errors import AgentEvalError

        evals = self.config.stash[_STATE]
        assert evals is not None
        try:
            prepared = api.prepare([str(self.path)], evals.options)
        except AgentEvalError as exc:
            raise self.CollectError(_problems_text(exc)) from None
        for problem in prepared.warnings:
            self.warn(AgentEvalWarning(_safe(problem)))
        wanted = set(evals.options.cases)  # `case` in the project file
        for plan in prepared.plans:
            for eval_id in plan.case_ids:
                if not wanted or eval_id in wanted:
                    yield EvalCaseItem.from_parent(self, eval_id=eval_id)


class EvalCaseItem(pytest.Item):
    """One eval case: scored when run, failing unless PASSED."""

    def __init__(self, *, eval_id: str, **kwargs: Any) -> None:
        """``eval_id``: the case's evalId as written; the item's name (the test id pytest
        prints, ``-k`` matches) is it escaped, distinct ids staying distinct (``exact``)."""
        from agenteval.inputs.safe_text import escape_control

        super().__init__(name=escape_control(eval_id, exact=True), **kwargs)
        self.eval_id = eval_id

    def runtest(self) -> None:
        """Score this case alone (judge replies from the shared cache when it has them)."""
        from agenteval import api

        evals = self.config.stash[_STATE]
        assert evals is not None
        options = dataclasses.replace(evals.options, cases=[self.eval_id])
        result = api.evaluate([str(self.path)], options)
        if result.exit_code == api.EXIT_PASSED:
            return
        raise CaseNotPassed(_case_text(result))

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        """The case's table and reasons, not a Python traceback."""
        if isinstance(excinfo.value, CaseNotPassed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the case is: its eval set file and evalId."""
        return self.path, None, f"eval case {self.name}"


def _case_text(result: api.RunResult) -> str:
    """The case as ``run`` prints it (status, metric table, reasons), without colour."""
    from rich.console import Console

    from agenteval.inputs.safe_text import escape_control
    from agenteval.report.console_tables import case_table, reason_grid, reason_lines

    runs = [case for eval_set in result.results for case in eval_set.case_results()]
    buffer = io.StringIO()
    console = Console(file=buffer, width=120, no_color=True, highlight=False, soft_wrap=False)
    multi_run = len(runs) > 1
    status = "INCOMPLETE" if result.exit_code == 3 else result.status.value.upper()
    status = status.replace("_", " ")
    console.print(f"{escape_control(runs[0].eval_id) if runs else '(no case)'}  {status}")
    table = case_table(runs, multi_run=multi_run)
    if table is not None:
        console.print(table)
    lines = [line for run in runs for line in reason_lines(run, multi_run=multi_run, verbose=False)]
    if lines:
        console.print(reason_grid(lines))
    text = "\n".join(line.rstrip() for line in buffer.getvalue().rstrip().splitlines())
    failures = "".join(f"\njudge: {escape_control(f)}" for f in result.judge_failures)
    return text + failures
