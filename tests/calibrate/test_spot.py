"""``agenteval calibrate --evalset PATH --metrics PATH --labels FILE``: scored on the spot
from the judge cache a real run filled (the loopback judge over HTTP), the same calibration
as from the saved result; a cache miss is not evaluated, listed, exit 3, and never sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judge_server import JudgeServer
from tests.calibrate.test_calibrate import (
    CASES,
    RUBRIC,
    UNKNOWN,
    cli,
    scored_result,
    write_inputs,
    write_labels,
)


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the saved result, the judge cache) of one run of the ten cases."""
    tmp = tmp_path_factory.mktemp("spot")
    with JudgeServer() as server:
        return scored_result(tmp, server, tmp / "judge-cache.sqlite"), tmp / "judge-cache.sqlite"


def spot_args(directory: Path, cache: Path) -> list[str]:
    return [
        "--evalset", str(directory / "qa.evalset.json"),
        "--metrics", str(directory / "qa.metrics.json"),
        "--cache", str(cache),
    ]  # fmt: skip


def without_source(document: dict[str, Any]) -> dict[str, Any]:
    """The calibration with what names its source (the result, the explain lines) taken out."""
    del document["result"]
    for group in document["groups"]:
        for entry in group["disagreements"]:
            del entry["explain"]
    return document


def test_spot_scoring_gives_the_saved_results_calibration(
    scored: tuple[Path, Path], tmp_path: Path
) -> None:
    result, cache = scored
    directory = result.parent.parent
    labels = write_labels(tmp_path, [*UNKNOWN, *RUBRIC])
    saved = cli("calibrate", str(result), "--labels", str(labels), "--json")
    spot = cli("calibrate", *spot_args(directory, cache), "--labels", str(labels), "--json")
    assert saved.returncode == 0, saved.stdout + saved.stderr
    assert spot.returncode == 0, spot.stdout + spot.stderr
    from_saved, from_spot = json.loads(saved.stdout), json.loads(spot.stdout)
    assert from_spot["groups"][0]["passFail"]["confusion"]["matrix"] == [[4, 1], [2, 3]]
    assert from_spot["groups"][0]["selfConsistency"]["unanimous"] == 9
    assert without_source(from_spot) == without_source(from_saved)
    assert spot.stderr == saved.stderr  # the same warning: 2 labels name no scored item
    # The console: the same lines but for the explain commands, which name the eval set.
    saved_text = cli("calibrate", str(result), "--labels", str(labels))
    spot_text = cli("calibrate", *spot_args(directory, cache), "--labels", str(labels))
    explain = f"agenteval explain {result}"
    assert saved_text.stdout.count(explain) == 4
    spot_source = "agenteval explain " + " ".join(spot_args(directory, cache)) + " --offline"
    assert spot_text.stdout.count(spot_source) == 4
    assert spot_text.stdout.replace(spot_source, explain) == saved_text.stdout
    # The explain line shown for a disagreement works as printed: scored from the cache.
    shown = [line.strip() for line in spot_text.stdout.splitlines() if "--case c4 " in line]
    assert shown == [f"{spot_source} --case c4 --metric llm_rubric_response"]
    explained = cli(*shown[0].split()[1:], "--json")
    assert explained.returncode == 0, explained.stdout + explained.stderr
    metric = json.loads(explained.stdout)["metric"]
    assert (metric["score"], metric["status"]) == (1, "passed")  # as the saved result has it


def test_a_cache_miss_is_listed_never_sent_and_makes_it_incomplete(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    evalset, metrics = write_inputs(tmp_path, judge_server)
    cache = tmp_path / "partial-cache.sqlite"
    filled = cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), "--cache", str(cache),
        "--case", "c0", "--case", "c5", "--output", str(tmp_path / "out"),
    )  # fmt: skip
    assert filled.returncode == 1, filled.stdout + filled.stderr  # c5 fails at threshold 1
    calls = judge_server.count
    labels = write_labels(tmp_path, [])
    run = cli("calibrate", *spot_args(tmp_path, cache), "--labels", str(labels), "--json")
    assert run.returncode == 3, run.stdout + run.stderr
    assert judge_server.count == calls  # no judge call left the machine
    document = json.loads(run.stdout)
    block = document["groups"][0]["passFail"]
    # c0: judge pass, people pass; c5: judge fail (0.5 < 1), people pass.
    assert block["items"] == 2 and block["confusion"]["matrix"] == [[1, 0], [1, 0]]
    missing = [c for c in CASES if c not in ("c0", "c5")]
    assert [entry["evalId"] for entry in document["notEvaluated"]] == missing
    err = " ".join(run.stderr.split())
    assert "incomplete: the judge did not evaluate 8 labelled items (listed in notEvaluated)" in err
    assert "judge turns not evaluated (scored from the judge cache only" in err
    assert "offline: no cached judge reply for metric 'llm_rubric_response'" in err
    # The console lists them too.
    shown = cli("calibrate", *spot_args(tmp_path, cache), "--labels", str(labels))
    assert shown.returncode == 3
    assert "8 labelled items the judge did not evaluate:" in shown.stdout
    assert "line 2: qa/c1 llm_rubric_response" in shown.stdout
    # Only the labelled cases are scored: labels of the cached cases alone miss nothing.
    cached = tmp_path / "cached.jsonl"
    cached.write_text("".join(line for line in labels.read_text().splitlines(True)
                              if '"c0"' in line or '"c5"' in line))  # fmt: skip
    complete = cli("calibrate", *spot_args(tmp_path, cache), "--labels", str(cached), "--json")
    assert complete.returncode == 0, complete.stdout + complete.stderr
    assert "incomplete" not in complete.stderr and complete.stderr == ""
    assert json.loads(complete.stdout)["groups"][0]["passFail"]["items"] == 2


def test_spot_flags_need_an_evalset_and_exclude_a_result(
    scored: tuple[Path, Path], tmp_path: Path
) -> None:
    result, cache = scored
    labels = write_labels(tmp_path, [])
    alone = cli("calibrate", str(result), "--labels", str(labels), "--cache", str(cache))
    assert alone.returncode == 2, alone.stdout + alone.stderr
    assert "calibrate: --metrics, --cache and --plugin score on the spot" in alone.stderr
    both = cli("calibrate", str(result), *spot_args(result.parent.parent, cache), "--labels",
               str(labels))  # fmt: skip
    assert both.returncode == 2, both.stdout + both.stderr
    assert "give a RESULT or --evalset, not both" in both.stderr
    neither = cli("calibrate", "--labels", str(labels))
    assert neither.returncode == 2, neither.stdout + neither.stderr
    assert "nothing to calibrate" in neither.stderr
