"""agenteval diff: regressions, improvements, appeared/disappeared cases and metrics."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from agenteval.inputs.loading import load_result
from agenteval.inputs.result_inputs import read_parts
from agenteval.report.diff import ChangeKind, diff_results, render_diff
from agenteval.schema.result import EvalSetResult, Fingerprint
from agenteval.schema.status import EvalStatus
from sample_results import F, N, P, case_result, eval_set_result, metric
from trpc_fixtures import FIXTURES


def shop(cases: dict[str, list[tuple[str, float, float]]]) -> EvalSetResult:
    """One run of eval set "shop": evalId → [(metric, score, threshold)]."""
    return eval_set_result(
        "shop",
        [
            case_result("shop", eval_id, [metric(name, s, t) for name, s, t in metrics])
            for eval_id, metrics in cases.items()
        ],
    )


BASE = {
    "flip": [("m", 1.0, 1.0)],
    "within": [("rouge", 0.8, 0.5)],
    "beyond": [("rouge", 0.9, 0.5)],
    "gone": [("m", 1.0, 1.0)],
    "fixed": [("m", 0.4, 1.0)],
    "grows": [("m", 1.0, 1.0)],
}
NEW = {
    "fresh": [("m", 0.0, 1.0)],
    "flip": [("m", 0.0, 1.0)],
    "within": [("rouge", 0.75, 0.5)],  # −0.05: exactly the tolerance
    "beyond": [("rouge", 0.7, 0.5)],  # −0.2: still passing, but a drop
    "fixed": [("m", 1.0, 1.0)],
    "grows": [("m", 1.0, 1.0), ("extra", 1.0, 0.5)],
}


def rows(diff_json: dict[str, object]) -> list[tuple[object, ...]]:
    changes = diff_json["changes"]
    assert isinstance(changes, list)
    return [(c["kind"], c["evalId"], c["metricName"], c["regression"]) for c in changes]


def test_every_kind_of_change() -> None:
    diff = diff_results([shop(BASE)], [shop(NEW)], tolerance=0.05)
    assert diff.regressed
    data = diff.to_json()
    json.dumps(data)  # plain JSON data
    assert rows(data) == [
        ("regressed", "flip", None, True),
        ("regressed", "flip", "m", True),
        ("regressed", "beyond", "rouge", True),
        ("disappeared", "gone", None, True),
        ("appeared", "fresh", None, False),
        ("appeared", "grows", "extra", False),
        ("improved", "fixed", None, False),
        ("improved", "fixed", "m", False),
    ]
    by_key = {(c.eval_id, c.metric_name): c for c in diff.changes}
    assert by_key[("flip", None)].reasons == ("status passed → failed", "score 1 → 0 (−1)")
    assert by_key[("beyond", "rouge")].reasons == ("score 0.9 → 0.7 (−0.2)",)
    assert by_key[("fixed", "m")].reasons == ("status failed → passed", "score 0.4 → 1 (+0.6)")
    assert by_key[("gone", None)].reasons == ("missing, was passed 1",)
    assert by_key[("fresh", None)].reasons == ("new, failed 0",)
    assert ("within", "rouge") not in by_key and ("within", None) not in by_key
    assert data["counts"] == {
        "regressed": 3,
        "disappeared": 1,
        "unscored": 0,
        "appeared": 2,
        "changed": 0,
        "improved": 2,
        "regressions": 4,
    }
    # Cases in both: flip, within, beyond, fixed, grows; their metrics in both: 5 ("extra" is new).
    assert (data["comparedCases"], data["comparedMetrics"]) == (5, 5)
    assert data["changes"][1] == {
        "kind": "regressed",
        "regression": True,
        "evalSetId": "shop",
        "evalId": "flip",
        "metricName": "m",
        "base": {"status": "passed", "score": 1.0, "threshold": 1.0},
        "new": {"status": "failed", "score": 0.0, "threshold": 1.0},
        "reasons": ["status passed → failed", "score 1 → 0 (−1)"],
    }


def test_tolerance_decides_a_score_drop() -> None:
    base, new = shop({"c": [("rouge", 0.8, 0.5)]}), shop({"c": [("rouge", 0.75, 0.5)]})
    assert not diff_results([base], [new], tolerance=0.05).regressed
    assert not diff_results([base], [new], tolerance=0.1).regressed
    strict = diff_results([base], [new])  # default tolerance 0
    assert strict.regressed
    assert [(c.kind, c.metric_name, c.reasons) for c in strict.changes] == [
        (ChangeKind.REGRESSED, "rouge", ("score 0.8 → 0.75 (−0.05)",))
    ]
    assert diff_results([new], [base], tolerance=0.049).of_kind(ChangeKind.IMPROVED)
    assert not diff_results([new], [base], tolerance=0.05).changes
    with pytest.raises(ValueError, match="tolerance must be a finite number >= 0"):
        diff_results([base], [new], tolerance=-0.1)


def test_exit_verdict_without_regressions() -> None:
    base = shop({"fixed": [("m", 0.4, 1.0)], "same": [("m", 1.0, 1.0)]})
    new = shop({"fixed": [("m", 1.0, 1.0)], "same": [("m", 1.0, 1.0)], "fresh": [("m", 1.0, 1.0)]})
    diff = diff_results([base], [new])
    assert not diff.regressed
    assert [c.kind for c in diff.changes] == [
        ChangeKind.APPEARED,
        ChangeKind.IMPROVED,
        ChangeKind.IMPROVED,
    ]
    # A case that disappeared is a regression unless the caller says otherwise.
    smaller = shop({"same": [("m", 1.0, 1.0)]})
    assert diff_results([base], [smaller]).regressed
    assert not diff_results([base], [smaller], missing_is_regression=False).regressed
    (gone,) = diff_results([base], [smaller], missing_is_regression=False).changes
    assert (gone.kind, gone.eval_id, gone.regression) == (ChangeKind.DISAPPEARED, "fixed", False)


def test_status_order() -> None:
    def one(status_case: list[tuple[str, float, float]], error: str = "") -> EvalSetResult:
        metrics = [metric(n, s, t) for n, s, t in status_case]
        return eval_set_result("s", [case_result("s", "c", metrics, error=error)])

    passed, failed = one([("m", 1.0, 1.0)]), one([("m", 0.0, 1.0)])
    not_evaluated = one([])
    pairs = {
        (P, N): (ChangeKind.REGRESSED, True),
        (N, F): (ChangeKind.REGRESSED, True),
        (N, P): (ChangeKind.IMPROVED, False),
        (F, N): (ChangeKind.CHANGED, False),  # nothing was fixed: it is just not measured
    }
    sides = {P: passed, F: failed, N: not_evaluated}
    for (before, after), (kind, regression) in pairs.items():
        changes = diff_results([sides[before]], [sides[after]]).changes
        (case,) = [c for c in changes if c.metric_name is None]
        assert (case.kind, case.regression) == (kind, regression), (before, after)
        assert case.reasons[0] == f"status {before.value} → {after.value}"


def test_threshold_change_is_noted() -> None:
    base, new = shop({"c": [("m", 0.7, 0.8)]}), shop({"c": [("m", 0.7, 0.6)]})
    changes = diff_results([base], [new]).changes
    assert [(c.kind, c.metric_name, c.reasons) for c in changes] == [
        (ChangeKind.IMPROVED, None, ("status failed → passed", "score 0 → 1 (+1)")),
        (ChangeKind.IMPROVED, "m", ("status failed → passed", "threshold 0.8 → 0.6")),
    ]


def test_several_runs_use_case_status_and_metric_averages() -> None:
    def runs(scores: list[float]) -> EvalSetResult:
        cases = [
            case_result("s", "c", [metric("m", score, 0.8)], run_id=run)
            for run, score in enumerate(scores, start=1)
        ]
        return eval_set_result("s", cases, num_runs=len(scores))

    diff = diff_results([runs([1.0, 1.0, 0.5])], [runs([1.0, 0.5, 0.5])], tolerance=0.1)
    # Averages 0.8333 (passed) → 0.6667 (failed); case score = mean run score 2/3 → 1/3.
    assert [(c.metric_name, c.reasons) for c in diff.changes] == [
        (None, ("status passed → failed", "score 0.6667 → 0.3333 (−0.3333)")),
        ("m", ("status passed → failed", "score 0.8333 → 0.6667 (−0.1667)")),
    ]
    assert diff.regressed


def test_several_runs_of_a_custom_aggregator_compare_its_verdicts() -> None:
    # The metric passes in every run of both sides; the case aggregator passed every run
    # before and failed every run after: a regression, which the averages did not see.
    def runs(status: EvalStatus) -> EvalSetResult:
        cases = [
            case_result("s", "c", [metric("m", 1.0)], run_id=run, status=status)
            for run in (1, 2, 3)
        ]
        result = eval_set_result("s", cases, num_runs=3)
        result.fingerprint = Fingerprint(eval_set="sha256:e", case_aggregator="strict")
        return result

    diff = diff_results([runs(P)], [runs(F)], tolerance=0.0)
    assert [(c.metric_name, c.reasons) for c in diff.changes] == [
        (None, ("status passed → failed",)),
    ]
    assert diff.regressed


def test_a_case_that_became_incomplete_is_a_regression() -> None:
    # A judge that failed in one run of two: the metric's average over the other run hid it,
    # while show, merge and the exit code said INCOMPLETE.
    def runs(second: EvalStatus | None) -> EvalSetResult:
        cases = [
            case_result("s", "c", [metric("m", 1.0, 0.8)], run_id=1),
            case_result("s", "c", [metric("m", 1.0, 0.8, status=second)], run_id=2),
        ]
        return eval_set_result("s", cases, num_runs=2)

    diff = diff_results([runs(None)], [runs(N)], tolerance=0.0)
    assert [(c.metric_name, c.reasons) for c in diff.changes] == [
        (None, ("status passed → not_evaluated",)),
    ]
    assert diff.regressed
    # judgeFailures says so too, for a case whose metric results were all written.
    marked = runs(None)
    marked.judge_failures = ["c"]
    assert [c.reasons for c in diff_results([runs(None)], [marked], 0.0).changes] == [
        ("status passed → not_evaluated",)
    ]


def test_render_diff() -> None:
    out = io.StringIO()
    console = Console(file=out, width=160, color_system=None, force_terminal=False)
    render_diff(console, diff_results([shop(BASE)], [shop(NEW)], tolerance=0.05))
    lines = [line.rstrip() for line in out.getvalue().splitlines()]
    assert lines[-1] == (
        "REGRESSED: 4 regressions, 2 improved, 2 appeared, 1 disappeared"
        " · 5 cases and 5 metrics compared · tolerance 0.05"
    )
    assert lines[0].split() == ["change", "eval", "set", "case", "metric", "base", "new", "why"]
    table = [line.split() for line in lines[2:-1]]
    assert [row[:4] for row in table] == [
        ["regressed", "shop", "flip", "(case)"],
        ["regressed", "shop", "flip", "m"],
        ["regressed", "shop", "beyond", "rouge"],
        ["disappeared", "shop", "gone", "(case)"],
        ["appeared", "shop", "fresh", "(case)"],
        ["appeared", "shop", "grows", "extra"],
        ["improved", "shop", "fixed", "(case)"],
        ["improved", "shop", "fixed", "m"],
    ]
    assert "passed 0.9   passed 0.7   score 0.9 → 0.7 (−0.2)" in lines[4]

    quiet = io.StringIO()
    same = shop(BASE)
    render_diff(Console(file=quiet, width=100, color_system=None), diff_results([same], [same]))
    assert quiet.getvalue() == (
        "NO REGRESSION: 0 regressions · 6 cases and 6 metrics compared · tolerance 0\n"
    )


def test_one_case_and_one_metric_are_singular() -> None:
    # Was "1 cases and 1 metrics compared".
    out = io.StringIO()
    one = shop({"only": [("m", 1.0, 1.0)]})
    render_diff(Console(file=out, width=100, color_system=None), diff_results([one], [one]))
    assert out.getvalue() == (
        "NO REGRESSION: 0 regressions · 1 case and 1 metric compared · tolerance 0\n"
    )


def test_cases_missing_from_a_partial_eval_set_are_unscored_not_gone() -> None:
    # A run stopped after "a" of "shop": "b" was never scored there, while "x" is gone from
    # the finished eval set "other". Was: "b" disappeared (a regression) like "x".
    base = [shop({"a": [("m", 1.0, 1.0)], "b": [("m", 1.0, 1.0)]})]
    base.append(eval_set_result("other", [case_result("other", "x", [metric("m", 1, 1)])]))
    stopped = shop({"a": [("m", 1.0, 1.0)]})
    stopped.partial = True
    other = eval_set_result("other", [case_result("other", "y", [metric("m", 1, 1)])])
    diff = diff_results(base, [stopped, other])
    assert rows(diff.to_json()) == [
        ("disappeared", "x", None, True),
        ("unscored", "b", None, False),
        ("appeared", "y", None, False),
    ]
    assert diff.changes[1].reasons == ("not scored in NEW (interrupted)",)
    assert diff.incomplete and diff.partial == {"base": False, "new": True}
    assert diff.not_scored() == {"base": 0, "new": 1}
    # The other way round the stopped side is BASE, and "b" is not new there either.
    back = diff_results([stopped, other], base)
    assert [(c.kind, c.eval_id) for c in back.changes] == [
        (ChangeKind.DISAPPEARED, "y"),
        (ChangeKind.UNSCORED, "b"),
        (ChangeKind.APPEARED, "x"),
    ]
    assert back.not_scored() == {"base": 1, "new": 0} and back.regressed
    out = io.StringIO()
    render_diff(Console(file=out, width=160, color_system=None), back)
    lines = out.getvalue().splitlines()
    assert lines[-2:] == [
        "BASE is partial (interrupted): 1 case not scored",
        "INCOMPLETE: 1 regression, 1 appeared, 1 disappeared, 1 unscored"
        " · 1 case and 1 metric compared · tolerance 0",
    ]


def test_go_results_against_themselves() -> None:
    results = [load_result(p) for p in sorted(FIXTURES.rglob("*.evalset_result.json"))]
    diff = diff_results(results, results)
    assert not diff.changes and not diff.regressed
    # math-basic is in three example dirs: results sharing an evalSetId are joined, not lost.
    assert diff.compared_cases == len(
        {(r.eval_set_id, c.eval_id) for r in results for c in r.case_results()}
    )
    assert diff.compared_cases < sum(len(r.case_results()) for r in results)


def test_a_go_file_without_case_scores_is_no_drop_from_one_with_them(tmp_path: Path) -> None:
    # trpc-agent-go writes no case score. Read as 0, the same passing cases rescored by
    # agenteval (score 1) were "regressed: score 1 → 0" against Go's file: exit 1.
    (go_file,) = sorted((FIXTURES / "local" / "output").rglob("*.evalset_result.json"))
    data = json.loads(go_file.read_text(encoding="utf-8"))
    assert all("score" not in case for case in data["evalCaseResults"])
    for case in data["evalCaseResults"]:
        case["score"] = 1
    ours = tmp_path / "ours.evalset_result.json"
    ours.write_text(json.dumps(data), encoding="utf-8")
    go, scored = read_parts([go_file]), read_parts([ours])
    for base, new in ((scored, go), (go, scored)):
        diff = diff_results(base, new)
        assert (diff.changes, diff.regressed, diff.compared_cases) == ([], False, 2)
    # The scored side still counts: a real drop there is a regression.
    data["evalCaseResults"][0]["score"] = 0.5
    lower = tmp_path / "lower.evalset_result.json"
    lower.write_text(json.dumps(data), encoding="utf-8")
    dropped = diff_results(scored, read_parts([lower]))
    assert [(c.eval_id, c.metric_name, c.reasons) for c in dropped.changes] == [
        ("calc_add", None, ("score 1 → 0.5 (−0.5)",))
    ]
