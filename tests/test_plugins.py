"""Plugin registration of judge operators (llm-evaluators.md §5.8.1) and per-case template checks.

The ``register_*`` decorators of :mod:`agenteval.plugins` accept a class, an
object or a plain function; a template metric then names the operator and the
evaluator uses it over HTTP.  ``agenteval validate``'s per-case checks run on
the effective metric (case rubrics merged), through the real loading and
planning code of :func:`agenteval.api.prepare`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from llm_support import judge_model, ok, run, turn

from agenteval.api import Options, prepare
from agenteval.errors import ConfigError
from agenteval.evaluators.base import EvaluateResult, TurnResult
from agenteval.evaluators.llm.judge_template import TemplateJudge, case_issues
from agenteval.evaluators.llm.operators.invocations import invocations_aggregators
from agenteval.evaluators.llm.operators.samples import samples_aggregators
from agenteval.evaluators.llm.operators.scorers import ScoreResult, numeric, response_scorers
from agenteval.evaluators.llm.operators.structured import structured_outputs
from agenteval.judge import JudgeReply, StructuredOutput
from agenteval.plugins import (
    evaluators,
    load_plugins,
    register_invocations_aggregator,
    register_response_scorer,
    register_samples_aggregator,
    register_structured_output,
)
from agenteval.schema import EvalCase, EvalMetric
from agenteval.schema.status import EvalStatus
from judge_server import JudgeServer, Reply

JUDGE = TemplateJudge()
STARS = StructuredOutput(
    name="stars_result",
    schema={"type": "object", "properties": {"stars": {"type": "integer"}}},
    description="Stars from 1 to 5.",
)


@pytest.fixture()
def star_operators() -> Iterator[None]:
    """A stars scorer (function), its schema (object), a last-turn aggregator (class)."""

    @register_response_scorer("stars_test")
    def stars(reply: JudgeReply | None, metric: EvalMetric) -> ScoreResult:
        value = json.loads(reply.text)["stars"] if reply is not None else 0
        score = (value - 1) / 4
        return ScoreResult(score=score, reason=f"{value} stars", value=numeric(score))

    class StarsSchema:
        def structured_output(self, metric: EvalMetric) -> StructuredOutput | None:
            return STARS

    register_structured_output("stars_test")(StarsSchema())

    @register_invocations_aggregator("last_turn_test")
    class LastTurn:
        def aggregate(self, turns: Sequence[TurnResult], metric: EvalMetric) -> EvaluateResult:
            last = turns[-1]
            return EvaluateResult(last.score, last.status, list(turns))

    yield
    response_scorers.unregister("stars_test")
    structured_outputs.unregister("stars_test")
    invocations_aggregators.unregister("last_turn_test")


def stars_metric(server: JudgeServer | None, **template: Any) -> EvalMetric:
    block = {
        "prompt": "How many stars for {{answer}}?",
        "responseScorerName": "stars_test",
        "variableBindings": [
            {"templateVariable": "answer", "source": {"scope": "actual", "field": "finalResponse"}}
        ],
        **template,
    }
    return EvalMetric.model_validate(
        {
            "metricName": "stars",
            "evaluatorName": "llm_judge_template",
            "threshold": 0.5,
            "criterion": {"llmJudge": {"judgeModel": judge_model(server), "template": block}},
        }
    )


def test_decorated_function_object_and_class(
    star_operators: None, judge_server: JudgeServer
) -> None:
    judge_server.enqueue(Reply(content='{"stars": 5}'), Reply(content='{"stars": 2}'))
    m = stars_metric(judge_server, invocationAggregatorName="last_turn_test")
    result = ok(run(JUDGE, m, [turn("q", "a1"), turn("q", "a2")], [turn(), turn()]))
    assert [(t.score, t.details.reason) for t in result.turns] == [
        (1.0, "5 stars"),
        (0.25, "2 stars"),
    ]
    # The last turn decides, not the average (0.625).
    assert (result.score, result.status) == (0.25, EvalStatus.FAILED)
    # The schema registered under the scorer's name goes with every call.
    for body in judge_server.bodies():
        assert body["response_format"]["json_schema"]["name"] == "stars_result"
    assert list(JUDGE.check(m)) == []


def test_decorators_return_what_they_decorate() -> None:
    class Keep:
        def aggregate(self, samples: Sequence[TurnResult], metric: EvalMetric) -> TurnResult:
            return samples[0]

    try:
        assert register_samples_aggregator("keep_test")(Keep) is Keep
        assert isinstance(samples_aggregators.resolve("keep_test"), Keep)
    finally:
        samples_aggregators.unregister("keep_test")


def test_decorating_something_unusable_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="neither a class"):
        register_response_scorer("broken_test")(42)
    assert response_scorers.get("broken_test") is None


def test_a_plugin_may_replace_a_builtin_name(judge_server: JudgeServer) -> None:
    original = response_scorers.resolve("boolean")

    @register_response_scorer("boolean")
    def lenient(reply: JudgeReply | None, metric: EvalMetric) -> ScoreResult:
        return ScoreResult(score=1.0, reason="always")

    try:
        judge_server.default = Reply(content='{"passed": false, "reason": "no"}')
        m = stars_metric(judge_server, responseScorerName="boolean")
        only = ok(run(JUDGE, m, [turn()], [turn()])).turns[0]
        assert (only.score, only.details.reason) == (1.0, "always")
    finally:
        response_scorers.register("boolean", original)


# --- per-case checks ----------------------------------------------------------------------

REFERENCE_BINDING = {
    "prompt": "{{answer}} vs {{reference}} by {{rubrics}}",
    "responseScorerName": "single_score",
    "variableBindings": [
        {"templateVariable": "answer", "source": {"scope": "actual", "field": "finalResponse"}},
        {
            "templateVariable": "reference",
            "source": {"scope": "expected", "field": "finalResponse"},
        },
        {"templateVariable": "rubrics", "source": {"scope": "metric", "field": "rubrics"}},
    ],
}


def case(**fields: Any) -> EvalCase:
    return EvalCase.model_validate({"evalId": "c", "sessionInput": {"userId": "u"}, **fields})


def user(text: str = "q") -> dict[str, Any]:
    return {"userContent": {"role": "user", "content": text}}


def answered(text: str = "a") -> dict[str, Any]:
    return {**user(), "finalResponse": {"role": "assistant", "content": text}}


def template_only(rubrics: list[Any] | None = None) -> EvalMetric:
    llm_judge: dict[str, Any] = {"template": REFERENCE_BINDING}
    if rubrics is not None:
        llm_judge["rubrics"] = rubrics
    return EvalMetric.model_validate({"metricName": "m", "criterion": {"llmJudge": llm_judge}})


RUBRIC = [{"id": "r1", "content": {"text": "be right"}}]


@pytest.mark.parametrize(
    ("fields", "paths"),
    [
        ({"conversation": [answered(), user(), answered()]}, ["conversation[1].finalResponse"]),
        ({"evalMode": "trace", "actualConversation": [answered()]}, ["conversation"]),
        ({"evalMode": "trace", "conversation": [answered()]}, ["conversation"]),
        (
            {"evalMode": "trace", "actualConversation": [answered()], "conversation": [answered()]},
            [],
        ),
        # Layouts the runner rejects are left to the runner.
        ({"evalMode": "trace"}, []),
        ({}, []),
    ],
)
def test_case_layouts(fields: dict[str, Any], paths: list[str]) -> None:
    issues = case_issues(template_only(RUBRIC), case(**fields))
    assert [i.path for i in issues] == paths
    assert all(i.message == "expected finalResponse is empty" for i in issues)


def test_rubrics_binding_needs_a_rubric_from_metric_or_case() -> None:
    issues = case_issues(template_only(), case(conversation=[answered()]))
    assert [(i.path, i.message) for i in issues] == [("rubrics", "metric rubrics are empty")]


def write_suite(tmp: Path, cases: list[dict[str, Any]]) -> tuple[Path, Path]:
    metric = {
        "metricName": "graded",
        "evaluatorName": "llm_judge_template",
        "criterion": {"llmJudge": {"judgeModel": judge_model(None), "template": REFERENCE_BINDING}},
    }
    metrics = tmp / "suite.metrics.json"
    metrics.write_text(json.dumps([metric]))
    sets = tmp / "suite.evalset.json"
    sets.write_text(json.dumps({"evalSetId": "suite", "evalCases": cases}))
    return sets, metrics


def test_prepare_checks_each_case_with_its_effective_metric(tmp_path: Path) -> None:
    session = {"sessionInput": {"userId": "u"}}
    case_rubric = {"metricName": "graded", "content": {"text": "Name the city."}}
    sets, metrics = write_suite(
        tmp_path,
        [
            # A case rubric makes metric.rubrics resolvable for this case only.
            {
                "evalId": "with_rubric",
                "conversation": [answered()],
                "rubrics": [case_rubric],
                **session,
            },
            {"evalId": "no_rubric", "conversation": [answered()], **session},
            {
                "evalId": "no_reference",
                "conversation": [user()],
                "rubrics": [case_rubric],
                **session,
            },
            # Invalid case rubrics: the run reports this case, validation skips it.
            {
                "evalId": "bad_rubric",
                "conversation": [user()],
                "rubrics": [{"metricName": "other", "content": {"text": "x"}}],
                **session,
            },
        ],
    )
    with pytest.raises(ConfigError) as info:
        prepare([str(sets)], Options(metrics=str(metrics), cache=None))
    found = [(p.file, p.path, p.message) for p in info.value.problems]
    assert found == [
        (str(sets), "evalCases[1].rubrics", "metric rubrics are empty"),
        (
            str(sets),
            "evalCases[2].conversation[0].finalResponse",
            "expected finalResponse is empty",
        ),
    ]
    assert all(p.hint.startswith("metric 'graded'") for p in info.value.problems)


def test_prepare_skips_case_checks_of_skipped_metrics(tmp_path: Path) -> None:
    sets, metrics = write_suite(
        tmp_path, [{"evalId": "c", "conversation": [user()], "sessionInput": {"userId": "u"}}]
    )
    prepared = prepare(
        [str(sets)], Options(metrics=str(metrics), cache=None, skip_metrics=["graded"])
    )
    assert prepared.plans[0].metrics == []


def test_a_plugin_file_runs_again_only_when_it_changed(tmp_path: Path) -> None:
    log = tmp_path / "imports.log"
    plugin = tmp_path / "counted.py"
    plugin.write_text(f"open({str(log)!r}, 'a').write('v1\\n')\n")
    load_plugins([str(plugin)])
    load_plugins([str(plugin)])  # as run does: its --report names, then the planning
    assert log.read_text() == "v1\n"
    # Edited (as --watch sees it between passes): executed again, once.
    plugin.write_text(f"open({str(log)!r}, 'a').write('v2\\n')\n")
    load_plugins([str(plugin)])
    load_plugins([str(plugin)])
    assert log.read_text() == "v1\nv2\n"


PLUGIN = """\
from agenteval.evaluators.base import Evaluator, average_turns, binary_turn
from agenteval.plugins import register_evaluator, register_response_scorer

