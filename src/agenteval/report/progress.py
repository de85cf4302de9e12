"""A live progress bar for long runs: cases done, judge calls, tokens, ETA.

Shown only on a terminal (and not with ``--no-progress`` or ``--quiet``): CI
logs and pipes get no cursor games.  It reads the judge usage through a
callable so this module needs nothing from the judge package.

Tested in tests/cli/test_tty.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from agenteval.inputs.score_text import counted

UsageSource = Callable[[], Mapping[str, object] | None]


class JudgeUsageColumn(ProgressColumn):
    """Judge calls and tokens so far, read from the task's ``judge`` field."""

    def render(self, task: Task) -> Text:
        """The usage text, empty while no judge ran."""
        usage = task.fields.get("judge")
        if not isinstance(usage, Mapping):
            return Text("")
        calls = counted(int(str(usage.get("calls", 0))), "call")
        hits = usage.get("cacheHits", 0)
        tokens = int(str(usage.get("promptTokens", 0))) + int(str(usage.get("completionTokens", 0)))
        return Text(f"judge {calls} · {hits} cached · {tokens:,} tokens", style="dim")


class RunProgress:
    """Counts finished cases on a rich progress bar; a no-op when disabled."""

    def __init__(self, console: Console, *, enabled: bool) -> None:
        self._enabled = enabled and console.is_terminal
        self._usage: UsageSource | None = None
        self._progress = Progress(
            TextColumn("[bold]scoring[/bold]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("cases"),
            JudgeUsageColumn(),
            TextColumn("{task.fields[agent]}", style="dim", markup=False),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=console,
            transient=True,
            disable=not self._enabled,
        )
        self._task = self._progress.add_task("scoring", total=None, judge=None, agent="")
        self._agent_turns = 0

    @property
    def enabled(self) -> bool:
        """Whether anything is drawn."""
        return self._enabled

    def __enter__(self) -> RunProgress:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def start(self, total_cases: int, usage: UsageSource | None = None) -> None:
        """Set the number of case runs to score and where judge usage comes from."""
        self._usage = usage
        self._progress.update(self._task, total=total_cases, completed=0)

    def case_done(self) -> None:
        """One case run finished."""
        if not self._enabled:
            return  # nothing is drawn: rich's bookkeeping was ~2 % of a deterministic case
        judge = self._usage() if self._usage is not None else None
        self._progress.update(self._task, advance=1, judge=judge)

    def agent_turn_done(self) -> None:
        """One turn of a driven agent (``--agent``) finished."""
        self._agent_turns += 1
        self._progress.update(self._task, agent=f"agent {self._agent_turns} turns")
