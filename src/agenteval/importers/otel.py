"""OpenTelemetry GenAI spans → sessions of invocations (the turns agenteval scores).

The rule, in order:

1. **Turns.** A turn is the outermost ``invoke_agent`` span (``gen_ai.operation.name`` or a
   span name starting ``invoke_agent``) or Google ADK's ``invocation`` span, together with
   every span below it.  Nested ``invoke_agent`` spans (sub-agents) stay in their turn.
2. **Turn content.** The user input is the last user message of the turn root's
   ``gen_ai.input.messages``, else trpc-agent-go's ``trpc.go.agent.runner.input``, else the
   last user message sent to the turn's first model call (``chat``/``generate_content``
   spans: ``gen_ai.input.messages``, ADK's ``gcp.vertex.agent.llm_request``, the older
   ``gen_ai.user.message`` / ``gen_ai.content.prompt`` events).  The final response comes
   the same way from the output side, the last model call with text winning.  Tools are the
   turn's ``execute_tool`` spans by start time: ``gen_ai.tool.name``,
   ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments`` / ``.result`` (ADK's
   ``gcp.vertex.agent.tool_call_args`` / ``tool_response``, else trpc-agent-go's
   ``trpc.go.agent.tool_id`` / ``tool_call_args`` / ``tool_response``, where those are missing).
   What the model calls spent is the sum of their ``gen_ai.usage.input_tokens`` /
   ``output_tokens`` (one inference call per span that has them; a call span around
   another one that has them is that same call, counted once; a call that says nothing
   of them leaves the turn's usage unknown, never too low), of the input those
   ``gen_ai.usage.cache_read.input_tokens`` says the provider's cache served and those
   ``gen_ai.usage.cache_creation.input_tokens`` says it wrote to that cache, with
   ``gen_ai.provider.name:gen_ai.response.model`` as the model when all calls share it.
3. **Sessions.** Turns are grouped by a key and ordered by start time; ``--traces-match``
   picks the key: ``session`` (default) = ADK's ``gcp.vertex.agent.session_id``,
   trpc-agent-go's ``trpc.go.agent.runner.session_id``, else ``gen_ai.conversation.id``;
   ``conversation`` = ``gen_ai.conversation.id`` only; ``evalId`` = the attribute
   ``agenteval.eval_id`` (set it on the agent's spans, e.g. trpc-agent-go's
   ``agent.WithSpanAttributes``).  The first span of a turn carrying the key decides.
   A case is given the session whose key equals its ``evalId``.  The keys are read in
   that order, never in the order a span lists its attributes; an attribute given twice
   with different values is left out by the reader (``otlp_file.attributes``).
4. **Nothing silently dropped.** A span outside every turn (and not an ancestor of one), and
   a turn without the key, is reported with its span id.  Spans are known by trace id and
   span id together (exporters may number spans per trace); a span repeating both of an
   earlier one is reported, and so is the session whose turn it would have been.  A
   ``gen_ai.*`` attribute whose key is a near miss of one read here (``gen_ai.tool.nmae``,
   ``gen_ai.tool.call.argument``) is reported too: it was read as absent, and a tool call
   lost its arguments without a word.  Other ``gen_ai.*`` keys (``gen_ai.agent.name``, the
   conventions' many more) are not read and not reported.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agenteval.importers.genai_messages import (
    ASSISTANT_ROLES,
    USER_ROLES,
    last_text,
    messages_of,
    parse_json,
)

# Re-exported: --traces-match's choices are read from here too.
from agenteval.importers.traces_match import DEFAULT_MATCH as DEFAULT_MATCH
from agenteval.importers.traces_match import TracesMatch as TracesMatch
from agenteval.inputs.unknown_keys import is_near_miss
from agenteval.schema.evalset import Invocation, Message, Tool, Usage

if TYPE_CHECKING:
    # otlp_file loads protobuf and the OTLP classes.
    from agenteval.inputs.otlp_file import SpanRecord

OPERATION = "gen_ai.operation.name"
MODEL_CALLS = frozenset({"chat", "generate_content", "text_completion", "call_llm"})
ADK_INVOCATION = "invocation"
MERGED_TOOLS = "(merged tools)"
# Values frameworks write when content capture is off or nothing is known.
PLACEHOLDERS = frozenset({"<not specified>", "N/A", "<not json serializable>"})


MATCH_KEYS: dict[TracesMatch, tuple[str, ...]] = {
    TracesMatch.SESSION: (
        "gcp.vertex.agent.session_id",
        "trpc.go.agent.runner.session_id",
        "gen_ai.conversation.id",
    ),
    TracesMatch.CONVERSATION: ("gen_ai.conversation.id",),
    TracesMatch.EVAL_ID: ("agenteval.eval_id",),
}
INVOCATION_ID_KEYS = ("gcp.vertex.agent.invocation_id", "trpc.go.agent.invocation_id")
USER_ID_KEYS = ("trpc.go.agent.runner.user_id", "gen_ai.user.id", "user.id")


@dataclass(slots=True)
class Unmapped:
    """A span that became no part of any session (or an attribute of one not read), and why."""

    span_id: str
    name: str
    reason: str
    trace_id: str = ""


@dataclass(slots=True)
class Session:
    """The turns of one session, in start order."""

    key: str
    turns: list[Invocation] = field(default_factory=list)
    user_id: str = ""


@dataclass(slots=True)
class SpanMapping:
    """Sessions by key, plus every span that could not be mapped."""

    sessions: dict[str, Session]
    unmapped: list[Unmapped]
    span_count: int
    # Agent turns found, with or without the key that gives them a session.
    turn_count: int = 0

    def traces(self) -> dict[str, list[Invocation]]:
        """Turns by session key (what ``--traces`` hands to cases by evalId)."""
        return {key: session.turns for key, session in self.sessions.items()}


def operation(span: SpanRecord) -> str:
    """The GenAI operation of a span: its attribute, else the first word of its name."""
    value = span.attributes.get(OPERATION)
    if isinstance(value, str) and value:
        return value
    return span.name.split(" ", 1)[0]


def _is_turn_root(span: SpanRecord) -> bool:
    return operation(span) == "invoke_agent" or span.name == ADK_INVOCATION


def _first(spans: Iterable[SpanRecord], keys: Sequence[str]) -> str:
    for span in spans:
        for key in keys:
            value = span.attributes.get(key)
            if isinstance(value, str) and value and value not in PLACEHOLDERS:
                return value
    return ""


def _event_messages(span: SpanRecord, names: Sequence[str]) -> list[Any]:
    found: list[Any] = []
    for event in span.events:
        if event.name not in names:
            continue
        for key in ("gen_ai.prompt", "gen_ai.completion", "message", "content", "body"):
            if key in event.attributes:
                found.extend(messages_of(event.attributes[key]))
                break
    return found


# Where each side of a turn's text may sit: attribute keys first (GenAI conventions, their
# ".otel" variant, ADK's request/response), then the older per-message event names.
_INPUT_KEYS = (
    "gen_ai.input.messages",
    "gen_ai.input.messages.otel",
    "gcp.vertex.agent.llm_request",
)
_INPUT_EVENTS = ("gen_ai.user.message", "gen_ai.content.prompt")
_OUTPUT_KEYS = (
    "gen_ai.output.messages",
    "gen_ai.output.messages.otel",
    "gcp.vertex.agent.llm_response",
)
_OUTPUT_EVENTS = ("gen_ai.choice", "gen_ai.assistant.message", "gen_ai.content.completion")


def _side_text(
    span: SpanRecord, keys: tuple[str, ...], events: tuple[str, ...], roles: frozenset[str]
) -> str:
    """The last text of the given roles, from the first attribute that has one, else events."""
    for key in keys:
        text = last_text(messages_of(span.attributes.get(key)), roles)
        if text:
            return text
    return last_text(_event_messages(span, events), roles)


def _input_text(span: SpanRecord) -> str:
    return _side_text(span, _INPUT_KEYS, _INPUT_EVENTS, USER_ROLES)


def _output_text(span: SpanRecord) -> str:
    return _side_text(span, _OUTPUT_KEYS, _OUTPUT_EVENTS, ASSISTANT_ROLES)


# A tool call's id, arguments and result: the GenAI conventions', else ADK's, else
# trpc-agent-go's own (its releases before gen_ai.tool.call.* wrote only these: the
# arguments and result were read as absent).
_TOOL_ID_KEYS = ("gen_ai.tool.call.id", "trpc.go.agent.tool_id")
_TOOL_ARGUMENTS_KEYS = (
    "gen_ai.tool.call.arguments",
    "gcp.vertex.agent.tool_call_args",
    "trpc.go.agent.tool_call_args",
)
_TOOL_RESULT_KEYS = (
    "gen_ai.tool.call.result",
    "gcp.vertex.agent.tool_response",
    "trpc.go.agent.tool_response",
)


def _attribute(attrs: Mapping[str, Any], keys: Sequence[str]) -> Any:
    """The value of the first of ``keys`` the span has (None when it has none)."""
    return next((attrs[key] for key in keys if key in attrs), None)


_TOOL_NAME = "gen_ai.tool.name"


def _tool(span: SpanRecord) -> Tool | None:
    attrs = span.attributes
    name = attrs.get(_TOOL_NAME)
    if not isinstance(name, str) or not name:
        name = span.name.split(" ", 1)[1] if " " in span.name else ""
    if name == MERGED_TOOLS:
        return None
    call_id = _attribute(attrs, _TOOL_ID_KEYS)
    arguments = _attribute(attrs, _TOOL_ARGUMENTS_KEYS)
    result = _attribute(attrs, _TOOL_RESULT_KEYS)
    return Tool(
        id=call_id if isinstance(call_id, str) and call_id not in PLACEHOLDERS else "",
        name=name,
        arguments=None if arguments in PLACEHOLDERS else parse_json(arguments),
        result=None if result in PLACEHOLDERS else parse_json(result),
    )


_INPUT_TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
_OUTPUT_TOKENS = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
# Input tokens the provider's cache served; the conventions count them in input_tokens.
_CACHED_TOKENS = ("gen_ai.usage.cache_read.input_tokens",)
# Input tokens written to the provider's cache; in input_tokens too, by the conventions.
_CACHE_WRITE_TOKENS = ("gen_ai.usage.cache_creation.input_tokens",)
_PROVIDER_KEYS = ("gen_ai.provider.name", "gen_ai.system")
_MODEL_KEYS = ("gen_ai.response.model", "gen_ai.request.model")


def _tokens(span: SpanRecord, keys: Sequence[str]) -> int | None:
    for key in keys:
        value = span.attributes.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        # A double with a whole value (an exporter that writes every number as one).
        if isinstance(value, float) and value.is_integer() and value >= 0:
            return int(value)
        if isinstance(value, str) and value.isascii() and value.isdigit():
            return int(value)
    return None


# A span is known by its trace id and span id together: exporters may number spans per trace.
SpanKey = tuple[str, str]


def _key(span: SpanRecord) -> SpanKey:
    return (span.trace_id, span.span_id)


def _parent(span: SpanRecord, by_key: dict[SpanKey, SpanRecord]) -> SpanRecord | None:
    return by_key.get((span.trace_id, span.parent_id)) if span.parent_id else None


def _says_usage(span: SpanRecord) -> bool:
    return (_tokens(span, _INPUT_TOKENS), _tokens(span, _OUTPUT_TOKENS)) != (None, None)


def _ancestors(span: SpanRecord, by_key: dict[SpanKey, SpanRecord]) -> Iterator[SpanKey]:
    seen: set[SpanKey] = set()
    parent = _parent(span, by_key)
    while parent is not None and _key(parent) not in seen:  # seen: a broken file's cycle
        seen.add(_key(parent))
        yield _key(parent)
        parent = _parent(parent, by_key)


def _counted_calls(
    calls: Sequence[SpanRecord], spans: Sequence[SpanRecord]
) -> tuple[list[SpanRecord], int]:
    """The model calls whose tokens count, and how many calls say nothing of theirs.

    A framework's model-call span (ADK's ``call_llm``) around the provider
    instrumentation's (``generate_content``) is one inference recorded twice, both with
    its tokens: counting each doubled the turn's usage.  The innermost span with tokens
    counts; a call span around or inside one with tokens is that same call.  A call that
    is neither and has no tokens is silent.  ``spans``: the turn's spans (their links).
    """
    by_key = {_key(span): span for span in spans}
    call_keys = {_key(span) for span in calls}
    spent = [span for span in calls if _says_usage(span)]
    spent_keys = {_key(span) for span in spent}
    wrapping = {key for span in spent for key in _ancestors(span, by_key) if key in call_keys}
    silent = sum(
        1
        for span in calls
        if _key(span) not in spent_keys
        and _key(span) not in wrapping
        and not any(key in spent_keys for key in _ancestors(span, by_key))
    )
    return [span for span in spent if _key(span) not in wrapping], silent


def turn_usage(calls: Sequence[SpanRecord], spans: Sequence[SpanRecord]) -> Usage | None:
    """What the turn's model calls spent (``gen_ai.usage.*``); None when some call does not say.

    ``spans``: the turn's spans, to tell calls nested in calls.
    """
    counted, silent = _counted_calls(calls, spans)
    if silent:
        # Some call's tokens are unknown: the sum would be short of what the turn spent
        # (a token budget passed on it), so the turn's usage is unknown, never too low.
        return None
    usage: Usage | None = None
    for span in counted:
        spent = (_tokens(span, _INPUT_TOKENS), _tokens(span, _OUTPUT_TOKENS))
        provider, model = _first([span], _PROVIDER_KEYS), _first([span], _MODEL_KEYS)
        key = f"{provider}:{model}" if provider and model else ""
        if usage is None:
            usage = Usage(model=key)
        usage.input_tokens += spent[0] or 0
        usage.output_tokens += spent[1] or 0
        # At most the call's input tokens: a producer that counts them apart is not priced twice.
        usage.cached_input_tokens += min(_tokens(span, _CACHED_TOKENS) or 0, spent[0] or 0)
        # Not capped: capping could erase a write, which leaves the cost unknown unless the
        # model's price gives cacheWriteInputPerMillion.
        # Set only when some call wrote: a turn without cache writes is written as before.
        written = _tokens(span, _CACHE_WRITE_TOKENS)
        if written:
            usage.cache_write_input_tokens += written
        usage.inference_calls += 1
        if usage.model != key:
            usage.model = ""  # several models: no single price
    return usage


def turn_invocation(root: SpanRecord, spans: list[SpanRecord]) -> Invocation:
    """The invocation one turn's spans (root first, the rest by start time) describe."""
    calls = [s for s in spans if operation(s) in MODEL_CALLS]
    user = _input_text(root) or _first([root], ("trpc.go.agent.runner.input",))
    if not user:
        user = next((t for t in (_input_text(s) for s in calls) if t), "")
    final = _output_text(root) or _first([root], ("trpc.go.agent.runner.output",))
    if not final:
        by_end = sorted(calls, key=lambda s: s.end)
        final = next((t for t in (_output_text(s) for s in reversed(by_end)) if t), "")
    tools = [t for t in (_tool(s) for s in spans if operation(s) == "execute_tool") if t]
    return Invocation(
        invocation_id=_first(spans, INVOCATION_ID_KEYS) or root.span_id,
        user_content=Message(role="user", content=user),
        final_response=Message(role="assistant", content=final),
        tools=tools,
        creation_timestamp=root.start / 1e9 if root.start else None,
        usage=turn_usage(calls, spans),
    )


