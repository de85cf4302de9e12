"""Double-brace placeholders of a template prompt (llm-evaluators.md §5.8.2).

Scanning goes left to right.  ``{{`` opens a candidate that ends at the next
``}}``; without a closing ``}}`` the ``{{`` is plain text and scanning moves on
by one character.  The candidate's inner text, trimmed of whitespace, is a
placeholder when it is a valid name, optionally followed by ``?`` (optional
placeholder).  A valid name is non-empty and holds no ``?``, whitespace, ``{``,
``}``, ``'``, ``"`` or backtick, so ``{{user:name}}`` names ``user:name``.  An
invalid candidate (``{{}}``, ``{{a b}}``, ``{{{x}}``) stays literal text and is
not scanned again.  Single braces are literal; there is no escaping.

Rendering inserts each bound value verbatim (never re-scanned), drops unbound
optional placeholders, and fails on unbound required ones with Go's message
``prompt: unresolved placeholders: {{a}}, {{b}}`` (raw tokens, unique, sorted).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agenteval.errors import CaseError

# Go's unicode.IsSpace (the Unicode White_Space property); str.isspace() differs
# (it also counts U+001C..U+001F).
_GO_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_NOT_IN_NAME = _GO_SPACE | frozenset("{}'\"`?")


class UnresolvedPlaceholders(CaseError):
    """Required placeholders that have no value; ``tokens`` are the raw, sorted, unique texts."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        super().__init__(f"prompt: unresolved placeholders: {', '.join(tokens)}")


@dataclass(frozen=True, slots=True)
class Placeholder:
    """One placeholder occurrence: its raw text, name, optional mark and offset in the prompt."""

    raw: str
    name: str
    optional: bool
    start: int


@dataclass(frozen=True, slots=True)
class Literal:
    """Prompt text between placeholders; ``candidate`` marks an invalid ``{{...}}`` kept as text."""

    text: str
    start: int
    candidate: bool = False


def go_trim(text: str) -> str:
    """``text`` without leading and trailing whitespace, as Go's ``strings.TrimSpace``."""
    start, end = 0, len(text)
    while start < end and text[start] in _GO_SPACE:
        start += 1
    while end > start and text[end - 1] in _GO_SPACE:
        end -= 1
    return text[start:end]


def is_valid_name(name: str) -> bool:
    """Whether ``name`` can be a placeholder name (non-empty, none of the excluded characters)."""
    return bool(name) and not any(char in _NOT_IN_NAME for char in name)


def _placeholder(raw: str, inner: str, start: int) -> Placeholder | None:
    name = go_trim(inner)
    optional = name.endswith("?")
    if optional:
        name = name[:-1]
    if not is_valid_name(name):
        return None
    return Placeholder(raw, name, optional, start)


def parse(prompt: str) -> list[Placeholder | Literal]:
    """The prompt split into literal text and placeholders, in order."""
    parts: list[Placeholder | Literal] = []
    last = i = 0
    while True:
        i = prompt.find("{{", i)
        if i < 0:
            break
        end = prompt.find("}}", i + 2)
        if end < 0:
            # No closing braces anywhere after: the rest of the prompt is text.
            break
        if i > last:
            parts.append(Literal(prompt[last:i], last))
        raw = prompt[i : end + 2]
        token = _placeholder(raw, prompt[i + 2 : end], i)
        parts.append(token if token is not None else Literal(raw, i, candidate=True))
        i = last = end + 2
    if last < len(prompt):
        parts.append(Literal(prompt[last:], last))
    return parts


def placeholder_tokens(prompt: str) -> list[Placeholder]:
    """Every placeholder occurrence, in prompt order."""
    return [part for part in parse(prompt) if isinstance(part, Placeholder)]


def placeholders(prompt: str) -> list[str]:
    """The unique placeholder names of ``prompt``, sorted (Go's ``PlaceholderNames``)."""
    return sorted({token.name for token in placeholder_tokens(prompt)})


def required_placeholders(prompt: str) -> list[str]:
    """Unique names used at least once without the optional ``?`` mark, sorted."""
    return sorted({t.name for t in placeholder_tokens(prompt) if not t.optional})


def render(prompt: str, values: Mapping[str, str]) -> str:
    """Substitute ``values``; raise :class:`UnresolvedPlaceholders` for unbound required ones."""
    out: list[str] = []
    unresolved: set[str] = set()
    for part in parse(prompt):
        if isinstance(part, Literal):
            out.append(part.text)
        elif part.name in values:
            out.append(values[part.name])
        elif not part.optional:
            unresolved.add(part.raw)
    if unresolved:
        raise UnresolvedPlaceholders(sorted(unresolved))
    return "".join(out)
