"""OTLP trace files as ``--traces`` input and as trace-mode eval sets.

Tested in tests/importers/test_otel.py.
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from agenteval.errors import Problem
from agenteval.importers.otel import MATCH_KEYS, SpanMapping, TracesMatch, Unmapped, map_spans
from agenteval.inputs.input_limits import head_problem, input_file_problem
from agenteval.inputs.otlp_file import SpanFile
from agenteval.inputs.problem_lists import Item, listed_or_counted
from agenteval.inputs.score_text import counted
from agenteval.schema.evalset import EvalCase, EvalSet, Invocation, SessionInput

if TYPE_CHECKING:
    # otlp_file loads protobuf: only reading a trace file needs it, not the CLI's start-up.
    from agenteval.inputs.otlp_file import SpanFile

TRACE_FILE_SUFFIXES = (".jsonl", ".json", ".pb", ".binpb", ".proto", ".otlp")


def is_otlp_file(path: Path) -> bool:
    """True when ``path`` is for the OTLP reader: JSON naming ``resourceSpans`` early, or protobuf.

    A file that is not UTF-8 text goes to the protobuf reader, which says what is wrong with it
    (a truncated ``.pb`` is a protobuf decode error, not "not UTF-8 text"); a compressed or
    UTF-16 file is left to the text reader, which names what it is.
    """
    if input_file_problem(path) is not None:
        return False
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    if head_problem(str(path), head, allow_bom=True) is not None:
        return False  # compressed or UTF-16: the text reader names it
    from agenteval.inputs.otlp_file import is_json_head

    if is_json_head(head) or head.lstrip()[:1] in (b"[", b'"'):
        return b"esourceSpans" in head or b"esource_spans" in head
    try:
        # A multi-byte character cut at the end of the head is still text.
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return True
    from agenteval.inputs.foreign_files import kind_of_file

    return kind_of_file(path) == "otlp-protobuf"


def span_warnings(file: str, read: SpanFile, mapping: SpanMapping) -> list[Problem]:
    """Warnings for every span no session holds, named one by one or counted per reason.

    A flood of 300,000 spans outside every turn is one warning with its count and the first
    spans, not 300,000 lines (problem_lists.py).
    """
    warnings: list[Problem] = []
    if read.without_id:
        # Only the first one's place is kept (the reader records no span without an id).
        count, where = read.without_id, read.first_without_id
        reason = "no spanId (OTLP requires one); not used"
        warnings.append(
            Problem(file, where, f"span has {reason}")
            if count == 1
            else Problem(file, f"{count:,} spans", f"have {reason}", f"the first: {where}")
        )
    items = [
        Item(
            f"span {span_id} {name!r}",
            Problem(
                file,
                f"span {span_id}",
                f"{name!r} gives attribute{'s' if len(keys) > 1 else ''} "
                f"{', '.join(map(repr, keys))} more than once with different values "
                "(OTLP allows one); not used",
            ),
        )
        for span_id, name, keys in read.conflicting
    ]
    warnings.extend(
        listed_or_counted(
            file,
            items,
            "spans",
            "give an attribute more than once with different values (OTLP allows one); "
            "those attributes are not used",
        )
    )
    by_reason: dict[str, list[Unmapped]] = {}
    for unmapped in mapping.unmapped:
        by_reason.setdefault(unmapped.reason, []).append(unmapped)
    for reason, group in by_reason.items():
        # Span names and ids are printed as they are: the printer escapes the whole line
        # once (escaped here too, an ESC showed as '\\x1b', another name than the span's).
        said = f"{reason}; not used"
        items = [
            Item(
                f"{_span(u)} {u.name!r}",
                Problem(file, _span(u), f"{u.name!r} {said}"),
            )
            for u in group
        ]
        warnings.extend(listed_or_counted(file, items, "spans", said))
    return warnings


def _span(unmapped: Unmapped) -> str:
    span = f"span {unmapped.span_id}"
    if unmapped.reason.startswith("repeats"):
        return f"{span} of trace {unmapped.trace_id}"
    return span


def load_otlp_traces(path: Path, match: str) -> tuple[dict[str, list[Invocation]], list[Problem]]:
    """Turns by session key from an OTLP file, and warnings for spans not used; ConfigError if unreadable."""
    from agenteval.inputs.otlp_file import read_spans

    read = read_spans(path)
    mapping = map_spans(read.spans, TracesMatch(match))
    return mapping.traces(), span_warnings(str(path), read, mapping)


def unmatched_sessions(
    file: str, traces: Mapping[str, list[Invocation]], case_ids: set[str], match: str
) -> list[Problem]:
    """Warnings for the sessions no case's evalId names (their turns are not scored), counted past three."""
    items = [
        Item(
            repr(key),
            Problem(
                file,
                f"session {key}",
                f"no case has evalId {key!r}; its {len(turns)} turn(s) are not scored",
                f"--traces-match {match}",
            ),
        )
        for key, turns in traces.items()
        if key not in case_ids
    ]
    return listed_or_counted(
        file,
        items,
        "sessions",
        "no case has their key as evalId; their turns are not scored",
        f"--traces-match {match}",
    )


def nothing_to_import(
    file: str, read: SpanFile, mapping: SpanMapping, match: TracesMatch
) -> Problem | None:
    """The error of a file that gives no session (``import otel``), saying why; None when one.

    An eval set of 0 cases scores nothing and passes: an empty export (a collector that
    had not flushed, the wrong service's file) went unnoticed until the run said nothing.
    """
    if mapping.sessions:
        return None
    if mapping.turn_count:
        return Problem(
            file,
            "",
            f"holds {counted(mapping.turn_count, 'agent turn', grouped=True)}, none with attribute "
            f"{' / '.join(MATCH_KEYS[match])}: no case to import",
            "each is warned of below; another --traces-match?",
        )
    if mapping.span_count:
        return Problem(
            file,
            "",
            f"holds {counted(mapping.span_count, 'span', grouped=True)}, none in an agent turn "
            "(an invoke_agent or invocation span): no case to import",
            "export the agent's OpenTelemetry GenAI spans",
        )
    if read.without_id:
        return Problem(
            file,
            "",
            f"holds {counted(read.without_id, 'span', grouped=True)}, none with a spanId: no case to import",
            "each is warned of below",
        )
    return Problem(file, "", "holds no spans: no case to import", "an empty export?")


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
