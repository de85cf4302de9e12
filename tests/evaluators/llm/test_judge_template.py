"""``llm_judge_template`` end to end over HTTP (llm-evaluators.md §5.8, §11 47–53, 55).

The rendered prompt is what the loopback judge receives (and what each
per-turn result records); binding errors fail the case before any judge call;
operator names resolve through the registries, with Go's errors for unknown
ones; the up-front checks report unknown names and bad categories.
"""

from __future__ import annotations

from typing import Any

import pytest
from llm_support import error, judge_model, ok, options, run

from agenteval.evaluators.llm.judge_template import RENDERED_PROMPT, TemplateJudge, resolve
from agenteval.evaluators.llm.operators.registry import (
    OperatorError,
    RegistrationError,
    operator_registry,
)
from agenteval.evaluators.llm.operators.samples import MajorityVote, samples_aggregators
from agenteval.evaluators.llm.operators.scorers import response_scorers
from agenteval.evaluators.llm.operators.structured import structured_outputs
from agenteval.evaluators.registry import evaluators
from agenteval.schema import EvalMetric, Invocation
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply

JUDGE = TemplateJudge()
MATCHED = Reply(content='{"score":1,"reason":"matched"}')
MISSED = Reply(content='{"score":0,"reason":"missed"}')


def bind(name: Any, scope: str, field: str, node: str | None = None, path: str = "") -> Any:
    source: dict[str, Any] = {"scope": scope, "field": field}
    if node is not None:
        source["selector"] = {"nodeID": node}
    if path:
        source["path"] = path
    return {"templateVariable": name, "source": source}


def template_metric(
    server: JudgeServer | None,
    prompt: str,
    *bindings: Any,
    scorer: str = "single_score",
    rubrics: list[Any] | None = None,
    threshold: float = 0.5,
    num_samples: int | None = None,
    **template: Any,
) -> EvalMetric:
    block: dict[str, Any] = {
        "prompt": prompt,
        "responseScorerName": scorer,
        "variableBindings": list(bindings),
        **template,
    }
    model = (
        judge_model(server) if num_samples is None else judge_model(server, numSamples=num_samples)
    )
    llm_judge: dict[str, Any] = {"judgeModel": model, "template": block}
    if rubrics is not None:
        llm_judge["rubrics"] = rubrics
    return EvalMetric.model_validate(
        {
            "metricName": "graded",
            "evaluatorName": "llm_judge_template",
            "threshold": threshold,
            "criterion": {"llmJudge": llm_judge},
        }
    )


def inv(data: dict[str, Any]) -> Invocation:
    return Invocation.model_validate(data)


