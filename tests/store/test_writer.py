"""Recording a run as it streams: rows in batches, finished only in the last transaction."""

from __future__ import annotations

import pytest
from sqlalchemy import delete, func, select, text

from agenteval.api import CollectedResults
from agenteval.results.aggregation import case_statuses
from agenteval.schema.result import EvalSetResult
from agenteval.store import agent_spend, tables, writer
from agenteval.store.connection import Store, StoreError
from agenteval.store.context import RunContext
from agenteval.store.documents import BytesDocument, read_document
from agenteval.store.writer import (
    FinishedSet,
    RunMeta,
    RunOutcome,
    RunRecorder,
    StoreSink,
    new_run_id,
)
from sample_results import generated_result


def _count(store: Store, table: object) -> int:
    with store.transaction() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())  # type: ignore[arg-type]


def _state(store: Store) -> list[str]:
    with store.transaction() as conn:
        return list(conn.execute(select(tables.runs.c.state)).scalars())


def _meta(num_runs: int = 1) -> RunMeta:
    context = RunContext(commit="abc123", branch="main", dirty=False, ci_url="https://ci/job/1")
    return RunMeta(new_run_id(), 1000.0, "app", num_runs, context)


def test_a_streamed_run_is_running_until_its_last_transaction(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer, "BATCH_CASES", 10)
    result = generated_result(cases=23, num_runs=3)
    result.judge_usage = {
        "total": {
            "calls": 5,
            "cacheHits": 2,
            "retries": 1,
            "promptTokens": 100,
            "completionTokens": 20,
        },
        "byMetric": {"rouge_l": {"calls": 5, "cacheHits": 2, "promptTokens": 100}},
    }
    inner = CollectedResults()
    recorder = RunRecorder(store, _meta(3))
    recorder.start()
    assert _state(store) == ["running"]
    sink = StoreSink(inner, recorder, lambda: case_statuses(inner.results[-1]))
    sink.begin_set(result.eval_set_id, 3)
    cases = result.case_results()
    for case in cases[:40]:
        sink.add(case)
    recorder.settle()
    # Four batches of ten went to the writer thread: their rows are in, the run is not done.
    assert _count(store, tables.case_runs) == 40
    assert _state(store) == ["running"]
    for case in cases[40:]:
        sink.add(case)
    head = result.model_copy(update={"eval_case_results": None, "summary": None})
    sink.end_set(head)
    assert _state(store) == ["running"]
    document = b'{"doc": true}\n'
    outcome = RunOutcome("failed", 1, 2.5, document_keys={"header": {"b": 1, "a": 2}})
    recorder.finish(outcome, [FinishedSet(BytesDocument(document), "rid-1", "rid-1.json")])
    with store.transaction() as conn:
        run = conn.execute(select(tables.runs)).one()._mapping
        assert (run["state"], run["outcome"], run["exit_code"]) == ("finished", "failed", 1)
        assert (run["git_commit"], run["git_branch"], run["ci_url"]) == (
            "abc123",
            "main",
            "https://ci/job/1",
        )
        assert run["judge_calls"] == 5 and run["judge_cache_hits"] == 2
        assert run["judge_prompt_tokens"] == 100 and run["judge_completion_tokens"] == 20
        assert run["document_keys"] == '{"header": {"b": 1, "a": 2}}'  # key order kept
        statuses = case_statuses(inner.results[0])
        assert run["cases_total"] == len(statuses) == 23
        assert run["cases_failed"] == sum(1 for s in statuses.values() if s.value == "failed")
        stored_set = conn.execute(select(tables.run_sets)).one()._mapping
        assert (stored_set["result_id"], stored_set["file_name"]) == ("rid-1", "rid-1.json")
        assert stored_set["document_size"] == len(document)
        assert b"".join(read_document(conn, run["id"], 0, len(document))) == document
        by_metric = {row.metric_name: row for row in conn.execute(select(tables.set_metrics))}
        assert by_metric["rouge_l"].judge_calls == 5
    assert _count(store, tables.case_runs) == len(cases) == 69
    metric_rows = sum(len(c.overall_eval_metric_results or []) for c in cases)
    assert _count(store, tables.metric_results) == metric_rows
    assert _count(store, tables.cases) == 23
    # The stored sums give the summary's averages exactly.
    with store.transaction() as conn:
        rows = {r.metric_name: r for r in conn.execute(select(tables.set_metrics))}
    for name, row in rows.items():
        evaluated = [
            m.score
            for c in cases
            for m in c.overall_eval_metric_results or []
            if m.metric_name == name and m.eval_status.value != "not_evaluated"
        ]
        assert row.evaluated == len(evaluated)
        assert row.score_sum == pytest.approx(sum(evaluated))


