"""``JudgeSession``: what the runner puts in ``EvalContext.judge`` for judge evaluators.

How to construct it (runner / API integration)::

    from agenteval.judge.session import JudgeSession
    from agenteval.judge import JudgeClient, JudgeOptions

    async with JudgeClient(JudgeOptions(...)) as client:   # one client per run
        session = JudgeSession(client=client)               # failures=[] by default
        context = EvalContext(eval_set_id, case, run_id, judge=session)
        ...                                                 # run every case
    if session.failures:                                    # judge turns not evaluated
        exit_code = 3                                       # partial results still written

``failures`` may be a list the caller owns (``JudgeSession(client, failures=outcome.failures)``);
the pipeline only appends to it, one line per turn that ended ``not_evaluated``
because a judge call failed for good (unavailable after retries, budget
exhausted, offline cache miss, rejected, unusable reply).  Usage lives in
``client.usage``.

An injected backend (``JudgeClient(backend=...)``, llm-evaluators.md §3.7):
set ``injected_backend=True`` and optionally ``backend_num_samples``; then
``judgeModel`` is not required, its ``numSamples`` is ignored and every judge
metric takes ``backend_num_samples`` samples (default 1).

Tested in tests/evaluators/llm/test_pipeline.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agenteval.judge import JudgeClient


@dataclass(slots=True)
class JudgeSession:
    """The run's judge client and the run-wide list of judge failures."""

    client: JudgeClient
    failures: list[str] = field(default_factory=list)
    injected_backend: bool = False
    backend_num_samples: int | None = None
    # (evalSetId, evalId) of every case with a turn that could not be judged: INCOMPLETE.
    incomplete: set[tuple[str, str]] = field(default_factory=set)

    def record_failure(self, where: str, reason: str, case: tuple[str, str] | None = None) -> None:
        """Note a turn that could not be judged (``where``: case, metric and turn; ``case``: ids)."""
        self.failures.append(f"{where}: {reason}")
        if case is not None:
            self.incomplete.add(case)
