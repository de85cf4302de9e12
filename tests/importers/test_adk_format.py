"""``import adk`` checks the shape of ADK files before it converts: located errors, exit 2.

Each malformed file used to be converted into something (exit 0): ``"eval_cases":
"notalist"`` became 8 cases, one per character; a string-wrapped result whose
``eval_case_results`` was ``"{bad"`` became 4; duplicate ``eval_id``s were written (and
then refused by ``validate``); ``null`` turns and non-string ``text`` became empty user
messages; 5,000 nested ``[`` were a RecursionError (exit 4).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agenteval.importers.adk_format import validate_adk
from cli_process import run_cli


def agenteval(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m agenteval ARGS``."""
    return run_cli(args, timeout=120)


def turn(text: Any = "hi") -> dict[str, Any]:
    return {"user_content": {"role": "user", "parts": [{"text": text}]}}


def case(eval_id: str, *turns: Any) -> dict[str, Any]:
    return {"eval_id": eval_id, "conversation": list(turns) or [turn()]}


# file name → (its JSON text, the error lines import adk prints)
MALFORMED: dict[str, tuple[str, list[str]]] = {
    "notalist.json": (
        json.dumps({"eval_set_id": "s", "eval_cases": "notalist"}),
        ["eval_cases: expected an array, got a string"],
    ),
    "wrapped.json": (
        json.dumps(json.dumps({"eval_set_result_id": "r", "eval_case_results": "{bad"})),
        ["eval_case_results: expected an array, got a string"],
    ),
    "wrapped_bad.json": (
        json.dumps('{"eval_set_result_id": "r", "eval_case_results": [{bad'),
        [
            "$: invalid JSON in the string-wrapped document: key must be a string at line 1 "
            "column 52"
        ],
    ),
    "duplicates.json": (
        json.dumps({"eval_set_id": "s", "eval_cases": [case("a"), case("b"), case("a")]}),
        [
            "eval_cases[2].eval_id: duplicate eval_id 'a' (also eval_cases[0]) "
            "(every case needs its own id)"
        ],
    ),
    "camel_duplicates.json": (
        json.dumps(
            {
                "evalSetId": "s",
                "evalCases": [
                    {"evalId": "a", "conversation": [{"userContent": {"parts": [{"text": "x"}]}}]},
                    {"evalId": "a", "conversation": [{"userContent": {"parts": [{"text": "y"}]}}]},
                ],
            }
        ),
        [
            "evalCases[1].evalId: duplicate evalId 'a' (also evalCases[0]) "
            "(every case needs its own id)"
        ],
    ),
    "turns.json": (
        json.dumps(
            {
                "eval_set_id": "s",
                "eval_cases": [
                    case("null_turn", None),
                    case("number_text", turn(5)),
                    {"eval_id": "no_turns"},
                    case("null_parts", {"user_content": None}),
                ],
            }
        ),
        [
            "eval_cases[0].conversation[0]: expected an object, got null",
            "eval_cases[1].conversation[0].user_content.parts[0].text: expected a string, "
            "got a number",
            "eval_cases[2]: needs exactly one of conversation and conversation_scenario "
            "(as ADK does)",
            "eval_cases[3].conversation[0].user_content: expected an object, got null",
        ],
    ),
    "camel_turns.json": (
        json.dumps(
            {
                "evalSetId": "s",
                "evalCases": [
                    {
                        "evalId": "c",
                        "conversation": [
                            {
                                "userContent": {"parts": [{"text": ["not", "text"]}]},
                                "intermediateData": {
                                    "invocationEvents": [{"content": {"parts": "x"}}]
                                },
                            },
                        ],
                    }
                ],
            }
        ),
        [
            "evalCases[0].conversation[0].userContent.parts[0].text: expected a string, "
            "got an array",
            "evalCases[0].conversation[0].intermediateData.invocationEvents[0].content.parts: "
            "expected an array, got a string",
        ],
    ),
    "deep.json": (
        '{"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [{"user_content": '
        '{"parts": [{"text": "hi"}]}, "intermediate_data": {"tool_uses": [{"name": "t", '
        '"args": {"a": ' + "[" * 5000 + "]" * 5000 + "}}]}}]}]}",
        [": invalid JSON: recursion limit exceeded at line 1 column 373"],
    ),
    "infinite.json": (
        '{"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [{"user_content": '
        '{"parts": [{"text": "hi"}]}, "creation_timestamp": Infinity, "intermediate_data": '
        '{"tool_uses": [{"name": "t", "args": {"a": NaN}}]}}]}]}',
        [
            "eval_cases[0].conversation[0].creation_timestamp: inf is not a finite number "
            "(NaN, Infinity and numbers beyond ±1.8e308 cannot be compared)",
            "eval_cases[0].conversation[0].intermediate_data.tool_uses[0].args.a: nan is not a "
            "finite number (NaN, Infinity and numbers beyond ±1.8e308 cannot be compared)",
        ],
    ),
    # Read as absent, a misspelt key dropped the reference's tool calls (an IN_ORDER or
    # ANY_ORDER trajectory then passed on nothing) or its answer; ADK refuses the file.
    "misspelt.json": (
        json.dumps(
            {
                "eval_set_id": "s",
                "eval_cases": [
                    case(
                        "a",
                        {
                            **turn(),
                            "final_respons": {"parts": [{"text": "yes"}]},
                            "intermediate_data": {"tool_use": [{"name": "t", "args": {}}]},
                        },
                    )
                ],
            }
        ),
        [
            "eval_cases[0].conversation[0].final_respons: 'final_respons' is not a field of "
            "ADK's Invocation (did you mean 'final_response'?)",
            "eval_cases[0].conversation[0].intermediate_data.tool_use: 'tool_use' is not a "
            "field of ADK's IntermediateData (did you mean 'tool_uses'?)",
        ],
    ),
    "camel_misspelt.json": (
        json.dumps(
            {
                "evalSetId": "s",
                "evalCases": [
                    {
                        "evalId": "c",
                        "conversation": [
                            {
                                "userContent": {"parts": [{"text": "hi"}]},
                                "intermediateData": {
                                    "invocationEvents": [
                                        {"content": {"parts": [{"functionCal": {"name": "t"}}]}}
                                    ]
                                },
                            }
                        ],
                    }
                ],
            }
        ),
        [
            "evalCases[0].conversation[0].intermediateData.invocationEvents[0].content.parts[0]"
            ".functionCal: 'functionCal' is not a field of ADK's Part (did you mean "
            "'functionCall'?)"
        ],
    ),
    "legacy.test.json": (
        json.dumps([{"query": "q", "reference": "r"}, {"query": 7}, "row"]),
        ["[1].query: expected a string, got a number", "[2]: expected an object, got a string"],
    ),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_adk_files_are_located_errors(tmp_path: Path, name: str) -> None:
    text, errors = MALFORMED[name]
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    done = agenteval("import", "adk", str(source), "-o", str(out))
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [f"error: {source}{'' if e.startswith(':') else ': '}{e}" for e in errors]
    count = f"{len(errors)} problem{'s' if len(errors) != 1 else ''} found."
    assert done.stderr.splitlines() == [*lines, count]
    assert not out.exists()


def test_an_infinite_threshold_in_test_config_is_an_error(tmp_path: Path) -> None:
    source = tmp_path / "s.json"
    source.write_text(json.dumps({"eval_set_id": "s", "eval_cases": [case("a")]}))
    config = tmp_path / "test_config.json"
    config.write_text('{"criteria": {"response_match_score": Infinity}}')
    out = tmp_path / "out"
    done = agenteval("import", "adk", str(source), "-o", str(out))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"error: {config}: criteria.response_match_score: inf is not a finite number (NaN, "
        "Infinity and numbers beyond ±1.8e308 cannot be compared)",
        "1 problem found.",
    ]
    assert not out.exists()


