"""Up-front checks of deterministic criteria: the problems a run would meet on every turn."""

from __future__ import annotations

from agenteval.evaluators.checks.criteria import (
    check_final_response_criterion,
    check_json_criterion,
    check_length_criterion,
    check_rouge_criterion,
    check_trajectory_criterion,
)
from agenteval.schema.metric import (
    FinalResponseCriterion,
    JSONCriterion,
    LengthCriterion,
    RougeCriterion,
    ToolTrajectoryCriterion,
)


def paths_and_messages(issues: object) -> list[tuple[str, str, bool]]:
    return [(i.path, i.message, i.warning) for i in issues]  # type: ignore[attr-defined]


def test_length_bounds_must_be_set_non_negative_and_ordered() -> None:
    assert paths_and_messages(check_length_criterion(LengthCriterion(), "l")) == [
        ("l", "length needs min or max", False)
    ]
    assert paths_and_messages(check_length_criterion(LengthCriterion(min=5, max=-1), "l")) == [
        ("l.max", "max is negative (-1)", False),
        ("l", "min 5 is greater than max -1", False),
    ]


def test_json_criterion_strategy_trees_tolerance_and_schema() -> None:
    criterion = JSONCriterion.model_validate(
        {
            "matchStrategy": "fuzzy",
            "numberTolerance": -0.5,
            "onlyTree": {"a": 1},
            "ignoreTree": {"b": True},
            "schema": {"type": 12},
        }
    )
    found = paths_and_messages(check_json_criterion(criterion, "j"))
    assert [path for path, _, _ in found] == [
        "j.matchStrategy",
        "j.numberTolerance",
        "j",
        "j.onlyTree.a",
        "j.schema",
    ]
    assert found[1][1] == "numberTolerance is negative (-0.5)"


def test_rouge_type_and_measure() -> None:
    criterion = RougeCriterion.model_validate({"rougeType": "rouge0", "measure": "f2"})
    assert [p for p, _, _ in paths_and_messages(check_rouge_criterion(criterion, "r"))] == [
        "r.rougeType",
        "r.measure",
    ]


def test_rouge_thresholds_outside_0_to_1_are_errors() -> None:
    criterion = RougeCriterion.model_validate(
        {"rougeType": "rouge1", "measure": "f1", "threshold": {"f1": 60, "recall": -0.1}}
    )
    assert paths_and_messages(check_rouge_criterion(criterion, "r")) == [
        ("r.threshold.recall", "-0.1 is outside ROUGE's scores (0 to 1)", False),
        ("r.threshold.f1", "60 is outside ROUGE's scores (0 to 1)", False),
    ]
    criterion.threshold.f1, criterion.threshold.recall = 1, 0
    assert paths_and_messages(check_rouge_criterion(criterion, "r")) == []


def test_final_response_without_any_check_is_a_warning() -> None:
    assert paths_and_messages(check_final_response_criterion(FinalResponseCriterion(), "f")) == [
        ("f", "configures none of text, json, rouge or xml, so every turn fails", True)
    ]


def test_a_tool_strategy_without_name_criterion_is_a_warning() -> None:
    criterion = ToolTrajectoryCriterion.model_validate({"toolStrategy": {"search": {}}})
    found = paths_and_messages(check_trajectory_criterion(criterion, "t"))
    assert [(p, w) for p, _, w in found] == [("t.toolStrategy.search", True)]