def _turn_roots(
    spans: list[SpanRecord], by_key: dict[SpanKey, SpanRecord]
) -> dict[SpanKey, SpanKey | None]:
    """span → its turn root (the outermost turn-root span above or at it), None outside turns."""
    root_of: dict[SpanKey, SpanKey | None] = {}
    for span in spans:
        chain: list[SpanRecord] = []
        seen: set[SpanKey] = set()
        current: SpanRecord | None = span
        while current is not None and _key(current) not in root_of:
            if _key(current) in seen:  # a parent cycle in a broken file: stop there
                current = None
                break
            seen.add(_key(current))
            chain.append(current)
            current = _parent(current, by_key)
        outer = root_of[_key(current)] if current is not None else None
        for link in reversed(chain):
            if outer is None and _is_turn_root(link):
                outer = _key(link)
            root_of[_key(link)] = outer
    return root_of


def _distinct(
    spans: list[SpanRecord], keys: Sequence[str]
) -> tuple[list[SpanRecord], list[Unmapped]]:
    """The spans with a trace and span id no earlier span has, and the repeats (each named).

    A repeat is left out; when it is the turn of a session the first copy is not (a
    different session, or no turn), that session's turn is named as not imported.
    """
    first: dict[SpanKey, SpanRecord] = {}
    kept: list[SpanRecord] = []
    repeats: list[Unmapped] = []
    for span in spans:
        key = _key(span)
        earlier = first.get(key)
        if earlier is None:
            first[key] = span
            kept.append(span)
            continue
        session = _first([span], keys) if _is_turn_root(span) else ""
        same = _is_turn_root(earlier) and _first([earlier], keys) == session
        lost = f" (a turn of session {session!r} is not imported)" if session and not same else ""
        repeats.append(
            Unmapped(
                span.span_id,
                span.name,
                f"repeats the trace and span id of an earlier span{lost}",
                span.trace_id,
            )
        )
    return kept, repeats


