"""Checking an eval set case by case reports exactly what checking it whole reports, in order."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agenteval import api
from agenteval.checks import evalset_stream
from agenteval.checks.evalset_stream import check_evalset_stream
from agenteval.errors import ConfigError
from agenteval.inputs.unknown_keys import Strictness
from agenteval.plugins import load_builtins
from agenteval.run import planning


def msg(role: str, text: str) -> dict[str, str]:
    return {"role": role, "content": text}


def turn(question: str, answer: str | None, *tools: str) -> dict[str, Any]:
    found: dict[str, Any] = {"userContent": msg("user", question)}
    if answer is not None:
        found["finalResponse"] = msg("assistant", answer)
    if tools:
        found["tools"] = [{"id": f"c{i}", "name": name} for i, name in enumerate(tools)]
    return found


def trace_case(eval_id: str, pattern: str, reference: str | None = "ok", **extra: Any) -> Any:
    return {
        "evalId": eval_id,
        "evalMode": "trace",
        "actualConversation": [turn("q", "ok", "lookup")],
        "conversation": [turn("q", reference, pattern)],
        "sessionInput": {"appName": "app", "userId": "u"},
        **extra,
    }


REGEX_ANSWER = {
    "metricName": "answer_pattern",
    "evaluatorName": "final_response_avg_score",
    "threshold": 1,
    "criterion": {"finalResponse": {"text": {"matchStrategy": "regex"}}},
}
REGEX_TOOLS = {
    "metricName": "tool_pattern",
    "evaluatorName": "tool_trajectory_avg_score",
    "threshold": 1,
    "criterion": {
        "toolTrajectory": {"defaultStrategy": {"name": {"matchStrategy": "regex"}}},
    },
}
TEMPLATE = {
    "metricName": "graded",
    "evaluatorName": "llm_judge_template",
    "threshold": 1,
    "criterion": {
        "llmJudge": {
            "judgeModel": {
                "providerName": "openai",
                "modelName": "loopback-judge",
                "baseURL": "http://127.0.0.1:9/v1",
                "apiKey": "sk-test-stream",
            },
            "template": {
                "prompt": "Is {{answer}} {{reference}}? Say yes or no.",
                "variableBindings": [
                    {
                        "templateVariable": "answer",
                        "source": {"scope": "actual", "field": "finalResponse"},
                    },
                    {
                        "templateVariable": "reference",
                        "source": {"scope": "expected", "field": "finalResponse"},
                    },
                ],
            },
        }
    },
}


def every_kind_of_problem() -> dict[str, Any]:
    """One eval set with a problem of every kind the case-by-case pass reports itself."""
    cases: list[Any] = [trace_case(f"c{i}", "lookup") for i in range(12)]
    cases[1] = trace_case("c1", "a(b")  # a bad tool name pattern
    cases[2] = trace_case("c2", "lookup", reference="x(y")  # bad answer pattern
    cases[3] = None
    cases[4] = trace_case("c0", "lookup")  # duplicate evalId
    cases[5] = trace_case(" ", "lookup", evalMode="replay")  # empty id, unknown mode
    cases[6] = trace_case("c6", "lookup", reference=None)  # the template lacks its reference
    cases[7] = trace_case("c7", "lookup", creationTimestamp=float("nan"))
    cases[8] = {"evalId": "c8", "evalMode": "trace", "sessionInput": {"appName": "a"}}  # no turns
    cases[9] = trace_case("c9", "[", reference="(", extraKey={"nested": float("inf")})
    cases[10]["conversation"][0]["tool_calls"] = []  # an unknown key inside a turn
    return {
        "evalSetId": "other",
        "descripton": "typo before the cases",
        "creationTimestamp": float("-inf"),
        "evalCases": cases,
        "after": float("nan"),
    }


def write_suite(tmp: Path, document: Any, metrics: list[Any]) -> Path:
    evalset = tmp / "s.evalset.json"
    evalset.write_text(json.dumps(document, indent=1))
    (tmp / "s.metrics.json").write_text(json.dumps(metrics))
    return evalset


def outcome(path: Path, options: api.Options) -> tuple[list[str], list[str]]:
    """(problems, warnings) of preparing ``path``, as printed."""
    try:
        prepared = api.prepare([str(path)], options)
    except ConfigError as exc:
        return [str(p) for p in exc.problems], []
    return [], [str(w) for w in prepared.warnings]


def whole(
    monkeypatch: pytest.MonkeyPatch, path: Path, options: api.Options
) -> tuple[list[str], list[str]]:
    """The same through the whole-document path (the reference: the file read in one piece)."""
    with monkeypatch.context() as patched:
        patched.setattr(planning, "check_evalset_stream", lambda *args, **kwargs: None)
        return outcome(path, options)


def streamed(path: Path, strict: bool = False, lenient: bool = False) -> bool:
    """True when the case-by-case pass reads ``path`` itself (no fallback)."""
    load_builtins()
    return (
        check_evalset_stream(
            path.read_bytes(),
            str(path),
            Strictness.of(strict=strict, lenient=lenient),
            all_metrics=[],
            selected=[],
            metrics_file="m.json",
            traces=None,
        )
        is not None
    )


@pytest.mark.parametrize(
    ("strict", "lenient", "unknown"),
    [(False, True, 0), (False, False, 2), (True, False, 4)],
    ids=["lenient", "near-misses", "strict"],
)
def test_every_problem_kind_matches_the_whole_path_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, strict: bool, lenient: bool, unknown: int
) -> None:
    path = write_suite(tmp_path, every_kind_of_problem(), [REGEX_ANSWER, REGEX_TOOLS, TEMPLATE])
    options = api.Options(strict=strict, lenient=lenient, cache=None)
    assert streamed(path, strict, lenient)
    problems, warnings = outcome(path, options)
    assert (problems, warnings) == whole(monkeypatch, path, options)
    # 4 unknown keys, 2 of them near misses (descripton, tool_calls): errors unless lenient.
    assert len(problems) == 15 + unknown, problems
    # The kinds in the whole path's order (the first line of each kind).
    kinds = [
        "is not a finite number",
        *(["is not a field of"] if unknown else []),
        "duplicate evalId",
        "responseScorerName is empty",  # the metric file's own problems sit here
        "invalid regex",
        "expected finalResponse is empty",
        "invocations are empty",
    ]
    firsts = [next(i for i, p in enumerate(problems) if kind in p) for kind in kinds]
    assert firsts == sorted(firsts), problems
    assert f"{path}: creationTimestamp: -inf is not a finite number" in problems[0]
    assert f"{path}: evalCases[7].creationTimestamp: nan is not a finite number" in problems[1]
    assert f"{path}: after: nan is not a finite number" in problems[3]


def test_warnings_match_the_whole_path_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = [trace_case(f"c{i}", "lookup") for i in range(4)]
    cases[2]["conversation"][0]["tool_calls"] = []
    document = {"evalSetId": "other", "descripton": "x", "evalCases": cases, "nmae": "y"}
    path = write_suite(tmp_path, document, [REGEX_TOOLS])
    options = api.Options(cache=None, lenient=True)
    assert streamed(path, lenient=True)
    problems, warnings = outcome(path, options)
    assert (problems, warnings) == whole(monkeypatch, path, options)
    assert warnings == [
        f"{path}: descripton: 'descripton' is not a field of EvalSet (did you mean 'description'?)",
        f"{path}: evalCases[2].conversation[0].tool_calls: 'tool_calls' is not a field of "
        "Invocation (did you mean 'tools'?)",
        f"{path}: nmae: 'nmae' is not a field of EvalSet (did you mean 'name'?)",
        f"{path}: evalSetId: 'other' differs from the file name; results use 's'",
    ]


@pytest.mark.parametrize(
    "document",
    [
        {"evalSetId": "s", "evalCases": [{"evalId": "a"}, {"evalId": 7}]},
        {"evalSetId": 3, "evalCases": [{"evalId": "a"}]},
        {"evalSetId": "s", "evalCases": [{"evalId": "a"}, "not a case"]},
        {"evalSetId": "s", "evalCases": {"evalId": "a"}},
        {"evalSetId": "s", "evalCaseResults": [], "evalCases": []},
        {"eval_set_id": "s", "evalCases": []},
        {"evalSetId": "s", "evalCases": [{"evalId": "a", "conversation": [{"user_content": {}}]}]},
        [{"metricName": "m"}],
    ],
    ids=[
        "case type",
        "top type",
        "case string",
        "cases object",
        "a result file",
        "adk keys",
        "adk turns",
        "a metric file",
    ],
)
def test_files_read_whole_keep_their_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, document: Any
) -> None:
    path = write_suite(tmp_path, document, [])
    options = api.Options(cache=None)
    assert not streamed(path)
    problems, _ = outcome(path, options)
    assert problems
    assert (problems, []) == whole(monkeypatch, path, options)


def test_a_valid_set_reads_the_same_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = [trace_case(f"c{i}", "lookup") for i in range(5)]
    path = write_suite(tmp_path, {"evalSetId": "s", "evalCases": cases}, [REGEX_TOOLS])
    options = api.Options(cache=None)
    assert streamed(path)
    plan = api.prepare([str(path)], options).plans[0]
    with monkeypatch.context() as patched:
        patched.setattr(planning, "check_evalset_stream", lambda *args, **kwargs: None)
        reference = api.prepare([str(path)], options).plans[0]
    assert list(plan.cases) == list(reference.cases)
    assert plan.case_ids == reference.case_ids == [f"c{i}" for i in range(5)]


# --jobs: the later shares of a large file checked by forked workers.


def large_suite(tmp: Path, problems_at: int | None) -> Path:
    """~60 KB of valid cases, with every kind of problem's cases spliced in at case
    ``problems_at`` (None: none); three shares of ~20 KB each."""
    cases: list[Any] = [trace_case(f"f{i}", "lookup") for i in range(300)]
    document = every_kind_of_problem()
    if problems_at is not None:
        cases[problems_at:problems_at] = document["evalCases"]
        del document["after"]  # a key after the cases: only the last share reads it
    document["evalCases"] = cases
    return write_suite(tmp, document, [REGEX_ANSWER, REGEX_TOOLS, TEMPLATE])


@pytest.fixture()
def three_shares(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Shares of 20 KB on three cores; the list counts the shares taken from workers."""
    monkeypatch.setattr(evalset_stream, "SHARE_BYTES", 20_000)
    monkeypatch.setattr(evalset_stream, "cpu_count", lambda: 3)
    taken: list[int] = []
    absorb = evalset_stream._CaseChecks.absorb

    def counted(self: Any, share: Any) -> None:
        taken.append(share.entries)
        absorb(self, share)

    monkeypatch.setattr(evalset_stream._CaseChecks, "absorb", counted)
    return taken