@register_evaluator
class Always(Evaluator):
    name = {name!r}
    description = "passes every turn"

    def evaluate(self, metric, actuals, expecteds, context):
        return average_turns([binary_turn(True, "", 1.0) for _ in actuals], 1.0)
"""
LENIENT = """
@register_response_scorer("boolean")
def lenient(reply, metric):
    raise AssertionError("never called")
"""


def test_what_an_edited_plugin_file_no_longer_registers_is_gone(tmp_path: Path) -> None:
    # As --watch loads an edited plugin: the evaluator renamed in the file stayed
    # registered under its old name, so a metric naming it was scored where run (a fresh
    # process) says "unknown evaluator"; a built-in the file had replaced stayed replaced.
    from agenteval.evaluators.registry import evaluators

    builtin = response_scorers.resolve("boolean")
    plugin = tmp_path / "edited_plugin.py"
    plugin.write_text(PLUGIN.format(name="test_edited_old") + LENIENT)
    try:
        load_plugins([str(plugin)])
        assert "test_edited_old" in evaluators
        assert response_scorers.resolve("boolean") is not builtin
        plugin.write_text(PLUGIN.format(name="test_edited_new"))
        load_plugins([str(plugin)])
        assert "test_edited_old" not in evaluators and "test_edited_new" in evaluators
        assert response_scorers.resolve("boolean") is builtin
    finally:  # this worker's later tests see the built-in registries only
        evaluators.unregister("test_edited_old")
        evaluators.unregister("test_edited_new")
        response_scorers.register("boolean", builtin)


def test_registering_a_class_that_is_no_evaluator_is_a_located_load_error(
    tmp_path: Path,
) -> None:
    # It was registered, and the first run naming it stopped with an internal error (exit 4).
    plugin = tmp_path / "not_an_evaluator.py"
    plugin.write_text(
        "from agenteval.plugins import register_evaluator\n"
        "@register_evaluator\n"
        "class Lookalike:\n"
        "    name = 'lookalike_test'\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_plugins([str(plugin)])
    assert [str(p) for p in caught.value.problems] == [
        f"--plugin {plugin}: failed to load: TypeError: register_evaluator: Lookalike does "
        "not derive from agenteval.evaluators.base.Evaluator"
    ]
    assert evaluators.get("lookalike_test") is None
