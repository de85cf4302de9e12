"""Cross-file checks: evaluator names, regex patterns, filters."""

from __future__ import annotations

from agenteval.checks.cross_file import Findings, check_filters, check_metrics, check_regexes
from agenteval.inputs.loading import parse_evalset, parse_metrics
from agenteval.plugins import load_builtins


def test_filters_that_match_nothing_are_problems() -> None:
    found = Findings()
    check_filters(["m1", "mx"], ["my"], ["c1", "cx"], {"m1"}, {"c1"}, found)
    assert [str(p) for p in found.problems] == [
        "--metric: 'mx' matches nothing in the given files",
        "--skip-metric: 'my' matches nothing in the given files",
        "--case: 'cx' matches nothing in the given files",
    ]


def test_unknown_evaluator_gets_the_closest_name() -> None:
    load_builtins()
    metrics, _ = parse_metrics('[{"metricName": "tool_trajectory_avg_scor"}]', "m.json", {})
    found = Findings()
    check_metrics(metrics, "m.json", set(), found)
    assert [str(p) for p in found.problems] == [
        "m.json: [0].metricName: unknown evaluator 'tool_trajectory_avg_scor' "
        "(did you mean 'tool_trajectory_avg_score'?)"
    ]


def test_a_regex_pattern_that_does_not_compile_is_located_in_the_eval_set() -> None:
    metrics, _ = parse_metrics(
        '[{"metricName": "final_response_avg_score", "threshold": 1, "criterion":'
        ' {"finalResponse": {"text": {"matchStrategy": "regex"}}}}]',
        "m.json",
        {},
    )
    evalset, _ = parse_evalset(
        '{"evalSetId": "s", "evalCases": [{"evalId": "c", "conversation": [{"userContent":'
        ' {"role": "user", "content": "hi"}, "finalResponse": {"role": "assistant",'
        ' "content": "a(b"}}]}]}',
        "s.evalset.json",
    )
    assert evalset is not None
    found = Findings()
    check_regexes(evalset, "s.evalset.json", metrics, "m.json", found)
    (problem,) = found.problems
    assert problem.file == "s.evalset.json"
    assert problem.path == "evalCases[0].conversation[0].finalResponse.content"
    assert problem.message.startswith("invalid regex: ")


def test_a_case_insensitive_pattern_is_checked_lower_cased_as_go_does() -> None:
    """text.go's ``Match`` lower-cases the pattern with Go's ``strings.ToLower`` (simple case
    mapping: "İ" -> "i") before ``regexp.Compile``, so ``[İ-ż]`` compiles as ``[i-ż]`` and
    the turn is scored.  Python's ``str.lower`` gives "i" + U+0307, which made the class
    range U+0307-ż and refused the files with exit 2."""
    metrics, _ = parse_metrics(
        '[{"metricName": "final_response_avg_score", "threshold": 1, "criterion":'
        ' {"finalResponse": {"text": {"matchStrategy": "regex", "caseInsensitive": true}}}}]',
        "m.json",
        {},
    )
    evalset, _ = parse_evalset(
        '{"evalSetId": "s", "evalCases": [{"evalId": "c", "conversation": [{"userContent":'
        ' {"role": "user", "content": "hi"}, "finalResponse": {"role": "assistant",'
        ' "content": "^[\\u0130-\\u017c]stanbul$"}}]}]}',
        "s.evalset.json",
    )
    assert evalset is not None
    found = Findings()
    check_regexes(evalset, "s.evalset.json", metrics, "m.json", found)
    assert found.problems == []