def test_every_file_is_checked_before_one_is_written(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps({"eval_set_id": "good", "eval_cases": [case("a")]}))
    bad.write_text(json.dumps({"eval_set_id": "bad", "eval_cases": [case("a", None)]}))
    out = tmp_path / "out"
    done = agenteval("import", "adk", str(bad), str(tmp_path / "absent.json"), str(good), "-o",
                     str(out))  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"error: {bad}: eval_cases[0].conversation[0]: expected an object, got null",
        f"error: {tmp_path / 'absent.json'}: file not found",
        "2 problems found.",
    ]
    assert not out.exists()


def test_well_formed_files_validate_in_both_key_styles() -> None:
    snake = {
        "eval_set_id": "s",
        "eval_cases": [
            {
                "eval_id": "c",
                "conversation": [
                    {
                        "user_content": {"parts": [{"text": "hi", "thought": None}]},
                        "final_response": {"role": "model", "parts": [{"text": "yo"}]},
                        "intermediate_data": {
                            "tool_uses": [{"id": "1", "name": "t", "args": {"x": 1}}],
                            "tool_responses": [{"id": "1", "name": "t", "response": {}}],
                        },
                        "creation_timestamp": 1700000000,
                    }
                ],
                "session_input": {"app_name": "a", "user_id": "u", "state": {}},
                "final_session_state": {},
            },
            {
                "eval_id": "sim",
                "conversation_scenario": {"starting_prompt": "p", "conversation_plan": "q"},
            },
        ],
    }
    model, problems = validate_adk(snake, "adk-evalset", "f")
    assert problems == []
    assert model.eval_cases[0].conversation[0].intermediate_data.tool_uses[0].args == {"x": 1}
    camel = {
        "evalSetId": "s",
        "evalCases": [
            {
                "evalId": "c",
                "conversation": [
                    {
                        "userContent": {"parts": [{"text": "hi"}]},
                        "intermediateData": {
                            "invocationEvents": [
                                {
                                    "author": "a",
                                    "content": {"parts": [{"functionCall": {"name": "t"}}]},
                                }
                            ]
                        },
                    }
                ],
            }
        ],
    }
    model, problems = validate_adk(camel, "adk-evalset", "f")
    assert problems == []
    events = model.eval_cases[0].conversation[0].intermediate_data.invocation_events
    assert events[0].content.parts[0].function_call.name == "t"


