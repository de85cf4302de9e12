"""The checks of evaluators' own configuration, reached through ``Evaluator.check``.

- :mod:`.criteria`: deterministic criteria (text, JSON, ROUGE, XML, length, tool
  trajectory): known strategies, registered compare functions and tokenizers, valid
  ``onlyTree`` and JSON Schemas, ordered length bounds;
- :mod:`.judge_config`: ``criterion.llmJudge`` of every judge metric: judge model
  present, provider known, ``numSamples`` within bounds, a ``generationConfig`` the judge
  client accepts;
- :mod:`.reference_answers`: reference answers a judge evaluator needs and a case lacks;
- :mod:`.judge_template`: ``llm_judge_template`` metrics: bindings, sources, JSONPath,
  placeholders; per case, the bound fields the case cannot supply.

They sit beside the evaluators they check, so ``checks/`` (which runs every evaluator's
checks across files) imports the evaluators and never the other way round. May import
``evaluators.base``, ``evaluators.llm.template``, ``criteria/``, ``judge/``, ``schema/``.
"""
