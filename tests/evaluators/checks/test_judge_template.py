"""Up-front checks of template metrics for ``agenteval validate`` (issue 5, validation up front)."""

from __future__ import annotations

import json
from typing import Any

from agenteval.evaluators.base import ConfigIssue
from agenteval.evaluators.checks.judge_template import check_case, check_template
from agenteval.schema.evalset import Invocation
from agenteval.schema.metric import EvalMetric

T = "criterion.llmJudge.template"


def bind(name: Any, scope: str, field: str, node: str | None = None, path: str = "") -> Any:
    source: dict[str, Any] = {"scope": scope, "field": field}
    if node is not None:
        source["selector"] = {"nodeID": node}
    if path:
        source["path"] = path
    return {"templateVariable": name, "source": source}


def make_metric(template: dict[str, Any] | None, rubrics: list[Any] | None = None) -> EvalMetric:
    llm_judge: dict[str, Any] = {}
    if template is not None:
        llm_judge["template"] = template
    if rubrics is not None:
        llm_judge["rubrics"] = rubrics
    return EvalMetric.model_validate_json(
        json.dumps({"metricName": "m", "criterion": {"llmJudge": llm_judge}})
    )


def template(prompt: str, *bindings: Any, scorer: str = "single_score") -> dict[str, Any]:
    return {"prompt": prompt, "responseScorerName": scorer, "variableBindings": list(bindings)}


def problems(issues: list[ConfigIssue]) -> list[tuple[str, str]]:
    return [(i.path, i.message) for i in issues if not i.warning]


def warnings(issues: list[ConfigIssue]) -> list[tuple[str, str]]:
    return [(i.path, i.message) for i in issues if i.warning]


def test_a_correct_template_has_no_issues() -> None:
    metric = make_metric(
        template(
            "Q: {{question}} A: {{answer}} R: {{reference}} T: {{tools}} {{note?}}",
            bind("question", "actual", "userContent"),
            bind("answer", "actual", "finalResponse"),
            bind("reference", "expected", "finalResponse"),
            bind("tools", "actual", "traceStepTools", "agent/tools", "$[0].result.temperature"),
        )
    )
    assert check_template(metric) == []


def test_unbound_placeholder() -> None:
    metric = make_metric(template("{{a}} {{ b }} {{a}} {{c?}}", bind("x", "actual", "userContent")))
    issues = check_template(metric)
    assert problems(issues) == [(f"{T}.prompt", "prompt: unresolved placeholders: {{ b }}, {{a}}")]
    (issue,) = [i for i in issues if not i.warning]
    assert "{{name?}}" in issue.hint


def test_forbidden_json_paths() -> None:
    for path, fragment, where in [
        ("$.items[*]", "has invalid index", "at character 9 ('*')"),
        ("$..a", "missing key", "at character 3 ('.')"),
        ("$.a.*", "contains unsupported wildcard", "at character 5 ('*')"),
        ("$['a']", "has invalid index", 'at character 3 ("\'")'),
        ("$[0:2]", "has invalid index", "at character 3 ('0')"),
        ("$.a[?(@.b)]", "has invalid index", "at character 5 ('?')"),
        ("$.a.", "missing key", "at the end of the path"),
    ]:
        metric = make_metric(template("{{v}}", bind("v", "actual", "finalResponse", path=path)))
        (issue,) = check_template(metric)
        assert issue.path == f"{T}.variableBindings[0].source.path"
        assert issue.message.startswith(f'json path "{path}" {fragment}')
        assert issue.hint.startswith(where), issue.hint
        assert not issue.warning


def test_unknown_sources() -> None:
    metric = make_metric(
        template(
            "{{a}} {{b}} {{c}} {{d}}",
            bind("a", "expected", "userContent"),
            bind("b", "metric", "finalResponse"),
            bind("c", "", "userContent"),
            bind("d", "actual", "rubrics"),
        )
    )
    assert problems(check_template(metric)) == [
        (f"{T}.variableBindings[0].source", "unsupported source expected.userContent"),
        (f"{T}.variableBindings[1].source", "unsupported source metric.finalResponse"),
        (f"{T}.variableBindings[2].source", "unsupported source .userContent"),
        (f"{T}.variableBindings[3].source", "unsupported source actual.rubrics"),
    ]
    hint = check_template(metric)[0].hint
    assert "actual.traceStepTools" in hint and "metric.rubrics" in hint


