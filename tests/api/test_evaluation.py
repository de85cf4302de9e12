"""agenteval.api: ``prepare`` checks and plans the inputs, ``evaluate`` runs them to a verdict.

Real files in a temporary directory; judge metrics go over HTTP to the loopback
judge (tests/judge_server.py).
"""

from __future__ import annotations

import asyncio
import gc
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agenteval.api import Options, evaluate, prepare, relaxed_gc
from agenteval.errors import ConfigError
from agenteval.exit_codes import ExitCode
from agenteval.schema.evalset import EvalCase
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply

INVALID = "reasoning: wrong city\nis_the_agent_response_valid: invalid"


def invocation(answer: str) -> dict[str, Any]:
    """One turn answering ``answer``."""
    return {
        "userContent": {"role": "user", "content": "capital?"},
        "finalResponse": {"role": "assistant", "content": answer},
    }


def write_suite(
    directory: Path, answers: dict[str, tuple[str, str]], eval_set_id: str = "geo"
) -> Path:
    """``geo.evalset.json`` with one trace case per id (actual, expected) and its metric file."""
    cases = [
        {
            "evalId": case_id,
            "evalMode": "trace",
            "sessionInput": {"appName": "app", "userId": "u"},
            "actualConversation": [invocation(actual)],
            "conversation": [invocation(expected)],
        }
        for case_id, (actual, expected) in answers.items()
    ]
    path = directory / "geo.evalset.json"
    path.write_text(json.dumps({"evalSetId": eval_set_id, "evalCases": cases}))
    metrics = [{"metricName": "exact_match", "threshold": 1.0}]
    (directory / "geo.metrics.json").write_text(json.dumps(metrics))
    return path


ANSWERS = {"fr": ("Paris", "Paris"), "it": ("Rome", "Rome"), "de": ("Bonn", "Berlin")}


def problems_of(error: ConfigError) -> list[str]:
    """Every located problem line of a ConfigError."""
    return str(error).splitlines()


def test_evaluate_scores_every_case_and_sets_the_exit_code(tmp_path: Path) -> None:
    path = write_suite(tmp_path, ANSWERS)
    run = evaluate(path)
    assert run.sources == [path]
    [result] = run.results
    statuses = {c.eval_id: c.final_eval_status for c in result.case_results()}
    assert statuses == {"fr": EvalStatus.PASSED, "it": EvalStatus.PASSED, "de": EvalStatus.FAILED}
    assert (run.status, run.passed, run.exit_code) == (EvalStatus.FAILED, False, ExitCode.FAILED)
    assert run.judge_usage is None and run.judge_failures == [] and not run.interrupted
    passing = evaluate(path, cases=["fr", "it"])
    assert (passing.status, passing.exit_code) == (EvalStatus.PASSED, ExitCode.PASSED)


def test_keyword_options_repeat_runs(tmp_path: Path) -> None:
    run = evaluate(write_suite(tmp_path, ANSWERS), num_runs=2)
    [result] = run.results
    assert [(c.run_id, c.eval_id) for c in result.case_results()] == [
        (1, "fr"),
        (1, "it"),
        (1, "de"),
        (2, "fr"),
        (2, "it"),
        (2, "de"),
    ]
    assert result.summary is not None and result.summary.num_runs == 2


def test_keywords_beside_options_replace_its_fields(tmp_path: Path) -> None:
    # They were silently dropped: evaluate(path, Options(...), num_runs=2) scored one run.
    path = write_suite(tmp_path, ANSWERS)
    options = Options(cases=["fr", "de"])
    run = evaluate(path, options, num_runs=2)
    [result] = run.results
    assert [(c.run_id, c.eval_id) for c in result.case_results()] == [
        (1, "fr"),
        (1, "de"),
        (2, "fr"),
        (2, "de"),
    ]
    assert options.num_runs == 1  # the caller's options are left as they were


