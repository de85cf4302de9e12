"""The pre-commit hook (``.pre-commit-hooks.yaml``): ``agenteval validate`` on the files changed.

pre-commit passes the staged files that match the hook's pattern; each is checked as
``agenteval validate`` checks it, with the project file's settings (metrics directory,
plugins, ``strict``):

* an eval set (``*.evalset.json``): ``validate --evalset FILE`` (its metric file as a run
  finds it: ``metrics`` in the project file, else ``<evalSetId>.metrics.json`` beside it);
* a metric file (``*.metrics.json``): ``validate --evalset E --metrics FILE`` for every
  eval set that is scored with it (the project's eval sets, the eval set beside it);
  with none, the file on its own (every check that needs no case).

Exit 0 when everything is valid, 2 otherwise (the largest exit code of the checks).

Tested in tests/integrations/test_pre_commit.py.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from agenteval.errors import AgentEvalError, ConfigError, Problem
from agenteval.inputs.loading import EVALSET_SUFFIX, METRICS_SUFFIX, expand_evalset_paths
from agenteval.inputs.safe_text import escape_control


def _validate(args: list[str]) -> int:
    """``agenteval validate ARGS`` in this process; its exit code."""
    from agenteval.cli import app

    code = app(["validate", *args], standalone_mode=False, prog_name="agenteval")
    return int(code or 0)


def _users(metrics_file: Path, cwd: Path) -> list[Path]:
    """The eval sets scored with ``metrics_file``: the project's, and the one beside it."""
    from agenteval import api
    from agenteval.integrations.run_params import run_params

    params = run_params([], cwd)
    found: list[Path] = []
    if params:
        paths, _ = expand_evalset_paths(params["evalset"])
        target = metrics_file.resolve()
        found = [p for p in paths if api.metrics_path_for(p, params["metrics"]).resolve() == target]
    beside = metrics_file.with_name(metrics_file.name[: -len(METRICS_SUFFIX)] + EVALSET_SUFFIX)
    if beside.is_file() and beside.resolve() not in {p.resolve() for p in found}:
        found.append(beside)
    return found


def _print(problems: Sequence[Problem], label: str) -> None:
    for problem in problems:
        print(f"{label}: {escape_control(str(problem))}", file=sys.stderr)


def _alone(metrics_file: Path, cwd: Path) -> int:
    """Check a metric file no eval set uses, as a run would read it."""
    from agenteval import api
    from agenteval.integrations.run_params import run_params, scoring_options

    options = scoring_options(run_params([], cwd, need_evalset=False))
    problems, warnings = api.check_metrics_file(metrics_file, options)
    _print(problems, "error")
    _print(warnings, "warning")
    if problems:
        n = len(problems)
        print(f"{n} problem{'s' if n != 1 else ''} found.", file=sys.stderr)
        return 2
    print(f"OK: {metrics_file} valid (no eval set uses it).")
    return 0


def check_files(files: Sequence[str], cwd: Path | None = None) -> int:
    """Validate the changed ``files``; the exit code (0 valid, 2 problems)."""
    here = cwd or Path.cwd()
    evalsets = [f for f in files if f.endswith(EVALSET_SUFFIX)]
    metric_files = [Path(f) for f in files if f.endswith(METRICS_SUFFIX)]
    code = 0
    try:
        if evalsets:
            code = max(code, _validate([arg for f in evalsets for arg in ("--evalset", f)]))
        for metrics_file in metric_files:
            users = _users(metrics_file, here)
            if not users:
                code = max(code, _alone(metrics_file, here))
                continue
            args = [arg for p in users for arg in ("--evalset", str(p))]
            code = max(code, _validate([*args, "--metrics", str(metrics_file)]))
    except ConfigError as exc:  # the project file
        _print(exc.problems, "error")
        return exc.exit_code
    except AgentEvalError as exc:
        print(f"error: {escape_control(str(exc))}", file=sys.stderr)
        return exc.exit_code
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agenteval.integrations.pre_commit FILE...`` (what the hook runs)."""
    return check_files(list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
