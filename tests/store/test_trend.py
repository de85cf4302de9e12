"""``trend``: metric series with change points, per-case verdicts with flips, flaky first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval.errors import ConfigError
from agenteval.results.flakiness import Verdict
from agenteval.schema.status import EvalStatus
from agenteval.store.adding import add_results
from agenteval.store.connection import Store
from agenteval.store.trend import TrendFilters, trend
from sample_results import case_result, eval_set_result, metric
from store.store_support import add_history, scripted_result, with_fingerprint, write_result


def test_scripted_history_verdicts_flips_and_change_point(store: Store, tmp_path: Path) -> None:
    ids = add_history(store, tmp_path, 12, drift_from=7)
    with store.transaction() as conn:
        found = trend(conn, TrendFilters(last=20))
    assert [run.id for run in found.runs] == ids
    by_case = {case.eval_id: case for case in found.cases}
    # Flaky first, then the stable failure, then the stable pass.
    assert [case.eval_id for case in found.cases] == ["flappy", "broken", "steady"]
    flappy = by_case["flappy"]
    assert flappy.verdict.verdict is Verdict.FLAKY
    assert (flappy.verdict.passed, flappy.verdict.runs) == (8, 12)
    # Fails in runs 3, 6, 9, 12: flips into and out of each failure.
    assert flappy.flip_runs == tuple(ids[i] for i in (2, 3, 5, 6, 8, 9, 11))
    assert by_case["broken"].verdict.verdict is Verdict.STABLE_FAIL
    assert by_case["steady"].verdict.verdict is Verdict.STABLE_PASS
    assert by_case["steady"].verdict.low > 0.7
    assert found.verdict_counts() == {
        "flaky": 1,
        "stable_fail": 1,
        "stable_pass": 1,
        "undecided": 0,
    }
    series = {(s.eval_set_id, s.metric_name): s for s in found.series}
    quality = series[("suite", "quality")]
    assert quality.values == [0.9] * 6 + [0.6] * 6
    [point] = quality.change_points
    assert (point.run_id, point.commit, point.shift) == (ids[6], "c007", True)
    assert (point.before, point.after) == (0.9, 0.6)
    # No fingerprints in these files: nothing is named as changed.
    assert point.reasons == ()
    exact = series[("suite", "exact")]
    assert exact.values[0] == 2 / 3
    assert exact.change_points == []


def test_last_branch_eval_set_and_metric_filters(store: Store, tmp_path: Path) -> None:
    main_ids = add_history(store, tmp_path / "m", 5)
    add_history(store, tmp_path / "f", 2, branch="feature", eval_set_id="other")
    with store.transaction() as conn:
        last_two = trend(conn, TrendFilters(last=2, branch="main"))
        other = trend(conn, TrendFilters(eval_set="other"))
        one_metric = trend(conn, TrendFilters(metric="quality"))
    assert [run.id for run in last_two.runs] == main_ids[-2:]
    assert {c.eval_set_id for c in other.cases} == {"other"}
    assert len(other.runs) == 2
    assert [s.metric_name for s in one_metric.series] == ["quality", "quality"]


def test_a_metric_no_run_scored_is_an_error_naming_those_it_scored(
    store: Store, tmp_path: Path
) -> None:
    # `trend --metric qualty` printed the cases and no series, exit 0, as if asked for none.
    add_history(store, tmp_path, 2)
    with store.transaction() as conn:
        with pytest.raises(ConfigError) as caught:
            trend(conn, TrendFilters(metric="qualty"))
        # No run selected: nothing to name the metric of, and nothing is said wrong.
        assert trend(conn, TrendFilters(metric="qualty", branch="absent")).runs == []
    [problem] = caught.value.problems
    assert problem.message == "'qualty' matches no metric of these runs"
    assert problem.hint == "known: exact, quality"


def test_a_config_change_is_named_at_its_run(store: Store, tmp_path: Path) -> None:
    for index in range(1, 9):
        metric_hash = "sha256:" + ("a" if index < 5 else "b") * 64
        fingerprint = {
            "evalSet": "sha256:" + "e" * 64,
            "metrics": {"quality": metric_hash, "exact": "sha256:" + "f" * 64},
        }
        result = with_fingerprint(scripted_result(index, drift_from=5), fingerprint)
        add_results(store, [write_result(result, tmp_path / str(index))], commit=f"k{index}")
    with store.transaction() as conn:
        found = trend(conn, TrendFilters())
    quality = next(s for s in found.series if s.metric_name == "quality")
    [point] = quality.change_points
    assert point.commit == "k5"
    assert point.reasons == ("metric config aaaaaaaaaaaa → bbbbbbbbbbbb",)
    # The other metric's config did not change: no change point there.
    exact = next(s for s in found.series if s.metric_name == "exact")
    assert exact.change_points == []


def test_json_text_is_json_dumps_of_to_json_character_for_character(
    store: Store, tmp_path: Path
) -> None:
    # Ids that need escaping, cases that pass, fail, flap and are never decided.
    odd = ['quo"te', "back\\slash", "naïve ✓", "tab\there", "line\nbreak"]
    for index in range(1, 6):
        cases = [
            case_result("s", odd[0], [metric("m", 1.0)]),
            case_result("s", odd[1], [metric("m", 0.0)]),
            case_result("s", odd[2], [metric("m", float(index % 2))]),
            case_result("s", odd[3], [metric("m", 1.0, status=EvalStatus.NOT_EVALUATED)]),
            case_result("s", odd[4], [metric("m", float(index % 3 == 0))]),
        ]
        result = eval_set_result("s", cases)
        result.eval_set_result_id = f"r{index}"
        result.creation_timestamp = 1_767_225_600.0 + index
        add_results(store, [write_result(result, tmp_path / str(index))], commit=f"c{index}")
    with store.transaction() as conn:
        found = trend(conn, TrendFilters())
        nothing = trend(conn, TrendFilters(eval_set="absent"))
    assert found.verdict_counts() == {
        "flaky": 2,
        "stable_fail": 1,
        "stable_pass": 1,
        "undecided": 1,
    }
    assert found.json_text() == json.dumps(found.to_json(), indent=2, ensure_ascii=False)
    assert json.loads(found.json_text())["cases"][0]["evalId"] in odd
    assert nothing.json_text() == json.dumps(nothing.to_json(), indent=2, ensure_ascii=False)


def test_every_repeat_of_a_num_runs_run_counts_in_the_verdict(store: Store, tmp_path: Path) -> None:
    # Two stored runs of -n 2: "yn" passes its first repeat and fails its second each time
    # (each run calls it failed), "ok" passes all four repeats.
    ids = []
    for index in (1, 2):
        cases = [
            case_result("s", "yn", [metric("m", 1.0)], run_id=1),
            case_result("s", "yn", [metric("m", 0.0)], run_id=2),
            case_result("s", "ok", [metric("m", 1.0)], run_id=1),
            case_result("s", "ok", [metric("m", 1.0)], run_id=2),
        ]
        result = eval_set_result("s", cases, num_runs=2)
        result.eval_set_result_id = f"r{index}"
        result.creation_timestamp = 1_767_225_600.0 + index
        ids += add_results(store, [write_result(result, tmp_path / str(index))])
    with store.transaction() as conn:
        found = trend(conn, TrendFilters())
    by_case = {case.eval_id: case for case in found.cases}
    yn = by_case["yn"]
    # Repeats pass, fail, pass, fail: 2 of 4, flips at the 2nd (run 1), 3rd and 4th (run 2).
    assert yn.verdict.verdict is Verdict.FLAKY
    assert (yn.verdict.passed, yn.verdict.runs) == (2, 4)
    assert yn.flip_runs == (ids[0], ids[1])
    assert yn.outcomes == (False, False)  # each run's own status
    ok = by_case["ok"]
    assert (ok.verdict.verdict, ok.verdict.passed, ok.verdict.runs) == (Verdict.STABLE_PASS, 4, 4)
    assert found.verdict_counts()["flaky"] == 1
