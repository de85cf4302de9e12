"""``agenteval explain``: every step that made one score, for one case × metric (× turn × run).

:mod:`.core` scores one case with one metric through the evaluator's own code while
:mod:`agenteval.steps.record` records the intermediate values, and returns an
:class:`~.model.Explanation`; :mod:`.console` and :mod:`.json_output` render it,
:mod:`.command` is the typer command.  ``run --watch`` and the HTML report reuse the
same records.
"""

from agenteval.explain.console import metric_lines
from agenteval.report.html_model import use_metric_explainer

# The HTML report shows these lines under each metric that did not pass (report sits below
# explain and cannot import it; loading explain — the command line does — plugs them in).
use_metric_explainer(metric_lines)
