"""The outcome of one criterion check.

Tested in tests/criteria/test_json_compare.py.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a criterion matched, and why not when it did not."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


MATCH = Verdict(True)


def mismatch(reason: str) -> Verdict:
    """A failed check with its reason."""
    return Verdict(False, reason)
