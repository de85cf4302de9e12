"""The format models' writer: a memo shared by a document's dumps (schema/base.py)."""

from __future__ import annotations

from agenteval.schema.base import DumpMemo, dump_json_bytes
from agenteval.schema.metric import Criterion
from agenteval.schema.result import EvalMetricResult


def _result(criterion: Criterion, name: str = "m") -> EvalMetricResult:
    return EvalMetricResult(metric_name=name, score=0.5, threshold=1.0, criterion=criterion)


def _criterion(order_sensitive: bool) -> Criterion:
    return Criterion.model_validate(
        {"toolTrajectory": {"orderSensitive": order_sensitive, "defaultStrategy": {}}}
    )


def test_dumps_sharing_a_memo_write_what_each_dump_alone_writes() -> None:
    first, second = _criterion(True), _criterion(False)
    results = [_result(first, "a"), _result(second, "b"), _result(first, "c")]
    memo: DumpMemo = {}
    shared = [dump_json_bytes(result, memo) for result in results]
    assert shared == [dump_json_bytes(result) for result in results]
    # Each criterion was serialised once and is held by the memo (its id cannot be reused).
    assert sorted(id(seen) for seen, _ in memo.values()) == sorted((id(first), id(second)))
    assert b'"orderSensitive": false' in shared[1]
    assert b'"orderSensitive": true' in shared[2]


def test_a_memo_of_many_criteria_starts_again_instead_of_growing() -> None:
    memo: DumpMemo = {}
    criteria = [_criterion(i % 2 == 0) for i in range(200)]
    for index, criterion in enumerate(criteria):
        written = dump_json_bytes(_result(criterion), memo)
        assert written == dump_json_bytes(_result(criterion))
        assert len(memo) <= 65, index
