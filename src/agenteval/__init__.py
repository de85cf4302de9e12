"""agenteval: score recorded AI-agent traces with deterministic comparers and LLM judges.

Tested in tests/api/test_evaluation.py.
"""

__version__ = "0.1.0"

# No import at all here: the console script's start-up guard (entry.py) comes after this
# module, and every import before it is a moment a Ctrl-C would print a traceback.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agenteval.api import Options, RunResult, evaluate
    from agenteval.api.files import load_evalset, load_metrics, load_result, load_traces
    from agenteval.report.run_reports import RunReports

_LAZY = {
    "Options": "agenteval.api",
    "RunResult": "agenteval.api",
    "RunReports": "agenteval.report.run_reports",
    "evaluate": "agenteval.api",
    "load_evalset": "agenteval.api.files",
    "load_metrics": "agenteval.api.files",
    "load_result": "agenteval.api.files",
    "load_traces": "agenteval.api.files",
}


def __getattr__(name: str) -> "Any":
    # Lazy so that importing one submodule (say agenteval.schema) does not load the whole tool.
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agenteval' has no attribute {name!r}")
    import importlib

    if name in ("evaluate", "RunReports"):
        # The reports a run writes from here are the command line's, byte for byte: its
        # HTML page shows explain's steps, which loading agenteval.explain plugs in.
        importlib.import_module("agenteval.explain")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "Options",
    "RunReports",
    "RunResult",
    "__version__",
    "evaluate",
    "load_evalset",
    "load_metrics",
    "load_result",
    "load_traces",
]