def msg(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def step(node: str, **parts: Any) -> dict[str, Any]:
    return {"NodeID": node, **parts}


def traced(*steps: dict[str, Any], answer: str = "Paris") -> Invocation:
    return inv(
        {
            "userContent": msg("q"),
            "finalResponse": msg(answer),
            "executionTrace": {"Steps": list(steps)},
        }
    )


REFERENCE = inv({"finalResponse": msg("Paris")})
CAPITAL = inv({"userContent": msg("What is the capital of France?"), "finalResponse": msg("Paris")})
QUESTION = (
    "Question: {{question}}\nAnswer: {{answer}}\nReference: {{reference}}",
    bind("question", "actual", "userContent"),
    bind("answer", "actual", "finalResponse"),
    bind("reference", "expected", "finalResponse"),
)


def test_registered_under_go_name() -> None:
    judge = evaluators.get("llm_judge_template")
    assert isinstance(judge, TemplateJudge)
    assert judge.description == "LLM template judge evaluator"


# --- messages (§11 47–51) -----------------------------------------------------------------


def test_s47_prompt_sent_and_recorded_per_turn(judge_server: JudgeServer) -> None:
    judge_server.default = MATCHED
    m = template_metric(judge_server, *QUESTION)
    result = ok(run(JUDGE, m, [CAPITAL], [REFERENCE]))
    (body,) = judge_server.bodies()
    assert body["messages"] == [
        {
            "role": "user",
            "content": "Question: What is the capital of France?\nAnswer: Paris\nReference: Paris",
        }
    ]
    only = result.turns[0]
    assert (only.score, only.status, only.details.reason) == (1.0, EvalStatus.PASSED, "matched")
    assert (only.details.model_extra or {})[RENDERED_PROMPT] == body["messages"][0]["content"]
    assert only.details.model_dump(by_alias=True, mode="json")[RENDERED_PROMPT].startswith(
        "Question: What is"
    )


def test_s47_unbound_placeholder_fails_before_any_call(judge_server: JudgeServer) -> None:
    prompt, *bindings = QUESTION
    m = template_metric(judge_server, f"{prompt} {{{{missing}}}}", *bindings)
    message = error(run(JUDGE, m, [CAPITAL], [REFERENCE]))
    assert message == (
        "construct messages: render template prompt: prompt: unresolved placeholders: "
        "{{missing}} (turn 1)"
    )
    assert judge_server.count == 0


def test_each_turn_reads_its_own_prefix(judge_server: JudgeServer) -> None:
    judge_server.enqueue(MATCHED, MISSED)
    m = template_metric(judge_server, *QUESTION)
    second = inv({"userContent": msg("And of Italy?"), "finalResponse": msg("Milan")})
    result = ok(
        run(
            JUDGE,
            m,
            [CAPITAL, second],
            [REFERENCE, inv({"finalResponse": msg("Rome")})],
        )
    )
    prompts = [b["messages"][0]["content"] for b in judge_server.bodies()]
    assert prompts[1] == "Question: And of Italy?\nAnswer: Milan\nReference: Rome"
    assert [(t.details.model_extra or {})[RENDERED_PROMPT] for t in result.turns] == prompts
    assert [t.score for t in result.turns] == [1.0, 0.0]
    # Average of the two turns, 0.5 at threshold 0.5: passed.
    assert (result.score, result.status) == (0.5, EvalStatus.PASSED)


def test_s48_last_matching_step_output_and_input(judge_server: JudgeServer) -> None:
    judge_server.default = MATCHED
    m = template_metric(
        judge_server,
        "Tool input: {{input}}\nTool output: {{output}}",
        bind("input", "actual", "traceStepInput", "fetch_match"),
        bind("output", "actual", "traceStepOutput", "fetch_match"),
    )
    actual = traced(
        step("fetch_match", Input={"Text": "old query"}, Output={"Text": "stale data"}),
        step("other", Output={"Text": "ignore me"}),
        step("fetch_match", Input={"Text": "match query"}, Output={"Text": "fresh match data"}),
    )
    ok(run(JUDGE, m, [actual], [REFERENCE]))
    prompt = judge_server.bodies()[0]["messages"][0]["content"]
    assert prompt == "Tool input: match query\nTool output: fresh match data"


def test_s49_s51_tools_and_paths(judge_server: JudgeServer) -> None:
    judge_server.default = MATCHED
    m = template_metric(
        judge_server,
        "Tools: {{tools}}\nFirst: {{first}}\nAnswer: {{answer}}\nEvidence: {{evidence}}",
        bind("tools", "actual", "traceStepTools", "lookup"),
        bind("first", "actual", "traceStepTools", "lookup", "$[0].result.temperature"),
        bind("answer", "actual", "traceStepOutput", "lookup", "$.payload.answer"),
        bind("evidence", "actual", "traceStepOutput", "lookup", "payload.evidence"),
    )
    output = (
        '{"payload":{"answer":"Paris","evidence":{"city":"Paris","comparison":"x < y > z & a"}}}'
    )
    actual = traced(
        step(
            "lookup",
            Output={"Text": output},
            Tools=[
                {
                    "ID": "call-1",
                    "Name": "lookup",
                    "Arguments": {"city": "Paris"},
                    "Result": {"temperature": 18},
                }
            ],
        )
    )
    ok(run(JUDGE, m, [actual], [REFERENCE]))
    prompt = judge_server.bodies()[0]["messages"][0]["content"]
    assert prompt == (
        'Tools: [{"id":"call-1","name":"lookup","arguments":{"city":"Paris"},'
        '"result":{"temperature":18}}]\n'
        "First: 18\n"
        "Answer: Paris\n"
        'Evidence: {"city":"Paris","comparison":"x < y > z & a"}'
    )


def test_s50_rubrics_source_includes_rubrics_unescaped(judge_server: JudgeServer) -> None:
    judge_server.default = MATCHED
    m = template_metric(
        judge_server,
        "Rubrics: {{rubrics}}",
        bind("rubrics", "metric", "rubrics"),
        rubrics=[{"id": "r1", "content": {"text": "Must preserve x < y > z & value."}}],
    )
    ok(run(JUDGE, m, [CAPITAL], [REFERENCE]))
    prompt = judge_server.bodies()[0]["messages"][0]["content"]
    assert prompt == 'Rubrics: [{"id":"r1","content":{"text":"Must preserve x < y > z & value."}}]'


# --- binding and trace errors fail the case before any judge call (§11 52–53) --------------

ANSWER = bind("answer", "actual", "finalResponse")


@pytest.mark.parametrize(
    ("prompt", "bindings", "actual", "expected", "message"),
    [
        (
            "{{answer}}",
            [ANSWER, ANSWER],
            CAPITAL,
            REFERENCE,
            'templateVariable "answer" is duplicated',
        ),
        (
            "{{reference}}",
            [bind("reference", "expected", "finalResponse")],
            CAPITAL,
            inv({}),
            'resolve template variable "reference": expected finalResponse is empty',
        ),
        (
            "{{q}}",
            [bind("q", "expected", "userContent")],
            CAPITAL,
            REFERENCE,
            'resolve template variable "q": unsupported source expected.userContent',
        ),
        (
            "{{x}}",
            [bind("x", "metric", "finalResponse")],
            CAPITAL,
            REFERENCE,
            'resolve template variable "x": unsupported source metric.finalResponse',
        ),
        (
            "{{r}}",
            [bind("r", "metric", "rubrics")],
            CAPITAL,
            REFERENCE,
            'resolve template variable "r": metric rubrics are empty',
        ),
        ("{{answer}}", [None], CAPITAL, REFERENCE, "template binding is nil"),
        (
            "{{answer}}",
            [bind("", "actual", "finalResponse")],
            CAPITAL,
            REFERENCE,
            "templateVariable is empty",
        ),
        ("", [ANSWER], CAPITAL, REFERENCE, "template prompt is empty"),
        (
            "{{out}}",
            [bind("out", "actual", "traceStepOutput", "fetch")],
            CAPITAL,
            REFERENCE,
            'resolve template variable "out": executionTrace is empty for '
            "actual.traceStepOutput at invocation index 0",
        ),
        (
            "{{out}}",
            [bind("out", "actual", "traceStepOutput", "")],
            traced(step("fetch", Output={"Text": "x"})),
            REFERENCE,
            'resolve template variable "out": trace selector nodeID is required',
        ),
        (
            "{{out}}",
            [bind("out", "actual", "traceStepOutput", " ")],
            traced(step("fetch", Output={"Text": "x"})),
            REFERENCE,
            'resolve template variable "out": trace step not found for actual.traceStepOutput '
            'nodeID " " at invocation index 0',
        ),
        (
            "{{out}}",
            [bind("out", "actual", "traceStepOutput", "fetch")],
            traced(step("fetch")),
            REFERENCE,
            'resolve template variable "out": trace snapshot is empty for '
            'actual.traceStepOutput nodeID "fetch" at invocation index 0',
        ),
        (
            "{{a}}",
            [bind("a", "actual", "traceStepOutput", "fetch", "$.items[0]")],
            traced(step("fetch", Output={"Text": '{"items":[]}'})),
            REFERENCE,
            'resolve template variable "a": json path "$.items[0]" index 0 out of range',
        ),
    ],
)
def test_s52_s53_errors_name_the_turn_and_send_nothing(
    judge_server: JudgeServer,
    prompt: str,
    bindings: list[Any],
    actual: Invocation,
    expected: Invocation,
    message: str,
) -> None:
    m = template_metric(judge_server, prompt, *bindings)
    assert error(run(JUDGE, m, [actual], [expected])) == f"construct messages: {message} (turn 1)"
    assert judge_server.count == 0


def test_s52_template_level_errors(judge_server: JudgeServer) -> None:
    def with_template(template: Any) -> EvalMetric:
        return EvalMetric.model_validate(
            {
                "metricName": "graded",
                "criterion": {
                    "llmJudge": {"judgeModel": judge_model(judge_server), "template": template}
                },
            }
        )

    assert "template is nil" in error(run(JUDGE, with_template(None), [CAPITAL], [REFERENCE]))
    empty_scorer = with_template({"prompt": "x", "responseScorerName": ""})
    assert "template responseScorerName is empty" in error(
        run(JUDGE, empty_scorer, [CAPITAL], [REFERENCE])
    )
    assert judge_server.count == 0


# --- scoring and aggregation (§11 55) -----------------------------------------------------


def test_s55_single_score_and_rubric_scores(judge_server: JudgeServer) -> None:
    judge_server.enqueue(MATCHED)
    single = ok(run(JUDGE, template_metric(judge_server, *QUESTION), [CAPITAL], [REFERENCE]))
    assert (single.turns[0].score, single.turns[0].details.reason) == (1.0, "matched")
    judge_server.enqueue(
        Reply(
            content='{"rubricScores":[{"id":"1","score":1,"reason":"right"},'
            '{"id":"2","score":0,"reason":"two words"}]}'
        )
    )
    m = template_metric(judge_server, *QUESTION, scorer="rubric_scores")
    rubric = ok(run(JUDGE, m, [CAPITAL], [REFERENCE])).turns[0]
    assert (rubric.score, rubric.details.reason) == (0.5, "right\ntwo words")
    assert [(r.id, r.score) for r in rubric.details.rubric_scores or []] == [("1", 1.0), ("2", 0.0)]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"scorer": "missing"}, 'unsupported response scorer "missing"'),
        ({"sampleAggregatorName": "missing"}, 'unsupported samples aggregator "missing"'),
        ({"invocationAggregatorName": "missing"}, 'unsupported invocations aggregator "missing"'),
    ],
)
def test_s55_unknown_operator_names(
    judge_server: JudgeServer, fields: dict[str, Any], message: str
) -> None:
    m = template_metric(judge_server, *QUESTION, **fields)
    assert message in error(run(JUDGE, m, [CAPITAL], [REFERENCE]))
    assert judge_server.count == 0
    with pytest.raises(OperatorError, match=message):
        resolve(m)


