"""Template variable bindings and the rendered prompt (llm-evaluators.md §5.8.2, §11 scenarios 47–53)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agenteval.evaluators.llm.template.bindings import (
    TemplateError,
    build_prompt,
    read_bindings,
)
from agenteval.schema.evalset import Invocation
from agenteval.schema.metric import EvalMetric
from trpc_fixtures import FIXTURES


def bind(name: Any, scope: str, field: str, node: str | None = None, path: str = "") -> Any:
    source: dict[str, Any] = {"scope": scope, "field": field}
    if node is not None:
        source["selector"] = {"nodeID": node}
    if path:
        source["path"] = path
    return {"templateVariable": name, "source": source}


def make_metric(
    prompt: str, *bindings: Any, rubrics: list[Any] | None = None, scorer: str = "single_score"
) -> EvalMetric:
    template = {"prompt": prompt, "responseScorerName": scorer, "variableBindings": list(bindings)}
    llm_judge: dict[str, Any] = {"template": template}
    if rubrics is not None:
        llm_judge["rubrics"] = rubrics
    return EvalMetric.model_validate(
        {
            "metricName": "m",
            "evaluatorName": "llm_judge_template",
            "criterion": {"llmJudge": llm_judge},
        }
    )


def turn(data: dict[str, Any]) -> Invocation:
    # Through JSON text, like the loader reads eval sets.
    return Invocation.model_validate_json(json.dumps(data))


def msg(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def trace(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"executionTrace": {"Steps": list(steps)}}


REFERENCE = turn({"finalResponse": msg("reference")})


def prompt_for(metric: EvalMetric, actual: Invocation, expected: Invocation = REFERENCE) -> str:
    return build_prompt(metric, [actual], [expected])


def error_for(metric: EvalMetric | None, actuals: list[Any], expecteds: list[Any]) -> str:
    with pytest.raises(TemplateError) as caught:
        build_prompt(metric, actuals, expecteds)
    message = str(caught.value)
    assert "\n" not in message
    return message


# --- scenario 47 ----------------------------------------------------------------------

QUESTION_METRIC = make_metric(
    "Question: {{question}}\nAnswer: {{answer}}\nReference: {{reference}}",
    bind("question", "actual", "userContent"),
    bind("answer", "actual", "finalResponse"),
    bind("reference", "expected", "finalResponse"),
)
CAPITAL = turn(
    {"userContent": msg("What is the capital of France?"), "finalResponse": msg("Paris")}
)


def test_scenario_47_question_answer_reference() -> None:
    rendered = prompt_for(QUESTION_METRIC, CAPITAL, turn({"finalResponse": msg("Paris")}))
    assert rendered == ("Question: What is the capital of France?\nAnswer: Paris\nReference: Paris")


def test_scenario_47_extra_unbound_placeholder() -> None:
    metric = make_metric(
        "Answer: {{answer}} {{missing}}", bind("answer", "actual", "finalResponse")
    )
    message = error_for(metric, [CAPITAL], [REFERENCE])
    assert message == "render template prompt: prompt: unresolved placeholders: {{missing}}"


def test_values_come_from_the_current_turn_of_the_prefix() -> None:
    first = turn({"userContent": msg("first question"), "finalResponse": msg("first")})
    expecteds = [turn({"finalResponse": msg("ref 1")}), turn({"finalResponse": msg("ref 2")})]
    rendered = build_prompt(QUESTION_METRIC, [first, CAPITAL], expecteds)
    assert rendered == "Question: What is the capital of France?\nAnswer: Paris\nReference: ref 2"


def test_absent_messages_read_as_empty_text_but_expected_needs_one() -> None:
    assert prompt_for(QUESTION_METRIC, turn({}), turn({"finalResponse": msg("")})) == (
        "Question: \nAnswer: \nReference: "
    )


# --- scenario 48: trace input / output -------------------------------------------------


def test_scenario_48_last_matching_step_output() -> None:
    actual = turn(
        trace(
            {"NodeID": "fetch_match", "Output": {"Text": "stale data"}},
            {"NodeID": "other", "Output": {"Text": "ignore me"}},
            {"NodeID": "fetch_match", "Output": {"Text": "fresh match data"}},
        )
    )
    metric = make_metric(
        "Match data: {{match_data}}",
        bind("match_data", "actual", "traceStepOutput", "fetch_match"),
    )
    rendered = prompt_for(metric, actual)
    assert rendered == "Match data: fresh match data"
    assert "stale data" not in rendered


def test_scenario_48_step_input() -> None:
    actual = turn(trace({"NodeID": "fetch_match", "Input": {"Text": "match query"}}))
    metric = make_metric(
        "Tool input: {{tool_input}}", bind("tool_input", "actual", "traceStepInput", "fetch_match")
    )
    assert prompt_for(metric, actual) == "Tool input: match query"


def test_trace_keys_match_case_insensitively_like_go() -> None:
    actual = turn(
        {
            "executionTrace": {
                "steps": [
                    {"nodeId": "n", "output": {"text": "lower"}},
                    {
                        "NODEID": "n",
                        "OUTPUT": {"TEXT": "upper"},
                        "Output": {"Text": "last key wins"},
                    },
                ]
            }
        }
    )
    metric = make_metric("{{out}}", bind("out", "actual", "traceStepOutput", "n"))
    assert prompt_for(metric, actual) == "last key wins"


# --- scenario 49: tools and skills -------------------------------------------------------

TOOLS_STEP = {
    "NodeID": "fetch_match",
    "Tools": [
        {
            "ID": "call-1",
            "Name": "lookup",
            "Arguments": {"city": "Paris"},
            "Result": {"temperature": 18},
            "Error": "",
        },
        {
            "ID": "call-2",
            "Name": "unstable",
            "Arguments": {"attempt": 2},
            "Result": None,
            "Error": "tool failed",
        },
    ],
    "Skills": [{"Name": "research"}, {"Name": "weather"}],
}


def test_scenario_49_tools_and_skills() -> None:
    node = "fetch_match"
    metric = make_metric(
        "Tools: {{tools}}\nFirst ID: {{first_tool_id}}\nFirst result: {{first_result}}\n"
        "Second tool: {{second_tool}}\nSecond error: {{second_error}}\n"
        "Skills: {{skills}}\nSecond skill: {{second_skill}}",
        bind("tools", "actual", "traceStepTools", node),
        bind("first_tool_id", "actual", "traceStepTools", node, "$[0].id"),
        bind("first_result", "actual", "traceStepTools", node, "$[0].result.temperature"),
        bind("second_tool", "actual", "traceStepTools", node, "$[1].name"),
        bind("second_error", "actual", "traceStepTools", node, "$[1].error"),
        bind("skills", "actual", "traceStepSkills", node),
        bind("second_skill", "actual", "traceStepSkills", node, "$[1].name"),
    )
    rendered = prompt_for(metric, turn(trace(TOOLS_STEP)))
    assert rendered.index('"name":"lookup"') < rendered.index('"name":"unstable"')
    for fragment in (
        '"arguments":{"city":"Paris"}',
        '"id":"call-1"',
        '"result":{"temperature":18}',
        '"error":"tool failed"',
        "First ID: call-1",
        "First result: 18",
        "Second tool: unstable",
        "Second error: tool failed",
        '"name":"research"',
        "Second skill: weather",
    ):
        assert fragment in rendered
    # The whole value, key order as Go's struct: id, name, arguments, result, error.
    assert rendered.splitlines()[0] == (
        'Tools: [{"id":"call-1","name":"lookup","arguments":{"city":"Paris"},'
        '"result":{"temperature":18}},'
        '{"id":"call-2","name":"unstable","arguments":{"attempt":2},"error":"tool failed"}]'
    )
    assert 'Skills: [{"name":"research"},{"name":"weather"}]' in rendered


def test_scenario_49_step_without_tools_or_skills() -> None:
    metric = make_metric(
        "Tools: {{tools}}\nSkills: {{skills}}",
        bind("tools", "actual", "traceStepTools", "fetch_match"),
        bind("skills", "actual", "traceStepSkills", "fetch_match"),
    )
    assert prompt_for(metric, turn(trace({"NodeID": "fetch_match"}))) == "Tools: []\nSkills: []"
    nulls = {"NodeID": "fetch_match", "Tools": None, "Skills": None}
    assert prompt_for(metric, turn(trace(nulls))) == "Tools: []\nSkills: []"


def test_tool_values_use_go_float64_encoding_and_omit_rules() -> None:
    step = {
        "NodeID": "n",
        "Tools": [
            {
                "Arguments": {"z": 18.0, "big": 9007199254740993, "tiny": 1e-7, "huge": 1e21},
                "Result": {"html": "<a & b>", "sep": "\u2028", "n": [1.5, -0.0, 100000.0]},
            },
            None,
            {"Arguments": {}, "Result": "", "Name": ""},
            {"Result": 0, "Error": ""},
        ],
        "Skills": [None, {"Name": ""}, {"Name": "s"}],
    }
    metric = make_metric(
        "{{tools}} {{skills}}",
        bind("tools", "actual", "traceStepTools", "n"),
        bind("skills", "actual", "traceStepSkills", "n"),
    )
    assert prompt_for(metric, turn(trace(step))) == (
        '[{"arguments":{"big":9007199254740992,"huge":1e+21,"tiny":1e-7,"z":18},'
        '"result":{"html":"<a & b>","n":[1.5,-0,100000],"sep":"\\u2028"}},'
        '{},{"arguments":{},"result":""},{"result":0}] [{},{},{"name":"s"}]'
    )


# --- scenario 50: metric.rubrics -----------------------------------------------------------


def test_scenario_50_rubrics_are_not_html_escaped() -> None:
    metric = make_metric(
        "Rubrics: {{rubrics}}",
        bind("rubrics", "metric", "rubrics"),
        rubrics=[{"id": "r1", "content": {"text": "Must preserve x < y > z & value."}}],
    )
    rendered = prompt_for(metric, turn({}))
    assert '"id":"r1"' in rendered
    assert '"text":"Must preserve x < y > z & value."' in rendered
    for escaped in ("\\u003c", "\\u003e", "\\u0026"):
        assert escaped not in rendered


def test_rubrics_json_layout() -> None:
    rubrics = [
        {"id": " r1 ", "content": {"text": "a"}, "description": "d", "type": "t"},
        {"id": "hidden"},
        {"id": "", "content": {}},
        {"content": {"text": "b"}, "type": "final"},
    ]
    metric = make_metric("{{r}}", bind("r", "metric", "rubrics"), rubrics=rubrics)
    assert prompt_for(metric, turn({})) == (
        '[{"id":" r1 ","content":{"text":"a"},"description":"d","type":"t"},'
        '{"content":{}},{"content":{"text":"b"},"type":"final"}]'
    )


# --- scenario 51: paths ----------------------------------------------------------------------


def test_scenario_51_paths_into_trace_output() -> None:
    output = json.dumps(
        {
            "payload": {
                "answer": "Paris",
                "evidence": {"city": "Paris", "comparison": "x < y > z & a"},
            }
        }
    )
    actual = turn(trace({"NodeID": "fetch", "Output": {"Text": output}}))
    metric = make_metric(
        "Answer: {{answer}}\nEvidence: {{evidence}}",
        bind("answer", "actual", "traceStepOutput", "fetch", "$.payload.answer"),
        bind("evidence", "actual", "traceStepOutput", "fetch", "payload.evidence"),
    )
    assert prompt_for(metric, actual) == (
        'Answer: Paris\nEvidence: {"city":"Paris","comparison":"x < y > z & a"}'
    )


def test_path_errors_are_wrapped_with_the_variable() -> None:
    actual = turn({"finalResponse": msg("not json")})
    metric = make_metric("{{a}}", bind("a", "actual", "finalResponse", path="$.x"))
    assert error_for(metric, [actual], [REFERENCE]) == (
        'resolve template variable "a": parse source json for path "$.x": '
        "invalid character 'n' looking for beginning of value"
    )
    actual = turn({"finalResponse": msg('{"y": 1}')})
    assert error_for(metric, [actual], [REFERENCE]) == (
        'resolve template variable "a": json path "$.x" key "x" not found'
    )


def test_path_dollar_parses_but_empty_path_does_not() -> None:
    actual = turn({"finalResponse": msg(' {"b":1, "a":2} ')})
    whole = make_metric("{{a}}", bind("a", "actual", "finalResponse", path="$"))
    raw = make_metric("{{a}}", bind("a", "actual", "finalResponse"))
    assert prompt_for(whole, actual) == '{"a":2,"b":1}'
    assert prompt_for(raw, actual) == ' {"b":1, "a":2} '


# --- scenario 52: binding errors ----------------------------------------------------------


def test_scenario_52_binding_errors() -> None:
    answer = bind("answer", "actual", "finalResponse")
    cases: list[tuple[EvalMetric, str]] = [
        (make_metric("{{answer}}", answer, answer), 'templateVariable "answer" is duplicated'),
        (
            make_metric("{{r}}", bind("r", "expected", "finalResponse")),
            "expected finalResponse is empty",
        ),
        (
            make_metric("{{u}}", bind("u", "expected", "userContent")),
            "unsupported source expected.userContent",
        ),
        (
            make_metric("{{f}}", bind("f", "metric", "finalResponse")),
            "unsupported source metric.finalResponse",
        ),
        (make_metric("{{r}}", bind("r", "metric", "rubrics")), "metric rubrics are empty"),
        (make_metric("{{a}}", None), "template binding is nil"),
        (make_metric("{{a}}", bind("", "actual", "finalResponse")), "templateVariable is empty"),
        (make_metric("", answer), "template prompt is empty"),
        (make_metric("{{answer}}", answer, scorer=""), "template responseScorerName is empty"),
        (
            make_metric("{{u}}", bind("u", "", "userContent")),
            "unsupported source .userContent",
        ),
        (make_metric("{{u}}", {"templateVariable": "u"}), "source is nil"),
    ]
    for metric, fragment in cases:
        message = error_for(metric, [CAPITAL], [turn({})])
        assert fragment in message, (fragment, message)


def test_scenario_52_exact_wrapping() -> None:
    metric = make_metric("{{r}}", bind("r", "expected", "finalResponse"))
    assert error_for(metric, [CAPITAL], [turn({})]) == (
        'resolve template variable "r": expected finalResponse is empty'
    )


def test_scenario_52_missing_template_or_criterion() -> None:
    no_template = EvalMetric.model_validate({"metricName": "m", "criterion": {"llmJudge": {}}})
    assert error_for(no_template, [CAPITAL], [REFERENCE]) == "template is nil"
    no_judge = EvalMetric.model_validate({"metricName": "m"})
    assert error_for(no_judge, [CAPITAL], [REFERENCE]) == "missing llm judge criterion"
    assert error_for(None, [CAPITAL], [REFERENCE]) == "missing llm judge criterion"


def test_every_binding_is_resolved_even_when_unused() -> None:
    metric = make_metric(
        "no placeholders",
        bind("answer", "actual", "finalResponse"),
        bind("ref", "expected", "finalResponse"),
    )
    assert error_for(metric, [CAPITAL], [turn({})]) == (
        'resolve template variable "ref": expected finalResponse is empty'
    )


def test_errors_come_in_list_order() -> None:
    metric = make_metric(
        "{{a}}",
        bind("a", "expected", "userContent"),
        None,
    )
    assert "unsupported source expected.userContent" in error_for(metric, [CAPITAL], [REFERENCE])


def test_prefix_and_nil_errors() -> None:
    metric = make_metric("{{a}} {{r}}", bind("a", "actual", "finalResponse"))
    assert error_for(metric, [], [REFERENCE]) == 'resolve template variable "a": actuals is empty'
    assert error_for(metric, [None], [REFERENCE]) == (
        'resolve template variable "a": actual invocation is nil'
    )
    ref = make_metric("{{r}}", bind("r", "expected", "finalResponse"))
    assert error_for(ref, [CAPITAL], []) == 'resolve template variable "r": expecteds is empty'
    assert error_for(ref, [CAPITAL], [None]) == (
        'resolve template variable "r": expected invocation is nil'
    )
    # Go checks the turn before the field name.
    bogus = make_metric("{{a}}", bind("a", "actual", "bogus"))
    assert error_for(bogus, [], [REFERENCE]) == 'resolve template variable "a": actuals is empty'
    assert error_for(bogus, [CAPITAL], [REFERENCE]) == (
        'resolve template variable "a": unsupported source actual.bogus'
    )


# --- scenario 53: trace errors -----------------------------------------------------------------


def output_metric(node: str | None) -> EvalMetric:
    return make_metric("{{out}}", bind("out", "actual", "traceStepOutput", node))


def test_scenario_53_trace_errors() -> None:
    wrap = 'resolve template variable "out": '
    fetch_only_input = turn(trace({"NodeID": "fetch", "Input": {"Text": "q"}}))
    cases = [
        (
            output_metric("fetch"),
            turn({}),
            "executionTrace is empty for actual.traceStepOutput at invocation index 0",
        ),
        (output_metric(None), fetch_only_input, "trace selector nodeID is required"),
        (output_metric(""), fetch_only_input, "trace selector nodeID is required"),
        (
            output_metric(" "),
            fetch_only_input,
            'trace step not found for actual.traceStepOutput nodeID " " at invocation index 0',
        ),
        (
            output_metric("fetch"),
            turn(trace({"NodeID": "other", "Output": {"Text": "x"}})),
            'trace step not found for actual.traceStepOutput nodeID "fetch" at invocation index 0',
        ),
        (
            output_metric("fetch"),
            fetch_only_input,
            'trace snapshot is empty for actual.traceStepOutput nodeID "fetch" at invocation index 0',
        ),
        (
            output_metric("fetch"),
            turn(trace({"NodeID": "fetch", "Output": {"Text": ""}})),
            'trace snapshot is empty for actual.traceStepOutput nodeID "fetch" at invocation index 0',
        ),
    ]
    for metric, actual, message in cases:
        assert error_for(metric, [actual], [REFERENCE]) == wrap + message


def test_trace_errors_name_the_current_turn_index() -> None:
    with_trace = turn(trace({"NodeID": "fetch", "Output": {"Text": "x"}}))
    message = error_for(output_metric("fetch"), [with_trace, turn({})], [REFERENCE, REFERENCE])
    assert message.endswith(
        "executionTrace is empty for actual.traceStepOutput at invocation index 1"
    )


def test_empty_trace_object_has_no_steps() -> None:
    message = error_for(output_metric("fetch"), [turn({"executionTrace": {}})], [REFERENCE])
    assert message.endswith(
        'trace step not found for actual.traceStepOutput nodeID "fetch" at invocation index 0'
    )


def test_malformed_trace_is_a_clear_error() -> None:
    # A trace that is no object ("text") is refused when the eval set is read.
    cases: list[tuple[dict[str, Any], str]] = [
        ({"executionTrace": {"Steps": {}}}, "Steps is not a list"),
        ({"executionTrace": {"Steps": [{"NodeID": 5}]}}, "Steps[0].NodeID is not a string"),
        (
            {"executionTrace": {"Steps": [{"NodeID": "fetch", "Output": "x"}]}},
            "step Output is not an object",
        ),
    ]
    for data, fragment in cases:
        message = error_for(output_metric("fetch"), [turn(data)], [REFERENCE])
        assert "executionTrace is malformed" in message and fragment in message


# --- reading bindings -------------------------------------------------------------------------


def test_read_bindings_keeps_nulls_and_reports_wrong_types() -> None:
    template = {"variableBindings": [None, bind("a", "actual", "traceStepTools", "n", "$[0]")]}
    first, second = read_bindings(template)
    assert first is None
    assert second is not None and second.variable == "a"
    assert second.source is not None
    assert (
        second.source.scope,
        second.source.field,
        second.source.node_id,
        second.source.path,
    ) == (
        "actual",
        "traceStepTools",
        "n",
        "$[0]",
    )
    with pytest.raises(
        TemplateError, match=r"variableBindings\[0\]\.templateVariable: must be a string"
    ):
        read_bindings({"variableBindings": [{"templateVariable": 3}]})
    with pytest.raises(TemplateError, match=r"variableBindings: must be a list"):
        read_bindings({"variableBindings": {}})


# --- conformance with a stored Go result ------------------------------------------------------


def test_rendered_prompt_matches_the_stored_go_result() -> None:
    example = FIXTURES / "llm" / "templatetrace"
    metrics_file = (
        example / "data" / "template-trace-eval-app" / "template-trace-basic.metrics.json"
    )
    metric = EvalMetric.model_validate_json(json.dumps(json.loads(metrics_file.read_text())[0]))
    (result_file,) = (example / "output").rglob("*.evalset_result.json")
    result = json.loads(result_file.read_text())
    checked = 0
    for case in result["evalCaseResults"]:
        for per_turn in case["evalMetricResultPerInvocation"]:
            actual = turn(per_turn["actualInvocation"])
            expected = turn(per_turn["expectedInvocation"])
            (stored,) = per_turn["evalMetricResults"]
            rendered = build_prompt(metric, [actual], [expected])
            assert rendered == stored["criterion"]["llmJudge"]["template"]["prompt"]
            checked += 1
    assert checked == 1
