"""agenteval.report.safe_text: control characters, separators and lone surrogates made visible."""

from __future__ import annotations

from agenteval.report.safe_text import escape_control


def test_escapes() -> None:
    assert escape_control("a\nb\rc\td") == "a\\nb\\rc\\td"
    assert escape_control("\x1b[2J\x1b]0;t\x07") == "\\x1b[2J\\x1b]0;t\\x07"
    assert escape_control("x\x85y\u2028z") == "x\\x85y\\u2028z"
    assert escape_control("a\ud800b") == "a\\ud800b"
    assert escape_control("héllo 世界 ✓") == "héllo 世界 ✓"


def test_keep_leaves_chosen_characters() -> None:
    assert escape_control("a\n\x1bb", keep="\n") == "a\n\\x1bb"
