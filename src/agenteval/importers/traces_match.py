"""``--traces-match``: which span attribute names the session a case is matched to.

Apart from :mod:`agenteval.importers.otel` (which maps the spans) so that the command
line's shared options can name the choices without loading the eval-set models at every
start: importing ``otel`` cost 0.3 s of CPU, this module nothing.

Tested in tests/importers/test_otel.py.
"""

from __future__ import annotations

from enum import StrEnum

from agenteval import settings


class TracesMatch(StrEnum):
    """Which span attribute names the session a case is matched to (by its evalId)."""

    SESSION = "session"
    CONVERSATION = "conversation"
    EVAL_ID = "evalId"


# --traces-match when not given (settings.py is its one home).
DEFAULT_MATCH = TracesMatch(settings.TRACES_MATCH)

__all__ = ["DEFAULT_MATCH", "TracesMatch"]