@pytest.mark.parametrize("problems_at", [None, 20, 150, 280], ids=["none", "1st", "2nd", "3rd"])
def test_shares_checked_by_workers_report_what_one_pass_reports(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    three_shares: list[int],
    problems_at: int | None,
) -> None:
    path = large_suite(tmp_path, problems_at)
    one = outcome(path, api.Options(cache=None))
    shared = outcome(path, api.Options(cache=None, jobs=3))
    assert shared == one == whole(monkeypatch, path, api.Options(cache=None))
    assert one[0] or problems_at is None  # the problems are reported (it compared something)
    # Shares are taken up to the one with a problem: its cases and the rest are checked here.
    expected = {None: 2, 20: 2, 150: 0, 280: 1}[problems_at]
    assert len(three_shares) == expected


def test_shares_taken_plan_the_cases_one_pass_plans(
    tmp_path: Path, three_shares: list[int]
) -> None:
    cases = [trace_case(f"c{i}", "lookup") for i in range(400)]
    path = write_suite(tmp_path, {"evalSetId": "s", "evalCases": cases}, [REGEX_TOOLS])
    one = api.prepare([str(path)], api.Options(cache=None)).plans[0]
    shared = api.prepare([str(path)], api.Options(cache=None, jobs=3)).plans[0]
    assert len(three_shares) == 2 and sum(three_shares) < 400
    assert list(shared.cases) == list(one.cases)
    assert shared.case_ids == one.case_ids == [f"c{i}" for i in range(400)]


