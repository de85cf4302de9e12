"""The restricted JSONPath of template bindings (llm-evaluators.md §6).

Grammar (checked here, before anything is evaluated)::

    path    := "" | "$" | ["$"] first segment*
    first   := "." key | "[" index "]" | key      (a bare key only at the very start)
    segment := "." key | "[" index "]"
    key     := one or more characters other than "." "[" "]", never containing "*"
    index   := optional sign and ASCII digits, within int64

There is no quoting or escaping: ``$."a b"`` is the key ``"a b"`` with its
quotes, and wildcards, filters, slices, recursive descent and dotted keys
cannot be written.  Error messages are Go's, word for word.

jsonpath-ng evaluates every path: the checked segments become its expression
tree (``Child(Root(), Fields(key))``, ``Index(i)``) and ``find`` selects the
value.  Its own parser reads a different language (``$.a b``, ``$.1a``,
``$.where`` and ``$.$x`` are Go keys but its syntax errors; ``$."a b"`` is the
key ``a b`` to it, ``"a b"`` with quotes to Go), so the grammar above is
checked here and builds the tree.  When ``find`` matches nothing, the same
jsonpath-ng nodes are applied one at a time to name the step that failed and
why, in Go's words; a negative index, which jsonpath-ng counts from the end,
is never handed to it (§6: ``index -1 out of range``).

The source text is parsed with number literals kept verbatim (Go's
``UseNumber``) and rendered per §6 step 4 (:mod:`agenteval.schema.gojson`).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from agenteval.errors import CaseError, ControlFlow
from agenteval.schema.gojson import JSONNumber, clean_text, encode, go_quote

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_INDEX = re.compile(r"[+-]?[0-9]+")
# A \uD800-\uDFFF escape or a raw surrogate: the parsed text may hold lone surrogates.
_MAY_HOLD_SURROGATES = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
_INT64 = 1 << 63


class PathError(CaseError):
    """A path the grammar rejects, a source that is not JSON, or a failed lookup."""

    def __init__(
        self, message: str, position: int | None = None, hint: str = "", path: str = ""
    ) -> None:
        super().__init__(message)
        self.message = message
        # 0-based offset into ``path`` of a grammar error; None for the other errors.
        self.position = position
        self.hint = hint
        self.path = path

    def describe(self) -> str:
        """The grammar error's location and remedy, for ``validate`` output."""
        if self.position is None:
            return self.hint
        if self.position >= len(self.path):
            where = "at the end of the path"
        else:
            where = f"at character {self.position + 1} ({self.path[self.position]!r})"
        return f"{where}: {self.hint}" if self.hint else where


class _ConstantRejected(ControlFlow):
    def __init__(self, name: str) -> None:
        self.name = name


def _reject_constant(name: str) -> Any:
    raise _ConstantRejected(name)


_DECODER = json.JSONDecoder(
    parse_int=JSONNumber, parse_float=JSONNumber, parse_constant=_reject_constant
)


@dataclass(frozen=True, slots=True)
class CompiledPath:
    """A path that passed the grammar, as jsonpath-ng's expression and its steps in order."""

    text: str
    expression: Any = field(compare=False, repr=False)
    # The Fields/Index node of each segment; the expression chains them under Root().
    steps: tuple[Any, ...] = field(compare=False, repr=False)
    segments: tuple[str | int, ...] = ()

    def extract(self, raw: str) -> str:
        """Parse ``raw`` as one JSON value, follow the path and render the result (§6)."""
        return render(self.select(parse_source(raw, self.text)))

    def select(self, document: Any) -> Any:
        """The value at this path in an already parsed document (jsonpath-ng's ``find``)."""
        if not any(isinstance(s, int) and s < 0 for s in self.segments):
            matches = self.expression.find(document)
            if matches:
                # Fields of one key and Index of one index: never more than one match.
                return matches[0].value
        raise self._failure(document)

    def _failure(self, document: Any) -> PathError:
        """Go's error for the first step jsonpath-ng finds nothing at."""
        from jsonpath_ng import DatumInContext

        quoted = go_quote(self.text)
        here = DatumInContext.wrap(document)
        for segment, step in zip(self.segments, self.steps, strict=True):
            found = [] if isinstance(segment, int) and segment < 0 else step.find(here)
            if not found:
                return _lookup_error(quoted, segment, here.value)
            here = found[0]
        raise AssertionError(f"jsonpath-ng matched {self.text!r} on the second look only")


def _lookup_error(quoted: str, segment: str | int, value: Any) -> PathError:
    """Why ``segment`` selects nothing in ``value``, in Go's words."""
    if isinstance(segment, str):
        if not isinstance(value, dict):
            return PathError(f"json path {quoted} expects object before key {go_quote(segment)}")
        return PathError(f"json path {quoted} key {go_quote(segment)} not found")
    if not isinstance(value, list):
        return PathError(f"json path {quoted} expects array before index {segment}")
    return PathError(f"json path {quoted} index {segment} out of range")


@functools.lru_cache(maxsize=1024)
def compile_path(text: str) -> CompiledPath:
    """Check ``text`` against the grammar; raise :class:`PathError` naming the first problem."""
    # Imported on first use: jsonpath-ng loads its ply parser tables at import.
    from jsonpath_ng import Child, Fields, Index, Root

    segments = tuple(_parse(text))
    steps = tuple(
        # A plain field name, never the deprecated Fields("*") wildcard (keys hold no "*").
        Fields(s) if isinstance(s, str) else Index(s)
        for s in segments
    )
    expression: Any = Root()
    for step in steps:
        expression = Child(expression, step)
    return CompiledPath(text, expression, steps, segments)


