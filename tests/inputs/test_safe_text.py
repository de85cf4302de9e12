"""agenteval.inputs.safe_text: control characters, separators and lone surrogates made visible."""

from __future__ import annotations

from agenteval.inputs.safe_text import escape_control, printable


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


def test_exact_never_prints_two_different_texts_alike() -> None:
    # "z" + BEL and the four characters "z\x07" printed the same "z\x07".
    assert escape_control("z\x07", exact=True) == "z\\x07"
    assert escape_control("z\\x07", exact=True) == "z\\\\x07"
    # A backslash before an escaped character is doubled too: "\\" then "\x07".
    assert escape_control("\\\x07", exact=True) == "\\\\\\x07"
    assert escape_control("a\\nb", exact=True) == "a\\\\nb"
    # Two backslashes then "b": the first doubled (a backslash follows), the second kept.
    assert escape_control("a\\\\b", exact=True) == "a\\\\\\b"
    # Backslashes that start no escape stay: paths and the like print as they are.
    assert escape_control("C:\\Users\\a\\b.json", exact=True) == "C:\\Users\\a\\b.json"
    assert escape_control("x\\", exact=True) == "x\\"
    # A backslash before a kept character stays (a raw newline is no escape).
    assert escape_control("a\\\nb", keep="\n", exact=True) == "a\\\nb"
    # Without exact, backslashes are left alone (JSON-quoted values stay readable).
    assert escape_control('"a\\u001b"') == '"a\\u001b"'


def test_invisible_characters_are_escaped() -> None:
    assert escape_control("z\u200bq") == "z\\u200bq"
    assert escape_control("\ufeffa\u2060b") == "\\ufeffa\\u2060b"
    # Joiners stay: emoji sequences and scripts need them.
    assert escape_control("👨\u200d👩") == "👨\u200d👩"


def test_printable_cuts_then_escapes_as_every_reporter_does() -> None:
    # Agent output (agents/) had its own escaper, by str.isprintable: a tab became a
    # space (hidden), a no-break space became \xa0 where every reporter shows the text.
    assert printable("a\nb\x1b[31m\u202e") == "a\\nb\\x1b[31m\\u202e"
    assert printable("x\ty\u200bz") == escape_control("x\ty\u200bz") == "x\\ty\\u200bz"
    assert printable("a\u00a0b") == escape_control("a\u00a0b") == "a\u00a0b"
    assert printable("x" * 5, limit=3) == "xxx…"
    assert printable("x" * 3, limit=3) == "xxx"
