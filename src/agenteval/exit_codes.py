"""The process exit codes of every ``agenteval`` command (ARCHITECTURE.md's CLI contract)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a finished command tells its caller."""

    # Every case passed (or nothing failed: show, validate, merge without failures).
    PASSED = 0
    # At least one case failed.
    FAILED = 1
    # Bad input: files, options or judge configuration (one located line per problem).
    BAD_INPUT = 2
    # The run could not finish: judge turns not evaluated, a signal, a budget.
    INCOMPLETE = 3
    # A bug in agenteval: an exception nobody raised on purpose.
    INTERNAL_ERROR = 4