def test_s55_default_majority_vote(judge_server: JudgeServer) -> None:
    judge_server.enqueue(MATCHED, MISSED, MATCHED)
    m = template_metric(judge_server, *QUESTION, num_samples=3)
    result = ok(run(JUDGE, m, [CAPITAL], [REFERENCE], judge_options=options(concurrency=1)))
    only = result.turns[0]
    assert (only.score, only.status) == (1.0, EvalStatus.PASSED)
    votes = [s["score"] for s in (only.details.model_extra or {})["samples"]]
    assert votes == [1, 0, 1]
    assert judge_server.count == 3


def test_s55_default_average(judge_server: JudgeServer) -> None:
    judge_server.enqueue(MATCHED, MISSED)
    m = template_metric(judge_server, *QUESTION)
    result = ok(run(JUDGE, m, [CAPITAL, CAPITAL], [REFERENCE, REFERENCE]))
    assert (result.score, result.status) == (0.5, EvalStatus.PASSED)


def test_named_aggregators_are_used(judge_server: JudgeServer) -> None:
    class Lowest:
        def aggregate(self, samples: Any, metric: EvalMetric) -> Any:
            return min(samples, key=lambda s: s.score)

    samples_aggregators.register("lowest_test", Lowest())
    try:
        judge_server.enqueue(MATCHED, MISSED, MATCHED)
        m = template_metric(
            judge_server, *QUESTION, num_samples=3, sampleAggregatorName="lowest_test"
        )
        only = ok(
            run(JUDGE, m, [CAPITAL], [REFERENCE], judge_options=options(concurrency=1))
        ).turns[0]
        assert (only.score, only.status, only.details.reason) == (0.0, EvalStatus.FAILED, "missed")
    finally:
        samples_aggregators.unregister("lowest_test")


