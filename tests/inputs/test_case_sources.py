"""Whole results as case sources, subsets of a source, and a result's run count."""

from __future__ import annotations

import pytest

from agenteval.inputs.case_sources import HeldResult, Subset, held, runs_of
from agenteval.schema.result import EvalSetResult
from sample_results import generated_result


def test_a_held_result_reads_like_a_file() -> None:
    result = generated_result(cases=5, num_runs=2, seed=4)
    source = HeldResult(result, "r.json")
    assert source.case_count == 10 and source.source == "r.json"
    assert source.eval_ids == [c.eval_id for c in result.case_results()]
    assert list(source.cases()) == result.case_results()
    assert list(source.cases(indices=[3, 1])) == [
        result.case_results()[3],
        result.case_results()[1],
    ]
    assert result.summary is not None
    assert list(source.case_summaries()) == result.summary.eval_case_summaries
    assert runs_of(source) == 2


def test_a_subset_keeps_some_cases_under_another_head() -> None:
    result = generated_result(cases=4, num_runs=1, seed=1)
    head = EvalSetResult(eval_set_id="other")
    part = Subset(HeldResult(result), [0, 2, 3], head)
    assert part.head is head and part.case_count == 3
    assert part.eval_ids == ["case_000", "case_002", "case_003"]
    assert [c.eval_id for c in part.cases(indices=[2, 0])] == ["case_003", "case_000"]


def test_the_run_count_without_a_summary_is_the_highest_run_id() -> None:
    result = generated_result(cases=3, num_runs=3, seed=2)
    result.summary = None
    assert runs_of(HeldResult(result)) == 3
    assert runs_of(HeldResult(EvalSetResult())) == 1


def test_held_names_its_parts() -> None:
    results = [EvalSetResult(eval_set_id="a"), EvalSetResult(eval_set_id="b")]
    assert [s.source for s in held(results)] == ["part 1", "part 2"]
    with pytest.raises(ValueError, match="1 source names for 2 parts"):
        held(results, ["x"])
