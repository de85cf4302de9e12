"""Every up-front check: what ``agenteval validate`` (and ``run``, before any judge call) checks.

Each check reports a :class:`~agenteval.errors.Problem` (``file: json.path:
message (hint)``) or, inside an evaluator's metric, a
:class:`~agenteval.evaluators.base.ConfigIssue` with a path relative to the
metric or the case.  Problems stop the run (exit 2); warnings are printed and
the run goes on.  One module per file kind or evaluator family:

- :mod:`.evalset_file`: ``evalId`` present and unique, ``evalMode`` known.
- :mod:`.metrics_file`: ``metricName`` present and unique, no ``null`` tool strategy.
- :mod:`.unknown_keys`: keys the formats do not define; a near miss (``did you
  mean``) is an error unless ``--lenient``, any other a warning unless ``--strict``.
- :mod:`.thresholds`: a threshold within its evaluator's declared score range; a
  missing threshold warns that the metric always passes.
- :mod:`.cross_file`: every metric names a registered evaluator (closest-name
  hint) whose :meth:`Evaluator.check` passes; every pattern of a ``regex``
  criterion compiles; each evaluator's per-case :meth:`Evaluator.check_case`;
  ``--metric`` / ``--skip-metric`` / ``--case`` match something.
- :mod:`.criteria`: deterministic criteria (text, JSON, ROUGE, XML, length,
  tool trajectory): known strategies, registered compare functions and
  tokenizers, valid ``onlyTree`` and JSON Schemas, ordered length bounds.
- :mod:`.judge_config`: ``criterion.llmJudge`` of every judge metric: judge
  model present, provider known, model name set, ``numSamples`` > 0,
  ``sampleParallelism`` >= 0, a ``generationConfig`` the judge client accepts.
- :mod:`.reference_answers`: reference answers a judge evaluator needs and a
  case lacks.
- :mod:`.judge_template`: ``llm_judge_template`` metrics: bindings, sources,
  JSONPath, placeholders; per case, the bound fields the case cannot supply.

Evaluator-specific checks that need an evaluator's own registry stay with the
evaluator and are reached through the same protocol: rubric ids
(``evaluators.llm.rubric_judge.rubric_issues``), the pairwise verifier's
logprobs and rubrics, the gate's ``criterion.gate``
(``evaluators.llm.final_response_gate.check_gate``) and the template judge's
operator names and categories.

Modules here import ``criteria/``, ``schema/``, the evaluator contract and
the template helpers; evaluators import their checks from here, never the
other way round through a package ``__init__`` (this one imports nothing).
"""