def test_a_failing_write_stops_recording_the_run_goes_on(store: Store) -> None:
    result = generated_result(cases=5, num_runs=1)
    inner = CollectedResults()
    recorder = RunRecorder(store, _meta())
    recorder.start()
    with store.transaction() as conn:
        # Another client breaks the store under the running writer.
        conn.execute(text("DROP TABLE metric_results"))
    sink = StoreSink(inner, recorder, lambda: case_statuses(inner.results[-1]))
    sink.begin_set(result.eval_set_id, 1)
    for case in result.case_results():
        sink.add(case)
    sink.end_set(result.model_copy(update={"eval_case_results": None, "summary": None}))
    # The run's own sink got everything.
    assert len(inner.results[0].case_results()) == 5
    with pytest.raises(StoreError) as caught:
        recorder.finish(RunOutcome("failed", 1, 1.0), [FinishedSet(None, "", None)])
    assert "metric_results" in str(caught.value)
    # The half run is gone, not left looking finished.
    assert _state(store) == []


def test_abandon_removes_a_run_that_scored_nothing(store: Store) -> None:
    recorder = RunRecorder(store, _meta())
    recorder.start()
    assert _state(store) == ["running"]
    recorder.abandon()
    assert _state(store) == []


def _agent_run(store: Store, usages: list[dict[str, object] | None]) -> dict[str, object]:
    """A run of one eval set per ``usages`` (each its agentUsage); its runs row."""
    recorder = RunRecorder(store, _meta())
    recorder.start()
    for index, usage in enumerate(usages):
        rows = recorder.new_set(f"set{index}")
        recorder.end_set(rows, EvalSetResult(eval_set_id=f"set{index}", agent_usage=usage), {})
    recorder.finish(RunOutcome("passed", 0, 1.0), [FinishedSet(None, "", None)] * len(usages))
    with store.transaction() as conn:
        return dict(conn.execute(select(tables.runs)).one()._mapping)


def _usage(inp: int, out: int, calls: int, cost: float, **more: object) -> dict[str, object]:
    return {
        "turns": 1, "turnsWithoutUsage": 0, "inferenceCalls": calls, "inputTokens": inp,
        "outputTokens": out, "unpricedTurns": 0, "costUsd": cost, **more,
    }  # fmt: skip


def test_the_agents_spend_is_the_sum_of_its_eval_sets_as_the_run_document_adds_it(
    store: Store,
) -> None:
    # steady and broken of store_support, priced by the built-in openai:gpt-4o-mini.
    run = _agent_run(store, [_usage(2000, 400, 3, 0.00054), None, _usage(5000, 700, 3, 0.00117)])
    spent = {name: run[name] for name in agent_spend.COLUMNS}
    assert spent == {
        "agent_turns": 2,
        "agent_turns_without_usage": 0,
        "agent_inference_calls": 6,
        "agent_input_tokens": 7000,
        "agent_output_tokens": 1100,
        "agent_unpriced_turns": 0,
        # Decimal as the run document's agentUsage.costUsd; floats give 0.0017100000000000001.
        "agent_cost_usd": 0.00171,
    }
    assert run["judge_cost_usd"] is None  # the judge's stays apart


def test_an_unpriced_turn_stores_no_cost_and_no_usage_stores_nothing(store: Store) -> None:
    priced = _usage(2000, 400, 3, 0.00054, turnsWithoutUsage=2)
    unpriced = _usage(10, 5, 1, 0.0, unpricedTurns=1, unpricedModels=["acme:x"])
    run = _agent_run(store, [priced, unpriced])
    assert [run[name] for name in agent_spend.COLUMNS] == [2, 2, 4, 2010, 405, 1, None]
    with store.transaction() as conn:
        conn.execute(delete(tables.runs))
    run = _agent_run(store, [None, None])
    assert [run[name] for name in agent_spend.COLUMNS] == [None] * 7  # unknown, not 0