def _tools_not_read(groups: Iterable[list[SpanRecord]]) -> Iterator[Unmapped]:
    """The spans of turns that name a tool but are no ``execute_tool`` span: their call is
    in no turn's tools (an operation spelt ``execute_tools`` dropped it without a word)."""
    for group in groups:
        for span in group:
            if _TOOL_NAME in span.attributes and operation(span) != "execute_tool":
                yield Unmapped(
                    span.span_id,
                    span.name,
                    f"has gen_ai.tool.name but operation {operation(span)!r}, not execute_tool:"
                    " no tool call of its turn",
                    span.trace_id,
                )


GEN_AI = "gen_ai."
# The gen_ai.* span attributes read above: a key close to one of them is a misspelling.
# Sorted: of two equally close, the one named is the same on every run.
_READ_KEYS = tuple(
    sorted(
        {
            key
            for key in (
                OPERATION,
                _TOOL_NAME,
                *_INPUT_KEYS,
                *_OUTPUT_KEYS,
                *_TOOL_ID_KEYS,
                *_TOOL_ARGUMENTS_KEYS,
                *_TOOL_RESULT_KEYS,
                *_INPUT_TOKENS,
                *_OUTPUT_TOKENS,
                *_CACHED_TOKENS,
                *_CACHE_WRITE_TOKENS,
                *_PROVIDER_KEYS,
                *_MODEL_KEYS,
                *INVOCATION_ID_KEYS,
                *USER_ID_KEYS,
                *(key for keys in MATCH_KEYS.values() for key in keys),
            )
            if key.startswith(GEN_AI)
        }
    )
)