# --- registry (§5.8.1) --------------------------------------------------------------------


def test_builtin_names() -> None:
    assert {"single_score", "rubric_scores", "boolean", "categorical"} <= set(
        response_scorers.names()
    )
    assert {"single_score", "rubric_scores", "boolean", "categorical"} <= set(
        structured_outputs.names()
    )
    assert "majority_vote" in samples_aggregators.names()


@pytest.mark.parametrize(
    ("kind", "nil_kind", "empty", "nil"),
    [
        ("response scorer", "", "response scorer name is empty", "response scorer is nil"),
        (
            "structured output",
            "structured output provider",
            "structured output name is empty",
            "structured output provider is nil",
        ),
        ("samples aggregator", "", "samples aggregator name is empty", "samples aggregator is nil"),
        (
            "invocations aggregator",
            "",
            "invocations aggregator name is empty",
            "invocations aggregator is nil",
        ),
    ],
)
def test_registration_errors(kind: str, nil_kind: str, empty: str, nil: str) -> None:
    registry = operator_registry(kind, nil_kind)
    with pytest.raises(RegistrationError, match=rf"^{empty}$"):
        registry.register("", object())
    with pytest.raises(RegistrationError, match=rf"^{nil}$"):
        registry.register("x", None)
    first, second = MajorityVote(), MajorityVote()
    registry.register("x", first)
    registry.register("x", second)  # re-registering overwrites
    assert registry.resolve("x") is second


