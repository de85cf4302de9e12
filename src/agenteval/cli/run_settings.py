"""The flags of ``agenteval run``, parsed once into a frozen object, and what they ask of the API.

:class:`RunFlags` holds every flag as given (and declares it: ``flags.py`` makes the
command of it); :meth:`RunFlags.options` builds the API's
:class:`~agenteval.api.Options` in one go, with the collaborators the command made (stop
signal, progress bar, result sink) passed in, and :meth:`RunFlags.reports` says which
reports the run writes (:class:`~agenteval.report.run_reports.RunReports`, the same
object ``api.evaluate(..., reports=)`` takes).

Tested in tests/cli/test_commands.py and tests/report/test_run_reports.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agenteval import api, settings
from agenteval.cli.options import (
    CaseInputFlags,
    CaseOpt,
    EvalSetFlags,
    MetricOpt,
    PluginOpt,
    QuietOpt,
    SkipOpt,
    StoreOpt,
    VerboseOpt,
)
from agenteval.cli.run_options import (
    AgentConcurrencyOpt,
    AgentMaxEventBytesOpt,
    AgentMaxTurnBytesOpt,
    AgentTimeoutOpt,
    AggregatorOpt,
    AppNameOpt,
    BaselineOpt,
    CacheOpt,
    ConcurrencyOpt,
    HtmlOpt,
    JobsOpt,
    JsonFileOpt,
    JudgeMaxReplyBytesOpt,
    JudgeRetriesOpt,
    JudgeTimeoutOpt,
    JunitOpt,
    LabelsOpt,
    MarkdownOpt,
    MaxJudgeCallsOpt,
    MaxJudgeCostOpt,
    MaxJudgeTokensOpt,
    MaxShownOpt,
    NoCacheOpt,
    NoProgressOpt,
    NumRunsOpt,
    OfflineOpt,
    OutputOpt,
    PricesOpt,
    RateLimitOpt,
    RecordOpt,
    ReportOpt,
    ResumeOpt,
    RunGroupOpt,
    ShardOpt,
    ShowConfigOpt,
    WatchOpt,
)
from agenteval.errors import ConfigError, Problem
from agenteval.report import console as console_report
from agenteval.report.run_reports import RunReports
from agenteval.run.runner import StopSignal
from agenteval.store.urls import store_setting

if TYPE_CHECKING:
    from agenteval.calibrate.report_page import RunCalibration
    from agenteval.cli.validate import ValidateSettings
    from agenteval.store.recording import StoreRun


def input_options(flags: RunFlags | ValidateSettings) -> api.Options:
    """The API's options for the flags that say what is read and checked."""
    return api.Options(
        metrics=flags.metrics,
        traces=flags.traces,
        traces_match=flags.traces_match.value,
        skip_metrics=flags.skip_metric,
        plugins=flags.plugin,
        strict=flags.inputs.strict,
        lenient=flags.inputs.lenient,
        agent=flags.inputs.agent,
        expected_agent=flags.inputs.expected_agent,
    )


@dataclass(frozen=True, slots=True)
class RunFlags(EvalSetFlags):
    """Every flag of ``agenteval run``, in the order ``--help`` lists them (``flags.py``)."""

    app_name: AppNameOpt = "agenteval"
    output: OutputOpt = None
    junit: JunitOpt = None
    markdown: MarkdownOpt = None
    report: ReportOpt = ()
    shard: ShardOpt = None
    json_file: JsonFileOpt = None
    html: HtmlOpt = None
    labels: LabelsOpt = None
    num_runs: NumRunsOpt = 1
    case: CaseOpt = ()
    metric: MetricOpt = ()
    skip_metric: SkipOpt = ()
    plugin: PluginOpt = ()
    case_aggregator: AggregatorOpt = None
    max_shown: MaxShownOpt = console_report.DEFAULT_MAX_SHOWN
    concurrency: ConcurrencyOpt = settings.JUDGE_CONCURRENCY
    jobs: JobsOpt = 1
    rate_limit: RateLimitOpt = None
    judge_retries: JudgeRetriesOpt = settings.JUDGE_RETRIES
    judge_timeout: JudgeTimeoutOpt = settings.JUDGE_TIMEOUT_SECONDS
    cache: CacheOpt = settings.JUDGE_CACHE_PATH
    no_cache: NoCacheOpt = False
    offline: OfflineOpt = False
    max_judge_calls: MaxJudgeCallsOpt = None
    max_judge_tokens: MaxJudgeTokensOpt = None
    max_judge_cost: MaxJudgeCostOpt = None
    prices: PricesOpt = None
    judge_max_reply_bytes: JudgeMaxReplyBytesOpt = settings.JUDGE_MAX_REPLY_BYTES
    resume: ResumeOpt = ()
    no_progress: NoProgressOpt = False
    inputs: CaseInputFlags = field(default_factory=CaseInputFlags)
    agent_concurrency: AgentConcurrencyOpt = 4
    agent_timeout: AgentTimeoutOpt = 120.0
    agent_max_event_bytes: AgentMaxEventBytesOpt = settings.AGENT_MAX_EVENT_BYTES
    agent_max_turn_bytes: AgentMaxTurnBytesOpt = settings.AGENT_MAX_TURN_BYTES
    record: RecordOpt = None
    store: StoreOpt = None
    baseline: BaselineOpt = None
    run_group: RunGroupOpt = None
    quiet: QuietOpt = False
    verbose: VerboseOpt = False
    watch: WatchOpt = False
    show_config: ShowConfigOpt = False

    def reports(self) -> RunReports:
        """Which reports the run writes."""
        if self.html is not None:
            # The page shows explain's steps under each failing metric; loading explain
            # plugs them in (report sits below explain).  Only for a page: run starts
            # without it (cli/program.py).
            import agenteval.explain  # noqa: F401
        return RunReports(
            output=self.output,
            json=self.json_file,
            junit=self.junit,
            markdown=self.markdown,
            html=self.html,
            pages=self._pages(),
            formats=tuple(_named_file(value) for value in self.report),
        )

    def view(self) -> console_report.ConsoleView:
        """How the console prints the cases (``--quiet``, ``--verbose``, ``--max-shown``)."""
        return console_report.ConsoleView.of_flags(
            quiet=self.quiet, verbose=self.verbose, max_shown=self.max_shown
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

        return (RunCalibration(self.labels, self._explain_source(), metrics=self.metrics),)

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
        return dataclasses.replace(
            input_options(self),
            app_name=self.app_name,
            num_runs=self.num_runs,
            cases=self.case,
            only_metrics=self.metric,
            case_aggregator=self.case_aggregator,
            concurrency=self.concurrency,
            jobs=self.jobs,
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


def _named_file(value: str) -> tuple[str, Path]:
    """``--report NAME=FILE`` as (NAME, FILE); ConfigError when it is not of that form."""
    name, equals, file = value.partition("=")
    if not (equals and name.strip() and file):
        problem = Problem("--report", value, "expected NAME=FILE", "e.g. --report junit=out.xml")
        raise ConfigError([problem])
    return name.strip(), Path(file)


__all__ = ["RunFlags", "input_options"]