def _word_added(part: str, known: str) -> bool:
    """``system_instructions`` beside ``system``, ``model_id`` beside ``model``: another
    attribute of the conventions (a word added or left out), not a typo."""
    shorter, longer = sorted((part, known), key=len)
    return longer.startswith(f"{shorter}_")


@functools.lru_cache(maxsize=1024)
def _misspelt_key(key: str) -> str:
    """The ``gen_ai.*`` key read here that ``key`` misspells, or "" (memoised: every span of
    an export repeats its keys).

    A near miss in one dot-separated part, the others equal (``gen_ai.tool.nmae``,
    ``gen_ai.conversaton.id``, ``gen_ai.tool.call.argument``), or the same key with a dot
    written as an underscore (``gen_ai.tool_name``).  A key that adds a part to one read
    here (``gen_ai.tool.call.arguments.size``, ``gen_ai.system_instructions``) or names
    another thing in the same place (``gen_ai.agent.name``, ``gen_ai.response.id``) is no
    misspelling.
    """
    if key in _READ_KEYS or not key.startswith(GEN_AI):
        return ""
    parts = key.split(".")
    near: list[str] = []
    for known in _READ_KEYS:
        if known.replace(".", "_") == key.replace(".", "_"):
            return known
        other = known.split(".")
        if len(other) != len(parts):
            continue
        differ = [(a, b) for a, b in zip(parts, other, strict=True) if a != b]
        if len(differ) == 1 and is_near_miss(*differ[0]) and not _word_added(*differ[0]):
            near.append(known)
    # Of several (gen_ai.usage.input_token is close to output_tokens too), the closest.
    return next(iter(difflib.get_close_matches(key, near, n=1, cutoff=0)), "")


