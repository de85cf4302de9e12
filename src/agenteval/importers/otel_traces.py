"""OTLP trace files as ``--traces`` input and as trace-mode eval sets.

Tested in tests/importers/test_otel.py.
"""

from __future__ import annotations

from pathlib import Path

from agenteval.errors import Problem
from agenteval.importers.otel import SpanMapping, TracesMatch, map_spans
from agenteval.importers.otlp_file import looks_like_json, read_spans
from agenteval.input_limits import input_file_problem
from agenteval.schema.evalset import EvalCase, EvalSet, Invocation, SessionInput

TRACE_FILE_SUFFIXES = (".jsonl", ".json", ".pb", ".binpb", ".proto", ".otlp")


def printable(text: str) -> str:
    """Text from a file made safe for a terminal: control characters escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def is_otlp_file(path: Path) -> bool:
    """True when ``path`` is an OTLP trace export (JSON starting with ``resourceSpans``, or protobuf)."""
    if input_file_problem(path) is not None:
        return False
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    if looks_like_json(head) or head.lstrip()[:1] in (b"{", b"["):
        return b"esourceSpans" in head or b"esource_spans" in head
    from agenteval.importers.detect import kind_of_file

    return kind_of_file(path) == "otlp-protobuf"


def unmapped_warnings(file: str, mapping: SpanMapping) -> list[Problem]:
    """One warning per span that no session holds, naming its span id."""
    return [
        Problem(file, f"span {printable(u.span_id)}", f"{printable(u.name)!r} {u.reason}; not used")
        for u in mapping.unmapped
    ]


def load_otlp_traces(path: Path, match: str) -> tuple[dict[str, list[Invocation]], list[Problem]]:
    """Turns by session key from an OTLP file, and a warning per unmapped span; ConfigError if unreadable."""
    mapping = map_spans(read_spans(path), TracesMatch(match))
    return mapping.traces(), unmapped_warnings(str(path), mapping)


def unmatched_sessions(
    file: str, traces: dict[str, list[Invocation]], case_ids: set[str], match: str
) -> list[Problem]:
    """One warning per session no case's evalId names: its turns are not scored."""
    return [
        Problem(
            file,
            f"session {printable(key)}",
            f"no case has evalId {printable(key)!r}; its {len(turns)} turn(s) are not scored",
            f"--traces-match {match}",
        )
        for key, turns in traces.items()
        if key not in case_ids
    ]


def evalset_from_spans(set_id: str, mapping: SpanMapping) -> EvalSet:
    """A trace-mode eval set: one case per session, its turns as the recorded conversation."""
    cases: list[EvalCase | None] = [
        EvalCase(
            eval_id=session.key,
            eval_mode="trace",
            actual_conversation=list(session.turns),
            session_input=SessionInput(user_id=session.user_id),
        )
        for session in mapping.sessions.values()
    ]
    return EvalSet(eval_set_id=set_id, name=set_id, eval_cases=cases)


def trace_set_id(path: Path) -> str:
    """The eval set id an OTLP file's name gives (``agent.otlp.jsonl`` → ``agent``)."""
    return path.name.split(".")[0] or "traces"
