"""A ``--traces`` entry whose user messages differ from its case's reference turns is named.

Before, such a trace was scored as if it belonged to the case: PASSED, exit 0, no word.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agenteval.checks.trace_match import trace_mismatch_problem
from agenteval.schema.evalset import ConversationScenario, EvalCase, Invocation
from cli_process import run_cli


def agenteval(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m agenteval ARGS``."""
    return run_cli(args, timeout=120)


def turn(user: str, answer: str = "Paris") -> dict[str, Any]:
    return {"userContent": {"role": "user", "content": user},
            "finalResponse": {"role": "assistant", "content": answer}}  # fmt: skip


def invocation(user: str) -> Invocation:
    return Invocation.model_validate(turn(user))


def write_suite(
    tmp_path: Path, cases: list[dict[str, Any]], records: list[dict[str, Any]], whole: bool = False
) -> tuple[Path, Path]:
    """The eval set, its metric file and a traces file; ``whole``: an eval set api reads whole
    (a key given twice is not streamed, evalset_scan.py), not case by case."""
    evalset = tmp_path / "geo.evalset.json"
    text = json.dumps({"evalSetId": "geo", "evalCases": cases})
    evalset.write_text(text.replace("{", '{"evalSetId": "geo", ', 1) if whole else text)
    metric = {"metricName": "response_match_score", "threshold": 0.5}
    (tmp_path / "geo.metrics.json").write_text(json.dumps([metric]))
    traces = tmp_path / "traces.jsonl"
    traces.write_text("".join(json.dumps(r) + "\n" for r in records))
    return evalset, traces


CASES = [
    {"evalId": "capital_fr", "conversation": [turn("Capital of France?"), turn("And Italy?", "Rome")],
     "sessionInput": {}},
    {"evalId": "capital_de", "conversation": [turn("Capital of Germany?", "Berlin")],
     "sessionInput": {}},
]  # fmt: skip


@pytest.mark.parametrize("whole", [False, True], ids=["case by case", "read whole"])
def test_a_trace_of_another_question_is_a_warning_and_an_error_under_strict(
    tmp_path: Path, whole: bool
) -> None:
    # capital_fr's recording answers the same words to other questions in turn 2.
    records = [
        {"evalId": "capital_fr", "actualConversation": [turn("Capital  of France?\n"),
                                                        turn("And Spain?", "Rome")]},
        {"evalId": "capital_de", "actualConversation": [turn("Capital of Germany?", "Berlin")]},
    ]  # fmt: skip
    evalset, traces = write_suite(tmp_path, CASES, records, whole)
    warning = (
        f"{evalset}: evalCases[0].conversation[1].userContent: case 'capital_fr': the --traces "
        "user message of turn 2 differs from the reference: 'And Spain?' vs 'And Italy?' "
        "(a trace of another question? check the evalId it was recorded under)"
    )
    # Read whole, the key given twice that makes it so is said too (inputs/duplicate_keys.py).
    repeated = [
        f'warning: {evalset}: evalSetId: key "evalSetId" given twice; the last value ("geo") '
        "is used (Go's encoding/json reads the last one too; remove the other)"
    ][: int(whole)]
    done = agenteval("run", "-e", str(evalset), "--traces", str(traces))
    assert done.returncode == 0, done.stdout + done.stderr  # the answers do match
    assert done.stderr.splitlines() == [*repeated, f"warning: {warning}"]
    done = agenteval("run", "-e", str(evalset), "--traces", str(traces), "--strict")
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"error: {warning}" in done.stderr.splitlines()
    done = agenteval("validate", "-e", str(evalset), "--traces", str(traces))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.splitlines() == [*repeated, f"warning: {warning}"]


def test_a_mismatch_among_many_cases_is_named(tmp_path: Path) -> None:
    cases = [{"evalId": f"c{i}", "conversation": [turn(f"question {i}")], "sessionInput": {}}
             for i in range(300)]  # fmt: skip
    records = [{"evalId": f"c{i}", "actualConversation": [turn(f"question {i}")]}
               for i in range(300)]  # fmt: skip
    records[123]["actualConversation"] = [turn("question 321")]
    evalset, traces = write_suite(tmp_path, cases, records)
    done = agenteval("run", "-e", str(evalset), "--traces", str(traces))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"warning: {evalset}: evalCases[123].conversation[0].userContent: case 'c123': the "
        "--traces user message of turn 1 differs from the reference: 'question 321' vs "
        "'question 123' (a trace of another question? check the evalId it was recorded under)"
    ]


def test_each_run_of_a_recorded_replay_is_compared() -> None:
    case = EvalCase.model_validate(CASES[1])
    traces = {"capital_de": [invocation("Capital of Germany?")],
              "capital_de\x00run 2": [invocation("Capital of Austria?")]}  # fmt: skip
    assert trace_mismatch_problem(4, case, "f", traces, num_runs=1) is None
    problem = trace_mismatch_problem(4, case, "f", traces, num_runs=2)
    assert problem is not None
    assert problem.path == "evalCases[4].conversation[0].userContent"
    assert "the --traces user message of run 2, turn 1 differs" in problem.message


def test_a_scenario_is_compared_by_its_starting_prompt() -> None:
    case = EvalCase(
        eval_id="sim",
        conversation_scenario=ConversationScenario(starting_prompt="Book a flight to Oslo"),
    )
    same = {"sim": [invocation("Book a flight to Oslo"), invocation("Tuesday, please")]}
    other = {"sim": [invocation("Book a hotel")]}
    assert trace_mismatch_problem(0, case, "f", same) is None
    problem = trace_mismatch_problem(0, case, "f", other)
    assert problem is not None
    assert problem.path == "evalCases[0].conversationScenario.startingPrompt"


@pytest.mark.parametrize(
    "reference",
    [[turn("")], [{"finalResponse": {"role": "assistant", "content": "x"}}]],
    ids=["empty user text", "no user content"],
)
def test_a_reference_without_user_text_is_not_compared(reference: list[dict[str, Any]]) -> None:
    case = EvalCase.model_validate({"evalId": "c", "conversation": reference})
    assert trace_mismatch_problem(0, case, "f", {"c": [invocation("anything")]}) is None


def test_long_texts_are_cut_in_the_message() -> None:
    case = EvalCase.model_validate({"evalId": "c", "conversation": [turn("a" * 500)]})
    problem = trace_mismatch_problem(0, case, "f", {"c": [invocation("b" * 500)]})
    assert problem is not None
    assert f"'{'b' * 59}…' vs '{'a' * 59}…'" in problem.message
