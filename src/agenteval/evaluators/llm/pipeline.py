"""The judge evaluator pipeline (llm-evaluators.md §2) and the visible judge variance of issue 4.

``JudgeEvaluator.aevaluate`` follows §2 steps 1–7: validate the metric,
resolve ``numSamples``, then for every turn (serially, on prefix slices)
construct the judge messages, resolve the structured output, collect the
samples concurrently (the judge client bounds concurrency run-wide; sample
order is kept, so ``sampleParallelism`` changes nothing but speed), score each
sample (``passed`` iff score >= threshold), aggregate the samples, and finally
aggregate the turns.

Two decisions of the issues override Go:

- a judge call that fails for good (any ``JudgeError`` from the client) does
  not abort the case: that turn becomes ``not_evaluated`` with the error as its
  reason, the failure is recorded on the :class:`JudgeSession` (the run exits
  3), and the other turns go on;
- every other error (missing inputs, a malformed reply, ...) aborts the
  evaluation with Go's wrapped message plus the turn (and sample) it came from.

With more than one sample, each turn's details also carry ``samples`` (every
sample's score, status and reason), ``agreement`` (share of evaluated samples
whose status equals the chosen one) and ``unstable: true`` when the samples
disagree; the metric result carries ``unstableTurns`` when any turn is unstable.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Self

from agenteval.errors import JudgeError
from agenteval.evaluators.base import (
    ConfigIssue,
    EvalContext,
    EvaluateResult,
    Evaluator,
    EvaluatorError,
    TurnResult,
    Turns,
    each_turn,
)
from agenteval.evaluators.llm.operators.constructors import (
    JudgeAsk,
    MessagesConstructor,
    TurnPrefix,
)
from agenteval.evaluators.llm.operators.invocations import (
    InvocationsAggregator,
    invocations_aggregators,
)
from agenteval.evaluators.llm.operators.samples import SamplesAggregator, samples_aggregators
from agenteval.evaluators.llm.operators.scorers import ResponseScorer, ScoreResult
from agenteval.judge.errors import JudgeAbandoned
from agenteval.judge.session import JudgeSession
from agenteval.schema.evalset import Invocation
from agenteval.schema.metric import EvalMetric, JudgeModel, LLMCriterion
from agenteval.schema.result import MetricDetails
from agenteval.schema.status import EvalStatus, status_for
from agenteval.steps.record import listening

if TYPE_CHECKING:
    from agenteval.judge import (
        ChatMessage,
        JudgeClient,
        JudgeReply,
        JudgeRequest,
        JudgeSettings,
        StructuredOutput,
    )

MISSING_FIELDS = "missing required fields in eval metric"
# A judge reply longer than this is cut in the step record (explain shows the head).
REPLY_RECORD_CHARS = 8192


@dataclass(frozen=True)
class Operators:
    """The four operators a judge evaluator is composed of."""

    constructor: MessagesConstructor
    scorer: ResponseScorer
    samples: SamplesAggregator
    invocations: InvocationsAggregator

    @classmethod
    def voting(cls, constructor: MessagesConstructor, scorer: ResponseScorer) -> Operators:
        """``constructor`` and ``scorer`` with Go's defaults: majority vote, then the average."""
        return cls(
            constructor,
            scorer,
            samples_aggregators.resolve("majority_vote"),
            invocations_aggregators.resolve("average"),
        )


