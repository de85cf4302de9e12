"""``agenteval run``'s settings for tools that are not the command line (pytest, pre-commit).

``run``'s own command parses the flags given, with the project file as its
``default_map``, so environment variables, the project file and the defaults apply
exactly as they do for ``agenteval run``; :func:`scoring_options` keeps what shapes
scoring (reports and the store are the command's business).

Tested in tests/integrations/test_pytest_plugin.py and tests/integrations/test_pre_commit.py.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenteval import api

if TYPE_CHECKING:
    from agenteval.cli.run_settings import RunFlags


def run_command() -> Any:
    """``agenteval run`` as a click command."""
    import typer.main

    from agenteval.cli import app

    return typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]


def run_params(flags: list[str], cwd: Path, *, need_evalset: bool = True) -> dict[str, Any]:
    """``run``'s parameters for ``flags`` in ``cwd``'s project; {} when no eval set is named.

    ConfigError when the project file or ``flags`` are bad; ``need_evalset=False`` parses
    without an eval set.
    """
    from agenteval.cli.project_config import remember_defaults, strictness_by_source
    from agenteval.cli.usage import ClickError, usage_problem
    from agenteval.config.project import find_project_file
    from agenteval.config.run_settings import project_defaults
    from agenteval.errors import ConfigError

    if need_evalset and "--evalset" not in flags and find_project_file(cwd) is None:
        # Nothing to collect: pytest in a project without agenteval settings pays no import
        # of the CLI.  A file without `evalset` is still checked: `evalsets = [...]` (a typo)
        # collected nothing, and pytest went green without a word.
        return {}
    command = run_command()
    defaults = project_defaults(command, cwd)
    values = dict(defaults.values)
    named = "--evalset" in flags or "evalset" in values
    if not named:
        if need_evalset:
            return {}
        values["evalset"] = [""]  # --evalset is required; the caller names no eval set
    try:
        ctx = command.make_context("run", list(flags), default_map=values)
    except ClickError as exc:
        # A value the project file gives and the option refuses (judge-timeout = inf):
        # located in the file, not an INTERNALERROR (pytest) or a traceback (pre-commit).
        if getattr(exc, "ctx", None) is not None:
            remember_defaults(exc.ctx, defaults)  # type: ignore[attr-defined]
        raise ConfigError([usage_problem(exc)]) from None
    # One choice from two flags, as `run` makes it: `lenient = true` in the file and
    # $AGENTEVAL_STRICT was refused as a conflict here while `run` let the variable win.
    strictness_by_source(_flags(ctx.params), ctx)
    params = dict(ctx.params)
    if not named:
        params["evalset"] = []
    return params


def _flags(params: dict[str, Any]) -> RunFlags:
    from agenteval.cli.flags import parse_flags
    from agenteval.cli.run_settings import RunFlags

    return parse_flags(RunFlags, params)


def scoring_options(params: dict[str, Any]) -> api.Options:
    """The :class:`api.Options` of ``run``'s parameters, built as ``run`` builds them
    (``max-judge-cost`` and ``prices`` were left out of a list kept here, so a budget in
    the project file bound ``run`` and not pytest).  What is one invocation's business —
    resumed and recorded files, shards, worker processes — stays out."""
    from agenteval.run.runner import StopSignal

    options = _flags(params).options(resume=[], stop=StopSignal(), progress=None, sink=None)
    return dataclasses.replace(options, shard=None, record=None, jobs=1, stop=None)


__all__ = ["run_command", "run_params", "scoring_options"]