def test_binding_shape_problems() -> None:
    metric = make_metric(
        template(
            "{{a}}",
            bind("a", "actual", "userContent"),
            bind("a", "actual", "finalResponse"),
            None,
            bind("", "actual", "userContent"),
            {"templateVariable": "s"},
            bind("t", "actual", "traceStepOutput"),
            bind("u", "actual", "traceStepInput", ""),
            "text",
        )
    )
    issues = check_template(metric)
    assert problems(issues) == [
        (f"{T}.variableBindings[1].templateVariable", 'templateVariable "a" is duplicated'),
        (f"{T}.variableBindings[2]", "template binding is nil"),
        (f"{T}.variableBindings[3].templateVariable", "templateVariable is empty"),
        (f"{T}.variableBindings[4].source", "source is nil"),
        (f"{T}.variableBindings[5].source.selector.nodeID", "trace selector nodeID is required"),
        (f"{T}.variableBindings[6].source.selector.nodeID", "trace selector nodeID is required"),
        (f"{T}.variableBindings[7]", "must be an object"),
    ]
    assert issues[0].hint == "first bound at variableBindings[0]"


def test_template_level_problems() -> None:
    assert problems(check_template(make_metric(None))) == [(T, "template is nil")]
    assert problems(check_template(EvalMetric.model_validate_json('{"metricName": "m"}'))) == [
        ("criterion.llmJudge", "missing llm judge criterion")
    ]
    assert problems(check_template(make_metric(template("", scorer="")))) == [
        (f"{T}.prompt", "template prompt is empty"),
        (f"{T}.responseScorerName", "template responseScorerName is empty"),
    ]


def test_wrong_json_types() -> None:
    metric = make_metric(
        {
            "prompt": 5,
            "responseScorerName": "single_score",
            "variableBindings": [
                {"templateVariable": 1, "source": {"scope": "actual", "field": "userContent"}},
                {"templateVariable": "b", "source": {"scope": "actual", "field": 2}},
                {"templateVariable": "c", "source": "actual.userContent"},
                {"templateVariable": "d", "source": {"scope": "actual", "selector": "n"}},
            ],
        }
    )
    assert problems(check_template(metric)) == [
        (f"{T}.prompt", "must be a string"),
        (f"{T}.variableBindings[0].templateVariable", "must be a string"),
        (f"{T}.variableBindings[1].source.field", "must be a string"),
        (f"{T}.variableBindings[2].source", "must be an object"),
        (f"{T}.variableBindings[3].source.selector", "must be an object"),
    ]
    bad_list = make_metric({"prompt": "x", "responseScorerName": "s", "variableBindings": {}})
    assert problems(check_template(bad_list)) == [(f"{T}.variableBindings", "must be a list")]


def test_warnings_do_not_stop_the_run() -> None:
    metric = make_metric(
        template(
            "{{a}} {{a b}} {{}}",
            bind("a", "actual", "userContent", "ignored-node"),
            bind("unused", "actual", "finalResponse"),
            bind("has space", "actual", "finalResponse"),
        )
    )
    issues = check_template(metric)
    assert problems(issues) == []
    assert warnings(issues) == [
        (f"{T}.variableBindings[0].source.selector", "selector is ignored for actual.userContent"),
        (f"{T}.prompt", "not placeholders, sent as written: {{a b}}, {{}}"),
        (
            f"{T}.variableBindings[1].templateVariable",
            'templateVariable "unused" is not used in the prompt',
        ),
        (
            f"{T}.variableBindings[2].templateVariable",
            'templateVariable "has space" is not used in the prompt',
        ),
    ]
    assert "whitespace" in issues[-1].hint


def turn(data: dict[str, Any]) -> Invocation:
    return Invocation.model_validate_json(json.dumps(data))


def test_case_without_expected_final_response() -> None:
    metric = make_metric(
        template(
            "{{r}}", bind("a", "actual", "userContent"), bind("r", "expected", "finalResponse")
        )
    )
    with_reference = turn({"finalResponse": {"role": "assistant", "content": ""}})
    user_only = turn({"userContent": {"role": "user", "content": "hi"}})
    assert check_case(metric, [with_reference, with_reference]) == []
    (issue,) = check_case(metric, [with_reference, user_only])
    assert (issue.path, issue.message) == (
        f"{T}.variableBindings[1].source",
        "expected finalResponse is empty",
    )
    assert issue.hint.startswith("turn index 1 of this case has no expected finalResponse")
    (issue,) = check_case(metric, [user_only, None, with_reference])
    assert issue.hint.startswith("turn indexes 0, 1 of this case have")


def test_case_without_rubrics_for_a_rubrics_binding() -> None:
    bound = template("{{r}}", bind("r", "metric", "rubrics"))
    (issue,) = check_case(make_metric(bound), [turn({})])
    assert (issue.path, issue.message) == (
        f"{T}.variableBindings[0].source",
        "metric rubrics are empty",
    )
    # Rubrics without content are invisible.
    assert len(check_case(make_metric(bound, rubrics=[{"id": "r"}]), [turn({})])) == 1
    # The effective metric of a case with case rubrics merged in has visible rubrics.
    merged = make_metric(bound, rubrics=[{"id": "case_rubric_1", "content": {"text": "x"}}])
    assert check_case(merged, [turn({})]) == []
