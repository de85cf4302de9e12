"""LLM-judge evaluators: the operator pipeline (llm-evaluators.md §2) and its evaluators.

A judge evaluator is a :class:`~agenteval.evaluators.llm.pipeline.JudgeEvaluator`
composed of four operators (messages constructor, response scorer, samples
aggregator, invocations aggregator; see :mod:`.operators`).  The runner puts a
:class:`~agenteval.judge.session.JudgeSession` in ``EvalContext.judge``.

Nothing here imports :mod:`agenteval.judge` at module load: the judge stack
(httpx, aiohttp) is loaded only when a judge metric is checked or run.
"""
