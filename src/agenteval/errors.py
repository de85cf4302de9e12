"""Exception hierarchy: every error a user can cause has a one-line message.

Every exception agenteval defines joins this tree; anything else reaching the
CLI is a bug in agenteval (exit 4, traceback with ``--verbose``)::

    AgentEvalError                      raised on purpose; exit 2 unless a subclass says
    ├── ConfigError                     bad input files or options, every Problem (exit 2)
    ├── CaseError                       one case or turn cannot be scored; its message
    │   │                               goes into the result and the run goes on
    │   ├── turns.CaseLayoutError ── RecordedIncomplete, caserubrics.CaseRubricError
    │   ├── evaluators.base.EvaluatorError
    │   ├── evaluators.llm.operators.registry.OperatorError
    │   │   ├── RegistrationError (also ValueError), DecodeError, CategoryError
    │   ├── template.bindings.TemplateError ── BindingFormatError
    │   ├── template.jsonpath.PathError, template.trace.TraceError
    │   ├── template.placeholders.UnresolvedPlaceholders
    │   └── agents: adapter.AgentTurnError ── AgentLimitError, driver.AgentRunError ──
    │       AgentStopped, AgentIncomplete ── AgentNotStarted, tool_mocks.ToolMockError ──
    │       driver._GeneratorJudgeError, user_simulator.ScenarioError
    ├── FormatError (also ValueError)   a value without the shape it must have
    │   ├── gojson.GoJSONError, judge.backend.LogprobsFormatError
    │   ├── evaluators.llm.gate_judge.JudgeReplyFormatError
    │   └── agents.spec.AgentSpecError
    ├── JudgeError                      a judge call failed for good (exit 3)
    │   ├── judge.errors.JudgeConfigError (exit 2), JudgeRequestError, JudgeRejected,
    │   │   JudgeUnavailable, JudgeReplyError, JudgeBudgetExhausted, JudgeCacheMiss,
    │   │   JudgeTransientError, JudgeInterrupted, JudgeAbandoned
    │   └── evaluators.llm.hallucinations.SegmentationJudgeError
    ├── RunInterrupted                  the run stopped before it finished (exit 3)
    ├── store.connection.StoreError     a run store that cannot be opened, read or written (exit 2)
    ├── integrations.pytest_plugin.CaseNotPassed   a case's pytest item failing with its table
    └── ControlFlow                     private signals a module raises and catches itself
        └── xml_check._Malformed, knowledge_recall._Mismatch, jsonpath._ConstantRejected,
            evalset_scan.NotStreamable, json_scan.ScanError, cmd_agent._LineTooLong,
            store: baselines.ReferenceProblem, documents.DamagedDocument,
            migrations.SchemaProblem, tables.DamagedRow

Warnings are not errors and stay outside the tree: the pytest plugin's
``integrations.pytest_plugin.AgentEvalWarning`` is a pytest warning category.

The exit codes themselves live in :mod:`agenteval.exit_codes`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agenteval.exit_codes import ExitCode


@dataclass(frozen=True, slots=True)
class Problem:
    """One configuration problem: ``file: json.path: message (hint)``."""

    file: str
    path: str
    message: str
    hint: str = ""

    def __str__(self) -> str:
        where = f"{self.file}: {self.path}" if self.path else self.file
        text = f"{where}: {self.message}"
        return f"{text} ({self.hint})" if self.hint else text


class AgentEvalError(Exception):
    """Base of every error agenteval raises on purpose."""

    exit_code: int = ExitCode.BAD_INPUT


class ConfigError(AgentEvalError):
    """Input files or options are invalid; carries every problem found (and the warnings)."""

    def __init__(
        self,
        problems: list[Problem],
        warnings: Sequence[Problem] = (),
        causes: Sequence[BaseException] = (),
    ) -> None:
        # One line per problem: two checks that find the same thing (a float field holding
        # an integer beyond float64: the type and the non-finite check) say it once.
        self.problems = list(dict.fromkeys(problems))
        # Found beside the problems: printed too, since warnings are never hidden.
        self.warnings = list(warnings)
        # The exceptions behind some problems (a plugin's own error on import): their
        # tracebacks are what --verbose shows.
        self.causes = list(causes)
        super().__init__("\n".join(str(p) for p in self.problems))


class CaseError(AgentEvalError):
    """One case or turn cannot be scored; the message is recorded and the run goes on."""


class FormatError(AgentEvalError, ValueError):
    """A value does not have the shape it must have (a ``ValueError`` too)."""


class JudgeError(AgentEvalError):
    """A judge call failed for good (after retries, or not retryable)."""

    exit_code = ExitCode.INCOMPLETE


class RunInterrupted(AgentEvalError):
    """The run was stopped before it finished (signal, budget)."""

    exit_code = ExitCode.INCOMPLETE


class ControlFlow(AgentEvalError):
    """A private signal a module raises and catches itself; escaping it is a bug."""

    exit_code = ExitCode.INTERNAL_ERROR