def test_a_wrongly_typed_option_is_a_located_problem_not_a_type_error(tmp_path: Path) -> None:
    # evaluate(path, num_runs="3") raised "TypeError: '<' not supported between instances
    # of 'str' and 'int'" from deep inside; each option of the wrong type is named.
    path = write_suite(tmp_path, ANSWERS)
    with pytest.raises(ConfigError) as caught:
        evaluate(path, num_runs="3")
    assert problems_of(caught.value) == ["Options.num_runs: must be an int, got '3' (a str)"]
    with pytest.raises(ConfigError) as caught:
        evaluate(path, judge_timeout="5", cases="fr", strict=1, num_runs=True)
    assert problems_of(caught.value) == [
        "Options.num_runs: must be an int, got True (a bool)",
        "Options.cases: must be a sequence of str, got 'fr' (give a list: cases=['fr'])",
        "Options.judge_timeout: must be a float, got '5' (a str)",
        "Options.strict: must be a bool, got 1 (an int)",
    ]
    # A float option takes an int, an optional one None.
    assert evaluate(path, judge_timeout=5, rate_limit=None, cases=("fr",)).passed


def test_an_option_name_that_is_no_option_is_a_located_problem(tmp_path: Path) -> None:
    # evaluate(path, num_run=3) raised the dataclass's bare "TypeError: Options.__init__()
    # got an unexpected keyword argument"; now each unknown name, with the field it is near.
    path = write_suite(tmp_path, ANSWERS)
    with pytest.raises(ConfigError) as caught:
        evaluate(path, num_run=3, colour=True)
    assert problems_of(caught.value) == [
        "Options.num_run: no such option (did you mean 'num_runs'?)",
        "Options.colour: no such option (see agenteval.api.Options)",
    ]


def test_evaluate_runs_inside_a_running_event_loop(tmp_path: Path) -> None:
    # A notebook cell (or an async test) runs inside an event loop: evaluate() raised
    # "asyncio.run() cannot be called from a running event loop".
    path = write_suite(tmp_path, ANSWERS)

    async def in_a_loop() -> list[tuple[str, EvalStatus]]:
        run = evaluate(path, num_runs=1)
        assert (run.status, run.exit_code) == (EvalStatus.FAILED, ExitCode.FAILED)
        return [(c.eval_id, c.final_eval_status) for c in run.results[0].case_results()]

    assert asyncio.run(in_a_loop()) == [
        ("fr", EvalStatus.PASSED),
        ("it", EvalStatus.PASSED),
        ("de", EvalStatus.FAILED),
    ]


def test_prepare_collects_every_problem_of_the_options(tmp_path: Path) -> None:
    path = str(write_suite(tmp_path, ANSWERS))
    with pytest.raises(ConfigError) as caught:
        prepare([path], Options(num_runs=0))
    assert problems_of(caught.value) == ["--num-runs: must be at least 1, got 0"]
    options = Options(case_aggregator="nope", cases=["fr", "xx"], only_metrics=["exact_match"])
    with pytest.raises(ConfigError) as caught:
        prepare([path], options)
    [line] = problems_of(caught.value)
    assert line.startswith("--case-aggregator: unknown case aggregator 'nope' (known: ")
    options = Options(cases=["fr", "xx"], skip_metrics=["rouge"])
    with pytest.raises(ConfigError) as caught:
        prepare([path], options)
    assert problems_of(caught.value) == [
        "--skip-metric: 'rouge' matches nothing in the given files",
        "--case: 'xx' matches nothing in the given files",
    ]


def test_prepare_plans_selected_cases_and_metrics(tmp_path: Path) -> None:
    path = write_suite(tmp_path, ANSWERS)
    prepared = prepare([str(path)], Options(cases=["de", "fr"]))
    [plan] = prepared.plans
    assert plan.eval_set_id == "geo"
    assert [c.eval_id for c in plan.cases] == ["fr", "de"]  # file order, not option order
    assert [p.metric.metric_name for p in plan.metrics] == ["exact_match"]
    assert plan.metrics_path == tmp_path / "geo.metrics.json"
    assert prepared.warnings == []


