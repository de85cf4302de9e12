"""Telling file kinds apart by their top-level shape."""

from __future__ import annotations

import pytest

from agenteval.inputs.file_kind import (
    FileKind,
    describe,
    first_line_kind,
    kind_of,
    kind_of_head,
    wrong_kind_message,
)


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        ({"evalSetId": "s", "evalCases": []}, FileKind.EVALSET),
        ({"evalSetId": "s"}, FileKind.EVALSET),
        ([{"metricName": "m"}], FileKind.METRICS),
        ({"evalSetResultId": "r"}, FileKind.RESULT),
        ({"evalSetId": "s", "evalCaseResults": []}, FileKind.RESULT),
        ({"evalSetId": "s", "summary": {}}, FileKind.RESULT),
        ({"agentevalVersion": "1", "evalSetResults": []}, FileKind.RUN),
        ({"eval_set_id": "a", "eval_cases": []}, FileKind.ADK_EVALSET),
        (
            {"evalCases": [{"conversation": [{"userContent": {"parts": [{"text": "x"}]}}]}]},
            FileKind.ADK_EVALSET,
        ),
        ([{"query": "q", "expected_tool_use": [], "reference": "r"}], FileKind.ADK_EVALSET),
        ({"resourceSpans": []}, FileKind.OTLP),
        # ADK's test_config.json: what --metrics was given instead of a metric file.
        ({"criteria": {"tool_trajectory_avg_score": 1.0}}, FileKind.ADK_CONFIG),
        ({"criteria": 1}, FileKind.OTHER),
        ([{"evalId": "c", "actualConversation": []}], FileKind.TRACES),
        (
            [{"evalId": "c", "runId": 2, "errorMessage": "x", "actualConversation": []}],
            FileKind.TRACES,
        ),
        ({"evalId": "c", "actualConversation": []}, FileKind.TRACES),
        # An eval case holds keys a record has not: not a traces record.
        ({"evalId": "c", "evalMode": "trace", "actualConversation": []}, FileKind.OTHER),
        ([{"evalId": "c", "actualConversation": [], "zzz": 1}], FileKind.OTHER),
        # calibrate --labels lines: their evalSetId alone read as an eval set.
        ({"evalSetId": "s", "evalId": "c", "metricName": "m", "label": "pass"}, FileKind.LABELS),
        ({"evalSetId": "s", "evalId": "c", "score": 0.5}, FileKind.LABELS),
        ([{"evalSetId": "s", "evalId": "c", "metricName": "m", "label": "pass"}], FileKind.LABELS),
        # --prices: read as an eval set with unknown keys (exit 0) or as nothing known.
        ({"openai:gpt-4o": {"inputPerMillion": 2.5, "outputPerMillion": 10}}, FileKind.PRICES),
        ({"x:y": {"inputPerMilion": 2.5, "outputPerMillion": 10}, "z": {}}, FileKind.PRICES),
        ({"x:y": {"inputPerMillion": 1}, "note": "s"}, FileKind.OTHER),
        ({}, FileKind.EMPTY),
        ([], FileKind.EMPTY),
        ({"foo": 1}, FileKind.OTHER),
        ("text", FileKind.OTHER),
        ([1, 2], FileKind.OTHER),
    ],
)
def test_kind_of(data: object, kind: FileKind) -> None:
    assert kind_of(data) is kind


def test_wrong_kind_message_names_what_it_looks_like_and_how_to_convert() -> None:
    assert wrong_kind_message("an eval set", FileKind.OTLP) == (
        "not an eval set (looks like an OpenTelemetry (OTLP/JSON) export)",
        "convert it with `agenteval import otel FILE -o DIR`",
    )
    assert describe(FileKind.RUN) == "an agenteval --json run document"
    assert wrong_kind_message("a metric file", FileKind.ADK_CONFIG) == (
        "not a metric file (looks like a Google ADK test_config.json)",
        "`agenteval import adk EVALSET -o DIR` converts it with the eval set beside it",
    )
    assert wrong_kind_message("a metric file", FileKind.OTHER)[1] == ""


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        ({"evalSetId": "e", "evalCases": [{"evalId": "c", "conversation": 7}]}, FileKind.EVALSET),
        ({"evalSetId": "e", "evalCases": [{"conversation": True}]}, FileKind.EVALSET),
        ({"evalSetId": "e", "evalCases": [{"conversation": {"a": 1}}]}, FileKind.EVALSET),
        ({"evalCaseResults": [{"evalMetricResultPerInvocation": 5}]}, FileKind.RESULT),
        ({"evalCaseResults": [{"evalMetricResultPerInvocation": "s"}]}, FileKind.RESULT),
        ({"evalCaseResults": [{"evalMetricResultPerInvocation": [5, None]}]}, FileKind.RESULT),
    ],
)
def test_a_malformed_value_inside_does_not_stop_the_kind_from_being_told(
    data: object, kind: FileKind
) -> None:
    # The checks after it report the value at its path (exit 2); telling the kind raised
    # TypeError / AttributeError here, an internal error (exit 4).
    assert kind_of(data) is kind


def test_the_first_line_of_json_lines_tells_their_kind() -> None:
    record = '{"evalId": "c", "actualConversation": []}'
    assert first_line_kind(f"{record}\n{record}\n") is FileKind.TRACES
    assert first_line_kind(f'  [{{"metricName": "m"}}]\n{record}') is FileKind.METRICS
    # One document alone, an unknown first line, or no JSON there: nothing to tell.
    assert first_line_kind(f"{record}\n\n") is None
    label = '{"evalSetId": "s", "evalId": "c", "metricName": "m", "label": "pass"}'
    assert first_line_kind(f"{label}\n{label}\n") is FileKind.LABELS
    assert first_line_kind('{"foo": 1}\n{"foo": 2}') is None
    assert first_line_kind('{"evalId": \n"c"}\n{}') is None


def test_the_kind_of_a_file_head_cut_anywhere() -> None:
    evalset = (
        b'{"evalSetId": "s", "evalCases": [{"evalId": "\\u00e9t\xc3\xa9", "conversation": []}]}'
    )
    metrics = b'[{"metricName": "m", "threshold": 1}]'
    traces = b'{"evalId": "a", "actualConversation": []}\n{"evalId": "b"'
    for data, kind, enough in (
        (evalset, FileKind.EVALSET, 20),
        (metrics, FileKind.METRICS, 30),
        (traces, FileKind.TRACES, 44),
    ):
        assert [kind_of_head(data[:cut]) for cut in range(enough, len(data) + 1)] == [kind] * (
            len(data) + 1 - enough
        )
    assert kind_of_head(b"SQLite format 3\x00") is None
    assert kind_of_head(b'{"a": 1}') is None
