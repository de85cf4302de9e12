"""The file readers of the Python face: ``agenteval.load_evalset``.

``agenteval.load_evalset`` was ``inputs.loading.load_evalset``, the model reader alone: a
near-miss key (``EvalCases``), a result file given as an eval set or ``NaN`` loaded without
a word, where ``agenteval validate`` refuses them.  It now checks the file as ``validate``
does (``checks.documents.load_checked_evalset``).

Tested in tests/api/test_files.py.
"""

from __future__ import annotations

import warnings as python_warnings
from pathlib import Path

from agenteval.checks.documents import load_checked_evalset
from agenteval.errors import ConfigError, Problem
from agenteval.inputs.unknown_keys import Strictness
from agenteval.schema.evalset import EvalSet


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
    without that list each is emitted as a ``UserWarning``, never dropped.
    """
    if strict and lenient:
        # As evaluate() refuses the pair (--strict with --lenient).
        raise ConfigError([Problem("lenient", "", "cannot be combined with strict")])
    strictness = Strictness.of(strict=strict, lenient=lenient)
    evalset, found = load_checked_evalset(Path(path), strictness)
    if warnings is not None:
        warnings.extend(found)
    else:
        for warning in found:
            python_warnings.warn(str(warning), UserWarning, stacklevel=2)
    return evalset


__all__ = ["load_evalset"]