def test_shards_split_the_cases_between_them(tmp_path: Path) -> None:
    answers = {f"case-{i}": ("a", "a") for i in range(20)}
    path = str(write_suite(tmp_path, answers))
    shards = [
        [c.eval_id for c in prepare([path], Options(shard=f"{i}/3")).plans[0].cases]
        for i in (1, 2, 3)
    ]
    assert sorted(c for shard in shards for c in shard) == sorted(answers)
    assert all(shards)
    with pytest.raises(ConfigError) as caught:
        prepare([path], Options(shard="4/3"))
    assert problems_of(caught.value) == [
        "--shard: shard index must be within 1..3 (shards count from 1), got 4 (e.g. --shard 2/5)"
    ]


def test_a_shard_that_holds_no_case_says_so(tmp_path: Path) -> None:
    from agenteval.results.sharding import shard_of

    answers = {f"case-{i}": ("a", "a") for i in range(3)}
    path = str(write_suite(tmp_path, answers))
    held = {shard_of("geo", eval_id, 9) for eval_id in answers}
    empty = min(set(range(1, 10)) - held)
    prepared = prepare([path], Options(shard=f"{empty}/9"))
    assert [len(plan.cases) for plan in prepared.plans] == [0]
    assert [str(w) for w in prepared.warnings] == [
        f"--shard: shard {empty}/9 holds none of the 3 cases (cases are split by a stable "
        "hash of evalSetId and evalId: with few cases some shards are empty; use fewer shards)"
    ]
    full = prepare([path], Options(shard=f"{min(held)}/9"))
    assert full.warnings == [] and sum(len(plan.cases) for plan in full.plans) > 0


def test_warnings_for_a_missing_metric_file_and_a_renamed_eval_set(tmp_path: Path) -> None:
    path = write_suite(tmp_path, ANSWERS, eval_set_id="geography")
    (tmp_path / "geo.metrics.json").unlink()
    run = evaluate(path)
    assert [str(w) for w in run.warnings] == [
        f"{tmp_path / 'geo.metrics.json'}: metric file not found; every case will be "
        "not_evaluated (pass --metrics PATH)",
        f"{path}: evalSetId: 'geography' differs from the file name; results use 'geo'",
    ]
    [result] = run.results
    assert result.eval_set_id == "geo"
    assert {c.final_eval_status for c in result.case_results()} == {EvalStatus.NOT_EVALUATED}


def test_metrics_option_may_name_a_directory(tmp_path: Path) -> None:
    path = write_suite(tmp_path, ANSWERS)
    elsewhere = tmp_path / "metrics"
    elsewhere.mkdir()
    (tmp_path / "geo.metrics.json").rename(elsewhere / "geo.metrics.json")
    [plan] = prepare([str(path)], Options(metrics=str(elsewhere))).plans
    assert plan.metrics_path == elsewhere / "geo.metrics.json"


def test_judge_run_reports_usage_and_failures(tmp_path: Path, judge_server: JudgeServer) -> None:
    path = write_suite(tmp_path, ANSWERS)
    judge = {
        "providerName": "openai",
        "modelName": "judge-model",
        "baseURL": judge_server.base_url,
        "apiKey": "sk-test-api",
    }
    metric = {
        "metricName": "judged",
        "evaluatorName": "llm_final_response",
        "threshold": 0.5,
        "criterion": {"llmJudge": {"judgeModel": judge}},
    }
    (tmp_path / "geo.metrics.json").write_text(json.dumps([metric]))
    judge_server.when("Bonn", Reply(content=INVALID))
    run = evaluate(path, cache=None, concurrency=1)
    [result] = run.results
    statuses = {c.eval_id: c.final_eval_status for c in result.case_results()}
    assert statuses == {"fr": EvalStatus.PASSED, "it": EvalStatus.PASSED, "de": EvalStatus.FAILED}
    assert judge_server.count == 3
    assert run.judge_usage is not None
    total = run.judge_usage["total"]
    assert isinstance(total, dict) and total["calls"] == 3
    # Each reply reports 11 prompt and 7 completion tokens.
    assert (total["promptTokens"], total["completionTokens"]) == (33, 21)
    assert (run.exit_code, run.judge_failures) == (ExitCode.FAILED, [])
    judge_server.reset()
    judge_server.enqueue(Reply(status=400, body=b'{"error": "bad"}'))
    judge_server.enqueue(Reply(), Reply())
    run = evaluate(path, cache=None, concurrency=1, judge_retries=0)
    assert run.exit_code == ExitCode.INCOMPLETE
    assert len(run.judge_failures) == 1
    assert run.judge_failures[0].startswith("geo/fr run 1 metric judged turn 1: ")


