"""The JSON Schemas: printed by ``agenteval schema``, shipped, and true of every real file.

Every shipped example and every conformance fixture validates against the
schema of its kind; so do a result file and a run document agenteval writes;
a misspelt key fails validation.
"""

from __future__ import annotations

import json
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agenteval.schema.json_schema import DRAFT, KINDS, json_schema, json_schema_text
from cli_process import run_cli
from trpc_fixtures import FIXTURES

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, timeout=120)


def kind_of(path: Path) -> str | None:
    for suffix, kind in (
        (".evalset.json", "evalset"),
        (".metrics.json", "metrics"),
        (".evalset_result.json", "result"),
    ):
        if path.name.endswith(suffix):
            return kind
    return None


def validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(json_schema(kind))


def errors(kind: str, data: Any) -> list[str]:
    """Every error, with those under an anyOf (a nullable value) spelt out."""
    found: list[str] = []
    stack = list(validator(kind).iter_errors(data))
    while stack:
        error = stack.pop()
        found.append(f"{error.json_path}: {error.message}")
        stack.extend(error.context or ())
    return found


def load(path: Path) -> Any:
    data = json.loads(path.read_text(encoding="utf-8"))
    # The legacy result layout wraps the whole document in one JSON string (formats.md §1).
    return json.loads(data) if isinstance(data, str) else data


@pytest.mark.parametrize("kind", KINDS)
def test_schema_command_prints_the_shipped_draft_2020_12_schema(kind: str) -> None:
    proc = cli("schema", kind)
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    assert printed["$schema"] == DRAFT
    Draft202012Validator.check_schema(printed)
    assert proc.stdout == json_schema_text(kind)
    # The same text in the repository and in the installed package.
    assert (ROOT / "schemas" / f"{kind}.schema.json").read_text(encoding="utf-8") == proc.stdout
    shipped = resources.files("agenteval").joinpath("data", f"{kind}.schema.json")
    assert shipped.read_text(encoding="utf-8") == proc.stdout


SHIPPED = sorted(
    p
    for p in [*(ROOT / "evalsets").rglob("*.json"), *(ROOT / "metrics").rglob("*.json")]
    # evalsets/adk/ holds a Google ADK eval set, shipped to show `agenteval import adk`.
    if kind_of(p) and "adk" not in p.relative_to(ROOT).parts
)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_example_validates(path: Path) -> None:
    kind = kind_of(path)
    assert kind is not None
    assert errors(kind, load(path)) == []


def fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*.json") if kind_of(p))


def test_every_conformance_fixture_validates() -> None:
    files = fixture_files()
    assert len(files) >= 80  # 35 eval sets, 31 metric files, 19 result files
    failures = {
        str(p.relative_to(FIXTURES)): found
        for p in files
        if (found := errors(kind_of(p) or "", load(p)))
    }
    assert failures == {}


