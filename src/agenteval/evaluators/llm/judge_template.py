"""``llm_judge_template``: a judge whose prompt and scoring mode come from the metric file (§5.8).

``criterion.llmJudge.template`` holds the prompt with ``{{name}}``
placeholders, the ``variableBindings`` that fill them (see
:mod:`.template.bindings`), and the names of the operators that score the
reply: ``responseScorerName`` (required), ``structuredOutputName`` (default:
the provider registered under the scorer's name, if any),
``sampleAggregatorName`` (default ``majority_vote``) and
``invocationAggregatorName`` (default ``average``).  Names are looked up in
the operator registries (:mod:`.operators`), which plugins extend with the
``register_*`` decorators of :mod:`agenteval.plugins`.

As in Go, each operator step resolves the names again from the metric it is
given (the effective metric, case rubrics merged), so the pipeline's four
operators here only dispatch.  Unknown names and other problems that would
fail every case are found up front by :meth:`TemplateJudge.check`;
:meth:`TemplateJudge.check_case` finds what one case cannot satisfy.

Each per-turn result carries the prompt the judge read where §5.8.5 puts it, in
the per-turn copy of ``criterion.llmJudge.template.prompt`` (the overall result
keeps the template), and also in ``details.renderedPrompt`` beside the reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agenteval.evaluators.base import (
    ConfigIssue,
    EvalContext,
    EvaluateResult,
    ScoreRange,
    TurnResult,
    Turns,
)
from agenteval.evaluators.checks.judge_template import check_template
from agenteval.evaluators.checks.reference_answers import missing_reference_answers
from agenteval.evaluators.llm.operators.constructors import JudgeAsk, TurnPrefix
from agenteval.evaluators.llm.operators.invocations import (
    InvocationsAggregator,
    invocations_aggregators,
)
from agenteval.evaluators.llm.operators.json_scorers import (
    CategoricalScorer,
    CategoryError,
    read_categories,
)
from agenteval.evaluators.llm.operators.registry import OperatorError, quoted
from agenteval.evaluators.llm.operators.samples import SamplesAggregator, samples_aggregators
from agenteval.evaluators.llm.operators.scorers import (
    ResponseScorer,
    ScoreResult,
    response_scorers,
)
from agenteval.evaluators.llm.operators.structured import (
    CategoricalSchema,
    StructuredOutputProvider,
    structured_outputs,
)
from agenteval.evaluators.llm.pipeline import JudgeEvaluator, Operators
from agenteval.evaluators.llm.template import TemplateError, build_prompt
from agenteval.evaluators.llm.template.bindings import (
    TEMPLATE_PATH,
    BindingFormatError,
    read_bindings,
    template_options,
    text_field,
    visible_rubrics,
)
from agenteval.evaluators.registry import register_evaluator
from agenteval.registry import Registry
from agenteval.schema.evalset import EvalCase
from agenteval.schema.metric import Criterion, EvalMetric, LLMCriterion
from agenteval.steps.record import unrecorded

if TYPE_CHECKING:
    from agenteval.judge import ChatMessage, JudgeReply, StructuredOutput

DEFAULT_SAMPLES = "majority_vote"
DEFAULT_INVOCATIONS = "average"
RENDERED_PROMPT = "renderedPrompt"


@dataclass(frozen=True, slots=True)
class TemplateOperators:
    """The operators a template metric names, resolved from the registries."""

    scorer: ResponseScorer
    samples: SamplesAggregator
    invocations: InvocationsAggregator
    structured: StructuredOutputProvider | None


def _name(template: Mapping[str, Any], key: str) -> str:
    try:
        return text_field(template, key, "")
    except BindingFormatError as exc:
        raise OperatorError(str(exc)) from None


def resolve(metric: EvalMetric | None) -> TemplateOperators:
    """The metric's operators, checked in Go's order (§5.8.1 ``resolve``)."""
    try:
        template = template_options(metric)
    except TemplateError as exc:
        raise OperatorError(str(exc)) from None
    scorer_name = _name(template, "responseScorerName")
    if not scorer_name:
        raise OperatorError("template responseScorerName is empty")
    scorer = response_scorers.resolve(scorer_name)
    samples = samples_aggregators.resolve(
        _name(template, "sampleAggregatorName") or DEFAULT_SAMPLES
    )
    invocations = invocations_aggregators.resolve(
        _name(template, "invocationAggregatorName") or DEFAULT_INVOCATIONS
    )
    structured_name = _name(template, "structuredOutputName")
    if structured_name:
        structured: StructuredOutputProvider | None = structured_outputs.resolve(structured_name)
    else:
        # A scorer without a schema of its own name runs unconstrained.
        structured = structured_outputs.get(scorer_name)
    return TemplateOperators(scorer, samples, invocations, structured)


class TemplatePrompt:
    """One user message: the template prompt rendered for the current turn."""

    async def construct(self, turn: TurnPrefix, ask: JudgeAsk) -> Sequence[ChatMessage]:
        """``[user: rendered prompt]``; a binding or placeholder problem is Go's error."""
        from agenteval.judge import ChatMessage

        return (ChatMessage("user", self.prompt(turn)),)

    def prompt(self, turn: TurnPrefix) -> str:
        """The rendered prompt of the last turn of ``turn``."""
        try:
            return build_prompt(turn.metric, turn.actuals, turn.expecteds)
        except TemplateError as exc:
            raise OperatorError(str(exc)) from None

    def structured_output(self, turn: TurnPrefix) -> StructuredOutput | None:
        """The named provider's schema, the scorer's own, or none."""
        provider = resolve(turn.metric).structured
        return provider.structured_output(turn.metric) if provider is not None else None


