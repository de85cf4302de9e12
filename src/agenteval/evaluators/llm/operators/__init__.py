"""The four operator kinds of a judge evaluator, their name registries and shared helpers.

- :mod:`.constructors`: judge messages for one turn (and an optional schema);
- :mod:`.scorers`: judge reply → :class:`~.scorers.ScoreResult` (``response_scorers``);
- :mod:`.samples`: N samples of one turn → one turn result (``samples_aggregators``);
- :mod:`.invocations`: turn results → the metric result (``invocations_aggregators``);
- :mod:`.response_json`: Go-compatible decoding of JSON judge replies (§4.4);
- :mod:`.rubrics`: rubric visibility, validation and the rubric-scores schema (§4.2–§4.3).

A plugin adds an operator by name, e.g.
``samples_aggregators.register("minimum", MinimumScore())``, and builds an
evaluator with it via ``JudgeEvaluator.with_operators(samples=...)``.
"""
