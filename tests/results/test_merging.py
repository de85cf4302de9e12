"""agenteval merge: shard results join into the result of one full run (issue 7, acceptance 3)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from agenteval.errors import ConfigError
from agenteval.inputs.loading import parse_result
from agenteval.report.result_files import model_to_go_json
from agenteval.results.aggregation import build_summary
from agenteval.results.merging import (
    Completeness,
    EvalSetFile,
    merge_extras,
    merge_results,
    sum_numbers,
)
from agenteval.results.sharding import shard_of
from agenteval.schema.base import dump
from agenteval.schema.result import EvalSetResult, Fingerprint, extra
from agenteval.schema.status import EvalStatus
from sample_results import case_result, eval_set_result, generated_result, metric

F = EvalStatus.FAILED


def shard_files(full: EvalSetResult, count: int, num_runs: int) -> list[EvalSetResult]:
    """What ``run --shard I/N`` would write for each I, written to JSON text and read back."""
    parts = []
    for index in range(1, count + 1):
        cases = [
            c for c in full.case_results() if shard_of(full.eval_set_id, c.eval_id, count) == index
        ]
        part = EvalSetResult(
            eval_set_result_id=f"app_{full.eval_set_id}_shard{index}",
            eval_set_id=full.eval_set_id,
            eval_case_results=cases,
            summary=build_summary(cases, num_runs),
            creation_timestamp=1_767_225_600.0 + index,
        )
        loaded, problems = parse_result(model_to_go_json(part), f"shard{index}.json")
        assert loaded is not None and not problems
        parts.append(loaded)
    return parts


def case_dumps(result: EvalSetResult) -> list[dict[str, Any]]:
    return [dump(case) for case in result.case_results()]


@pytest.mark.parametrize("count", [2, 3, 5])
@pytest.mark.parametrize("num_runs", [1, 3])
def test_merged_shards_equal_the_full_run(count: int, num_runs: int) -> None:
    full = generated_result("gen", cases=31, num_runs=num_runs, seed=count * 10 + num_runs)
    parts = shard_files(full, count, num_runs)
    assert all(p.case_results() for p in parts)  # every shard got cases
    assert sum(len(p.case_results()) for p in parts) == len(full.case_results())
    random.Random(count).shuffle(parts)  # artifact downloads come in any order
    order = {"gen": list(dict.fromkeys(c.eval_id for c in full.case_results()))}

    (merged,) = merge_results(parts, case_order=order)
    assert merged.eval_set_id == "gen"
    assert merged.summary is not None and full.summary is not None
    assert dump(merged.summary) == dump(full.summary)
    assert case_dumps(merged) == case_dumps(full)

    # Without the eval set's order: run by run, evalId order; the summary is the same.
    (unordered,) = merge_results(parts)
    assert unordered.summary is not None
    assert dump(unordered.summary) == dump(full.summary)
    by_run_then_id = sorted(full.case_results(), key=lambda c: (c.run_id, c.eval_id))
    assert case_dumps(unordered) == [dump(c) for c in by_run_then_id]

    # The merged file written and read back is still the same run.
    again, problems = parse_result(model_to_go_json(merged), "merged.json")
    assert again is not None and not problems
    assert again.summary is not None
    assert dump(again.summary) == dump(full.summary)
    assert case_dumps(again) == case_dumps(full)
    assert again.creation_timestamp == 1_767_225_600.0 + count
    assert again.eval_set_result_id == ""  # the writer names the merged result


def test_an_empty_shard_still_counts_its_runs() -> None:
    full = generated_result("gen", cases=4, num_runs=3, seed=1)
    empty = EvalSetResult(eval_set_id="gen", summary=build_summary([], 3))
    (merged,) = merge_results([empty, *shard_files(full, 2, 3)])
    assert merged.summary is not None and full.summary is not None
    assert merged.summary.num_runs == 3
    assert dump(merged.summary) == dump(full.summary)


def test_eval_sets_are_merged_separately_in_order_of_appearance() -> None:
    alpha = generated_result("alpha", cases=9, num_runs=2, seed=3)
    beta = generated_result("beta", cases=6, num_runs=1, seed=4)
    a1, a2 = shard_files(alpha, 2, 2)
    b1, b2 = shard_files(beta, 2, 1)
    merged = merge_results([b2, a1, b1, a2])
    assert [m.eval_set_id for m in merged] == ["beta", "alpha"]
    assert [dump(m.summary) for m in merged if m.summary] == [
        dump(r.summary) for r in (beta, alpha) if r.summary
    ]


def test_overlapping_shards_are_refused_with_every_conflict() -> None:
    first = eval_set_result("s", [case_result("s", "a", [metric("m", 1.0)])])
    second = eval_set_result(
        "s",
        [
            case_result("s", "b", [metric("m", 1.0)]),
            case_result("s", "a", [metric("m", 0.0)]),
        ],
    )
    runs = eval_set_result(
        "s",
        [case_result("s", "a", [metric("m", 1.0)], run_id=2)],
        num_runs=2,
    )
    with pytest.raises(ConfigError) as caught:
        merge_results(
            [first, runs, second, first], sources=["s1.json", "r.json", "s2.json", "s1.json"]
        )
    assert [str(p) for p in caught.value.problems] == [
        "s2.json: evalCaseResults[1]: case 'a' run 1 of eval set 's' is also in s1.json"
        " (evalCaseResults[0]) (each case and run must come from exactly one shard)",
        "s1.json: evalCaseResults[0]: case 'a' run 1 of eval set 's' is also in s1.json"
        " (evalCaseResults[0]) (each case and run must come from exactly one shard)",
    ]
    # Other runs of the same case are no conflict.
    (merged,) = merge_results([first, runs])
    assert [(c.eval_id, c.run_id) for c in merged.case_results()] == [("a", 1), ("a", 2)]
    assert merged.summary is not None and merged.summary.num_runs == 2
    with pytest.raises(ConfigError, match="part 2: evalCaseResults"):
        merge_results([first, first])
    with pytest.raises(ValueError, match="1 source names for 2 parts"):
        merge_results([first, second], sources=["only.json"])


def test_run_level_extras() -> None:
    parts = []
    usages = [
        {"calls": 3, "promptTokens": 100, "byMetric": {"judge": {"calls": 3}}},
        {
            "calls": 2,
            "promptTokens": 50,
            "byMetric": {"judge": {"calls": 1}, "other": {"calls": 1}},
        },
        {"calls": 1, "promptTokens": 0.5},
    ]
    for index, usage in enumerate(usages):
        part = eval_set_result("s", [case_result("s", f"c{index}", [metric("m", 1.0)])])
        setattr(part, "judgeUsage", usage)  # noqa: B010 - extra (non-Go) keys
        setattr(part, "durationSeconds", 1.25 * (index + 1))  # noqa: B010
        setattr(part, "partial", index == 1)  # noqa: B010
        setattr(part, "agentevalVersion", "0.1.0")  # noqa: B010
        setattr(part, "host", f"runner-{index}")  # noqa: B010
        parts.append(part)
    (merged,) = merge_results(parts)
    assert extra(merged) == {
        "judgeUsage": {
            "calls": 6,
            "promptTokens": 150.5,
            "byMetric": {"judge": {"calls": 4}, "other": {"calls": 1}},
        },
        "durationSeconds": 7.5,
        "partial": True,
        "agentevalVersion": "0.1.0",
    }
    assert merge_extras(parts[:1])["partial"] is False
    assert sum_numbers({"a": 1, "b": "x"}, {"a": True, "b": "y"}) == {"a": 1, "b": "x"}


def test_the_agents_usage_of_every_part_adds_up() -> None:
    from agenteval.schema.result import EvalSetResult

    spent = [
        {"turns": 2, "inputTokens": 2000, "costUsd": 0.00054, "unpricedTurns": 0},
        {"turns": 1, "inputTokens": 5000, "costUsd": 0.00117, "unpricedTurns": 1,
         "unpricedModels": ["acme:x"]},
        None,
    ]  # fmt: skip
    parts = [
        EvalSetResult.model_validate({"evalSetId": "s", "agentUsage": usage}) for usage in spent
    ]
    (merged,) = merge_results(parts)
    assert merged.agent_usage is not None
    assert merged.agent_usage["turns"] == 3 and merged.agent_usage["inputTokens"] == 7000
    assert merged.agent_usage["costUsd"] == pytest.approx(0.00171, abs=1e-15)
    assert merged.agent_usage["unpricedModels"] == ["acme:x"]


def test_incomplete_case_ids_of_every_part_are_joined() -> None:
    from agenteval.schema.result import EvalSetResult

    parts = [
        EvalSetResult.model_validate({"evalSetId": "s", "judgeFailures": ["a", "b"]}),
        EvalSetResult.model_validate({"evalSetId": "s", "judgeFailures": ["b", "c"]}),
        EvalSetResult.model_validate({"evalSetId": "s"}),
    ]
    (merged,) = merge_results(parts)
    assert merged.judge_failures == ["a", "b", "c"]


FINGERPRINT = Fingerprint(eval_set="sha256:e", metrics={"m": "sha256:1"})


def fingerprinted(full: EvalSetResult, count: int) -> list[EvalSetResult]:
    """``shard_files`` as ``run --shard I/N`` writes them: each with its fingerprint."""
    parts = shard_files(full, count, 1)
    for index, part in enumerate(parts, start=1):
        part.fingerprint = FINGERPRINT.model_copy(update={"shard": f"{index}/{count}"})
    return parts


def test_a_complete_shard_set_takes_the_fingerprint_without_the_shard() -> None:
    full = generated_result("gen", cases=12, num_runs=1, seed=5)
    parts = fingerprinted(full, 3)
    complete = Completeness()
    (merged,) = merge_results(parts, complete=complete)
    assert merged.fingerprint == FINGERPRINT
    assert merged.partial is None and complete.warnings == []


def test_a_merge_of_a_custom_aggregators_shards_keeps_its_verdicts() -> None:
    """Shards scored by --case-aggregator: the merged summary's case status over several
    runs is the aggregator's verdicts (it failed every run), not the passing metric average."""
    cases = [
        case_result("s", eval_id, [metric("m", 1.0)], run_id=run, status=F)
        for run in (1, 2, 3)
        for eval_id in ("a", "b")
    ]
    full = eval_set_result("s", cases, num_runs=3)
    parts = shard_files(full, 2, 3)
    for index, part in enumerate(parts, start=1):
        part.fingerprint = FINGERPRINT.model_copy(
            update={"shard": f"{index}/2", "case_aggregator": "strict"}
        )
    (merged,) = merge_results(parts)
    assert merged.summary is not None
    assert [c.overall_status for c in merged.summary.eval_case_summaries or []] == [F, F]
    assert merged.summary.overall_status is F