def test_real_registries_use_gos_texts() -> None:
    with pytest.raises(RegistrationError, match=r"^structured output provider is nil$"):
        structured_outputs.register("x", None)
    with pytest.raises(RegistrationError, match=r"^response scorer name is empty$"):
        response_scorers.register("", response_scorers.resolve("boolean"))


# --- up-front checks ----------------------------------------------------------------------


def issues_of(m: EvalMetric) -> list[tuple[str, str, bool]]:
    return [(i.path, i.message, i.warning) for i in JUDGE.check(m)]


T = "criterion.llmJudge.template"


def test_check_accepts_a_complete_template() -> None:
    assert issues_of(template_metric(None, *QUESTION)) == []


def test_check_reports_unknown_names() -> None:
    m = template_metric(
        None,
        *QUESTION,
        scorer="single_scor",
        structuredOutputName="nope",
        sampleAggregatorName="majority",
        invocationAggregatorName="mean",
    )
    issues = list(JUDGE.check(m))
    assert [(i.path, i.message) for i in issues] == [
        (f"{T}.responseScorerName", 'unsupported response scorer "single_scor"'),
        (f"{T}.structuredOutputName", 'unsupported structured output "nope"'),
        (f"{T}.sampleAggregatorName", 'unsupported samples aggregator "majority"'),
        (f"{T}.invocationAggregatorName", 'unsupported invocations aggregator "mean"'),
    ]
    assert 'did you mean "single_score"?' in issues[0].hint
    assert 'did you mean "majority_vote"?' in issues[2].hint


def test_check_reports_wrong_name_types_and_categories() -> None:
    m = template_metric(None, *QUESTION, sampleAggregatorName=3)
    assert issues_of(m) == [(f"{T}.sampleAggregatorName", "must be a string", False)]
    m = template_metric(
        None,
        *QUESTION,
        scorer="categorical",
        responseScorerOptions={"categories": [{"label": "good", "score": 1}, {"label": "good"}]},
    )
    assert issues_of(m) == [
        (
            f"{T}.responseScorerOptions.categories[1].label",
            'duplicate categorical category label "good"',
            False,
        )
    ]
    # A categorical schema with another scorer validates the categories too.
    m = template_metric(None, *QUESTION, structuredOutputName="categorical")
    assert issues_of(m) == [
        (f"{T}.responseScorerOptions", "responseScorerOptions is required", False)
    ]


def test_check_includes_the_template_checks() -> None:
    prompt, *bindings = QUESTION
    m = template_metric(
        None, prompt + "{{extra}}", *bindings[:2], bind("r", "actual", "x", path="$.a.*")
    )
    messages = [message for _, message, _ in issues_of(m)]
    assert "unsupported source actual.x" in messages
    assert 'json path "$.a.*" contains unsupported wildcard' in messages
    assert "prompt: unresolved placeholders: {{extra}}, {{reference}}" in messages


def test_paths_are_evaluated_by_jsonpath_ng(
    judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With jsonpath-ng's lookups switched off, a bound path finds nothing: no second walker."""
    import jsonpath_ng.jsonpath as engine

    for node in (engine.Root, engine.Child, engine.Fields, engine.Index):
        monkeypatch.setattr(node, "find", lambda self, datum: [])
    judge_server.default = MATCHED
    m = template_metric(
        judge_server,
        "Answer: {{answer}}",
        bind("answer", "actual", "traceStepOutput", "lookup", "$.payload.answer"),
    )
    actual = traced(step("lookup", Output={"Text": '{"payload": {"answer": "Paris"}}'}))
    message = error(run(JUDGE, m, [actual], [REFERENCE]))
    assert 'json path "$.payload.answer" key "payload" not found' in message
    assert judge_server.count == 0
    monkeypatch.undo()
    ok(run(JUDGE, m, [actual], [REFERENCE]))
    assert judge_server.bodies()[0]["messages"][0]["content"] == "Answer: Paris"
