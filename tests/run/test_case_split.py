"""``--jobs N``: a deterministic eval set scored in shares by forked workers (run/case_split.py).

Each test compares a run in shares with the same run in one process: the files, the
console and the numbers must be the same bytes, and a spy on ``share_count`` proves the
run was split (else the comparison would compare a run with itself).
"""

from __future__ import annotations

import errno
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

import agenteval
from agenteval.api import evaluation
from agenteval.criteria.named import json_compares, text_compares, tokenizers, turn_compares
from agenteval.evaluators.registry import evaluators
from agenteval.evaluators.response_match import ResponseMatchScoreEvaluator
from agenteval.report.result_stream import write_result_document
from agenteval.report.streamed_run import SetPart, StreamedRun
from agenteval.results.share_workers import cpu_count
from agenteval.run import case_split
from agenteval.run.case_split import MIN_SHARE, share_bounds, share_count
from agenteval.run.runner import EvalSetPlan, PlannedMetric, RunSettings, StopSignal
from agenteval.schema.metric import EvalMetric
from agenteval.schema.status import EvalStatus
from tests.cli.store_workspace import invoke
from tests.cli.test_commands import agenteval_cli
from tests.report.test_run_reports import normalised, written_files

CASES = 2 * MIN_SHARE + 37  # two shares of unequal length
WORDS = [
    "the",
    "forecast",
    "for",
    "tomorrow",
    "shows",
    "mild",
    "temperatures",
    "with",
    "light",
    "winds",
    "from",
    "the",
    "west",
]


def _turn(question: str, answer: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "invocationId": "t1",
        "userContent": {"role": "user", "content": question},
        "finalResponse": {"role": "assistant", "content": answer},
        "tools": tools,
    }


def write_cases(root: Path, count: int = CASES, seed: int = 7) -> tuple[Path, Path]:
    """An eval set of ``count`` trace-mode cases (one in ~5 calls a tool with other
    arguments; most answers reworded, so the ROUGE scores are unround floats) and its
    metric file (trajectory and ROUGE-1, the bench's pair)."""
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        city = rng.choice(["Paris", "Rome", "Oslo", "Lisbon"])
        answer = f"In {city} it is {rng.randint(-5, 35)} degrees; " + " ".join(
            WORDS[: rng.randint(6, len(WORDS))]
        )
        words = answer.split()
        for _ in range(rng.choice([0, 1, 2, 4])):
            words[rng.randrange(len(words))] = rng.choice(["calm", "warm", "coat"])
        tools = [{"id": "c1", "name": "get_weather", "arguments": {"city": city}}]
        actual_tools = [
            {"id": "c1", "name": "get_weather", "arguments": {"city": city}}
            if rng.random() > 0.2
            else {"id": "c1", "name": "get_weather", "arguments": {"city": "Berlin"}}
        ]
        question = f"Weather in {city}?"
        cases.append(
            {
                "evalId": f"case_{index:05d}",
                "evalMode": "trace",
                "conversation": [_turn(question, answer, tools)],
                "actualConversation": [_turn(question, " ".join(words), actual_tools)],
                "sessionInput": {"userId": "u"},
            }
        )
    evalset = root / "split.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "split", "evalCases": cases}))
    metrics = root / "split.metrics.json"
    metrics.write_text(
        json.dumps(
            [
                {"metricName": "tool_trajectory_avg_score", "threshold": 1.0},
                {"metricName": "response_match_score", "threshold": 0.8},
            ]
        )
    )
    return evalset, metrics


