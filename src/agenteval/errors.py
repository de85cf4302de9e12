"""Exception hierarchy: every error a user can cause has a one-line message."""

from __future__ import annotations

from dataclasses import dataclass


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

    exit_code = 2


class ConfigError(AgentEvalError):
    """Input files or options are invalid; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class JudgeError(AgentEvalError):
    """A judge call failed for good (after retries, or not retryable)."""

    exit_code = 3


class RunInterrupted(AgentEvalError):
    """The run was stopped before it finished (signal, budget)."""

    exit_code = 3