class JudgeEvaluator(Evaluator):
    """Base of every LLM-judge evaluator: §2's pipeline over four swappable operators."""

    is_async = True
    needs_judge = True

    def __init__(self, operators: Operators | None = None) -> None:
        self.operators = operators if operators is not None else self.default_operators()

    def default_operators(self) -> Operators:
        """The operators this evaluator uses unless others are given."""
        raise NotImplementedError

    def with_operators(self, **changes: Any) -> Self:
        """A copy with some operators replaced (``constructor``, ``scorer``, ``samples``, ...)."""
        clone = copy.copy(self)
        clone.operators = replace(self.operators, **changes)
        return clone

    def check(self, metric: EvalMetric) -> Iterable[ConfigIssue]:
        """Up-front problems of the judge config, then the evaluator's own (``check_llm_judge``)."""
        from agenteval.evaluators.checks.judge_config import check_judge_config

        issues = check_judge_config(metric)
        llm_judge = metric.criterion.llm_judge if metric.criterion else None
        if llm_judge is not None:
            issues.extend(self.check_llm_judge(metric, llm_judge))
        return issues

    def check_llm_judge(self, metric: EvalMetric, llm_judge: LLMCriterion) -> Iterable[ConfigIssue]:
        """Evaluator-specific problems of ``criterion.llmJudge`` (none by default)."""
        return ()

    async def aevaluate(
        self, metric: EvalMetric, actuals: Turns, expecteds: Turns, context: EvalContext
    ) -> EvaluateResult:
        """Score every turn with the judge (§2 steps 1–7)."""
        criterion = metric.criterion
        llm_judge = criterion.llm_judge if criterion is not None else None
        if llm_judge is None:
            raise EvaluatorError(MISSING_FIELDS)
        session = judge_session(context)
        model = llm_judge.judge_model
        if model is None and not session.injected_backend:
            raise EvaluatorError(MISSING_FIELDS)
        num_samples = sample_count(session, model)
        if llm_judge.sample_parallelism is not None and llm_judge.sample_parallelism < 0:
            raise EvaluatorError("sample parallelism must be non-negative")
        pairs = each_turn(actuals, expecteds)
        sampler = JudgeSampler(
            metric.metric_name, session, resolved_settings(model), num_samples, context
        )
        run = _TurnRunner(self.operators, metric, sampler)
        turns = [await run.turn(actuals, expecteds, index) for index, _, _ in pairs]
        try:
            result = self.operators.invocations.aggregate(turns, metric)
        except EvaluatorError:
            raise
        except Exception as exc:
            raise EvaluatorError(_describe(exc)) from None
        if len(result.turns) != len(actuals):
            raise EvaluatorError(
                f"metric {metric.metric_name} returned {len(result.turns)} per-invocation "
                f"results, expected {len(actuals)}"
            )
        unstable = sum(1 for t in result.turns if (t.details.model_extra or {}).get("unstable"))
        if unstable:
            result.extra["unstableTurns"] = unstable
        return result


class VotingJudge(JudgeEvaluator):
    """A judge of its own prompt and scorer with Go's defaults (:meth:`Operators.voting`)."""

    prompt_class: ClassVar[type[MessagesConstructor]]
    scorer_class: ClassVar[type[ResponseScorer]]

    def default_operators(self) -> Operators:
        """The evaluator's prompt and scorer, majority vote, average."""
        return Operators.voting(self.prompt_class(), self.scorer_class())


def judge_session(context: EvalContext) -> JudgeSession:
    """The run's ``JudgeSession`` from ``context.judge``; an evaluator error without one."""
    judge = context.judge
    if isinstance(judge, JudgeSession):
        return judge
    if judge is None:
        raise EvaluatorError(
            "no judge available (the runner must put a JudgeSession in EvalContext.judge)"
        )
    raise EvaluatorError(
        f"no judge available: EvalContext.judge is a {type(judge).__name__}, not a JudgeSession"
    )


def sample_count(session: JudgeSession, model: JudgeModel | None) -> int:
    """``numSamples`` (an injected backend's count instead), 1 when unset; refuses 0 or less."""
    if session.injected_backend:
        num_samples = session.backend_num_samples
    else:
        num_samples = model.num_samples if model is not None else None
    num_samples = 1 if num_samples is None else num_samples
    if num_samples <= 0:
        raise EvaluatorError("num samples must be greater than 0")
    return num_samples


def resolved_settings(
    model: JudgeModel | None, resolve: Callable[[JudgeModel], JudgeSettings] | None = None
) -> JudgeSettings:
    """The judge settings of ``model`` (an injected backend's blank ones for ``None``).

    ``resolve`` defaults to :func:`agenteval.judge.resolve_settings`; a configuration
    the judge cannot be called with becomes an ``EvaluatorError``.
    """
    from agenteval.judge import JudgeConfigError, JudgeSettings, resolve_settings

    if model is None:
        return JudgeSettings(provider="injected", model="", variant="", base_url="")
    try:
        return (resolve or resolve_settings)(model)
    except JudgeConfigError as exc:
        raise EvaluatorError(str(exc)) from None