def _syntax(path: str, what: str, position: int, hint: str) -> PathError:
    return PathError(f"json path {go_quote(path)} {what}", position, hint, path)


def _parse(path: str) -> list[str | int]:
    segments: list[str | int] = []
    if not path:
        return segments
    i = 0
    if path[0] == "$":
        i = 1
        if len(path) > 1 and path[1] not in ".[":
            raise _syntax(path, "has invalid root selector", 1, "after $ comes .key or [index]")
    while i < len(path):
        char = path[i]
        if char == ".":
            key, i = _parse_key(path, i + 1)
            segments.append(key)
        elif char == "[":
            index, i = _parse_index(path, i)
            segments.append(index)
        elif segments or i != 0:
            raise _syntax(
                path, "missing delimiter before key", i, "write .key after an index, e.g. [0].name"
            )
        else:
            key, i = _parse_key(path, i)
            segments.append(key)
    return segments


def _parse_key(path: str, start: int) -> tuple[str, int]:
    i = start
    while i < len(path) and path[i] not in ".[":
        if path[i] == "]":
            raise _syntax(path, "has unexpected ]", i, "] only closes an [index]")
        i += 1
    if i == start:
        raise _syntax(
            path,
            "missing key",
            start,
            "every . needs a key after it; recursive descent (..) is not supported",
        )
    key = path[start:i]
    if "*" in key:
        raise _syntax(
            path,
            "contains unsupported wildcard",
            start + key.index("*"),
            "wildcards are not supported; name each key",
        )
    return key, i


def _parse_index(path: str, start: int) -> tuple[int, int]:
    end = path.find("]", start)
    if end < 0:
        raise _syntax(path, "missing ]", start, "close the index with ]")
    raw = path[start + 1 : end]
    if not raw:
        raise _syntax(path, "missing index", start, "write an integer index such as [0]")
    index = _atoi(raw)
    if index is None:
        raise _syntax(
            path,
            f"has invalid index {go_quote(raw)}",
            start + 1,
            "an index is an integer such as [0]; quotes, wildcards, filters and slices "
            "are not supported",
        )
    return index, end + 1


def _atoi(raw: str) -> int | None:
    """Go's ``strconv.Atoi``: optional sign, ASCII digits, within int64; else None."""
    if _INDEX.fullmatch(raw) is None:
        return None
    digits = raw.lstrip("+-").lstrip("0") or "0"
    if len(digits) > 19:  # also spares int() very long digit strings
        return None
    value = -int(digits) if raw[0] == "-" else int(digits)
    return value if -_INT64 <= value < _INT64 else None


def parse_source(raw: str, path: str) -> Any:
    """``raw`` as exactly one JSON value with number literals kept (§6 step 1)."""
    start = _WHITESPACE.match(raw, 0)
    assert start is not None  # the pattern matches the empty string
    value, end = _decode_at(raw, start.end(), path)
    rest = _WHITESPACE.match(raw, end)
    assert rest is not None
    if rest.end() < len(raw):
        _decode_at(raw, rest.end(), path)
        raise PathError(f"parse source json for path {go_quote(path)}: multiple JSON values")
    if _MAY_HOLD_SURROGATES.search(raw):
        value = _clean_surrogates(value)
    return value


def _decode_at(raw: str, index: int, path: str) -> tuple[Any, int]:
    prefix = f"parse source json for path {go_quote(path)}: "
    if index >= len(raw):
        # Go's stream decoder reports an empty source as io.EOF.
        raise PathError(prefix + "EOF")
    try:
        value, end = _DECODER.raw_decode(raw, index)
    except json.JSONDecodeError as exc:
        raise PathError(prefix + _decode_detail(exc)) from None
    except _ConstantRejected as exc:
        raise PathError(
            prefix + f"invalid character {_go_char(exc.name[0])} looking for beginning of value"
        ) from None
    except RecursionError:
        raise PathError(prefix + "exceeded max depth") from None
    return value, end


def _decode_detail(exc: json.JSONDecodeError) -> str:
    # Phrase the commonest failure like Go does; keep Python's wording otherwise.
    if exc.msg == "Expecting value":
        if exc.pos >= len(exc.doc):
            return "unexpected EOF"
        return f"invalid character {_go_char(exc.doc[exc.pos])} looking for beginning of value"
    return f"{exc.msg} at offset {exc.pos}"


def _go_char(char: str) -> str:
    if char == "'":
        return "'\\''"
    if char == '"':
        return "'\"'"
    return "'" + go_quote(char)[1:-1] + "'"


def _clean_surrogates(value: Any) -> Any:
    """Replace lone surrogates in every string and key, without recursion."""
    if isinstance(value, str):
        return clean_text(value)
    root: list[Any] = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        container, slot = stack.pop()
        item = container[slot]
        if isinstance(item, str):
            container[slot] = clean_text(item)
        elif isinstance(item, list):
            stack.extend((item, i) for i in range(len(item)))
        elif isinstance(item, dict):
            # Rebuild in order so that keys that become equal keep Go's last-wins.
            cleaned = {clean_text(k): v for k, v in item.items()}
            container[slot] = cleaned
            stack.extend((cleaned, k) for k in cleaned)
    return root[0]


def render(value: Any) -> str:
    """A selected value as text (§6 step 4): strings raw, scalars as words, the rest as JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return encode(value)


def extract(raw: str, path: str) -> str:
    """One-shot ``compile_path(path).extract(raw)``, with Go's error precedence (source first)."""
    document = parse_source(raw, path)
    return render(compile_path(path).select(document))