def test_files_agenteval_writes_validate(tmp_path: Path) -> None:
    out, document = tmp_path / "out", tmp_path / "run.json"
    proc = cli(
        "run", "--evalset", str(ROOT / "evalsets" / "order-api.evalset.json"),
        "--metrics", str(ROOT / "metrics" / "order-api.metrics.json"),
        "--output", str(out), "--json", str(document), "--num-runs", "2",
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    (result,) = out.glob("*.evalset_result.json")
    assert errors("result", load(result)) == []
    assert errors("run", load(document)) == []


def test_the_schema_line_is_a_known_key(tmp_path: Path) -> None:
    data = load(ROOT / "evalsets" / "order-api.evalset.json")
    data = {"$schema": "../schemas/evalset.schema.json", **data}
    assert errors("evalset", data) == []
    evalset = tmp_path / "order-api.evalset.json"
    evalset.write_text(json.dumps(data))
    proc = cli(
        "validate", "--evalset", str(evalset),
        "--metrics", str(ROOT / "metrics" / "order-api.metrics.json"), "--strict",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "$schema" not in proc.stderr


def first_turn(data: dict[str, Any]) -> dict[str, Any]:
    turn: dict[str, Any] = data["evalCases"][0]["conversation"][0]
    return turn


def test_misspelt_keys_fail_schema_validation() -> None:
    evalset = load(ROOT / "evalsets" / "order-api.evalset.json")
    assert errors("evalset", evalset) == []
    turn = first_turn(evalset)
    turn["tool_calls"] = turn.pop("tools", [])
    assert any("'tool_calls' was unexpected" in e for e in errors("evalset", evalset))

    renamed = load(ROOT / "evalsets" / "order-api.evalset.json")
    renamed["evalSetID"] = renamed.pop("evalSetId")
    assert any("'evalSetID' was unexpected" in e for e in errors("evalset", renamed))

    metrics = load(ROOT / "metrics" / "order-api.metrics.json")
    metrics[0]["threshhold"] = metrics[0].pop("threshold")
    assert any("'threshhold' was unexpected" in e for e in errors("metrics", metrics))

    judge = {
        "metricName": "llm_final_response",
        "threshold": 1,
        "criterion": {"llmJudge": {"judgeModel": {"modelName": "m"}, "numSamples": 3}},
    }
    assert any("'numSamples' was unexpected" in e for e in errors("metrics", [judge]))
    moved = json.loads(json.dumps(judge).replace('}, "numSamples": 3}', ', "numSamples": 3}}'))
    assert moved["criterion"]["llmJudge"]["judgeModel"]["numSamples"] == 3
    assert errors("metrics", [moved]) == []


def test_the_builtin_price_table_and_a_prices_file_follow_the_prices_schema() -> None:
    shipped = json.loads(
        resources.files("agenteval").joinpath("data", "prices.json").read_text(encoding="utf-8")
    )
    assert errors("prices", shipped["prices"]) == []
    assert errors("prices", {"openai:m": {"inputPerMillion": 1, "outputPerMillion": 2}}) == []
    misspelt = {"openai:m": {"inputPerMilion": 1, "outputPerMillion": 2}}
    assert any("inputPerMilion" in e for e in errors("prices", misspelt))
    assert errors("prices", {"no-colon": {"inputPerMillion": 1, "outputPerMillion": 2}}) != []


def test_a_label_line_follows_the_labels_schema() -> None:
    base = {"evalSetId": "s", "evalId": "c", "metricName": "m"}
    assert errors("labels", {**base, "label": "pass"}) == []
    assert errors("labels", {**base, "score": 0.5, "rubricId": "r1"}) == []
    assert errors("labels", {**base, "label": "ok"}) != []
    assert errors("labels", {**base, "label": "pass", "score": 1}) != []
    assert errors("labels", {**base, "lable": "pass"}) != []


def text_metric(text: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "metricName": "final_response_avg_score",
            "threshold": 1,
            "criterion": {"finalResponse": {"text": text}},
        }
    ]


REFUSED_VALUES: list[tuple[str, Any]] = [
    ("metrics", text_metric({"matchStrategy": "exactt"})),
    ("metrics", text_metric({"length": {"min": -1}})),
    ("metrics", text_metric({"length": {"max": -3, "ignore": None}})),
    (
        "metrics",
        [
            {
                "metricName": "tool_trajectory_avg_score",
                "threshold": 1,
                "criterion": {
                    "toolTrajectory": {"defaultStrategy": {"arguments": {"matchStrategy": "regex"}}}
                },
            }
        ],
    ),
    (
        "metrics",
        [
            {
                "metricName": "final_response_avg_score",
                "threshold": 1,
                "criterion": {"finalResponse": {"json": {"numberTolerance": -0.5}}},
            }
        ],
    ),
    ("evalset", "replay"),
]


def evalset_with_mode(mode: str | None) -> dict[str, Any]:
    evalset: dict[str, Any] = load(ROOT / "evalsets" / "order-api.evalset.json")
    evalset["evalCases"][0]["evalMode"] = mode
    return evalset


@pytest.mark.parametrize(("kind", "document"), REFUSED_VALUES)
def test_the_schema_refuses_the_values_validate_refuses(
    tmp_path: Path, kind: str, document: Any
) -> None:
    evalset = evalset_with_mode(document) if kind == "evalset" else evalset_with_mode("trace")
    metrics = document if kind == "metrics" else load(ROOT / "metrics/order-api.metrics.json")
    (tmp_path / "s.evalset.json").write_text(json.dumps(evalset))
    (tmp_path / "s.metrics.json").write_text(json.dumps(metrics))
    proc = cli(
        "validate",
        "--evalset", str(tmp_path / "s.evalset.json"),
        "--metrics", str(tmp_path / "s.metrics.json"),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert errors(kind, evalset if kind == "evalset" else metrics) != []


def test_values_validate_accepts_pass_the_schema() -> None:
    # Every strategy, null as the zero value, and an ignored criterion, which nobody checks.
    for strategy in ["", "exact", "contains", "regex", "skip", None]:
        assert errors("metrics", text_metric({"matchStrategy": strategy})) == [], strategy
    assert errors("metrics", text_metric({"ignore": True, "matchStrategy": "whatever"})) == []
    assert errors("metrics", text_metric({"length": {"ignore": True, "min": -1}})) == []
    assert errors("metrics", text_metric({"length": {"min": 0, "max": 0}})) == []
    for mode in ["", "trace", None]:
        assert errors("evalset", evalset_with_mode(mode)) == [], mode