# (file name, its text, how import adk names it)
OTHER_KINDS: list[tuple[str, str, str]] = [
    (
        "e.evalset.json",
        json.dumps({"evalSetId": "e", "evalCases": []}),
        "looks like an eval set) (pass it with --evalset",
    ),
    (
        "t.jsonl",
        '{"evalId": "a", "actualConversation": []}\n{"evalId": "b", "actualConversation": []}\n',
        "looks like a traces file) (pass it with --traces",
    ),
    (
        "test_config.json",
        json.dumps({"criteria": {"response_match_score": 0.7}}),
        "looks like a Google ADK test_config.json) (`agenteval import adk EVALSET -o DIR` "
        "converts it with the eval set beside it",
    ),
]


@pytest.mark.parametrize(("name", "text", "named"), OTHER_KINDS)
def test_a_file_of_another_kind_is_named(tmp_path: Path, name: str, text: str, named: str) -> None:
    """Each was 'not a Google ADK eval file', or for JSON lines 'invalid JSON: trailing
    characters', without a word of what the file is or where it goes."""
    path = tmp_path / name
    path.write_text(text)
    done = agenteval("import", "adk", str(path), "-o", str(tmp_path / "out"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"error: {path}: not a Google ADK eval file ({named})",
        "1 problem found.",
    ]


def test_other_unknown_keys_are_warnings(tmp_path: Path) -> None:
    """A key that spells no ADK field is ignored, as trpc-agent-go ignores one, but said."""
    source = tmp_path / "s.json"
    notes = {**turn(), "intermediate_data": {"tool_uses": [], "reviewer": "kim"}}
    source.write_text(json.dumps({"eval_set_id": "s", "eval_cases": [case("a", notes)]}))
    out = tmp_path / "out"
    done = agenteval("import", "adk", str(source), "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        f"warning: {source}: eval_cases[0].conversation[0].intermediate_data.reviewer: "
        "'reviewer' is not a field of ADK's IntermediateData; ignored"
    ) in done.stderr.splitlines()
    assert (out / "s.evalset.json").is_file()
