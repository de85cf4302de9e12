"""Plugins: modules that register evaluators, compare functions, tokenizers and aggregators.

Judge operators too: response scorers, structured outputs and samples /
invocations aggregators that ``llm_judge_template`` metrics name; judge
providers (``register_judge_provider``), which a metric's
``judgeModel.providerName`` names like a built-in one; and report formats
(``register_reporter``), which ``run --report NAME=FILE`` names like ``junit``.

A plugin is a Python module (an importable name or a ``.py`` file) that uses the
decorators below when imported.  Installed packages announce theirs in the
entry-point group ``agenteval.plugins``; ``--plugin MODULE`` loads one by hand.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterable
from importlib.metadata import entry_points
from pathlib import Path

from agenteval.criteria.named import json_compares, text_compares, tokenizers, turn_compares
from agenteval.errors import ConfigError, Problem
from agenteval.evaluators.llm.operators.registration import (
    register_invocations_aggregator,
    register_response_scorer,
    register_samples_aggregator,
    register_structured_output,
)
from agenteval.evaluators.registry import (
    evaluators,
    register_case_aggregator,
    register_evaluator,
)
from agenteval.judge.provider import judge_providers, register_judge_provider
from agenteval.registry import Registration, recording, undo
from agenteval.report.reporters import reporters

ENTRY_POINT_GROUP = "agenteval.plugins"

register_text_compare = text_compares.register
register_json_compare = json_compares.register
register_turn_compare = turn_compares.register
register_tokenizer = tokenizers.register
register_reporter = reporters.register

__all__ = [
    "ENTRY_POINT_GROUP",
    "evaluators",
    "judge_providers",
    "load_builtins",
    "load_entry_points",
    "load_plugins",
    "register_case_aggregator",
    "register_evaluator",
    "register_invocations_aggregator",
    "register_json_compare",
    "register_judge_provider",
    "register_reporter",
    "register_response_scorer",
    "register_samples_aggregator",
    "register_structured_output",
    "register_text_compare",
    "register_tokenizer",
    "register_turn_compare",
]

_loaded_entry_points = False


def load_builtins() -> None:
    """Import the built-in evaluator modules so they register themselves."""
    from agenteval.evaluators import builtins  # noqa: F401


def load_entry_points(causes: list[BaseException] | None = None) -> list[Problem]:
    """Load every installed plugin once; a broken one is a problem, not a crash (its
    exception is added to ``causes``: --verbose shows its traceback)."""
    global _loaded_entry_points
    if _loaded_entry_points:
        return []
    _loaded_entry_points = True
    problems: list[Problem] = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = point.load()
            if callable(loaded):
                loaded()
        except Exception as exc:  # third-party code may raise anything on import
            problems.append(Problem(f"plugin {point.name}", "", f"failed to load: {exc}"))
            if causes is not None:
                causes.append(exc)
        except SystemExit as exc:  # a plugin must not end the run, let alone with success
            problems.append(Problem(f"plugin {point.name}", "", _exit_message(exc)))
    return problems


def _exit_message(exc: SystemExit) -> str:
    return f"failed to load: it called sys.exit({exc.code!r}) while being imported"


# Each plugin file as it was last executed, by its resolved path: a file runs again only when
# it changed (run checks its --report names before planning loads the plugins; --watch
# loads them on every pass and must pick up an edited one).
_executed: dict[Path, bytes] = {}
# What each plugin file's own code registered when it last ran, taken back before it runs
# again: an evaluator renamed or deleted in the file stayed registered under its old name,
# and --watch scored a metric that names it where run refuses it.
_registered: dict[Path, list[Registration]] = {}


def _import_path(path: Path) -> None:
    source = path.read_bytes()
    resolved = path.resolve()
    if _executed.get(resolved) == source:
        return
    name = f"agenteval_plugin_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    undo(_registered.pop(resolved, []))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # Only what the file defines: a helper module it imports is imported once (sys.modules),
    # so its registrations would not come back when the file runs again.
    with recording() as made:
        try:
            # The bytes just compared are the code executed: the loader's own exec_module
            # would take a cached .pyc, which it trusts by the source's mtime (whole seconds)
            # and size, so an edit within the same second that keeps the size ran the old
            # code (seen with --watch).
            exec(compile(source, str(path), "exec"), module.__dict__)
        finally:
            _registered[resolved] = [r for r in made if _module_of(r[2]) == name]
    _executed[resolved] = source


def _module_of(item: object) -> str:
    """The module that defined a registered item (a function's, through its wrapper)."""
    return str(getattr(getattr(item, "__wrapped__", item), "__module__", ""))


def load_plugins(modules: Iterable[str]) -> None:
    """Load built-ins, installed plugins and ``--plugin`` modules; raise ConfigError on failure."""
    load_builtins()
    causes: list[BaseException] = []
    problems = load_entry_points(causes)
    for spec in modules:
        try:
            if spec.endswith(".py") or "/" in spec:
                path = Path(spec)
                if not path.is_file():
                    problems.append(Problem(spec, "", "plugin file not found"))
                    continue
                _import_path(path)
            else:
                importlib.import_module(spec)
        except ModuleNotFoundError as exc:
            problems.append(Problem(f"--plugin {spec}", "", f"module not found ({exc.name})"))
            causes.append(exc)
        except Exception as exc:  # the plugin's own import-time code may raise anything
            problems.append(
                Problem(f"--plugin {spec}", "", f"failed to load: {type(exc).__name__}: {exc}")
            )
            causes.append(exc)
        except SystemExit as exc:  # sys.exit(0) in a plugin used to end the run with exit 0
            problems.append(Problem(f"--plugin {spec}", "", _exit_message(exc)))
    if problems:
        raise ConfigError(problems, causes=causes)