def test_a_share_guessed_inside_a_string_is_not_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, three_shares: list[int]
) -> None:
    cases = [trace_case(f"c{i}", "lookup") for i in range(400)]
    for case in cases[::50]:
        case["conversation"][0]["finalResponse"]["content"] = '{"evalId": "fake"}'
    path = write_suite(tmp_path, {"evalSetId": "s", "evalCases": cases}, [REGEX_TOOLS])
    data = path.read_bytes()
    # Guessed at the answers that hold an object: a case never starts there.
    fake = [m.start() + 1 for m in re.finditer(rb'"\{', data)]
    monkeypatch.setattr(
        evalset_stream, "_case_start", lambda data, after: next(f for f in fake if f > after)
    )
    one = api.prepare([str(path)], api.Options(cache=None)).plans[0]
    shared = api.prepare([str(path)], api.Options(cache=None, jobs=3)).plans[0]
    assert three_shares == []
    assert list(shared.cases) == list(one.cases)


def test_a_case_start_is_guessed_past_the_objects_inside_cases() -> None:
    cases = [trace_case(f"c{i}", "lookup", tools=[{"a": 1}, {"b": 2}]) for i in range(40)]
    data = json.dumps({"evalSetId": "s", "evalCases": cases}).encode()
    start = evalset_stream._case_start(data, len(data) // 2)
    assert start is not None and data[start:].startswith(b'{"evalId": "c')
    assert evalset_stream._case_start(data, len(data) - 10) is None


def test_a_guessed_case_start_that_is_no_json_is_not_decoded_again_wider(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Tool results holding JSON text: every `}, {\"` in them looks like a case start.  Each
    # was decoded again in windows 4x wider up to 2 MB (~0.3 s a guess on a large file), and
    # after 64 of them no start was guessed at all.
    json_text = json.dumps([{"a": i} for i in range(2000)])  # ~20 KB of `}, {"a": …`
    cases = [trace_case(f"c{i}", "lookup", tools=[{"r": json_text}]) for i in range(12)]
    data = json.dumps({"evalSetId": "s", "evalCases": cases}).encode()
    decoded: list[int] = []
    decoder = json.JSONDecoder()

    class Counting:
        def raw_decode(self, text: str) -> tuple[Any, int]:
            decoded.append(len(text))
            return decoder.raw_decode(text)

    monkeypatch.setattr(evalset_stream, "_DECODER", Counting())
    inside = data.index(b'{\\"a\\": 10}', len(data) // 3)  # 1,989 look-alikes before c5
    start = evalset_stream._case_start(data, inside)
    assert start is not None and data[start:].startswith(b'{"evalId": "c5"')
    assert decoded == [1 << 16]  # only the case itself was decoded
    # A string that ends in "}, {" is followed by a real quote: no object there, decoded once.
    cases = [
        trace_case("c0", "lookup", note="x }, {"),
        *(trace_case(f"c{i}", "lookup", tools=[{"r": json_text}]) for i in range(1, 12)),
    ]
    data = json.dumps({"evalSetId": "s", "evalCases": cases}).encode()
    decoded.clear()
    start = evalset_stream._case_start(data, data.index(b"x }, {"))
    assert start is not None and data[start:].startswith(b'{"evalId": "c1"')
    assert decoded == [1 << 16] * 2


def with_repeated_keys(tmp: Path, top_level: bool) -> Path:
    """An eval set whose third case repeats a key inside a turn's message (as text: a dict
    cannot hold a key twice); ``top_level``: the eval set's own description too."""
    cases = [json.dumps(trace_case(f"c{i}", "lookup")) for i in range(3)]
    cases[2] = cases[2].replace('"content": "ok"', '"content": "first", "content": "ok"', 1)
    head = '"description": "a", "description": "b", ' if top_level else ""
    evalset = tmp / "s.evalset.json"
    evalset.write_text('{"evalSetId": "s", ' + head + '"evalCases": [' + ", ".join(cases) + "]}")
    (tmp / "s.metrics.json").write_text(json.dumps([REGEX_TOOLS]))
    return evalset


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_a_key_given_twice_in_a_case_is_said_as_the_whole_path_says_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, strict: bool
) -> None:
    path = with_repeated_keys(tmp_path, top_level=False)
    assert streamed(path, strict)
    options = api.Options(strict=strict, cache=None)
    problems, warnings = outcome(path, options)
    assert (problems, warnings) == whole(monkeypatch, path, options)
    line = (
        f'{path}: evalCases[2].actualConversation[0].finalResponse.content: key "content"'
        ' given twice; the last value ("ok") is used'
        " (Go's encoding/json reads the last one too; remove the other)"
    )
    assert (problems if strict else warnings) == [line]


def test_a_top_level_key_given_twice_is_read_whole_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = with_repeated_keys(tmp_path, top_level=True)
    assert not streamed(path)
    _, warnings = outcome(path, api.Options(cache=None))
    assert [w.split(": ")[1] for w in warnings] == [
        "description",
        "evalCases[2].actualConversation[0].finalResponse.content",
    ]