def test_the_package_exports_the_api_lazily() -> None:
    import agenteval
    import agenteval.api.files

    assert agenteval.evaluate is evaluate
    assert agenteval.load_evalset is agenteval.api.files.load_evalset
    with pytest.raises(AttributeError, match="has no attribute 'no_such_thing'"):
        agenteval.no_such_thing  # noqa: B018


# Large eval sets: checked and planned case by case (checks/evalset_stream.py, lazy_cases.py).

LARGE = 10_000


def large_case(index: int, **extra: Any) -> dict[str, Any]:
    """One trace-mode case of a large set: its answer matches the reference exactly."""
    turn = invocation(f"Answer {index}.")
    return {
        "evalId": f"case_{index:05d}",
        "evalMode": "trace",
        "sessionInput": {"appName": "app", "userId": "u"},
        "actualConversation": [turn],
        "conversation": [turn],
        **extra,
    }


def write_large(directory: Path, cases: list[Any], name: str = "big") -> Path:
    """``<name>.evalset.json`` holding ``cases`` and an exact final-response metric beside it."""
    path = directory / f"{name}.evalset.json"
    path.write_text(json.dumps({"evalSetId": name, "evalCases": cases}))
    metric = {
        "metricName": "final_response_avg_score",
        "threshold": 1,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
    (directory / f"{name}.metrics.json").write_text(json.dumps([metric]))
    return path


def prepare_problems(path: Path, **options: Any) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        prepare([str(path)], Options(cache=None, **options))
    return [str(p) for p in caught.value.problems]


@pytest.fixture(scope="module")
def large_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_large(tmp_path_factory.mktemp("large"), [large_case(i) for i in range(LARGE)])


def test_a_large_set_is_planned_without_holding_its_cases(large_set: Path) -> None:
    import tracemalloc

    # Imports and first-use caches out of the measurement: a small set first.
    small = write_large(large_set.parent, [large_case(i) for i in range(3)], "small")
    prepare([str(small)], Options(cache=None))
    size = large_set.stat().st_size
    tracemalloc.start()
    try:
        prepared = prepare([str(large_set)], Options(cache=None))
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    (plan,) = prepared.plans
    assert len(plan.cases) == LARGE
    # Kept: the file's bytes plus ids and offsets (~100 B a case); read whole, ~5 KB a case.
    assert held < size + 300 * LARGE, (held, size)
    # At the peak: one window of decoded text and one case's objects on top (whole: ~7 KB a case).
    assert peak < 2 * size + 1000 * LARGE, (peak, size)


def test_planned_cases_are_built_again_on_each_pass(large_set: Path) -> None:
    (plan,) = prepare([str(large_set)], Options(cache=None)).plans
    first, second = list(plan.cases), list(plan.cases)
    assert first == second
    assert first[0] is not second[0]
    assert (
        [c.eval_id for c in first] == list(plan.case_ids) == [f"case_{i:05d}" for i in range(LARGE)]
    )
    assert first[LARGE - 1] == EvalCase.model_validate(large_case(LARGE - 1))


def test_case_and_shard_filters_on_a_large_set(large_set: Path) -> None:
    from agenteval.results.sharding import shard_of

    wanted = ["case_09999", "case_00007", "case_05000"]
    (plan,) = prepare([str(large_set)], Options(cache=None, cases=wanted)).plans
    assert [c.eval_id for c in plan.cases] == ["case_00007", "case_05000", "case_09999"]
    assert len(plan.case_ids) == LARGE  # --resume still orders by the whole file
    shards = [
        prepare([str(large_set)], Options(cache=None, shard=f"{i}/3")).plans[0] for i in (1, 2, 3)
    ]
    ids = [[c.eval_id for c in shard.cases] for shard in shards]
    assert sorted(i for part in ids for i in part) == list(shards[0].case_ids)
    for index, part in enumerate(ids, start=1):
        assert part == sorted(part)  # file order
        assert len(part) == len(shards[index - 1].cases)
        assert all(shard_of("big", i, 3) == index for i in part)
    both = prepare([str(large_set)], Options(cache=None, cases=wanted, shard="2/3")).plans[0]
    assert [c.eval_id for c in both.cases] == [i for i in wanted[::-1] if i in ids[1]]


def test_a_problem_in_the_last_case_of_ten_thousand_is_located(tmp_path: Path) -> None:
    cases = [large_case(i) for i in range(LARGE)]
    cases[LARGE - 1] = large_case(LARGE - 1, evalMode="replay", creationTimestamp=float("nan"))
    cases[LARGE - 2]["evalId"] = "case_00003"  # far from the first use
    path = write_large(tmp_path, cases)
    assert prepare_problems(path) == [
        f"{path}: evalCases[9999].creationTimestamp: nan is not a finite number "
        "(NaN, Infinity and numbers beyond ±1.8e308 cannot be compared)",
        f"{path}: evalCases[9998].evalId: duplicate evalId 'case_00003' "
        "(first used at evalCases[3])",
        f"{path}: evalCases[9999].evalMode: unknown evalMode 'replay' "
        '(use "trace" or leave it empty)',
        f"{path}: evalCases[9999]: actualConversation is only supported in trace mode "
        '(set "evalMode": "trace")',
    ]


def test_a_type_error_in_the_last_case_keeps_the_whole_file_message(tmp_path: Path) -> None:
    cases = [large_case(i) for i in range(LARGE)]
    cases[LARGE - 1]["evalId"] = 9999
    cases[LARGE - 1]["sessionInput"] = {"appName": ["x"], "userId": "u"}
    path = write_large(tmp_path, cases)
    assert prepare_problems(path) == [
        f"{path}: evalCases[9999].evalId: expected a string, got a number",
        f"{path}: evalCases[9999].sessionInput.appName: expected a string, got an array",
    ]


def test_a_trace_for_a_trace_mode_case_is_named_as_unused(tmp_path: Path) -> None:
    """The case scores its own actualConversation (its answer "Bonn" fails); the --traces
    record that answers "Berlin" was silently never read."""
    path = write_suite(tmp_path, ANSWERS)
    traces = tmp_path / "t.jsonl"
    traces.write_text(json.dumps({"evalId": "de", "actualConversation": [invocation("Berlin")]}))
    run = evaluate(path, traces=str(traces))
    assert [str(w) for w in run.warnings] == [
        f"{traces}: evalId 'de': case 'de' of 'geo' is in trace mode: its own "
        "actualConversation is scored, not this trace (drop the case's evalMode and "
        "actualConversation to score the trace)"
    ]
    [result] = run.results
    statuses = {c.eval_id: c.final_eval_status for c in result.case_results()}
    assert statuses["de"] == EvalStatus.FAILED


def test_traces_match_on_a_records_file_says_it_has_no_effect(tmp_path: Path) -> None:
    """Records are matched by evalId: ``--traces-match conversation`` was silently unused."""
    path = write_suite(tmp_path, ANSWERS)
    traces = tmp_path / "t.jsonl"
    traces.write_text(json.dumps({"evalId": "xx", "actualConversation": []}))
    warnings = prepare([str(path)], Options(traces=str(traces), traces_match="conversation")).warnings  # fmt: skip
    assert (
        f"--traces-match: 'conversation' has no effect: {traces} is not an OTLP trace file, "
        "and its records are matched to cases by evalId"
    ) in [str(w) for w in warnings]
    default = prepare([str(path)], Options(traces=str(traces))).warnings
    assert not any("--traces-match" in str(w) for w in default)


@pytest.mark.parametrize("text", ["", "[]", '{"resourceSpans": []}'])
def test_a_traces_file_without_traces_is_named(tmp_path: Path, text: str) -> None:
    """An empty export was read silently, and the cases said to pass --traces."""
    path = write_suite(tmp_path, ANSWERS)
    traces = tmp_path / "t.json"
    traces.write_text(text)
    warnings = prepare([str(path)], Options(traces=str(traces))).warnings
    assert [str(w) for w in warnings] == [
        f"{traces}: holds no traces: every case that needs one fails"
    ]


def test_a_resumed_shard_keeps_only_its_own_cases(tmp_path: Path) -> None:
    """Resuming a whole run's result shard by shard: each shard's result holds its own cases,
    not the whole run's (which ``merge`` would find twice), and the shards make the whole."""
    from agenteval.report.run_reports import RunReports
    from agenteval.results.sharding import shard_of

    answers = {f"case-{i}": ("a", "a" if i % 3 else "b") for i in range(12)}
    path = write_suite(tmp_path, answers)
    whole = tmp_path / "whole"
    evaluate(path, reports=RunReports(output=whole, ci=False))
    held: list[str] = []
    for index in (1, 2):
        run = evaluate(path, shard=f"{index}/2", resume=[str(whole)])
        [result] = run.results
        ids = [c.eval_id for c in result.case_results()]
        assert ids == [i for i in answers if shard_of("geo", i, 2) == index]
        assert result.summary is not None
        [counts] = [s.case_status_counts for s in result.summary.run_summaries or []]
        assert counts is not None and counts.passed + counts.failed == len(ids)
        held += ids
    assert sorted(held) == sorted(answers)
    picked = evaluate(path, cases=["case-0"], resume=[str(whole)])
    assert [c.eval_id for c in picked.results[0].case_results()] == ["case-0"]
    assert picked.exit_code == ExitCode.FAILED


def test_a_whole_judged_run_resumed_as_shards_merges_to_its_own_usage(
    tmp_path: Path, judge_server: JudgeServer
) -> None:
    """Each shard resuming a whole run carried the whole run's judgeUsage (and agentUsage,
    durationSeconds), so the merge of 2 shards counted every judge call twice; a shard
    now carries what its own cases' results record."""
    from agenteval.report.run_reports import RunReports
    from cli_process import run_cli

    answers = {f"case-{i}": ("Paris", "Paris" if i % 3 else "Bonn") for i in range(8)}
    path = write_suite(tmp_path, answers)
    judge = {"providerName": "openai", "modelName": "judge-model", "apiKey": "sk-test-api"}
    metric = {
        "metricName": "judged",
        "evaluatorName": "llm_final_response",
        "threshold": 0.5,
        "criterion": {"llmJudge": {"judgeModel": {**judge, "baseURL": judge_server.base_url}}},
    }
    (tmp_path / "geo.metrics.json").write_text(json.dumps([metric]))
    whole = evaluate(path, cache=None, reports=RunReports(output=tmp_path / "whole", ci=False))
    assert judge_server.count == len(answers) and whole.judge_usage is not None
    shards = []
    for index in (1, 2):
        out = tmp_path / f"shard{index}"
        evaluate(path, cache=None, shard=f"{index}/2", resume=[str(tmp_path / "whole")],
                 reports=RunReports(output=out, ci=False))  # fmt: skip
        [written] = out.glob("*.evalset_result.json")
        shards.append(str(written))
    assert judge_server.count == len(answers)  # every case kept: no judge call again
    merged = tmp_path / "merged.json"
    proc = run_cli(["merge", *shards, "-o", str(merged)], timeout=120)
    assert proc.returncode == whole.exit_code, proc.stdout + proc.stderr
    usage = json.loads(merged.read_text())["judgeUsage"]
    # 8 calls of 11 prompt and 7 completion tokens each, as the whole run counted them.
    assert usage["total"] == whole.judge_usage["total"]
    assert (usage["total"]["calls"], usage["total"]["promptTokens"]) == (8, 88)


def test_resume_scores_again_what_another_traces_match_scored(tmp_path: Path) -> None:
    """The same OTLP export matched by evalId gives these cases no turns (they fail), matched
    by session their recorded turns (they pass): a resume with the other match kept the failed
    cases, as the fingerprint held the file's bytes only."""
    from agenteval.report.run_reports import RunReports

    repo = Path(__file__).resolve().parents[2]
    evalset = repo / "evalsets" / "replay" / "travel-replay.evalset.json"
    traces = str(repo / "evalsets" / "otel" / "travel-agent.otlp.jsonl")
    earlier = tmp_path / "by_eval_id"
    failed = evaluate(
        evalset,
        reports=RunReports(output=earlier, ci=False),
        traces=traces,
        traces_match="evalId",
    )
    assert failed.exit_code == ExitCode.FAILED
    resumed = evaluate(evalset, traces=traces, traces_match="session", resume=[str(earlier)])
    assert resumed.exit_code == ExitCode.PASSED
    assert any("re-scoring 2 whose traces changed" in str(w) for w in resumed.warnings)
    # With the same match every case is kept.
    again = evaluate(evalset, traces=traces, traces_match="evalId", resume=[str(earlier)])
    assert again.exit_code == ExitCode.FAILED
    assert not any("--resume" in str(w) for w in again.warnings)


@pytest.fixture
def nothing_frozen() -> Iterator[None]:
    """The test starts with nothing frozen and leaves nothing frozen."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_relaxed_gc_unfreezes_what_the_run_froze(nothing_frozen: None) -> None:
    with relaxed_gc():
        read = [{"case": [i]} for i in range(1000)]
        gc.freeze()  # what building_long_lived does after a large read
        assert gc.get_freeze_count() >= len(read)
    assert gc.get_freeze_count() == 0


def test_relaxed_gc_keeps_what_the_caller_had_frozen(nothing_frozen: None) -> None:
    kept = [{"state": [i]} for i in range(1000)]
    gc.freeze()
    frozen = gc.get_freeze_count()
    assert frozen >= len(kept)
    with relaxed_gc():
        pass
    # It was unfrozen: gc.get_freeze_count() was 0 after every run.
    assert gc.get_freeze_count() == frozen
    with relaxed_gc():
        read = [{"case": [i]} for i in range(1000)]
        gc.freeze()
    # Unfreezing the run's objects alone cannot be done: the caller's stay frozen.
    assert gc.get_freeze_count() >= frozen + len(read)


def test_relaxed_gc_unfreezes_when_the_caller_says_the_frozen_state_is_not_its_own(
    nothing_frozen: None,
) -> None:
    # The command line froze its modules at start-up (entry.py): agenteval's own, so the
    # run unfreezes all after it, as before, without counting them.
    start_up = [{"module": [i]} for i in range(1000)]
    gc.freeze()
    assert gc.get_freeze_count() >= len(start_up)
    with relaxed_gc(caller_froze=False):
        pass
    assert gc.get_freeze_count() == 0


def test_a_relaxed_gc_block_inside_another_leaves_the_outer_one_in_charge(
    nothing_frozen: None,
) -> None:
    previous = gc.get_threshold()
    with relaxed_gc():
        relaxed = gc.get_threshold()
        assert relaxed != previous
        with relaxed_gc(caller_froze=True):  # evaluate() inside the command line's block
            read = [{"case": [i]} for i in range(1000)]
            gc.freeze()
        # The inner block neither restored the thresholds nor decided on the frozen state.
        assert gc.get_threshold() == relaxed
        assert gc.get_freeze_count() >= len(read)
    assert gc.get_threshold() == previous
    assert gc.get_freeze_count() == 0


def test_relaxed_gc_blocks_of_two_threads_ending_out_of_order_leave_later_runs_relaxed(
    nothing_frozen: None,
) -> None:
    # Two evaluate() calls at once: the first thread's block ends while the second's (inside
    # it, so not in charge) is open.  The count went below zero, so every later block took
    # itself for an inner one: thresholds never relaxed, the run's freeze never undone.
    previous = gc.get_threshold()
    inside, first_done = threading.Event(), threading.Event()

    def second() -> None:
        with relaxed_gc():
            inside.set()
            first_done.wait(10)

    thread = threading.Thread(target=second)
    with relaxed_gc():
        thread.start()
        assert inside.wait(10)
    first_done.set()
    thread.join(10)
    assert gc.get_threshold() == previous
    with relaxed_gc():
        assert gc.get_threshold() != previous
        read = [{"case": [i]} for i in range(1000)]
        gc.freeze()
        assert gc.get_freeze_count() >= len(read)
    assert gc.get_threshold() == previous
    assert gc.get_freeze_count() == 0
