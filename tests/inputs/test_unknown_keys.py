"""Unknown keys: located, with the key meant; open objects stay open."""

from __future__ import annotations

import pytest

from agenteval.inputs.unknown_keys import (
    Strictness,
    UnknownKey,
    closest_key,
    evalset_unknown_keys,
    is_near_miss,
    metrics_unknown_keys,
    sort_unknown,
)
from agenteval.schema.evalset import EvalCase, EvalSet, Invocation, Message, SessionInput, Tool
from agenteval.schema.metric import Criterion, EvalMetric, LLMCriterion


def test_closest_key_folds_case_and_underscores_then_spelling_then_one_level_down() -> None:
    assert closest_key("evalSetID", EvalSet) == "evalSetId"
    assert closest_key("eval_cases", EvalSet) == "evalCases"
    assert closest_key("tool_calls", Invocation) == "tools"
    assert closest_key("threshhold", EvalMetric) == "threshold"
    assert closest_key("numSamples", LLMCriterion) == "judgeModel.numSamples"
    assert closest_key("zzz", EvalCase) == ""


def test_unknown_keys_of_an_eval_set_are_located_everywhere() -> None:
    data = {
        "evalSetId": "s",
        "$schema": "../schemas/evalset.schema.json",
        "evalCases": [
            None,
            {
                "evalId": "c",
                "sessionInput": {"appName": "a", "usrId": "u", "state": {"free": 1}},
                "conversation": [
                    {"userContent": {"role": "user", "content": "q", "contnt": "x"}},
                    {"tools": [{"name": "t", "arguments": {"anything": 1}, "reslt": 2}]},
                ],
            },
        ],
    }
    found = [str(p) for p in evalset_unknown_keys(data, "f.json")]
    assert found == [
        "f.json: evalCases[1].sessionInput.usrId: 'usrId' is not a field of SessionInput "
        "(did you mean 'userId'?)",
        "f.json: evalCases[1].conversation[0].userContent.contnt: 'contnt' is not a field of "
        "Message (did you mean 'content'?)",
        "f.json: evalCases[1].conversation[1].tools[0].reslt: 'reslt' is not a field of Tool "
        "(did you mean 'result'?)",
    ]


def test_a_key_with_no_likely_meaning_lists_the_known_ones() -> None:
    (problem,) = evalset_unknown_keys({"evalCases": [], "owner": "me"}, "f.json")
    assert problem.hint.startswith("known: evalSetId, name, description, evalCases")


def test_metric_criteria_are_closed_for_builtins_and_open_for_plugins() -> None:
    data = [
        {"metricName": "tool_trajectory_avg_score", "criterion": {"toolTrajectry": {}}},
        {"metricName": "mine", "criterion": {"myOwnKey": 1, "llmJudge": {"extra": 1}}},
        {"metricName": "gate", "evaluatorName": "final_response_gate", "criterion": {"gate": {}}},
    ]
    found = metrics_unknown_keys(data, "m.json", builtin=lambda name: name != "mine")
    assert [(p.path, p.hint) for p in found] == [
        ("[0].criterion.toolTrajectry", "did you mean 'toolTrajectory'?"),
        # The plugin's criterion may hold its own keys; llmJudge is still trpc's.
        ("[1].criterion.llmJudge.extra", "known: rubrics, judgeModel, sampleParallelismEnabled, "
         "sampleParallelism, template"),
    ]  # fmt: skip


def test_a_metric_file_that_is_not_an_array_has_no_key_problems() -> None:
    assert metrics_unknown_keys({"metricName": "x"}, "m.json") == []


def test_a_key_with_a_suggestion_is_a_near_miss() -> None:
    near, far = evalset_unknown_keys({"evalCases": [], "evalSetID": "s", "owner": "me"}, "f")
    assert isinstance(near, UnknownKey) and (near.meant, near.near_miss) == ("evalSetId", True)
    assert isinstance(far, UnknownKey) and (far.meant, far.near_miss) == ("", False)


def test_sort_unknown_near_misses_error_unless_lenient_others_only_when_strict() -> None:
    near, far = evalset_unknown_keys({"evalCases": [], "evalSetID": "s", "owner": "me"}, "f")
    assert sort_unknown([near, far], Strictness.DEFAULT) == ([near], [far])
    assert sort_unknown([near, far], Strictness.LENIENT) == ([], [near, far])
    assert sort_unknown([near, far], Strictness.STRICT) == ([near, far], [])


@pytest.mark.parametrize(
    ("strict", "lenient", "strictness"),
    [
        (False, False, Strictness.DEFAULT),
        (True, False, Strictness.STRICT),
        (False, True, Strictness.LENIENT),
    ],
)
def test_the_two_flags_are_one_strictness(
    strict: bool, lenient: bool, strictness: Strictness
) -> None:
    assert Strictness.of(strict=strict, lenient=lenient) is strictness
    assert strictness.strict is strict


@pytest.mark.parametrize(
    ("key", "model"),
    [
        ("threshhold", EvalMetric), ("thresold", EvalMetric), ("treshold", EvalMetric),
        ("metric_name", EvalMetric), ("evaluator", EvalMetric), ("tool_calls", Invocation),
        ("evalSetID", EvalSet), ("eval_cases", EvalSet), ("nmae", EvalSet),
        ("descripton", EvalSet), ("numSamples", LLMCriterion), ("usrId", SessionInput),
        ("contnt", Message), ("toolTrajectry", Criterion),
    ],
)  # fmt: skip
def test_typos_are_near_misses(key: str, model: type) -> None:
    assert is_near_miss(key, closest_key(key, model)), closest_key(key, model)


@pytest.mark.parametrize(
    ("key", "model", "meant"),
    [
        ("args", Tool, "arguments"), ("res", Tool, "result"),
        ("response", Invocation, "finalResponse"),
        ("thresh", EvalMetric, "threshold"),
    ],
)  # fmt: skip
def test_abbreviations_are_near_misses(key: str, model: type, meant: str) -> None:
    # An abbreviated key reads as absent on both sides when the reference uses it too,
    # so the comparison passes: an error, not a warning.
    assert closest_key(key, model) == meant
    assert is_near_miss(key, meant)


@pytest.mark.parametrize(
    ("key", "model"),
    [
        ("version", EvalCase), ("enabled", EvalCase), ("version", EvalMetric),
        ("description", EvalMetric), ("owner", EvalSet), ("metadata", EvalCase),
    ],
)  # fmt: skip
def test_keys_of_ones_own_that_share_letters_with_a_format_key_are_not(
    key: str, model: type
) -> None:
    # They keep a "did you mean" hint when difflib finds one, but only warn.
    assert not is_near_miss(key, closest_key(key, model))
