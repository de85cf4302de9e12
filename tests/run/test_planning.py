"""plan_evalset: one eval set and its metric file checked and planned, beside the runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import agenteval.evaluators.builtins  # noqa: F401  (registers the built-in evaluators)
from agenteval.checks.cross_file import Findings
from agenteval.run.planning import PlanRules, metrics_path_for, plan_evalset

METRICS = [
    {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    },
    {"metricName": "response_match_score", "threshold": 0.5},
]


def case(eval_id: str, answer: Any = "Paris") -> dict[str, Any]:
    turn = {
        "userContent": {"role": "user", "content": "capital?"},
        "finalResponse": {"role": "assistant", "content": answer},
    }
    return {
        "evalId": eval_id,
        "evalMode": "trace",
        "sessionInput": {"appName": "app", "userId": "u"},
        "actualConversation": [turn],
        "conversation": [turn],
    }


def write(directory: Path, cases: list[Any], eval_set_id: str = "geo") -> Path:
    path = directory / "geo.evalset.json"
    path.write_text(json.dumps({"evalSetId": eval_set_id, "evalCases": cases}))
    (directory / "geo.metrics.json").write_text(json.dumps(METRICS))
    return path


def test_a_valid_file_is_planned_with_its_metrics(tmp_path: Path) -> None:
    path = write(tmp_path, [case("fr"), case("it")])
    found = Findings()
    plan = plan_evalset(path, PlanRules(skip=frozenset({"response_match_score"})), found, None)
    assert plan is not None
    assert (found.problems, found.warnings) == ([], [])
    assert plan.eval_set_id == "geo"
    assert plan.case_ids == ["fr", "it"]
    assert [p.metric.metric_name for p in plan.metrics] == ["final_response_avg_score"]
    assert [m.metric_name for m in plan.all_metrics] == [m["metricName"] for m in METRICS]
    assert plan.metrics_path == tmp_path / "geo.metrics.json"
    assert plan.fingerprint is not None


def test_an_id_that_differs_from_the_file_name_warns(tmp_path: Path) -> None:
    path = write(tmp_path, [case("fr")], eval_set_id="other")
    found = Findings()
    plan = plan_evalset(path, PlanRules(), found, None)
    assert plan is not None and plan.eval_set_id == "geo"
    assert [str(w) for w in found.warnings] == [
        f"{path}: evalSetId: 'other' differs from the file name; results use 'geo'"
    ]


def test_a_case_that_does_not_validate_is_located(tmp_path: Path) -> None:
    # The case-by-case pass hands such a file back; read whole, its problem is located.
    path = write(tmp_path, [case("fr"), case("it", answer={"parts": 3})])
    found = Findings()
    assert plan_evalset(path, PlanRules(), found, None) is None
    assert found.problems != []
    assert {(p.file, p.path.split(".")[0]) for p in found.problems} == {(str(path), "evalCases[1]")}


def test_the_metric_file_of_an_eval_set(tmp_path: Path) -> None:
    evalset = tmp_path / "geo.evalset.json"
    assert metrics_path_for(evalset, None) == tmp_path / "geo.metrics.json"
    assert metrics_path_for(evalset, str(tmp_path)) == tmp_path / "geo.metrics.json"
    assert metrics_path_for(evalset, "m.json") == Path("m.json")


def test_a_metric_file_that_names_no_metric_warns_once(tmp_path: Path) -> None:
    """``[]`` or ``null`` parse, but the run would score nothing: said, as a missing file is."""
    for text in ("[]", "null"):
        path = write(tmp_path, [case("fr")])
        metrics = tmp_path / "geo.metrics.json"
        metrics.write_text(text)
        found = Findings()
        seen: set[Path] = set()
        plan = plan_evalset(path, PlanRules(), found, None, seen)
        assert plan is not None and plan.metrics == []
        expected = (
            f"{metrics}: the metric file holds no metric; every case will be not_evaluated "
            "(list metrics in it: `agenteval evaluators` names the evaluators)"
        )
        assert [str(w) for w in found.warnings] == [expected]
        # A second eval set sharing the file: the file was checked, no second warning.
        plan_evalset(path, PlanRules(), found, None, seen)
        assert [str(w) for w in found.warnings] == [expected]
