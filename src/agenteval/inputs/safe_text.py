"""Text from inputs, traces, judges and agents made safe to print on a terminal or in a CI log.

An ``evalId`` holding a newline put ``::error file=…::FORGED`` at column 0, where GitHub
Actions runs it as a workflow command; clear-screen and window-title escapes in a judge
reason reached the terminal.  Every reporter passes such text through
:func:`escape_control` before printing it: C0 and C1 control characters, DEL, the
Unicode line and paragraph separators, the bidirectional formatting characters
(:data:`BIDI_CONTROLS`), invisible zero-width characters (:data:`INVISIBLE`) and lone
surrogates become visible escapes (``\\n``, ``\\x1b``, ``\\u202e``, ``\\ud800``); all other
text, non-ASCII included, is kept.  With ``exact=True`` (where ids are told apart: the
store's ``history`` and ``trend``) a backslash that would read as the start of such an
escape is doubled too (``\\\\x07``), so two different ids never print alike: the evalId
``z`` + BEL and the text ``z\\x07`` printed the same ``z\\x07`` in ``trend``.  Other
backslashes (``C:\\Users``, ``a\\b``) stay as they are.  Not the default: every reporter
prints JSON-quoted values (``"a\\u001b"``), whose backslashes would all double.
JSON and XML outputs escape by their own rules; JUnit and Markdown add
:data:`BIDI_CONTROLS` to theirs.  :func:`printable` also cuts the text (an agent's stderr
in an error message).  In inputs/, below every package
that prints: --agent adapters (agents/) escape what an agent sends as reporters do.
"""

from __future__ import annotations

import re

# Bidirectional formatting characters, as a regex class body.  The embeddings, overrides
# and isolates (U+202A-U+202E, U+2066-U+2069) reorder the rest of a line, so a reason can
# show "passed" where the bytes say otherwise ("Trojan Source", CVE-2021-42574); the marks
# U+200E, U+200F and U+061C are invisible and reorder what sits next to them.  A log
# reader must see them, so they are escaped like control characters.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# Characters that print as nothing: the zero-width space, the word joiner and invisible
# operators, the byte-order mark.  An id holding one looks like another that does not.
# (The zero-width (non-)joiners stay: scripts and emoji sequences need them.)
INVISIBLE = "\u200b\u2060-\u2064\ufeff"
_CLASS = f"[\x00-\x1f\x7f-\x9f\u2028\u2029{BIDI_CONTROLS}{INVISIBLE}\ud800-\udfff]"
_UNSAFE = re.compile(_CLASS)
# An unsafe character, or a backslash before what would read as an escape: \n \r \t \x \u,
# another backslash, or an unsafe character (which becomes an escape itself).
_TO_ESCAPE = re.compile(f"\\\\(?=[\\\\nrtxu]|{_CLASS})|{_CLASS}")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Reasons longer than this are cut (with "…") wherever a reporter caps them: the CI
# reports and the console (a judge's 200 KB reason is kept whole in the result file only).
DEFAULT_REASON_CAP = 300


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\\":
        return "\\\\"
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_control(text: str, keep: str = "", *, exact: bool = False) -> str:
    """``text`` with every control, line separator, bidi control, invisible character and
    lone surrogate escaped.

    Characters in ``keep`` stay (a format with its own escape for them, e.g. ``\n``).
    ``exact``: a backslash that would read as an escape is doubled (module docstring).
    """
    found = _TO_ESCAPE if exact else _UNSAFE
    if keep:
        return found.sub(lambda m: _kept(m, keep), text)
    return found.sub(_escape, text)


def _kept(match: re.Match[str], keep: str) -> str:
    """:func:`_escape`, but characters in ``keep`` stay, and so does a backslash before one
    (a raw newline after it cannot be read as an escape)."""
    char = match.group()
    if char in keep:
        return char
    if char == "\\" and match.string[match.end()] in keep:
        return char
    return _escape(match)


def cap(text: str, limit: int | None) -> str:
    """``text`` cut to ``limit`` characters, ending in "…" when cut (None = no limit)."""
    if limit is None or len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)] + "…"


def printable(text: str, limit: int = 2000) -> str:
    """``text`` cut to ``limit`` characters (``…`` marks the cut) and escaped: untrusted text
    (an agent's reply or stderr, a protocol id) in one line of an error message."""
    return escape_control(text[:limit]) + ("…" if len(text) > limit else "")


def wrote_line(path: object) -> str:
    r"""``wrote PATH``, the line a command prints for each file it wrote: the path escaped
    (a path is an input too: ``--json "$(printf 'x\e[2J.json')"``).  Print it without markup,
    or a ``[`` in the path is read as a style."""
    return f"wrote {escape_control(str(path))}"


__all__ = [
    "BIDI_CONTROLS",
    "DEFAULT_REASON_CAP",
    "INVISIBLE",
    "cap",
    "escape_control",
    "printable",
    "wrote_line",
]
