"""The flags of ``agenteval run``, parsed once into a frozen object, and what they ask of the API.

:class:`RunFlags` holds every flag as given; :meth:`RunFlags.options` builds the API's
:class:`~agenteval.api.Options` in one go, with the collaborators the command made (stop
signal, progress bar, result sink) passed in, and :meth:`RunFlags.reports` says which
reports the run writes (:class:`~agenteval.report.run_reports.RunReports`, the same
object ``api.evaluate(..., reports=)`` takes).

Tested in tests/cli/test_commands.py and tests/report/test_run_reports.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenteval import api, settings
from agenteval.errors import ConfigError, Problem
from agenteval.importers.otel import DEFAULT_MATCH, TracesMatch
from agenteval.report import console as console_report
from agenteval.report.run_reports import RunReports
from agenteval.run.runner import StopSignal
from agenteval.store.urls import store_setting

if TYPE_CHECKING:
    from agenteval.calibrate.report_page import RunCalibration
    from agenteval.store.recording import StoreRun


@dataclass(frozen=True, slots=True)
class RunFlags:
    """Every flag of ``agenteval run`` (the parameter names of :func:`agenteval.cli.run.run`)."""

    evalset: tuple[str, ...]
    metrics: str | None = None
    traces: str | None = None
    traces_match: TracesMatch = DEFAULT_MATCH
    app_name: str = "agenteval"
    output: Path | None = None
    junit: Path | None = None
    markdown: Path | None = None
    shard: str | None = None
    json_file: Path | None = None
    html: Path | None = None
    labels: Path | None = None
    num_runs: int = 1
    case: tuple[str, ...] = ()
    metric: tuple[str, ...] = ()
    skip_metric: tuple[str, ...] = ()
    plugin: tuple[str, ...] = ()
    case_aggregator: str | None = None
    max_shown: int = console_report.DEFAULT_MAX_SHOWN
    concurrency: int = settings.JUDGE_CONCURRENCY
    rate_limit: float | None = None
    judge_retries: int = settings.JUDGE_RETRIES
    judge_timeout: float = settings.JUDGE_TIMEOUT_SECONDS
    cache: str = settings.JUDGE_CACHE_PATH
    no_cache: bool = False
    offline: bool = False
    max_judge_calls: int | None = None
    max_judge_tokens: int | None = None
    max_judge_cost: float | None = None
    prices: Path | None = None
    judge_max_reply_bytes: int = settings.JUDGE_MAX_REPLY_BYTES
    resume: tuple[str, ...] = ()
    no_progress: bool = False
    strict: bool = False
    lenient: bool = False
    agent: str | None = None
    expected_agent: str | None = None
    agent_concurrency: int = 4
    agent_timeout: float = 120.0
    agent_max_event_bytes: int = settings.AGENT_MAX_EVENT_BYTES
    agent_max_turn_bytes: int = settings.AGENT_MAX_TURN_BYTES
    record: Path | None = None
    store: str | None = None
    baseline: str | None = None
    run_group: str | None = None
    quiet: bool = False
    verbose: bool = False

    @classmethod
    def parse(cls, params: Mapping[str, Any]) -> RunFlags:
        """The flags from the command's parameters (repeatable ones become tuples)."""
        names = {field.name for field in fields(cls)}
        given: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in params.items() if k in names
        }
        return cls(**given)

    def reports(self) -> RunReports:
        """Which reports the run writes."""
        return RunReports(
            output=self.output,
            json=self.json_file,
            junit=self.junit,
            markdown=self.markdown,
            html=self.html,
            pages=self._pages(),
        )

    def _pages(self) -> tuple[RunCalibration, ...]:
        """``--labels``: the Calibration page of the HTML report (its labels read now)."""
        if self.labels is None:
            return ()
        if self.html is None:
            raise ConfigError(
                [
                    Problem(
                        "--labels",
                        "",
                        "adds a Calibration page to the HTML report",
                        "give --html FILE",
                    )
                ]
            )
        from agenteval.calibrate.report_page import RunCalibration

        return (RunCalibration(self.labels, self._explain_source()),)

    def _explain_source(self) -> tuple[str, ...]:
        """What ``agenteval explain`` reads this run's results from: the result files or
        run document written, else the eval sets scored again (from the cache)."""
        if self.output is not None:
            return (str(self.output),)
        if self.json_file is not None and str(self.json_file) != "-":
            return (str(self.json_file),)
        words = [word for spec in self.evalset for word in ("--evalset", spec)]
        words += ["--metrics", self.metrics] if self.metrics is not None else []
        return (*words, *(() if self.no_cache else ("--cache", self.cache, "--offline")))

    def options(
        self,
        *,
        resume: Sequence[Path],
        stop: StopSignal,
        progress: api.ProgressSink | None,
        sink: api.ResultSink | None,
    ) -> api.Options:
        """The API's options: these flags, the resumed files (stored runs read out already)
        and the command's collaborators."""
        return api.Options(
            metrics=self.metrics,
            traces=self.traces,
            traces_match=self.traces_match.value,
            app_name=self.app_name,
            num_runs=self.num_runs,
            cases=self.case,
            only_metrics=self.metric,
            skip_metrics=self.skip_metric,
            plugins=self.plugin,
            case_aggregator=self.case_aggregator,
            concurrency=self.concurrency,
            rate_limit=self.rate_limit,
            judge_retries=self.judge_retries,
            judge_timeout=self.judge_timeout,
            cache=None if self.no_cache else self.cache,
            offline=self.offline,
            max_judge_calls=self.max_judge_calls,
            max_judge_tokens=self.max_judge_tokens,
            max_judge_cost=self.max_judge_cost,
            prices=str(self.prices) if self.prices is not None else None,
            judge_max_reply_bytes=self.judge_max_reply_bytes,
            shard=self.shard,
            resume=[str(path) for path in resume],
            strict=self.strict,
            lenient=self.lenient,
            agent=self.agent,
            expected_agent=self.expected_agent,
            agent_concurrency=self.agent_concurrency,
            agent_timeout=self.agent_timeout,
            agent_max_event_bytes=self.agent_max_event_bytes,
            agent_max_turn_bytes=self.agent_max_turn_bytes,
            record=str(self.record) if self.record is not None else None,
            stop=stop,
            progress=progress,
            sink=sink,
        )

    def store_run(self) -> StoreRun | None:
        """What the run does with a store (--store, $AGENTEVAL_STORE, --baseline, --run-group)."""
        setting = store_setting(self.store)
        if setting is None and self.baseline is None and self.run_group is None:
            return None  # no store in play: SQLAlchemy is not even imported
        from agenteval.store.recording import store_run

        return store_run(
            setting,
            baseline=self.baseline,
            run_group=self.run_group,
            evalset_specs=list(self.evalset),
            app_name=self.app_name,
            num_runs=self.num_runs,
            shard=self.shard,
            metrics=self.metrics,
            traces=self.traces,
            case_aggregator=self.case_aggregator,
        )


__all__ = ["RunFlags"]
