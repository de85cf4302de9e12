"""The Python face: ``evaluate()``, ``prepare()`` and ``stream_prepared()``.

What a caller (and the command line) uses to load, check, plan and run eval sets:
:mod:`.evaluation` (the options, the run and its result sinks), :mod:`.agent_setup`
(``--agent`` wired into a run), :mod:`.option_numbers` (finite number options).

May import every package below the faces (``run/``, ``importers/``, ``report/``'s
helpers excluded: the API returns results, the command line writes reports);
nothing below imports it.
"""

from agenteval.api.evaluation import (
    CACHE_ENV,
    DEFAULT_CACHE,
    EXIT_CONFIG,
    EXIT_FAILED,
    EXIT_INCOMPLETE,
    EXIT_INTERNAL,
    EXIT_PASSED,
    CollectedResults,
    JudgeOutcome,
    Options,
    Prepared,
    ProgressSink,
    ResultSink,
    RunResult,
    check_metrics_file,
    default_cache_path,
    evaluate,
    judge_options,
    prepare,
    relaxed_gc,
    stream_prepared,
)
from agenteval.run.planning import metrics_path_for

__all__ = [
    "CACHE_ENV",
    "DEFAULT_CACHE",
    "EXIT_CONFIG",
    "EXIT_FAILED",
    "EXIT_INCOMPLETE",
    "EXIT_INTERNAL",
    "EXIT_PASSED",
    "CollectedResults",
    "JudgeOutcome",
    "Options",
    "Prepared",
    "ProgressSink",
    "ResultSink",
    "RunResult",
    "check_metrics_file",
    "default_cache_path",
    "evaluate",
    "judge_options",
    "metrics_path_for",
    "prepare",
    "relaxed_gc",
    "stream_prepared",
]
