"""Fingerprints: content hashes of what an eval set's results were scored on.

Every result file and run document records, per eval set, a
:class:`~agenteval.schema.result.Fingerprint`: the SHA-256 of the eval set file's
bytes, of each metric as it was resolved, of the ``--traces`` file's bytes (and of an OTLP
export's ``--traces-match`` other than ``session``), the
``--case-aggregator``, the agent that drove the cases (:func:`agent_digest`) and, for a
shard, its ``I/N``.  ``run --resume`` keeps only
cases whose fingerprint matches the run's (:func:`differences`), ``merge`` joins only
shards of one fingerprint and knows from ``shard`` which shards are missing.

A metric is hashed as resolved: its whole model (defaults filled in, so ``threshold: 0``
and no threshold hash alike) after the judge model's ``${VAR}`` expansion, so a changed
judge model or threshold shows.  Secrets are left out: the API key is never part of the
model's dump, and the base URL is hashed without its user info, query and fragment and
with any occurrence of the key removed.  A rotated key therefore keeps results valid,
and no hash in a result file is derived from a secret.

The agent is hashed as given (``--agent`` and ``--expected-agent``), with its secrets as
``***`` first (agenteval.agents.spec.shown_spec): an AG-UI URL's ``?token=`` changes
nothing, and no hash is derived from one.  An eval set the agent drives none of (every
case in trace mode, with its own ``actualConversation`` or replayed from ``--traces``)
carries no agent, as a run without ``--agent``: its turns are not the agent's, and old
results stay valid.  When it drives some, the whole eval set carries the agent (a
fingerprint is per eval set): another agent re-scores its replayed cases too, which
score the same turns again.

Hashes are of bytes, not of parsed content: a reformatted eval set is another eval set
here (safe: its cases are scored again).

Tested in tests/results/test_fingerprints.py.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import Fingerprint

PREFIX = "sha256:"


def digest_bytes(data: bytes) -> str:
    """``sha256:<hex>`` of ``data``."""
    return PREFIX + hashlib.sha256(data).hexdigest()


def digest_json(data: Any) -> str:
    """``sha256:<hex>`` of ``data`` as canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return digest_bytes(text.encode("ascii"))


def digest_file(path: Path) -> str:
    """``sha256:<hex>`` of a file's bytes, read in pieces (flat memory for any size)."""
    with path.open("rb") as handle:
        return PREFIX + hashlib.file_digest(handle, "sha256").hexdigest()


def _without_secrets(base_url: str, api_key: str) -> str:
    """A base URL without user info, query and fragment, and without the key anywhere."""
    try:
        parts = urlsplit(base_url)
        host = parts.netloc.rpartition("@")[2]
        cleaned = urlunsplit((parts.scheme, host, parts.path, "", ""))
    except ValueError:  # not a URL at all: only the key is taken out
        cleaned = base_url
    return cleaned.replace(api_key, "") if api_key else cleaned


def metric_digest(metric: EvalMetric) -> str:
    """``sha256:<hex>`` of the resolved metric, secrets left out (module docstring)."""
    data: dict[str, Any] = metric.model_dump(mode="json", by_alias=True)
    judge = metric.criterion.llm_judge if metric.criterion is not None else None
    model = judge.judge_model if judge is not None else None
    if model is not None:
        entry = data["criterion"]["llmJudge"]["judgeModel"]
        entry["baseURL"] = _without_secrets(model.base_url, model.api_key)
    return digest_json(data)


def agent_digest(agent: str, expected_agent: str | None = None) -> str:
    """``sha256:<hex>`` of the agent specs, already shown with their secrets as ``***``."""
    return digest_json({"agent": agent, "expectedAgent": expected_agent})


def fingerprint(
    eval_set: str,
    metrics: Iterable[EvalMetric],
    *,
    traces: str | None = None,
    case_aggregator: str | None = None,
    shard: str | None = None,
) -> Fingerprint:
    """The fingerprint of an eval set scored with ``metrics`` (``eval_set``: its digest)."""
    return Fingerprint(
        eval_set=eval_set,
        metrics={metric.metric_name: metric_digest(metric) for metric in metrics},
        traces=traces,
        case_aggregator=case_aggregator,
        shard=shard,
    )


def differences(earlier: Fingerprint, now: Fingerprint) -> list[str]:
    """What differs between two fingerprints, the shard aside, in words ([] when nothing).

    For example ``["eval set changed", "metric file changed (response_match_score)"]``;
    a metric added or removed is a changed metric file too.
    """
    found: list[str] = []
    if earlier.eval_set != now.eval_set:
        found.append("eval set changed")
    before, after = earlier.metrics or {}, now.metrics or {}
    names = [name for name in after if before.get(name) != after[name]]
    names += [name for name in before if name not in after]
    if names:
        found.append(f"metric file changed ({', '.join(names)})")
    if earlier.traces != now.traces:
        found.append("traces changed")
    if earlier.case_aggregator != now.case_aggregator:
        found.append("case aggregator changed")
    if earlier.agent != now.agent:
        found.append("agent changed")
    return found


def joined(phrases: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]


def without_shard(value: Fingerprint) -> Fingerprint:
    """``value`` as the whole run's fingerprint (no ``shard``)."""
    return value.model_copy(update={"shard": None})


__all__ = [
    "PREFIX",
    "agent_digest",
    "differences",
    "digest_bytes",
    "digest_file",
    "digest_json",
    "fingerprint",
    "joined",
    "metric_digest",
    "without_shard",
]