@pytest.fixture()
def shares_used(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every share count the runs of a test decided on (plugins other tests of this process
    registered are not in play here: their registries' marks are cleared)."""
    for named in (text_compares, json_compares, turn_compares, tokenizers):
        monkeypatch.setattr(named, "foreign", False)
    used: list[int] = []

    def spy(*args: Any, **kwargs: Any) -> int:
        count = share_count(*args, **kwargs)
        used.append(count)
        return count

    monkeypatch.setattr(evaluation, "share_count", spy)
    return used


def run_cli(
    root: Path, evalset: Path, metrics: Path, *flags: str
) -> tuple[int, str, dict[str, str]]:
    """``agenteval run`` in this process with every report: exit code, stdout, the files."""
    root.mkdir()
    result = invoke(
        root, "run", "--evalset", str(evalset), "--metrics", str(metrics),
        "--output", "out", "--json", "run.json", "--junit", "run.xml", "--markdown", "run.md",
        "--no-progress", *flags,
    )  # fmt: skip
    return result.exit_code, normalised(result.stdout.encode()), written_files(root)


def streamed(root: Path) -> StreamedRun:
    """A run's sink writing its documents (the one ``agenteval run`` passes the API)."""
    return StreamedRun(output=root, app_name="agenteval", documents=True)


def written(sink: StreamedRun, path: Path) -> dict[str, Any]:
    """The one eval set's finished document of ``sink``, written to ``path`` and read."""
    (item,) = sink.sets
    write_result_document(item.finished(), path)
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_a_run_in_two_shares_writes_and_prints_the_bytes_of_one_pass(
    tmp_path: Path, shares_used: list[int]
) -> None:
    evalset, metrics = write_cases(tmp_path)
    one = run_cli(tmp_path / "one", evalset, metrics)
    two = run_cli(tmp_path / "two", evalset, metrics, "--jobs", "2")
    assert shares_used == [1, 2]
    assert one[0] == two[0] == 1
    assert one[1] == two[1] and "case_00001" in two[1]  # the console showed cases
    assert sorted(one[2]) == sorted(two[2]) and len(two[2]) == 4
    for name, text in one[2].items():
        assert two[2][name] == text, name
    (result_file,) = (tmp_path / "two" / "out").iterdir()
    document = json.loads(result_file.read_text())
    ids = [case["evalId"] for case in document["evalCaseResults"]]
    assert ids == [f"case_{i:05d}" for i in range(CASES)]
    summary = document["summary"]["runSummaries"][0]["metricSummaries"]
    rouge = next(s for s in summary if s["metricName"] == "response_match_score")
    scores = [
        m["score"]
        for case in document["evalCaseResults"]
        for m in case["overallEvalMetricResults"]
        if m["metricName"] == "response_match_score"
    ]
    # The average is the floats added in file order; the two shares' sums added together
    # differ in their last bits here, so the merge must have added them one by one.
    half = len(scores) // 2
    in_order = 0.0
    for score in scores:
        in_order += score
    assert sum(scores[:half]) + sum(scores[half:]) != in_order
    assert rouge["averageScore"] == in_order / len(scores)


def test_the_command_line_prints_and_writes_the_same_with_jobs(tmp_path: Path) -> None:
    evalset, metrics = write_cases(tmp_path, count=2 * MIN_SHARE)
    runs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        proc = agenteval_cli(
            "run", "--evalset", str(evalset), "--metrics", str(metrics), "--jobs", jobs,
            "--output", str(out), "--max-shown", "3", "--quiet",
        )  # fmt: skip
        assert proc.returncode == 1, proc.stderr
        (result,) = out.iterdir()
        runs[jobs] = (
            normalised(proc.stdout.encode()),
            proc.stderr,
            normalised(result.read_bytes()),
        )
    assert runs["1"] == runs["2"]
    assert "● case_00000  FAILED" in runs["2"][0]  # it printed cases: it compared something


def test_a_failed_worker_share_is_scored_again_here(
    tmp_path: Path, shares_used: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    evalset, metrics = write_cases(tmp_path)
    parent = os.getpid()
    add = SetPart.add

    def failing(self: SetPart, case: Any) -> None:
        if os.getpid() != parent:
            raise OSError(28, "No space left on device")
        add(self, case)

    monkeypatch.setattr(SetPart, "add", failing)
    one, two = streamed(tmp_path), streamed(tmp_path)
    first = agenteval.evaluate(evalset, metrics=str(metrics), sink=one)
    ticks = StopAfter(StopSignal(), 0)  # counts the progress bar's ticks, never stops
    second = agenteval.evaluate(evalset, metrics=str(metrics), sink=two, jobs=2, progress=ticks)
    assert shares_used == [1, 2]
    # The worker counted its first case before it failed: not counted again when redone.
    assert ticks.done == ticks.total == CASES
    assert first.exit_code == second.exit_code == 1
    assert normalised(json.dumps(written(one, tmp_path / "one.json")).encode()) == normalised(
        json.dumps(written(two, tmp_path / "two.json")).encode()
    )


def test_a_failed_worker_before_a_share_with_no_spool_has_its_own_share_scored_again(
    tmp_path: Path, shares_used: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three shares, a worker for the second only (no spool for the third's), and that
    # worker fails: its share, not the third, is scored again here.  The third's was
    # scored twice and the second's never (the worker's number was counted from the end).
    evalset, metrics = write_cases(tmp_path, count=3 * MIN_SHARE)
    made = StreamedRun.part
    parent = os.getpid()
    add = SetPart.add

    def second_fails(self: StreamedRun) -> SetPart:
        calls.append(None)
        if len(calls) > 1:
            raise OSError(errno.EMFILE, "Too many open files")
        return made(self)

    def failing(self: SetPart, case: Any) -> None:
        if os.getpid() != parent:
            raise OSError(28, "No space left on device")
        add(self, case)

    calls: list[None] = []
    monkeypatch.setattr(StreamedRun, "part", second_fails)
    monkeypatch.setattr(SetPart, "add", failing)
    monkeypatch.setattr(case_split, "cpu_count", lambda: 3)
    one, three = streamed(tmp_path), streamed(tmp_path)
    first = agenteval.evaluate(evalset, metrics=str(metrics), sink=one)
    ticks = StopAfter(StopSignal(), 0)
    second = agenteval.evaluate(evalset, metrics=str(metrics), sink=three, jobs=3, progress=ticks)
    assert shares_used == [1, 3] and len(calls) == 2
    assert ticks.done == ticks.total == 3 * MIN_SHARE
    assert first.exit_code == second.exit_code == 1
    whole = written(three, tmp_path / "three.json")
    assert normalised(json.dumps(written(one, tmp_path / "one.json")).encode()) == normalised(
        json.dumps(whole).encode()
    )


def test_shares_without_a_spool_for_their_worker_are_scored_here(
    tmp_path: Path, shares_used: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A share's spools are made before its worker: one that cannot be made (too many open
    # files) ended the run as an internal error where one process scored it.
    evalset, metrics = write_cases(tmp_path, count=3 * MIN_SHARE)
    made = StreamedRun.part

    def second_fails(self: StreamedRun) -> SetPart:
        calls.append(None)
        if len(calls) > 1:
            raise OSError(errno.EMFILE, "Too many open files")
        return made(self)

    calls: list[None] = []
    monkeypatch.setattr(StreamedRun, "part", second_fails)
    monkeypatch.setattr(case_split, "cpu_count", lambda: 3)  # three shares on any machine
    one, three = streamed(tmp_path), streamed(tmp_path)
    first = agenteval.evaluate(evalset, metrics=str(metrics), sink=one)
    ticks = StopAfter(StopSignal(), 0)
    second = agenteval.evaluate(evalset, metrics=str(metrics), sink=three, jobs=3, progress=ticks)
    assert shares_used == [1, 3] and len(calls) == 2  # one worker started, the third share ours
    assert ticks.done == ticks.total == 3 * MIN_SHARE
    assert first.exit_code == second.exit_code == 1
    assert normalised(json.dumps(written(one, tmp_path / "one.json")).encode()) == normalised(
        json.dumps(written(three, tmp_path / "three.json")).encode()
    )


class StopAfter:
    """A progress sink that asks the run to stop after ``count`` finished cases."""

    def __init__(self, stop: StopSignal, count: int) -> None:
        self.stop = stop
        self.count = count
        self.done = 0

    def start(self, total_cases: int, usage: object = None) -> None:
        self.total = total_cases

    def case_done(self) -> None:
        self.done += 1
        if self.done == self.count:
            self.stop.request()


def test_a_stop_reaches_the_workers_and_keeps_every_finished_case(
    tmp_path: Path, shares_used: list[int]
) -> None:
    evalset, metrics = write_cases(tmp_path)
    stop = StopSignal()
    sink = streamed(tmp_path)
    result = agenteval.evaluate(
        evalset,
        metrics=str(metrics),
        jobs=2,
        stop=stop,
        progress=StopAfter(stop, 10),
        sink=sink,
    )
    assert shares_used == [2]
    assert result.interrupted and result.status is EvalStatus.INCOMPLETE
    document = written(sink, tmp_path / "result.json")
    assert document["partial"] is True
    ids = [int(case["evalId"][5:]) for case in document["evalCaseResults"]]
    boundary = share_bounds(CASES, 2)[1]
    first = [i for i in ids if i < boundary]
    second = [i for i in ids if i >= boundary]
    # This process stopped at its 10th tick (the workers' cases tick too, so at most 10
    # of its own); the worker stopped at the flag: each share is a prefix, in order.
    assert 1 <= len(first) <= 10 and first == list(range(len(first)))
    assert second == list(range(boundary, boundary + len(second)))
    assert len(second) < CASES - boundary  # the worker did not score its whole share
    counts = document["summary"]["runSummaries"][0]["caseStatusCounts"]
    assert sum(counts.values()) == len(ids)


@pytest.mark.parametrize(
    ("jobs", "num_runs", "count", "expected"),
    [
        (2, 1, 2 * MIN_SHARE, 2),
        (1, 1, 2 * MIN_SHARE, 1),
        (8, 1, 2 * MIN_SHARE, 2),  # at most one share per MIN_SHARE cases
        (2, 2, 2 * MIN_SHARE, 1),
        (2, 1, 2 * MIN_SHARE - 1, 1),
    ],
)
def test_only_a_large_deterministic_single_run_is_split(
    tmp_path: Path, jobs: int, num_runs: int, count: int, expected: int, shares_used: list[int]
) -> None:
    evalset, metrics = write_cases(tmp_path, count=count)
    agenteval.evaluate(
        evalset, metrics=str(metrics), jobs=jobs, num_runs=num_runs, sink=streamed(tmp_path)
    )
    assert shares_used == [min(expected, cpu_count())]


class PluginEvaluator:
    """Stands for a plugin's evaluator: deterministic, but not agenteval's own."""

    is_async = False
    needs_judge = False


def test_a_plugin_evaluator_or_a_resumed_set_is_not_split(
    tmp_path: Path, shares_used: list[int]
) -> None:
    sink = StreamedRun(output=None, app_name="a", documents=False)
    sink.begin_set("s", 1)
    builtin = evaluators.resolve("response_match_score")
    cases: Any = range(4 * MIN_SHARE)

    def plan(evaluator: Any) -> EvalSetPlan:
        metric = EvalMetric(metric_name="m", threshold=1.0)
        return EvalSetPlan(Path("x"), "s", cases, [PlannedMetric(metric, evaluator)], [metric])

    settings = RunSettings()
    cores = min(4, cpu_count())
    assert share_count(plan(builtin), settings, sink, 4, None) == cores
    assert share_count(plan(PluginEvaluator()), settings, sink, 4, None) == 1
    assert share_count(plan(builtin), settings, sink, 4, object()) == 1  # --resume
    assert share_count(plan(builtin), settings, object(), 4, None) == 1  # a sink without shares
    with pytest.MonkeyPatch.context() as patched:  # a plugin's tokenizer was registered
        patched.setattr(tokenizers, "foreign", True)
        assert share_count(plan(builtin), settings, sink, 4, None) == 1
    sink.also.append(sink.tallies)  # a page builder beside the documents
    assert share_count(plan(builtin), settings, sink, 4, None) == 1


def test_a_case_left_incomplete_in_a_worker_is_incomplete_in_the_result(
    tmp_path: Path, shares_used: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An evaluator that raises leaves its case incomplete (judgeFailures, exit 3): a case in
    the worker's share too, as in one pass."""
    evalset, metrics = write_cases(tmp_path)
    victims = {"case_00003", f"case_{CASES - 5:05d}"}  # one in each share
    score_turn = ResponseMatchScoreEvaluator.score_turn

    def crashes(self: Any, metric: Any, actual: Any, expected: Any) -> Any:
        if "crash" in str(actual.user_content):
            raise RuntimeError("a bug in an evaluator")
        return score_turn(self, metric, actual, expected)

    data = json.loads(evalset.read_text())
    for case in data["evalCases"]:
        if case["evalId"] in victims:
            case["actualConversation"][0]["userContent"]["content"] += " crash"
            case["conversation"][0]["userContent"]["content"] += " crash"
    evalset.write_text(json.dumps(data))
    monkeypatch.setattr(ResponseMatchScoreEvaluator, "score_turn", crashes)
    one, two = streamed(tmp_path), streamed(tmp_path)
    first = agenteval.evaluate(evalset, metrics=str(metrics), sink=one)
    second = agenteval.evaluate(evalset, metrics=str(metrics), sink=two, jobs=2)
    assert shares_used == [1, 2]
    assert first.exit_code == second.exit_code == 3
    documents = [written(sink, tmp_path / f"{i}.json") for i, sink in enumerate((one, two))]
    assert documents[0]["judgeFailures"] == documents[1]["judgeFailures"] == sorted(victims)
    assert normalised(json.dumps(documents[0]).encode()) == normalised(
        json.dumps(documents[1]).encode()
    )


def test_what_the_agent_spent_in_a_worker_share_is_in_the_eval_sets_agent_usage(
    tmp_path: Path, shares_used: list[int]
) -> None:
    """Trace turns that carry usage: the eval set's ``agentUsage`` (file, run document,
    reports, console) adds up every share's cases, as one pass does."""
    evalset, metrics = write_cases(tmp_path)
    data = json.loads(evalset.read_text())
    for index, case in enumerate(data["evalCases"]):
        case["actualConversation"][0]["usage"] = {
            "inputTokens": 1000 + index % 7,
            "outputTokens": 37,
            "inferenceCalls": 1,
            "model": "openai:gpt-4o-mini",
        }
    evalset.write_text(json.dumps(data))
    one = run_cli(tmp_path / "one", evalset, metrics)
    two = run_cli(tmp_path / "two", evalset, metrics, "--jobs", "2")
    assert shares_used == [1, 2]
    (result_file,) = (tmp_path / "two" / "out").iterdir()
    spent = json.loads(result_file.read_text())["agentUsage"]
    assert spent["turns"] == spent["inferenceCalls"] == CASES
    assert spent["inputTokens"] == sum(1000 + i % 7 for i in range(CASES))
    assert spent["costUsd"] > 0
    assert one == two