class TemplateScorer:
    """Scores with the metric's ``responseScorerName``."""

    def score(self, reply: JudgeReply | None, metric: EvalMetric) -> ScoreResult:
        """Delegate to the named scorer."""
        return resolve(metric).scorer.score(reply, metric)


class TemplateSamples:
    """Aggregates samples with the metric's ``sampleAggregatorName``."""

    def aggregate(self, samples: Sequence[TurnResult], metric: EvalMetric) -> TurnResult:
        """Delegate to the named samples aggregator."""
        return resolve(metric).samples.aggregate(samples, metric)


class TemplateInvocations:
    """Aggregates turns with the metric's ``invocationAggregatorName``."""

    def aggregate(self, turns: Sequence[TurnResult], metric: EvalMetric) -> EvaluateResult:
        """Delegate to the named invocations aggregator."""
        return resolve(metric).invocations.aggregate(turns, metric)


@register_evaluator
class TemplateJudge(JudgeEvaluator):
    """A judge prompt, reply format and aggregation written in the metric file."""

    name = "llm_judge_template"
    description = "LLM template judge evaluator"

    def default_operators(self) -> Operators:
        """Operators that dispatch to the names in ``criterion.llmJudge.template``."""
        return Operators(
            constructor=TemplatePrompt(),
            scorer=TemplateScorer(),
            samples=TemplateSamples(),
            invocations=TemplateInvocations(),
        )

    def check_llm_judge(self, metric: EvalMetric, llm_judge: LLMCriterion) -> Iterable[ConfigIssue]:
        """The template's own problems, then unknown operator names and bad categories."""
        issues = check_template(metric)
        if llm_judge.template is not None:
            issues.extend(_operator_issues(metric, llm_judge.template))
        return issues

    def check_case(self, metric: EvalMetric, case: EvalCase) -> Iterable[ConfigIssue]:
        """Bindings this case cannot satisfy (paths relative to the case)."""
        return case_issues(metric, case)

    def metric_score_range(self, metric: EvalMetric) -> ScoreRange | None:
        """The response scorer's range when both aggregators keep it; else None (unknown).

        The built-in scorers give 0..1 and the built-in aggregators pick a sample and
        average turns; a plugin's operator may give any score unless it declares its range.
        """
        try:
            operators = resolve(metric)
        except OperatorError:
            return None  # check_llm_judge reports the names
        kept = all(
            getattr(operator, "keeps_score_range", False)
            for operator in (operators.samples, operators.invocations)
        )
        scored: ScoreRange | None = getattr(operators.scorer, "score_range", None)
        return scored if kept else None

    async def aevaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """§2's pipeline, then each turn's rendered prompt in its details."""
        result = await super().aevaluate(metric, actuals, expecteds, context)
        constructor = self.operators.constructor
        if isinstance(constructor, TemplatePrompt):
            with unrecorded():
                self._echo_prompts(constructor, metric, actuals, expecteds, result)
        return result

    @staticmethod
    def _echo_prompts(
        constructor: TemplatePrompt,
        metric: EvalMetric,
        actuals: Turns,
        expecteds: Turns,
        result: EvaluateResult,
    ) -> None:
        """Each turn's rendered prompt in its details and echoed criterion."""
        for index, turn in enumerate(result.turns):
            prefix = TurnPrefix(actuals[: index + 1], expecteds[: index + 1], metric)
            # Rendering is deterministic: this is the prompt the judge was sent.
            prompt = constructor.prompt(prefix)
            turn.details = turn.details.model_copy(update={RENDERED_PROMPT: prompt})
            turn.criterion = _with_prompt(metric, prompt)


