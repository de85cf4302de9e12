"""Unknown keys: located, with the key meant; open objects stay open."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from agenteval.inputs.unknown_keys import (
    Strictness,
    UnknownKey,
    case_unknown_keys,
    closed_case,
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


def _objects(value: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """The path of every object in ``value`` (itself first)."""
    found: list[tuple[object, ...]] = []
    if isinstance(value, dict):
        found.append(path)
        for key, item in value.items():
            found += _objects(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _objects(item, (*path, index))
    return found


def _at(value: object, path: tuple[object, ...]) -> dict[str, object]:
    for part in path:
        value = value[part]  # type: ignore[index]
    assert isinstance(value, dict)
    return value


def _fixture_cases() -> list[dict[str, object]]:
    root = Path(__file__).parents[1] / "fixtures"
    cases: list[dict[str, object]] = []
    for path in sorted(root.rglob("*.evalset.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("evalCases"), list):
            cases += [c for c in data["evalCases"] if isinstance(c, dict) and "turns" not in c]
    return cases


def test_a_case_the_closed_twin_accepts_is_one_the_walk_finds_no_key_in() -> None:
    """closed_case spares the walk only where the walk would report nothing: for every
    object of every vendored eval set's cases, a key added there, or a defined key given by
    its Python name, is refused by the twin exactly when the walk reports a key."""
    cases = _fixture_cases()
    assert len(cases) > 40
    tried = refused = 0
    for raw in cases:
        try:
            plain = EvalCase.model_validate(raw)
        except ValidationError:
            continue
        case, closed = closed_case(raw)
        assert case == plain and type(case) is EvalCase
        assert closed == (case_unknown_keys(raw, "f", 0) == [])
        for path in _objects(raw):
            variants = []
            added = copy.deepcopy(raw)
            _at(added, path)["zzNotAKey"] = 1
            variants.append(added)
            for key in list(_at(raw, path)):
                if any(c.isupper() for c in key):  # a camelCase key: its Python name
                    renamed = copy.deepcopy(raw)
                    target = _at(renamed, path)
                    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in key)
                    target[snake] = target.pop(key)
                    variants.append(renamed)
                    break
            for variant in variants:
                try:
                    expected = EvalCase.model_validate(variant)
                except ValidationError:
                    continue
                tried += 1
                case, closed = closed_case(variant)
                walked = case_unknown_keys(variant, "f", 0)
                assert closed == (walked == []), (path, walked)
                assert case == expected
                refused += not closed
    # Free-form values (tool arguments, state) take any key: the twin and the walk agree
    # there too, and most additions land in the format's own objects.
    assert tried > 500 and refused > tried // 2
    # Building the twin left the models as pydantic made them.
    assert all(m.__dict__["__pydantic_complete__"] for m in (EvalCase, Invocation, Message, Tool))
