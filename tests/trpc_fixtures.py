"""The trpc-agent-go example fixtures vendored in tests/fixtures/ and their replay (formats.md §10.1).

Where each file came from: tests/fixtures/PROVENANCE.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_VENDORED = Path(__file__).resolve().parent / "fixtures"
# trpc-agent-go's examples/evaluation/: eval sets, metric files and the results its examples wrote.
FIXTURES = _VENDORED / "trpc-examples"
# trpc-agent-go's evaluation/internal/rouge/testdata/: the Go ROUGE tests' inputs.
ROUGE_TESTDATA = _VENDORED / "trpc-rouge-testdata"


def fixture_file(pattern: str) -> Path:
    """The one fixture file matching a glob under trpc-examples/."""
    matches = sorted(FIXTURES.glob(pattern))
    assert len(matches) == 1, pattern
    return matches[0]


def replay_evalset(example: str, tmp: Path) -> tuple[Path, Path, dict[str, Any]]:
    """Build the trace-mode eval set of §10.1 step 2; return it, the metric file and the stored result."""
    evalset_path = fixture_file(f"{example}/data/*/*.evalset.json")
    metrics_path = fixture_file(f"{example}/data/*/*.metrics.json")
    stored = json.loads(fixture_file(f"{example}/output/*/*.evalset_result.json").read_text())
    evalset = json.loads(evalset_path.read_text())
    by_id = {c["evalId"]: c for c in evalset["evalCases"]}
    cases = []
    for cr in stored["evalCaseResults"]:
        source = by_id[cr["evalId"]]
        case: dict[str, Any] = {
            "evalId": cr["evalId"],
            "evalMode": "trace",
            "actualConversation": [
                p["actualInvocation"] for p in cr["evalMetricResultPerInvocation"]
            ],
            "sessionInput": source["sessionInput"],
        }
        for key in ("conversation", "contextMessages", "rubrics"):
            if source.get(key):
                case[key] = source[key]
        cases.append(case)
    out = tmp / evalset_path.name
    out.write_text(json.dumps({"evalSetId": evalset["evalSetId"], "evalCases": cases}))
    return out, metrics_path, stored
