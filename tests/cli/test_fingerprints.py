"""Fingerprints end to end (issue 21, items 2 and 3): never green on other inputs or missing shards.

``--resume`` keeps only cases scored on this run's eval set, metrics and traces; the
rest are scored again and the console says how many and why.  ``merge`` refuses shards
of different inputs and incomplete shard sets (exit 2) unless ``--allow-partial``,
which marks the merge partial: exit 3, INCOMPLETE, and ``show`` of it too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agenteval.results.fingerprints import agent_digest
from agenteval.results.sharding import shard_of
from cli_process import run_cli, startup_environment

CASES = ("alpha", "beta", "gamma")
# One case of CASES per shard of 3 (checked by test_each_case_has_its_own_shard).
SHARDS = 3


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **startup_environment(),
        "COLUMNS": "200",
        "PATH": "/usr/bin:/bin",
        "NO_COLOR": "1",
        **(env or {}),
    }
    return run_cli(args, timeout=120, env=env)


def turn(eval_id: str, answer: str) -> dict[str, Any]:
    return {
        "userContent": {"role": "user", "content": f"question {eval_id}"},
        "finalResponse": {"role": "assistant", "content": answer},
    }


def write_evalset(path: Path, answer: str = "no", *, traces: bool = False) -> Path:
    """Three cases whose reference answer is "ok"; the recorded answer is ``answer``
    (or, with ``traces``, comes from a --traces file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    cases = []
    for eval_id in CASES:
        case: dict[str, Any] = {
            "evalId": eval_id,
            "sessionInput": {"appName": "app", "userId": "u"},
            "conversation": [turn(eval_id, "ok")],
        }
        if not traces:  # a trace-mode case; otherwise the --traces file holds the answers
            case["evalMode"] = "trace"
            case["actualConversation"] = [turn(eval_id, answer)]
        cases.append(case)
    path.write_text(json.dumps({"evalSetId": "suite", "evalCases": cases}))
    return path


def write_traces(path: Path, answer: str) -> Path:
    lines = [
        json.dumps({"evalId": eval_id, "actualConversation": [turn(eval_id, answer)]})
        for eval_id in CASES
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def write_metrics(path: Path, threshold: float) -> Path:
    metric = {
        "metricName": "final_response_avg_score",
        "threshold": threshold,
        "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}},
    }
    path.write_text(json.dumps([metric]))
    return path


@pytest.fixture
def suite(tmp_path: Path) -> dict[str, Path]:
    return {
        "evalset": write_evalset(tmp_path / "suite.evalset.json"),
        # threshold 0: a wrong answer (score 0) passes; the strict file fails it.
        "lax": write_metrics(tmp_path / "lax.metrics.json", 0.0),
        "strict": write_metrics(tmp_path / "strict.metrics.json", 1.0),
    }


def run(evalset: Path, metrics: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return cli(
        "run", "--evalset", str(evalset), "--metrics", str(metrics), "--output", str(out), *extra
    )


def result_file(directory: Path) -> Path:
    (found,) = directory.glob("*.evalset_result.json")
    return found


def test_each_case_has_its_own_shard() -> None:
    assert sorted(shard_of("suite", eval_id, SHARDS) for eval_id in CASES) == [1, 2, 3]


def test_every_result_file_and_run_document_records_the_fingerprint(
    suite: dict[str, Path], tmp_path: Path
) -> None:
    traces = write_traces(tmp_path / "t.jsonl", "ok")
    evalset = write_evalset(tmp_path / "traced" / "suite.evalset.json", traces=True)
    proc = run(
        evalset, suite["strict"], tmp_path / "out", "--shard", "2/3", "--traces", str(traces),
        "--json", str(tmp_path / "run.json"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    written = json.loads(result_file(tmp_path / "out").read_text())
    document = json.loads((tmp_path / "run.json").read_text())
    for entry in (written, document["evalSetResults"][0]):
        fingerprint = entry["fingerprint"]
        assert set(fingerprint) == {"evalSet", "metrics", "traces", "shard"}
        assert fingerprint["shard"] == "2/3"
        assert list(fingerprint["metrics"]) == ["final_response_avg_score"]
        for digest in (fingerprint["evalSet"], fingerprint["traces"]):
            assert digest.startswith("sha256:") and len(digest) == 7 + 64
    # trpc-agent-go's keys come first, as before; the fingerprint is the last key.
    assert list(written)[:4] == [
        "evalSetResultId",
        "evalSetResultName",
        "evalSetId",
        "evalCaseResults",
    ]
    assert list(written)[-1] == "fingerprint"


def test_resume_with_a_stricter_metric_file_rescores_and_fails(
    suite: dict[str, Path], tmp_path: Path
) -> None:
    lax = run(suite["evalset"], suite["lax"], tmp_path / "lax")
    assert lax.returncode == 0, lax.stdout + lax.stderr
    junit = tmp_path / "junit.xml"
    resumed = run(
        suite["evalset"], suite["strict"], tmp_path / "resumed",
        "--resume", str(tmp_path / "lax"), "--junit", str(junit),
    )  # fmt: skip
    fresh = run(suite["evalset"], suite["strict"], tmp_path / "fresh")
    assert fresh.returncode == 1
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    assert "FAILED: 0 of 3 cases passed (3 failed)" in resumed.stdout
    assert 'failures="3"' in junit.read_text()
    assert (
        "warning: --resume: eval set 'suite': kept 0 cases; re-scoring 3 whose metric file "
        "changed (final_response_avg_score)"
    ) in resumed.stderr


def test_resume_with_another_eval_set_rescores(suite: dict[str, Path], tmp_path: Path) -> None:
    first = run(suite["evalset"], suite["strict"], tmp_path / "first")
    assert first.returncode == 1
    # The recorded answers are right now: a resume keeping the old failures would exit 1.
    write_evalset(suite["evalset"], "ok")
    resumed = run(
        suite["evalset"], suite["strict"], tmp_path / "resumed", "--resume", str(tmp_path / "first")
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "PASSED: 3 of 3 cases passed" in resumed.stdout
    assert "kept 0 cases; re-scoring 3 whose eval set changed" in resumed.stderr


def test_resume_with_other_traces_rescores(suite: dict[str, Path], tmp_path: Path) -> None:
    evalset = write_evalset(tmp_path / "traced" / "suite.evalset.json", traces=True)
    right, wrong = (
        write_traces(tmp_path / "right.jsonl", "ok"),
        write_traces(tmp_path / "wrong.jsonl", "no"),
    )
    first = run(evalset, suite["strict"], tmp_path / "first", "--traces", str(right))
    assert first.returncode == 0
    resumed = run(
        evalset, suite["strict"], tmp_path / "resumed",
        "--traces", str(wrong), "--resume", str(tmp_path / "first"),
    )  # fmt: skip
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    assert "kept 0 cases; re-scoring 3 whose traces changed" in resumed.stderr


def test_resume_on_the_same_inputs_keeps_every_case_silently(
    suite: dict[str, Path], tmp_path: Path
) -> None:
    part = run(suite["evalset"], suite["strict"], tmp_path / "part", "--shard", "1/3")
    assert part.returncode == 1
    kept = json.loads(result_file(tmp_path / "part").read_text())["evalCaseResults"]
    resumed = run(
        suite["evalset"], suite["strict"], tmp_path / "resumed", "--resume", str(tmp_path / "part")
    )
    assert resumed.returncode == 1
    assert "--resume" not in resumed.stderr
    cases = json.loads(result_file(tmp_path / "resumed").read_text())["evalCaseResults"]
    assert [c["evalId"] for c in cases] == list(CASES)
    (again,) = [c for c in cases if c["evalId"] == kept[0]["evalId"]]
    assert again["sessionId"] == kept[0]["sessionId"]  # kept, not scored again
    assert "shard" not in json.loads(result_file(tmp_path / "resumed").read_text())["fingerprint"]


def test_resume_of_a_result_without_fingerprints_rescores_and_says_why(
    suite: dict[str, Path], tmp_path: Path
) -> None:
    lax = run(suite["evalset"], suite["lax"], tmp_path / "lax")
    assert lax.returncode == 0
    legacy = result_file(tmp_path / "lax")
    data = json.loads(legacy.read_text())
    del data["fingerprint"]
    legacy.write_text(json.dumps(data))
    resumed = run(suite["evalset"], suite["lax"], tmp_path / "resumed", "--resume", str(legacy))
    assert resumed.returncode == 0
    assert (
        "kept 0 cases; re-scoring 3 from results without fingerprints "
        "(an older agenteval's or trpc-agent-go's)"
    ) in resumed.stderr


def shards(suite: dict[str, Path], tmp_path: Path, answer: str = "ok") -> list[Path]:
    write_evalset(suite["evalset"], answer)
    found = []
    for index in range(1, SHARDS + 1):
        out = tmp_path / f"shard{index}"
        proc = run(suite["evalset"], suite["strict"], out, "--shard", f"{index}/{SHARDS}")
        assert proc.returncode in (0, 1), proc.stdout + proc.stderr
        found.append(result_file(out))
    return found


def test_merging_an_incomplete_shard_set_is_exit_2_naming_the_missing_shard(
    suite: dict[str, Path], tmp_path: Path
) -> None:
    first, second, _ = shards(suite, tmp_path)
    merged = tmp_path / "merged.json"
    proc = cli("merge", str(first), str(second), "-o", str(merged))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "eval set 'suite': shard 3/3 is missing (given: 1/3, 2/3)" in proc.stderr
    assert not merged.exists()
    # With --evalset the missing case is named too.
    proc = cli(
        "merge", str(first), str(second), "-o", str(merged), "--evalset", str(suite["evalset"])
    )
    assert proc.returncode == 2
    missing = next(e for e in CASES if shard_of("suite", e, SHARDS) == 3)
    assert f"1 of 3 cases of {suite['evalset']} have no result: {missing}" in proc.stderr


def test_allow_partial_merges_but_is_never_green(suite: dict[str, Path], tmp_path: Path) -> None:
    first, second, _ = shards(suite, tmp_path)
    merged = tmp_path / "merged.json"
    proc = cli("merge", str(first), str(second), "-o", str(merged), "--allow-partial")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "INCOMPLETE: 2 of 2 cases passed" in proc.stdout
    assert "PASSED" not in proc.stdout
    assert "warning: merge: eval set 'suite': shard 3/3 is missing" in proc.stderr
    assert json.loads(merged.read_text())["partial"] is True
    shown = cli("show", str(merged), "--quiet")
    assert shown.returncode == 3
    assert "INCOMPLETE: 2 of 2 cases passed" in shown.stdout and "PASSED" not in shown.stdout


def test_a_complete_shard_set_merges_into_the_whole_run(
    suite: dict[str, Path], tmp_path: Path
) -> None:
    parts = shards(suite, tmp_path)
    merged = tmp_path / "merged.json"
    proc = cli("merge", *map(str, parts), "-o", str(merged), "--evalset", str(suite["evalset"]))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED: 3 of 3 cases passed" in proc.stdout
    data = json.loads(merged.read_text())
    assert "partial" not in data
    whole = run(suite["evalset"], suite["strict"], tmp_path / "whole")
    assert whole.returncode == 0
    assert (
        data["fingerprint"]
        == json.loads(result_file(tmp_path / "whole").read_text())["fingerprint"]
    )


def test_shards_of_other_inputs_are_refused_naming_the_files(
    suite: dict[str, Path], tmp_path: Path
) -> None:
    first, second, _ = shards(suite, tmp_path)
    other = tmp_path / "other"
    proc = run(suite["evalset"], suite["lax"], other, "--shard", f"3/{SHARDS}")
    assert proc.returncode in (0, 1)
    third = result_file(other)
    proc = cli("merge", str(first), str(second), str(third), "-o", str(tmp_path / "m.json"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (
        f"{third}: fingerprint: eval set 'suite' was scored on other inputs than in {first}: "
        "metric file changed (final_response_avg_score)"
    ) in proc.stderr
    # --allow-partial does not let other inputs through.
    proc = cli("merge", str(first), str(third), "-o", str(tmp_path / "m.json"), "--allow-partial")
    assert proc.returncode == 2


def test_an_eval_set_file_other_than_the_scored_one_is_refused(
    suite: dict[str, Path], tmp_path: Path
) -> None:
    parts = shards(suite, tmp_path)
    write_evalset(suite["evalset"], "changed")
    proc = cli(
        "merge",
        *map(str, parts),
        "-o",
        str(tmp_path / "m.json"),
        "--evalset",
        str(suite["evalset"]),
    )
    assert proc.returncode == 2
    assert (
        f"{suite['evalset']}: not the eval set file the results of 'suite' were scored on"
        in proc.stderr
    )


def test_legacy_shards_without_fingerprints_merge_as_before(
    suite: dict[str, Path], tmp_path: Path
) -> None:
    first, second, _ = shards(suite, tmp_path)
    for part in (first, second):
        data = json.loads(part.read_text())
        del data["fingerprint"]
        part.write_text(json.dumps(data))
    proc = cli("merge", str(first), str(second), "-o", str(tmp_path / "m.json"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED: 2 of 2 cases passed" in proc.stdout
    # A legacy part beside parts with fingerprints cannot be shown to match: refused.
    _, _, third = shards(suite, tmp_path / "again")
    proc = cli("merge", str(first), str(second), str(third), "-o", str(tmp_path / "m2.json"))
    assert proc.returncode == 2
    assert "has no fingerprint here" in proc.stderr


# A cmd: agent that answers every user turn with the text it is given.
AGENT = """
import json, sys
for line in sys.stdin:
    if json.loads(line)["type"] == "user_turn":
        print(json.dumps({"type": "final", "content": sys.argv[1]}), flush=True)
"""


def agent(tmp_path: Path, answer: str, *args: str) -> str:
    """The --agent spec of an agent that answers ``answer`` (``args``: more, unused)."""
    script = tmp_path / "answering_agent.py"
    script.write_text(AGENT)
    return " ".join((f"cmd:{sys.executable}", str(script), answer, *args))


def driven_run(
    suite: dict[str, Path], out: Path, spec: str, *extra: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """A run whose three cases the agent ``spec`` answers (the reference answer is "ok")."""
    evalset = write_evalset(suite["evalset"].parent / "driven" / "suite.evalset.json", traces=True)
    return cli(
        "run", "--evalset", str(evalset), "--metrics", str(suite["strict"]), "--output", str(out),
        "--agent", spec, "--no-cache", *extra, env=env,
    )  # fmt: skip


def test_resume_with_another_agent_rescores_its_cases(
    suite: dict[str, Path], tmp_path: Path
) -> None:
    wrong = driven_run(suite, tmp_path / "wrong", agent(tmp_path, "no"))
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    # The agent's key rides on its command line; the fingerprint hashes it as ***.
    good = agent(tmp_path, "ok", "--key", "sk-first-0123456789")
    resumed = driven_run(
        suite, tmp_path / "resumed", good, "--resume", str(tmp_path / "wrong"),
        env={"AGENT_API_KEY": "sk-first-0123456789"},
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "PASSED: 3 of 3 cases passed" in resumed.stdout
    assert "kept 0 cases; re-scoring 3 whose agent changed" in resumed.stderr
    text = result_file(tmp_path / "resumed").read_text()
    assert "sk-first" not in text
    shown = agent(tmp_path, "ok", "--key", "***")
    assert json.loads(text)["fingerprint"]["agent"] == agent_digest(shown)
    # The same agent with a rotated key: every case kept, nothing said.
    again = driven_run(
        suite, tmp_path / "again", agent(tmp_path, "ok", "--key", "sk-second-0123456789"),
        "--resume", str(tmp_path / "resumed"), env={"AGENT_API_KEY": "sk-second-0123456789"},
    )  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr
    assert "--resume" not in again.stderr
    assert "agent: 0 sessions" in again.stdout


def test_shards_driven_by_different_agents_are_refused(
    suite: dict[str, Path], tmp_path: Path
) -> None:
    first = driven_run(suite, tmp_path / "first", agent(tmp_path, "ok"), "--shard", "1/3")
    second = driven_run(suite, tmp_path / "second", agent(tmp_path, "no"), "--shard", "2/3")
    assert first.returncode == 0 and second.returncode == 1, first.stderr + second.stderr
    parts = [result_file(tmp_path / "first"), result_file(tmp_path / "second")]
    proc = cli("merge", *map(str, parts), "-o", str(tmp_path / "m.json"), "--allow-partial")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (
        f"{parts[1]}: fingerprint: eval set 'suite' was scored on other inputs than in "
        f"{parts[0]}: agent changed"
    ) in proc.stderr


def test_cases_the_agent_does_not_drive_carry_no_agent(
    suite: dict[str, Path], tmp_path: Path
) -> None:
    spec = agent(tmp_path, "no")
    plain = run(suite["evalset"], suite["lax"], tmp_path / "plain")
    # Trace-mode cases score their own turns: the agent answers none of them.
    own = run(suite["evalset"], suite["lax"], tmp_path / "own", "--agent", spec)
    assert plain.returncode == own.returncode == 0, own.stdout + own.stderr
    fingerprints = [
        json.loads(result_file(tmp_path / name).read_text())["fingerprint"]
        for name in ("plain", "own")
    ]
    assert fingerprints[0] == fingerprints[1] and "agent" not in fingerprints[0]
    # Cases replayed from --traces carry the traces' hash, not the agent's.
    traces = write_traces(tmp_path / "right.jsonl", "ok")
    replayed = driven_run(suite, tmp_path / "replayed", spec, "--traces", str(traces))
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    fingerprint = json.loads(result_file(tmp_path / "replayed").read_text())["fingerprint"]
    assert "agent" not in fingerprint and "traces" in fingerprint