def _with_prompt(metric: EvalMetric, prompt: str) -> Criterion | None:
    """The metric's criterion whose template prompt is this turn's rendered prompt (§5.8.5)."""
    criterion = metric.criterion
    judge = criterion.llm_judge if criterion is not None else None
    if criterion is None or judge is None or not isinstance(judge.template, dict):
        return criterion
    template = dict(judge.template, prompt=prompt)
    return criterion.model_copy(
        update={"llm_judge": judge.model_copy(update={"template": template})}
    )


_KNOWN_HINT = "a --plugin can register more"


def _lookup_issue(
    template: Mapping[str, Any], key: str, registry: Registry[Any]
) -> tuple[ConfigIssue | None, str]:
    """An issue for an unknown or mistyped name, and the name ("" when absent or mistyped)."""
    path = f"{TEMPLATE_PATH}.{key}"
    try:
        name = text_field(template, key, "")
    except BindingFormatError as exc:
        return ConfigIssue(path, exc.detail), ""
    if name and registry.get(name) is None:
        message = f"unsupported {registry.kind} {quoted(name)}"
        return ConfigIssue(path, message, f"{registry.hint(name)}; {_KNOWN_HINT}"), ""
    return None, name


def _operator_issues(metric: EvalMetric, template: Mapping[str, Any]) -> list[ConfigIssue]:
    issues: list[ConfigIssue] = []
    found: dict[str, str] = {}
    for key, registry in (
        ("responseScorerName", response_scorers),
        ("structuredOutputName", structured_outputs),
        ("sampleAggregatorName", samples_aggregators),
        ("invocationAggregatorName", invocations_aggregators),
    ):
        issue, name = _lookup_issue(template, key, registry)
        if issue is not None:
            issues.append(issue)
        found[key] = name
    scorer = response_scorers.get(found["responseScorerName"])
    provider = structured_outputs.get(found["structuredOutputName"] or found["responseScorerName"])
    if isinstance(scorer, CategoricalScorer) or isinstance(provider, CategoricalSchema):
        try:
            read_categories(metric)
        except CategoryError as exc:
            issues.append(
                ConfigIssue(exc.path, str(exc), 'e.g. [{"label": "correct", "score": 1}, ...]')
            )
    return issues


def case_issues(metric: EvalMetric, case: EvalCase) -> list[ConfigIssue]:
    """``expected.finalResponse`` on turns without one; ``metric.rubrics`` with no rubric."""
    llm_judge = metric.criterion.llm_judge if metric.criterion is not None else None
    if llm_judge is None or llm_judge.template is None:
        return []
    try:
        bindings = read_bindings(llm_judge.template)
    except TemplateError:
        return []  # check() reports the malformed binding
    issues: list[ConfigIssue] = []
    for index, binding in enumerate(bindings):
        source = binding.source if binding is not None else None
        if source is None:
            continue
        where = f"{TEMPLATE_PATH}.variableBindings[{index}]"
        if source.name == "expected.finalResponse":
            issues.extend(
                missing_reference_answers(
                    case,
                    "expected finalResponse is empty",
                    f"{where} binds expected.finalResponse",
                )
            )
        elif source.name == "metric.rubrics" and not visible_rubrics(metric):
            issues.append(
                ConfigIssue(
                    "rubrics",
                    "metric rubrics are empty",
                    f"{where} binds metric.rubrics, but neither the metric nor this case "
                    "has a rubric",
                )
            )
    return issues
