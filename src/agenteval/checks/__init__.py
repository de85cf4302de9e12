"""Every up-front check: what ``agenteval validate`` (and ``run``, before any judge call) checks.

Each check reports a :class:`~agenteval.errors.Problem` (``file: json.path:
message (hint)``) or, inside an evaluator's metric, a
:class:`~agenteval.evaluators.base.ConfigIssue` with a path relative to the
metric or the case.  Problems stop the run (exit 2); warnings are printed and
the run goes on.  One module per file kind or evaluator family:

- :mod:`.numbers`: ``--num-runs`` bounds.
- :mod:`.documents`: an eval set or metric file parsed whole: its kind, unknown keys and
  non-finite numbers (found by ``inputs/``'s walks: a near miss, ``did you mean``, is an
  error unless ``--lenient``, any other unknown key a warning unless ``--strict``).
- :mod:`.evalset_stream`: the same checks of a large eval set read a case at a time.
- :mod:`.thresholds`: a threshold within its evaluator's declared score range; a
  missing threshold warns that the metric always passes.
- :mod:`.cross_file`: every metric names a registered evaluator (closest-name
  hint) whose :meth:`Evaluator.check` passes; every pattern of a ``regex``
  criterion compiles; each evaluator's per-case :meth:`Evaluator.check_case`;
  ``--metric`` / ``--skip-metric`` / ``--case`` match something.
- :mod:`.case_layout`: a case's turns laid out as its eval mode needs.
- :mod:`.trace_match`: ``--traces`` records that match no case.

The rules of one file read while loading it (ids unique, names present, the kind of a
file) live with the readers in ``inputs/``; the checks of one evaluator's own
configuration live beside it in ``evaluators/checks/`` and run through
:meth:`Evaluator.check`.

May import ``evaluators/``, ``inputs/``, ``criteria/``, ``schema/``, ``errors``; nothing
below imports it (this ``__init__`` imports nothing).
"""
