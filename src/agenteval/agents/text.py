"""Agent output is untrusted text: make it safe to show in one line of a terminal or CI log.

Tested in tests/agents/test_user_simulator.py.
"""

from __future__ import annotations


def printable(text: str, limit: int = 2000) -> str:
    """``text`` with control characters escaped (newlines as ``\\n``) and cut to ``limit``."""
    out: list[str] = []
    for char in text[:limit]:
        if char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append(" ")
        elif char.isprintable():
            out.append(char)
        else:
            out.append(char.encode("unicode_escape").decode("ascii"))
    if len(text) > limit:
        out.append("…")
    return "".join(out)
