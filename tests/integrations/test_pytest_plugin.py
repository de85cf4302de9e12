"""The pytest plugin in a scratch project: one test per shipped case, reasons, -k, xdist, cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from inner_pytest import PYTEST
from judge_server import JudgeServer

ROOT = Path(__file__).resolve().parents[2]
# The shipped cases that fail on purpose (README "The shipped examples").
FAILING = {
    "warranty_period_wrong",
    "refund_amount_off",
    "export_5120_unescaped_ampersand",
    "export_6001_wrong_quantity",
    "currency_wrong_amount",
    "packing_tips_two_turns",
}


def shipped_case_ids() -> list[str]:
    ids = []
    for path in sorted((ROOT / "evalsets").glob("*.evalset.json")):
        ids.extend(case["evalId"] for case in json.loads(path.read_text())["evalCases"])
    return ids


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    for name in ("evalsets", "metrics"):
        shutil.copytree(ROOT / name, tmp_path / name)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "scratch"\n')
    return tmp_path


def pytest_run(
    project: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    # The outer run's pytest and agenteval settings are not the scratch project's.
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "AGENTEVAL_"))}
    return subprocess.run(
        [*PYTEST, *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=project,
        env={**environ, **(env or {})},
    )


def outcomes(junit: Path) -> dict[str, tuple[str, str]]:
    """{testcase name: (outcome, failure text)} of a JUnit XML file pytest wrote."""
    found = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        failure = case.find("failure")
        text = failure.text or "" if failure is not None else ""
        found[case.attrib["name"]] = ("failed" if failure is not None else "passed", text)
    return found


def test_one_test_per_shipped_case_failing_with_reasons_serial_and_xdist(project: Path) -> None:
    args = ["--agenteval-evalset", "evalsets/", "--agenteval-metrics", "metrics/"]
    serial = pytest_run(project, *args, "--junitxml=serial.xml")
    assert serial.returncode == 1, serial.stdout + serial.stderr
    assert "6 failed, 7 passed" in serial.stdout
    found = outcomes(project / "serial.xml")
    assert sorted(found) == sorted(shipped_case_ids())
    assert {name for name, (outcome, _) in found.items() if outcome == "failed"} == FAILING
    text = found["currency_wrong_amount"][1]
    assert text.splitlines()[0] == "currency_wrong_amount  FAILED"
    assert "metric                      turn 1   score   threshold   status" in text
    assert "tool_trajectory_avg_score        0       0           1   failed" in text
    assert "value mismatch at $.amount: 100 vs 1000" in text
    assert "Traceback" not in serial.stdout
    assert (
        "length mismatch: actual length 4 is less than min 10" in found["packing_tips_two_turns"][1]
    )

    parallel = pytest_run(project, *args, "-n", "2", "--junitxml=parallel.xml")
    assert parallel.returncode == 1, parallel.stdout + parallel.stderr
    assert "6 failed, 7 passed" in parallel.stdout
    assert outcomes(project / "parallel.xml") == found


def test_project_file_names_the_eval_sets_and_k_selects_by_case_id(project: Path) -> None:
    with (project / "pyproject.toml").open("a") as handle:
        handle.write('\n[tool.agenteval]\nevalset = ["evalsets/"]\nmetrics = "metrics/"\n')
    proc = pytest_run(project, "-k", "currency or weather_paris", "-rA")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 failed, 1 passed, 11 deselected" in proc.stdout
    assert "PASSED evalsets/travel-assistant.evalset.json::weather_paris" in proc.stdout
    assert "FAILED evalsets/travel-assistant.evalset.json::currency_wrong_amount" in proc.stdout


def test_no_eval_sets_no_items(project: Path) -> None:
    (project / "test_plain.py").write_text("def test_one():\n    assert True\n")
    proc = pytest_run(project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout


def test_metrics_without_an_eval_set_is_a_usage_error(project: Path) -> None:
    # --agenteval-metrics alone collected nothing and the other tests passed, exit 0.
    (project / "test_plain.py").write_text("def test_one():\n    assert True\n")
    proc = pytest_run(project, "--agenteval-metrics", "metrics/")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "--agenteval-metrics: names no eval set (give --agenteval-evalset PATH" in proc.stderr
    # pytest writes `ERROR: ` before a usage error's text: it said `ERROR: error: …`.
    assert proc.stderr.startswith("ERROR: --agenteval-metrics: names no eval set"), proc.stderr


def test_a_misspelt_evalset_key_is_a_usage_error_not_a_green_run(project: Path) -> None:
    # With no `evalset` key the project file went unread: `evalsets` (a typo) collected
    # nothing and the project's other tests passed, exit 0.
    (project / "test_plain.py").write_text("def test_one():\n    assert True\n")
    with (project / "pyproject.toml").open("a") as handle:
        handle.write('\n[tool.agenteval]\nevalsets = ["evalsets/"]\nmetrics = "metrics/"\n')
    proc = pytest_run(project)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert (
        "tool.agenteval.evalsets: 'evalsets' is not a setting of agenteval run "
        "(did you mean 'evalset'?)" in proc.stderr
    )


def test_a_pyproject_table_beside_agenteval_toml_is_a_warning(project: Path) -> None:
    # agenteval.toml's settings are used and the [tool.agenteval] beside it was ignored
    # without a word.
    with (project / "pyproject.toml").open("a") as handle:
        handle.write('\n[tool.agenteval]\nevalset = ["nothere/"]\n')
    (project / "agenteval.toml").write_text(
        'evalset = ["evalsets/travel-assistant.evalset.json"]\nmetrics = "metrics/"\n'
    )
    proc = pytest_run(project)
    assert "2 failed, 2 passed, 1 warning" in proc.stdout, proc.stdout + proc.stderr
    assert "AgentEvalWarning" in proc.stdout, proc.stdout
    assert "tool.agenteval: not read:" in proc.stdout


def test_a_value_the_option_refuses_is_a_usage_error_not_an_internal_error(
    project: Path,
) -> None:
    # pytest stopped with INTERNALERROR and click's traceback on `judge-timeout = inf`.
    with (project / "pyproject.toml").open("a") as handle:
        handle.write('\n[tool.agenteval]\nevalset = ["evalsets/"]\njudge-timeout = inf\n')
    proc = pytest_run(project)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "INTERNALERROR" not in proc.stdout + proc.stderr
    assert (
        f"ERROR: {project / 'pyproject.toml'}: tool.agenteval.judge-timeout: must be a finite "
        "number, got inf" in proc.stderr
    )


def test_strict_from_the_environment_overrides_lenient_in_the_file(project: Path) -> None:
    # run lets $AGENTEVAL_STRICT override `lenient = true` in the file; pytest refused the
    # pair as a conflict ("--lenient: cannot be combined with --strict"): 4 errors.
    with (project / "pyproject.toml").open("a") as handle:
        handle.write('\n[tool.agenteval]\nevalset = ["evalsets/"]\nlenient = true\n')
    metrics = project / "evalsets" / "order-api.metrics.json"
    shutil.copy(project / "metrics" / "order-api.metrics.json", metrics)
    for name in ("help-center", "order-export", "travel-assistant"):
        shutil.copy(project / "metrics" / f"{name}.metrics.json", project / "evalsets")
    lenient = pytest_run(project)
    assert "6 failed, 7 passed" in lenient.stdout, lenient.stdout + lenient.stderr
    metrics.write_text(
        metrics.read_text().replace('"criterion"', '"criterion_note": 1, "criterion"', 1)
    )
    strict = pytest_run(project, env={"AGENTEVAL_STRICT": "1"})
    assert strict.returncode == 2, strict.stdout + strict.stderr
    assert "cannot be combined" not in strict.stdout
    assert "criterion_note: 'criterion_note' is not a field" in strict.stdout
    assert "1 error" in strict.stdout


def test_a_bad_metric_file_is_a_located_collection_error(project: Path) -> None:
    metrics = project / "metrics" / "order-api.metrics.json"
    metrics.write_text(metrics.read_text().replace('"threshold"', '"threshhold"', 1))
    proc = pytest_run(
        project, "--agenteval-evalset", "evalsets/", "--agenteval-metrics", "metrics/"
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "ERROR collecting evalsets/order-api.evalset.json" in proc.stdout
    assert (
        f"error: {Path('metrics') / 'order-api.metrics.json'}: [0].threshhold: 'threshhold' is not a field"
        in proc.stdout
    )


def test_workers_share_the_judge_cache(project: Path, judge_server: JudgeServer) -> None:
    env = {
        "JUDGE_MODEL_BASE_URL": judge_server.base_url,
        "JUDGE_MODEL_API_KEY": "sk-test",
        "JUDGE_MODEL_NAME": "judge",
    }
    args = [
        "--agenteval-evalset",
        "evalsets/travel-assistant.evalset.json",
        "--agenteval-metrics",
        "metrics/judges/",
        "-n",
        "2",
    ]
    first = pytest_run(project, *args, env=env)
    calls = judge_server.count
    assert calls > 0, first.stdout + first.stderr
    assert (project / ".agenteval" / "cache.sqlite").is_file()
    again = pytest_run(project, *args, env=env)
    assert judge_server.count == calls  # every reply from the cache the workers wrote
    summary = lambda text: text.strip().splitlines()[-1].split(" in ")[0]  # noqa: E731
    assert summary(again.stdout) == summary(first.stdout)


def test_a_judge_budget_in_the_project_file_binds_the_tests(
    tmp_path: Path, judge_server: JudgeServer
) -> None:
    # pytest built its options from a list of run's parameters that left out
    # max-judge-cost and prices: the budget that stops `run` (exit 3) let every case pass.
    cases = [_case("one"), _case("two")]
    (tmp_path / "s.evalset.json").write_text(json.dumps({"evalSetId": "s", "evalCases": cases}))
    model = {"providerName": "openai", "modelName": "m", "baseURL": judge_server.base_url}
    model["numSamples"] = 2  # the budget lets a first call start, never the second
    metric = {"metricName": "judged", "evaluatorName": "llm_final_response", "threshold": 1.0}
    judged = [{**metric, "criterion": {"llmJudge": {"judgeModel": {**model, "apiKey": "sk"}}}}]
    (tmp_path / "s.metrics.json").write_text(json.dumps(judged))
    # 11 prompt and 7 completion tokens a call: $0.000138, over a $0.0001 budget (each
    # test scores its case alone: the budget is each test's).
    prices = {"openai:m": {"inputPerMillion": 3, "outputPerMillion": 15}}
    (tmp_path / "prices.json").write_text(json.dumps(prices))
    settings = 'evalset = ["s.evalset.json"]\nno-cache = true\nprices = "prices.json"\n'
    settings += "concurrency = 1\n"
    (tmp_path / "agenteval.toml").write_text(settings)
    unbound = pytest_run(tmp_path)
    assert unbound.returncode == 0, unbound.stdout + unbound.stderr
    assert "2 passed" in unbound.stdout
    (tmp_path / "agenteval.toml").write_text(settings + "max-judge-cost = 0.0001\n")
    bound = pytest_run(tmp_path, "-rA")
    assert bound.returncode == 1, bound.stdout + bound.stderr
    assert "2 failed" in bound.stdout
    assert "INCOMPLETE" in bound.stdout
    reason = "judge budget exhausted: max_judge_cost=0.0001 USD reached"
    assert reason in " ".join(bound.stdout.split())


def _turn(text: str) -> dict[str, object]:
    return {
        "invocationId": "t1",
        "userContent": {"role": "user", "content": "hi"},
        "finalResponse": {"role": "assistant", "content": text},
    }


def _case(eval_id: str, actual: str = "hello") -> dict[str, object]:
    return {
        "evalId": eval_id,
        "evalMode": "trace",
        "conversation": [_turn("hello")],
        "actualConversation": [_turn(actual)],
        "sessionInput": {"appName": "a", "userId": "u"},
    }


HOSTILE_IDS = ["clear\x1b[2J\x07", "two\nlines", "L" * 600]


def test_hostile_case_ids_and_keys_are_escaped_and_unevaluated_cases_fail(
    tmp_path: Path,
) -> None:
    # A case id or unknown key holding control characters reached the terminal raw in the
    # test id (PASSED x.evalset.json::clear<ESC>[2J<BEL>) and in the warnings summary.
    mine = _case("plain")
    mine["x\x1b]0;title\x07"] = 1  # an unknown key: a warning
    cases = [mine, _case("wrong", actual="bye"), *(_case(i) for i in HOSTILE_IDS)]
    (tmp_path / "s.evalset.json").write_text(json.dumps({"evalSetId": "s", "evalCases": cases}))
    exact = {"finalResponse": {"text": {"matchStrategy": "exact"}}}
    metric = {"metricName": "exact", "evaluatorName": "final_response_avg_score"}
    metrics = [{**metric, "threshold": 1.0, "criterion": exact}]
    (tmp_path / "s.metrics.json").write_text(json.dumps(metrics))
    cases = [_case("never_scored"), _case("never_scored_either")]
    (tmp_path / "u.evalset.json").write_text(json.dumps({"evalSetId": "u", "evalCases": cases}))
    unevaluated = {"metricName": "unevaluated", "threshold": 1.0}
    (tmp_path / "u.metrics.json").write_text(json.dumps([unevaluated, *metrics]))
    plugin = Path(__file__).resolve().parents[1] / "plugins" / "unevaluated_metric.py"
    (tmp_path / "pyproject.toml").write_text(
        f'[project]\nname = "scratch"\n[tool.agenteval]\nplugin = ["{plugin}"]\n'
    )
    args = ["--agenteval-evalset", "s.evalset.json", "--agenteval-evalset", "u.evalset.json"]
    proc = pytest_run(tmp_path, *args, "-rA", "--junitxml=out.xml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "3 failed, 4 passed, 1 warning" in proc.stdout
    assert not any(char in proc.stdout for char in "\x1b\x07"), proc.stdout
    assert "PASSED s.evalset.json::clear\\x1b[2J\\x07\n" in proc.stdout
    assert "PASSED s.evalset.json::two\\nlines\n" in proc.stdout
    assert f"PASSED s.evalset.json::{'L' * 600}\n" in proc.stdout
    assert "evalCases[0].x\\x1b]0;title\\x07: 'x\\x1b]0;title\\x07' is not a field" in proc.stdout
    found = outcomes(tmp_path / "out.xml")
    assert found["wrong"][0] == "failed"
    for name in ("never_scored", "never_scored_either"):
        outcome, text = found[name]
        assert outcome == "failed"
        assert text.splitlines()[0] == f"{name}  INCOMPLETE"
        assert "! unevaluated · turn 1: not evaluated: no verdict yet" in text
    # (JUnit's name of the id with "[" is pytest's own: it reads "[" as a parameter.)
    assert len(found) == 7
    assert {"two\\nlines", "L" * 600} <= set(found)
    parallel = pytest_run(tmp_path, *args, "-n", "2", "--junitxml=parallel.xml")
    assert parallel.returncode == 1, parallel.stdout + parallel.stderr
    assert outcomes(tmp_path / "parallel.xml") == found