@dataclass(slots=True)
class JudgeSampler:
    """One judge metric on one case and run: its session, settings and sample numbering."""

    metric_name: str
    session: JudgeSession
    settings: JudgeSettings
    num_samples: int
    context: EvalContext
    first_sample: int = field(init=False)

    def __post_init__(self) -> None:
        # Sample k of run r is cached as sample (r-1)*n+k: each run of --num-runs asks the
        # judge afresh (as Go does), while a rerun of the same evaluation hits the cache.
        self.first_sample = max(self.context.run_id - 1, 0) * self.num_samples

    async def samples(self, request: JudgeRequest) -> list[JudgeReply]:
        """Every sample of ``request`` in sample order; the first failure cancels the rest."""
        indexes = range(self.first_sample, self.first_sample + self.num_samples)
        if listening() is None:
            return await collect_samples(self.session.client, request, self.metric_name, indexes)
        return await self._recorded("judge.samples", request, indexes)

    async def ask(self, request: JudgeRequest) -> JudgeReply:
        """One extra judge call (same judge, the turn's first sample index)."""
        if listening() is None:
            return await self.session.client.complete(
                request, metric_name=self.metric_name, sample_index=self.first_sample
            )
        first = range(self.first_sample, self.first_sample + 1)
        return (await self._recorded("judge.ask", request, first))[0]

    async def _recorded(self, kind: str, request: JudgeRequest, indexes: range) -> list[JudgeReply]:
        """``collect_samples`` with the request, every raw reply and any cache miss recorded."""
        from agenteval.judge import JudgeCacheMiss

        data: dict[str, Any] = {
            "provider": self.settings.provider,
            "model": self.settings.model,
            "messages": [message.to_json() for message in request.messages],
            "schema": (
                request.structured_output.name if request.structured_output is not None else None
            ),
            "samples": list(indexes),
        }
        client = self.session.client
        try:
            replies = await collect_samples(client, request, self.metric_name, indexes)
        except JudgeCacheMiss as exc:
            # Offline: find every sample the cache lacks, not just the first (no call is paid).
            missing = []
            for k in indexes:
                try:
                    await client.complete(request, metric_name=self.metric_name, sample_index=k)
                except JudgeCacheMiss:
                    missing.append(k)
            data.update(missing=missing, error=str(exc))
            _add_step(kind, data)
            raise
        except JudgeError as exc:
            data["error"] = str(exc)
            _add_step(kind, data)
            raise
        data["replies"] = [
            {
                "sample": k,
                "cached": reply.cached,
                "chars": len(reply.text),
                "text": reply.text[:REPLY_RECORD_CHARS],
                "truncated": len(reply.text) > REPLY_RECORD_CHARS,
            }
            for k, reply in zip(indexes, replies, strict=True)
        ]
        _add_step(kind, data)
        return replies

    def record_failure(self, index: int, reason: str) -> None:
        """Note on the session that turn ``index`` could not be judged."""
        context = self.context
        self.session.record_failure(
            f"{context.eval_set_id}/{context.case.eval_id} run {context.run_id} "
            f"metric {self.metric_name} turn {index + 1}",
            reason,
            (context.eval_set_id, context.case.eval_id),
        )


def _add_step(kind: str, data: dict[str, Any]) -> None:
    recorder = listening()
    if recorder is not None:
        recorder.add(kind, data)


def _describe(exc: Exception) -> str:
    """Go-style text of an operator failure; a plugin's unexpected exception names its type."""
    from agenteval.evaluators.llm.operators.registry import OperatorError

    if isinstance(exc, OperatorError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


class _TurnRunner:
    """Judges one turn after another for one metric of one case."""

    def __init__(self, operators: Operators, metric: EvalMetric, sampler: JudgeSampler) -> None:
        self.ops = operators
        self.metric = metric
        self.sampler = sampler

    async def ask(
        self, messages: Sequence[ChatMessage], schema: StructuredOutput | None = None
    ) -> JudgeReply:
        """One extra judge call for a constructor (same judge, the turn's first sample index)."""
        from agenteval.judge import JudgeRequest

        return await self.sampler.ask(JudgeRequest(self.sampler.settings, tuple(messages), schema))

    async def turn(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], index: int
    ) -> TurnResult:
        """§2 step 6 for turn ``index``: a turn result, or EvaluatorError, or not_evaluated."""
        from agenteval.judge import JudgeConfigError, JudgeRequest

        prefix = TurnPrefix(actuals[: index + 1], expecteds[: index + 1], self.metric)
        where = f" (turn {index + 1})"
        ask: JudgeAsk = self.ask
        try:
            messages = await self.ops.constructor.construct(prefix, ask)
        except JudgeConfigError as exc:
            raise EvaluatorError(f"construct messages: {exc}{where}") from None
        except JudgeError as exc:
            return self._not_evaluated(index, exc)
        except Exception as exc:
            raise EvaluatorError(f"construct messages: {_describe(exc)}{where}") from None
        try:
            schema = self.ops.constructor.structured_output(prefix)
        except Exception as exc:
            raise EvaluatorError(f"resolve structured output: {_describe(exc)}{where}") from None
        request = JudgeRequest(self.sampler.settings, tuple(messages), schema)
        try:
            replies = await self.sampler.samples(request)
        except JudgeConfigError as exc:
            raise EvaluatorError(f"judge response: {exc}{where}") from None
        except JudgeError as exc:
            return self._not_evaluated(index, exc)
        samples = [self._sample(reply, index, k) for k, reply in enumerate(replies)]
        try:
            chosen = self.ops.samples.aggregate(samples, self.metric)
        except Exception as exc:
            raise EvaluatorError(f"aggregate samples: {_describe(exc)}{where}") from None
        if listening() is not None:
            _add_step(
                "judge.vote",
                {
                    "aggregator": type(self.ops.samples).__name__,
                    "votes": [s.status.value for s in samples],
                    "scores": [s.score for s in samples],
                    "chosenScore": chosen.score,
                    "chosenStatus": chosen.status.value,
                    "chosenReason": chosen.details.reason,
                },
            )
        return with_votes(chosen, samples) if len(samples) > 1 else chosen

    def _sample(self, reply: JudgeReply, index: int, k: int) -> TurnResult:
        try:
            scored = self.ops.scorer.score(reply, self.metric)
            if not math.isfinite(scored.score):
                raise ValueError(f"score {scored.score!r} is not a finite number")
        except Exception as exc:
            several = self.sampler.num_samples > 1
            where = f"turn {index + 1}" + (f", sample {k + 1}" if several else "")
            _add_step("judge.verdict", {"sample": k + 1, "error": _describe(exc)})
            raise EvaluatorError(f"score based on response: {_describe(exc)} ({where})") from None
        result = sample_result(scored, self.metric.threshold)
        if listening() is not None:
            rubrics = [r.model_dump(by_alias=True) for r in scored.rubric_scores or ()]
            _add_step(
                "judge.verdict",
                {
                    "sample": k + 1,
                    "score": scored.score,
                    "threshold": self.metric.threshold,
                    "status": result.status.value,
                    "reason": scored.reason,
                    "rubricScores": rubrics,
                },
            )
        return result

    def _not_evaluated(self, index: int, exc: JudgeError) -> TurnResult:
        reason = str(exc)
        self.sampler.record_failure(index, reason)
        return TurnResult(0.0, EvalStatus.NOT_EVALUATED, MetricDetails(reason=reason, score=0.0))