def test_missing_shards_are_refused_or_marked_partial() -> None:
    full = generated_result("gen", cases=12, num_runs=1, seed=5)
    first, _, third = fingerprinted(full, 3)
    names = ["one.json", "three.json"]
    with pytest.raises(ConfigError) as caught:
        merge_results([first, third], sources=names, complete=Completeness())
    assert [str(p) for p in caught.value.problems] == [
        "merge: eval set 'gen': shard 2/3 is missing (given: 1/3, 3/3) (give every shard's "
        "result files, or --allow-partial to merge what is there)"
    ]
    complete = Completeness(allow_partial=True)
    (merged,) = merge_results([first, third], sources=names, complete=complete)
    assert merged.partial is True
    assert [p.message for p in complete.warnings] == [
        "eval set 'gen': shard 2/3 is missing (given: 1/3, 3/3)"
    ]
    # Without the merge's checks (--resume, the HTML report) the parts just join.
    (joined_parts,) = merge_results([first, third])
    assert joined_parts.partial is None


def test_shards_of_other_inputs_or_splits_are_refused() -> None:
    full = generated_result("gen", cases=12, num_runs=1, seed=5)
    first, second = fingerprinted(full, 2)
    assert second.fingerprint is not None
    second.fingerprint.metrics = {"m": "sha256:2"}
    with pytest.raises(ConfigError, match="metric file changed \\(m\\)"):
        merge_results(
            [first, second], sources=["a", "b"], complete=Completeness(allow_partial=True)
        )
    other_split = fingerprinted(full, 3)[1]
    with pytest.raises(ConfigError, match="shards of different splits"):
        merge_results([first, other_split], sources=["a", "b"], complete=Completeness())
    legacy = first.model_copy(update={"fingerprint": None})
    with pytest.raises(ConfigError, match="has no fingerprint here"):
        merge_results(
            [legacy, fingerprinted(full, 2)[1]], sources=["a", "b"], complete=Completeness()
        )


