"""The content hashes a stored eval set is recorded with, and the config hash made of them.

A result's ``fingerprint`` (eval set bytes, each resolved metric, the ``--traces`` file,
the case aggregator, the shard) says what its cases were scored on.  The store keeps
each hash in a column and joins the eval set's, the metrics' and the case aggregator's
into one **config hash** per eval set (and one per run) — the traces and the shard left
out: they are what is evaluated and where, not how.  ``trend`` names the hash that
changed at a change point.

Result files carry their fingerprint (``fingerprint`` key); :func:`set_fingerprint`
reads it from there.  Files written before fingerprints existed have none: for those
the run's own inputs are hashed here the same way (:func:`computed_fingerprint`).
SWITCH: once every result ``run`` writes carries its fingerprint (the ``fingerprint``
field of ``EvalSetResult``, agenteval.results.fingerprints), :func:`computed_fingerprint` and
:class:`FingerprintInputs` can go; only the read in :func:`set_fingerprint` stays.

Tested in tests/store/test_fingerprints.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from agenteval.inputs import loading
from agenteval.results.fingerprints import digest_bytes, digest_json, metric_digest
from agenteval.schema.result import EvalSetResult, extra


@dataclass(frozen=True, slots=True)
class StoredFingerprint:
    """The hashes of one eval set's inputs as the store records them."""

    eval_set: str | None = None
    metrics: Mapping[str, str] = field(default_factory=dict)
    traces: str | None = None
    case_aggregator: str | None = None
    shard: str | None = None

    @property
    def config_hash(self) -> str | None:
        """One hash of the configuration: eval set, metrics, case aggregator; None when unknown.

        Neither the shard (a sharded run has one configuration) nor the traces: they are
        what is being evaluated (the agent's output of the day), not how.
        """
        if self.eval_set is None and not self.metrics:
            return None
        return digest_json(
            {
                "evalSet": self.eval_set,
                "metrics": dict(sorted(self.metrics.items())),
                "caseAggregator": self.case_aggregator,
            }
        )


def run_config_hash(set_hashes: Sequence[tuple[str, str | None]]) -> str | None:
    """One hash over every eval set's (evalSetId, config hash); None when none is known."""
    known = sorted((eval_set_id, h) for eval_set_id, h in set_hashes if h is not None)
    return digest_json(known) if known else None


def set_fingerprint(
    head: EvalSetResult, computed: StoredFingerprint | None = None
) -> StoredFingerprint:
    """The fingerprint of a result: its own ``fingerprint`` key, else ``computed``, else empty."""
    value = extra(head).get("fingerprint")
    if isinstance(value, BaseModel):  # the typed field of newer schema versions
        value = value.model_dump(by_alias=True)
    if isinstance(value, dict):
        metrics = value.get("metrics")
        return StoredFingerprint(
            eval_set=_text(value.get("evalSet")),
            metrics={str(k): str(v) for k, v in metrics.items()}
            if isinstance(metrics, dict)
            else {},
            traces=_text(value.get("traces")),
            case_aggregator=_text(value.get("caseAggregator")),
            shard=_text(value.get("shard")),
        )
    return computed if computed is not None else StoredFingerprint()


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True, slots=True)
class FingerprintInputs:
    """What ``run`` was given, to hash an eval set's inputs (``computed_fingerprint``)."""

    evalset_paths: Mapping[str, Path]
    metrics: str | None = None
    traces: str | None = None
    case_aggregator: str | None = None
    shard: str | None = None
    environ: Mapping[str, str] | None = None

    @classmethod
    def of_run(
        cls,
        evalset_specs: Sequence[str],
        *,
        metrics: str | None,
        traces: str | None,
        case_aggregator: str | None,
        shard: str | None,
    ) -> FingerprintInputs:
        """The inputs of ``run --evalset …`` (unreadable specs are left for the run to report)."""
        paths, _ = loading.expand_evalset_paths(evalset_specs)
        return cls(
            {loading.evalset_id_for(path): path for path in paths},
            metrics=metrics,
            traces=traces,
            case_aggregator=case_aggregator,
            shard=shard,
        )


def computed_fingerprint(eval_set_id: str, inputs: FingerprintInputs) -> StoredFingerprint | None:
    """The fingerprint of ``eval_set_id`` hashed from the run's inputs; None when unreadable."""
    path = inputs.evalset_paths.get(eval_set_id)
    if path is None:
        return None
    try:
        eval_set = digest_bytes(path.read_bytes())
        traces = digest_bytes(Path(inputs.traces).read_bytes()) if inputs.traces else None
    except OSError:
        return None
    metrics: dict[str, str] = {}
    from agenteval.run.planning import metrics_path_for  # the runner is loaded only here

    metrics_path = metrics_path_for(path, inputs.metrics)
    try:
        text = metrics_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = None
    if text is not None:
        parsed, _ = loading.parse_metrics(text, str(metrics_path), inputs.environ)
        metrics = {metric.metric_name: metric_digest(metric) for metric in parsed}
    return StoredFingerprint(eval_set, metrics, traces, inputs.case_aggregator, inputs.shard)


__all__ = [
    "FingerprintInputs",
    "StoredFingerprint",
    "computed_fingerprint",
    "digest_bytes",
    "digest_json",
    "metric_digest",
    "run_config_hash",
    "set_fingerprint",
]