def sample_result(scored: ScoreResult, threshold: float) -> TurnResult:
    """One judge sample as a turn result: ``passed`` iff score >= threshold."""
    details = MetricDetails(
        reason=scored.reason,
        score=scored.score,
        value=scored.value,
        rubric_scores=scored.rubric_scores,
    )
    return TurnResult(scored.score, status_for(scored.score, threshold), details)


async def collect_samples(
    client: JudgeClient, request: JudgeRequest, metric_name: str, indexes: range
) -> list[JudgeReply]:
    """One sample per index, in index order; the first failure ends the turn.

    The samples not yet sent are cancelled then; those already on the wire are paid for,
    so they finish first, their replies counted and cached (a ``--resume`` or a rerun gets
    them free), but make no retry (``JudgeAbandoned``), and the lowest index's failure of
    its own is raised.  Cancelling the turn itself (a second Ctrl-C) cancels every sample.
    """
    if len(indexes) == 1:
        return [await client.complete(request, metric_name=metric_name, sample_index=indexes[0])]
    sent: set[int] = set()
    failed = asyncio.Event()
    tasks = [
        asyncio.ensure_future(
            client.complete(
                request,
                metric_name=metric_name,
                sample_index=k,
                on_sent=functools.partial(sent.add, k),
                turn_failed=failed,
            )
        )
        for k in indexes
    ]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        if any(t.done() and not t.cancelled() and t.exception() for t in tasks):
            failed.set()
            for k, task in zip(indexes, tasks, strict=True):
                if k not in sent:
                    task.cancel()
            await asyncio.wait(tasks)
        # Read every finished task's exception (an unread one is logged with a traceback when
        # the task is collected), then raise the lowest sample index's, so messages are stable.
        errors = [t.exception() for t in tasks if t.done() and not t.cancelled()]
        # A sample abandoned for the turn's failure is no failure of its own.
        for error in sorted(errors, key=lambda e: isinstance(e, JudgeAbandoned)):
            if error is not None:
                raise error
        return [t.result() for t in tasks]
    finally:
        pending = [t for t in tasks if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)


def _plain(number: float) -> float | int:
    return int(number) if number.is_integer() and abs(number) < 1e15 else number


def with_votes(chosen: TurnResult, samples: Sequence[TurnResult]) -> TurnResult:
    """``chosen`` with every sample's vote, the agreement ratio and the unstable flag."""
    votes = [
        {"score": _plain(s.score), "status": s.status.value, "reason": s.details.reason}
        for s in samples
    ]
    extra: dict[str, Any] = {"samples": votes}
    evaluated = [s for s in samples if s.status is not EvalStatus.NOT_EVALUATED]
    if evaluated:
        agreeing = sum(1 for s in evaluated if s.status is chosen.status)
        extra["agreement"] = agreeing / len(evaluated)
        if len({s.status for s in evaluated}) > 1:
            extra["unstable"] = True
    return TurnResult(chosen.score, chosen.status, chosen.details.model_copy(update=extra))
