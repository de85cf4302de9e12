"""Fingerprints as the store records them: read from a result, else hashed from the run's inputs."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval.schema.metric import EvalMetric
from agenteval.store.fingerprints import (
    FingerprintInputs,
    StoredFingerprint,
    computed_fingerprint,
    digest_bytes,
    metric_digest,
    run_config_hash,
    set_fingerprint,
)
from store.store_support import scripted_result, with_fingerprint

JUDGE_METRIC = {
    "metricName": "judged",
    "threshold": 0.5,
    "criterion": {
        "llmJudge": {
            "judgeModel": {
                "providerName": "openai",
                "modelName": "gpt-x",
                "baseURL": "https://user:pw@judge.example/v1?key=sk-secret-1",
                "apiKey": "sk-secret-1",
            }
        }
    },
}


def test_the_result_s_own_fingerprint_wins() -> None:
    stored = {
        "evalSet": "sha256:" + "1" * 64,
        "metrics": {"m": "sha256:" + "2" * 64},
        "traces": "sha256:" + "3" * 64,
        "shard": "2/4",
    }
    result = with_fingerprint(scripted_result(1), stored)
    computed = StoredFingerprint(eval_set="sha256:other")
    found = set_fingerprint(result, computed)
    assert found == StoredFingerprint(
        "sha256:" + "1" * 64, {"m": "sha256:" + "2" * 64}, "sha256:" + "3" * 64, None, "2/4"
    )
    assert set_fingerprint(scripted_result(1), computed) is computed
    assert set_fingerprint(scripted_result(1)) == StoredFingerprint()


def test_config_hash_leaves_out_traces_and_shard() -> None:
    base = StoredFingerprint("sha256:e", {"m": "sha256:m"}, "sha256:t1", None, "1/2")
    other_day = StoredFingerprint("sha256:e", {"m": "sha256:m"}, "sha256:t2", None, "2/2")
    changed = StoredFingerprint("sha256:e", {"m": "sha256:m2"}, "sha256:t1", None, "1/2")
    assert base.config_hash == other_day.config_hash
    assert base.config_hash != changed.config_hash
    assert StoredFingerprint().config_hash is None
    assert run_config_hash([("a", base.config_hash), ("b", None)]) == run_config_hash(
        [("a", base.config_hash)]
    )
    assert run_config_hash([]) is None


def test_metric_digest_holds_no_secret_and_follows_the_resolved_metric() -> None:
    metric = EvalMetric.model_validate(JUDGE_METRIC)
    rotated = json.loads(json.dumps(JUDGE_METRIC))
    rotated["criterion"]["llmJudge"]["judgeModel"]["apiKey"] = "sk-rotated"
    rotated["criterion"]["llmJudge"]["judgeModel"]["baseURL"] = "https://judge.example/v1"
    assert metric_digest(metric) == metric_digest(EvalMetric.model_validate(rotated))
    stricter = json.loads(json.dumps(JUDGE_METRIC))
    stricter["threshold"] = 0.7
    assert metric_digest(metric) != metric_digest(EvalMetric.model_validate(stricter))


def test_computed_from_the_run_s_files(tmp_path: Path) -> None:
    evalset = tmp_path / "suite.evalset.json"
    evalset.write_text('{"evalSetId": "suite", "evalCases": []}')
    (tmp_path / "suite.metrics.json").write_text(json.dumps([JUDGE_METRIC]))
    traces = tmp_path / "traces.jsonl"
    traces.write_text("{}\n")
    inputs = FingerprintInputs.of_run(
        [str(evalset)], metrics=None, traces=str(traces), case_aggregator=None, shard="1/3"
    )
    found = computed_fingerprint("suite", inputs)
    assert found is not None
    assert found.eval_set == digest_bytes(evalset.read_bytes())
    assert found.traces == digest_bytes(b"{}\n")
    assert found.shard == "1/3"
    assert found.metrics == {"judged": metric_digest(EvalMetric.model_validate(JUDGE_METRIC))}
    assert computed_fingerprint("other", inputs) is None
