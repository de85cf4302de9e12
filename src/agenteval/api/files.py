"""The file readers of the Python face: ``agenteval.load_evalset``, ``load_metrics``,
``load_result`` and ``load_traces``.

``agenteval.load_evalset`` was ``inputs.loading.load_evalset``, the model reader alone: a
near-miss key (``EvalCases``), a result file given as an eval set or ``NaN`` loaded without
a word, where ``agenteval validate`` refuses them.  It now checks the file as ``validate``
does (``checks.documents.load_checked_evalset``).  ``load_metrics``, ``load_result`` and
``load_traces`` were the model readers of ``inputs.loading`` likewise, with no ``warnings=``:
a misspelt metric key or an evaluator no one registered loaded without a word, and invalid
UTF-8 inside a string refused the file where ``load_evalset`` and ``run`` read it as U+FFFD
with a warning.  Each now reads its file as the command that takes it does.

Tested in tests/api/test_files.py.
"""

from __future__ import annotations

import warnings as python_warnings
from collections.abc import Mapping
from pathlib import Path

from agenteval.checks.documents import load_checked_evalset
from agenteval.errors import ConfigError, Problem
from agenteval.inputs.unknown_keys import Strictness
from agenteval.schema.evalset import EvalSet, Invocation
from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import EvalSetResult


def load_evalset(
    path: str | Path,
    *,
    strict: bool = False,
    lenient: bool = False,
    warnings: list[Problem] | None = None,
) -> EvalSet:
    """One eval set file, checked as ``agenteval validate`` checks it.

    Raises ``ConfigError`` with every located problem (``file: json.path: problem``) and,
    in its ``warnings``, the warnings found beside them, as ``evaluate()`` does.  Keys the
    trpc-agent-go formats do not define are warnings (``strict``: errors); a key close to
    one they define is an error (``lenient``: a warning).  The warnings of a file that
    loads go to ``warnings`` (``Problem`` objects, as ``RunResult.warnings`` holds them);
    without that list each is emitted as a ``UserWarning``, never dropped.  Invalid UTF-8
    inside a string is read as U+FFFD, as Go's decoder reads it, with a warning.
    """
    evalset, found = load_checked_evalset(Path(path), _strictness(strict, lenient))
    _hand_over(found, warnings)
    return evalset


def load_metrics(
    path: str | Path,
    environ: Mapping[str, str] | None = None,
    *,
    strict: bool = False,
    lenient: bool = False,
    warnings: list[Problem] | None = None,
) -> list[EvalMetric]:
    """One metric file, checked as ``agenteval run`` and ``validate`` check it (``$VAR``
    in judge settings read from ``environ``, default the process environment).

    Problems and warnings as :func:`load_evalset`'s: a file of another kind, ``NaN``, a
    misspelt key, an evaluator no one registered (import a plugin first) raise
    ``ConfigError``; invalid UTF-8 inside a string is read as U+FFFD, as Go reads it,
    with a warning.
    """
    # The built-in evaluators registered, as a run has them (a caller may not have yet).
    import agenteval.evaluators.builtins  # noqa: F401
    from agenteval.api.evaluation import Options, plan_rules
    from agenteval.run.planning import checked_metrics_file

    _strictness(strict, lenient)  # the pair refused, as evaluate() refuses it
    rules = plan_rules(Options(strict=strict, lenient=lenient, environ=environ))
    metrics, problems, found = checked_metrics_file(Path(path), rules)
    if problems:
        raise ConfigError(problems, found)
    _hand_over(found, warnings)
    return metrics


def load_result(path: str | Path, *, warnings: list[Problem] | None = None) -> EvalSetResult:
    """One result file (ours or trpc-agent-go's), read as ``agenteval show`` reads it.

    ``ConfigError`` with every located problem (a file of another kind, a case result that
    does not validate); what reading found that is no error (a summary edited apart from
    its cases, invalid UTF-8 inside a string read as U+FFFD as Go reads it) goes to
    ``warnings`` as for :func:`load_evalset`.  A run document holds many results:
    ``agenteval.inputs.result_inputs.read_results`` reads them all.
    """
    from agenteval.inputs.result_inputs import read_results

    file = Path(path)
    if file.is_dir():
        raise ConfigError([Problem(str(file), "", "is a directory, expected a file")])
    found: list[Problem] = []
    results, _ = read_results([file], warnings=found)
    if len(results) != 1:
        problem = Problem(
            str(file),
            "",
            f"holds {len(results)} eval set results, expected one",
            "agenteval.inputs.result_inputs.read_results reads a run document's every result",
        )
        raise ConfigError([problem], found)
    _hand_over(found, warnings)
    return results[0]


def load_traces(
    path: str | Path,
    *,
    strict: bool = False,
    lenient: bool = False,
    warnings: list[Problem] | None = None,
) -> Mapping[str, list[Invocation]]:
    """A traces file of records (JSON lines, a JSON array, a result file) by trace key,
    checked as ``agenteval run --traces`` checks it: unknown record keys are warnings
    (``strict``: errors), near misses errors (``lenient``: warnings); problems and warnings
    as :func:`load_evalset`'s.  Invalid UTF-8 is refused, as ``--traces`` refuses it."""
    from agenteval.api.evaluation import read_checked_traces

    records, problems, found = read_checked_traces(Path(path), _strictness(strict, lenient))
    if problems:
        raise ConfigError(problems, found)
    _hand_over(found, warnings)
    return records


def _strictness(strict: bool, lenient: bool) -> Strictness:
    if strict and lenient:
        # As evaluate() refuses the pair (--strict with --lenient).
        raise ConfigError([Problem("lenient", "", "cannot be combined with strict")])
    return Strictness.of(strict=strict, lenient=lenient)


def _hand_over(found: list[Problem], warnings: list[Problem] | None) -> None:
    """The warnings of a file that loads: into ``warnings``, or each a ``UserWarning``
    (never dropped), raised at the loader's caller."""
    if warnings is not None:
        warnings.extend(found)
    else:
        for warning in found:
            python_warnings.warn(str(warning), UserWarning, stacklevel=3)


__all__ = ["load_evalset", "load_metrics", "load_result", "load_traces"]
