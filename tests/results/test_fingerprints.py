"""Fingerprints: content hashes of the inputs, no secret in them, differences in words."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from agenteval.inputs.loading import parse_metrics
from agenteval.results.fingerprints import (
    agent_digest,
    differences,
    digest_bytes,
    digest_file,
    fingerprint,
    joined,
    metric_digest,
    without_shard,
)
from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import Fingerprint


def judge_metric(**judge_model: Any) -> EvalMetric:
    model = {"providerName": "openai", "modelName": "gpt-4o", **judge_model}
    return EvalMetric.model_validate(
        {
            "metricName": "llm_final_response",
            "threshold": 1,
            "criterion": {"llmJudge": {"judgeModel": model}},
        }
    )


def test_digests_are_sha256_of_the_bytes(tmp_path: Path) -> None:
    data = b'{"evalSetId": "x"}\n' * 1000
    path = tmp_path / "x.evalset.json"
    path.write_bytes(data)
    expected = "sha256:" + hashlib.sha256(data).hexdigest()
    assert digest_bytes(data) == digest_file(path) == expected


def test_a_metric_hashes_as_resolved() -> None:
    plain = EvalMetric.model_validate({"metricName": "m", "criterion": {}})
    explicit = EvalMetric.model_validate({"metricName": "m", "threshold": 0.0, "criterion": {}})
    stricter = EvalMetric.model_validate({"metricName": "m", "threshold": 1, "criterion": {}})
    assert metric_digest(plain) == metric_digest(explicit)  # the default, written or not
    assert metric_digest(plain) != metric_digest(stricter)
    assert metric_digest(judge_metric()) != metric_digest(judge_metric(modelName="gpt-4o-mini"))


def test_judge_settings_from_the_environment_count_but_keys_do_not() -> None:
    text = (
        '[{"metricName": "j", "threshold": 1, "criterion": {"llmJudge": {"judgeModel": '
        '{"providerName": "openai", "modelName": "${MODEL}", "apiKey": "${KEY}"}}}}]'
    )

    def digest(environ: dict[str, str]) -> str:
        metrics, problems = parse_metrics(text, "m.json", environ)
        assert not problems
        return metric_digest(metrics[0])

    first = digest({"MODEL": "gpt-4o", "KEY": "sk-one"})
    assert digest({"MODEL": "gpt-4o", "KEY": "sk-two"}) == first  # a rotated key
    assert digest({"MODEL": "gpt-4.1", "KEY": "sk-one"}) != first  # another judge


def test_no_hash_is_derived_from_a_secret_in_the_base_url() -> None:
    bare = metric_digest(judge_metric(baseURL="https://judge.example/v1"))
    for url, key in [
        ("https://judge.example/v1?key=sk-1", "sk-1"),
        ("https://judge.example/v1?key=sk-2", "sk-2"),
        ("https://user:pa55@judge.example/v1", ""),
        ("https://judge.example/v1#frag", ""),
    ]:
        assert metric_digest(judge_metric(baseURL=url, apiKey=key)) == bare, url
    # The key inside the path is taken out: rotating it keeps the hash.
    in_path = [
        metric_digest(judge_metric(baseURL=f"https://judge.example/{key}/v1", apiKey=key))
        for key in ("sk-aaa", "sk-bbb")
    ]
    assert in_path[0] == in_path[1]
    # Where the judge is still counts.
    assert metric_digest(judge_metric(baseURL="https://other.example/v1")) != bare


def test_differences_in_words() -> None:
    base = fingerprint("sha256:a", [judge_metric()], traces="sha256:t", shard="1/2")
    assert differences(base, without_shard(base)) == []
    changed = Fingerprint(
        eval_set="sha256:b",
        metrics={"llm_final_response": "sha256:other", "extra": "sha256:x"},
        traces=None,
        case_aggregator="weighted",
    )
    assert differences(base, changed) == [
        "eval set changed",
        "metric file changed (llm_final_response, extra)",
        "traces changed",
        "case aggregator changed",
    ]
    removed = base.model_copy(update={"metrics": {}})
    assert differences(base, removed) == ["metric file changed (llm_final_response)"]
    assert joined(["a"]) == "a"
    assert joined(["a", "b", "c"]) == "a, b and c"


def test_the_agent_is_part_of_the_fingerprint_and_absent_without_one() -> None:
    base = fingerprint("sha256:a", [judge_metric()])
    good = base.model_copy(update={"agent": agent_digest("cmd:./good_agent.py")})
    bad = base.model_copy(update={"agent": agent_digest("cmd:./bad_agent.py")})
    assert differences(good, bad) == ["agent changed"]
    assert differences(base, good) == ["agent changed"]  # results of a run without one
    expected = agent_digest("cmd:./good_agent.py", "cmd:./reference_agent.py")
    assert differences(good, good.model_copy(update={"agent": expected})) == ["agent changed"]
    assert differences(good, good.model_copy()) == []
    # Without an agent nothing is written: results of earlier runs keep their fingerprint.
    assert "agent" not in base.model_dump(by_alias=True, exclude_none=True)