def test_shards_of_other_run_counts_are_refused() -> None:
    """Shard 1 with --num-runs 3, shard 2 with 2: joined, shard 2's cases would lack run 3
    and pass@3 would be computed on them; refused, naming the files, even --allow-partial."""
    three = shard_files(generated_result("gen", cases=12, num_runs=3, seed=5), 2, 3)[0]
    two = shard_files(generated_result("gen", cases=12, num_runs=2, seed=5), 2, 2)[1]
    for part, shard in ((three, "1/2"), (two, "2/2")):
        part.fingerprint = FINGERPRINT.model_copy(update={"shard": shard})
    complete = Completeness(allow_partial=True)
    with pytest.raises(ConfigError) as caught:
        merge_results([three, two], sources=["one.json", "two.json"], complete=complete)
    assert [str(p) for p in caught.value.problems] == [
        "two.json: summary.numRuns: eval set 'gen' was scored with --num-runs 2 here but 3 "
        "in one.json (merge the shards of one run, scored with one --num-runs)"
    ]


def test_with_the_eval_set_every_case_of_every_run_must_be_there() -> None:
    full = generated_result("gen", cases=6, num_runs=2, seed=2)
    ids = list(dict.fromkeys(c.eval_id for c in full.case_results()))
    without = EvalSetResult(
        eval_set_id="gen",
        eval_case_results=[c for c in full.case_results() if (c.eval_id, c.run_id) != (ids[4], 2)],
    )
    files = {"gen": EvalSetFile("gen.evalset.json", "sha256:e", [*ids, "brand_new"])}
    with pytest.raises(ConfigError) as caught:
        merge_results([without], complete=Completeness(files))
    assert [p.message for p in caught.value.problems] == [
        f"eval set 'gen': 2 of 7 cases of gen.evalset.json have no result in all 2 runs: "
        f"{ids[4]}, brand_new"
    ]
    # An eval set given without any result: all its cases are missing.
    files["other"] = EvalSetFile("other.evalset.json", "sha256:o", ["x"])
    complete = Completeness(files, allow_partial=True)
    merged = merge_results([without], complete=complete)
    assert [(m.eval_set_id, m.partial, len(m.case_results())) for m in merged] == [
        ("gen", True, len(full.case_results()) - 1),
        ("other", True, 0),
    ]
    assert "1 of 1 cases of other.evalset.json have no result: x" in str(complete.warnings[-1])


def test_an_eval_set_file_with_other_bytes_is_refused() -> None:
    full = generated_result("gen", cases=6, num_runs=1, seed=2)
    parts = fingerprinted(full, 2)
    ids = list(dict.fromkeys(c.eval_id for c in full.case_results()))
    files = {"gen": EvalSetFile("gen.evalset.json", "sha256:changed", ids)}
    with pytest.raises(ConfigError, match=r"gen\.evalset\.json: not the eval set file"):
        merge_results(parts, complete=Completeness(files))


def test_judge_cost_adds_up_and_unpriced_models_are_united() -> None:
    left = {"total": {"costUsd": 0.25, "unpricedCalls": 1, "unpricedModels": ["openai:a"]}}
    right = {
        "total": {"costUsd": 0.5, "unpricedCalls": 2, "unpricedModels": ["openai:b", "openai:a"]}
    }
    assert sum_numbers(left, right) == {
        "total": {"costUsd": 0.75, "unpricedCalls": 3, "unpricedModels": ["openai:a", "openai:b"]}
    }
