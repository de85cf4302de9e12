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


def test_bidi_controls_are_escaped() -> None:
    text = "".join(chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
    assert escape_control("ok" + text + "\u200e\u200f\u061c") == (
        "ok\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c"
    )
    assert escape_control("עברית العربية") == "עברית العربية"  # right-to-left text itself stays
