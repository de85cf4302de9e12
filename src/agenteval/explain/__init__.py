"""``agenteval explain``: every step that made one score, for one case × metric (× turn × run).

:mod:`.core` scores one case with one metric through the evaluator's own code while
:mod:`agenteval.steps.record` records the intermediate values, and returns an
:class:`~.model.Explanation`; :mod:`.console` and :mod:`.json_output` render it,
:mod:`.command` is the typer command.  ``run --watch`` and the HTML report reuse the
same records.
"""