def _misspelt_attributes(spans: Iterable[SpanRecord]) -> Iterator[Unmapped]:
    """The spans giving a ``gen_ai.*`` attribute under a misspelt key: its value is unread."""
    for span in spans:
        for key in span.attributes:
            meant = _misspelt_key(key) if key.startswith(GEN_AI) else ""
            if meant:
                yield Unmapped(
                    span.span_id,
                    span.name,
                    f"has attribute {key!r} (did you mean {meant!r}?)",
                    span.trace_id,
                )


def map_spans(spans: list[SpanRecord], match: TracesMatch = DEFAULT_MATCH) -> SpanMapping:
    """Group spans into turns and sessions (module docstring), reporting what cannot be mapped."""
    keys = MATCH_KEYS[match]
    spans, unmapped = _distinct(spans, keys)
    by_key = {_key(s): s for s in spans}
    root_of = _turn_roots(spans, by_key)
    members: dict[SpanKey, list[SpanRecord]] = {}
    for span in spans:
        root = root_of.get(_key(span))
        if root is not None:
            members.setdefault(root, []).append(span)
    # Spans that only wrap turns (an HTTP server span around the agent) are containers.
    containers: set[SpanKey] = set()
    for root in members:
        parent = _parent(by_key[root], by_key)
        while parent is not None and _key(parent) not in containers:
            containers.add(_key(parent))
            parent = _parent(parent, by_key)
    unmapped.extend(
        Unmapped(
            s.span_id,
            s.name,
            "belongs to no agent turn (no invoke_agent or invocation span above it)",
            s.trace_id,
        )
        for s in spans
        if root_of.get(_key(s)) is None and _key(s) not in containers
    )
    unmapped.extend(_tools_not_read(members.values()))
    unmapped.extend(_misspelt_attributes(spans))
    sessions: dict[str, Session] = {}
    turns: list[tuple[int, str, Invocation, str]] = []
    for root_key, group in members.items():
        top = by_key[root_key]
        rest = sorted((s for s in group if s is not top), key=lambda s: s.start)
        ordered = [top, *rest]
        key = _first(ordered, keys)
        if not key:
            unmapped.append(
                Unmapped(
                    top.span_id,
                    top.name,
                    f"turn has no {' / '.join(keys)} attribute (--traces-match {match.value})",
                    top.trace_id,
                )
            )
            continue
        turns.append((top.start, key, turn_invocation(top, ordered), _first(ordered, USER_ID_KEYS)))
    for _, key, invocation, user_id in sorted(turns, key=lambda t: t[0]):
        session = sessions.setdefault(key, Session(key))
        session.turns.append(invocation)
        session.user_id = session.user_id or user_id
    return SpanMapping(sessions, unmapped, len(spans), len(members))
