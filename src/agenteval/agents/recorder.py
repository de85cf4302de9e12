"""What a driven turn looked like, and the ``--record`` file that keeps every driven case.

``TurnRecorder`` turns adapter events into an ``Invocation`` the way Go's
inference code fills the actual side (formats.md §2.4): arguments given as text
are trimmed and JSON-parsed (empty → ``{}``, unparsable → the text), results
likewise, a result attaches to the call with the same id.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from agenteval.errors import ConfigError, Problem
from agenteval.inputs.finite_numbers import FiniteJsonHooks
from agenteval.inputs.trace_records import line_text
from agenteval.schema.base import dump
from agenteval.schema.evalset import Invocation, Message, Tool, Usage
from agenteval.settings import AGENT_MAX_MESSAGES


def parse_json_text(text: str, *, empty: Any) -> Any:
    """A JSON text's value; ``empty`` for blank text, the text itself when it is not JSON.

    NaN, Infinity and 1e400 are not JSON (Go's decoder refuses them, so Go keeps such a
    text as text): read as numbers they would be written as null by ``--record``, and a
    replay would score another value than the live run.
    """
    trimmed = text.strip()
    if not trimmed:
        return empty
    try:
        return json.loads(
            trimmed, parse_constant=_HOOKS.parse_constant, parse_float=_HOOKS.parse_float
        )
    except ValueError:
        return text


_HOOKS = FiniteJsonHooks("{literal} is not JSON", "{literal} is beyond float64")


class TurnRecorder:
    """Collects one turn's tool calls, intermediate messages and final answer.

    The first ``AGENT_MAX_MESSAGES`` intermediate messages are kept; the rest are only
    counted, and the turn ends with one more saying how many ("… N more"), so an agent
    that streams a million messages costs a count, not memory.
    """

    def __init__(self, user_content: Message) -> None:
        self.user_content = user_content
        self.tools: list[Tool] = []
        self._by_id: dict[str, Tool] = {}
        self.messages: list[str] = []
        self.more_messages = 0
        # Calls answered by a tool mock (agenteval sent the result): call id -> tool name.
        self._mocked: dict[str, str] = {}
        self.mocked = 0  # how many answers a tool mock gave (an id may repeat)
        self.final: str | None = None
        self.started = time.time()
        self.usage: Usage | None = None  # what the agent said its model calls used

    def model_usage(self, call: Usage) -> None:
        """Count one model call the agent reported (``usage`` on a ``cmd:`` message or final
        line, an AG-UI ``RUN_FINISHED`` usage entry): ``call`` is what that call spent."""
        usage = self.usage
        if usage is None:
            self.usage = call.model_copy(update={"inference_calls": 1})
            return
        usage.input_tokens += call.input_tokens
        usage.output_tokens += call.output_tokens
        usage.cached_input_tokens += call.cached_input_tokens
        if call.cache_write_input_tokens:
            # Set only when some call wrote: a turn without cache writes is written as before.
            usage.cache_write_input_tokens += call.cache_write_input_tokens
        usage.inference_calls += 1
        if usage.model != call.model:
            usage.model = ""  # several models: no single price

    def tool_call(self, call_id: str, name: str, arguments: Any) -> None:
        """The agent called a tool (arguments already decoded)."""
        tool = Tool(id=call_id, name=name, arguments=arguments)
        self.tools.append(tool)
        if call_id:
            self._by_id[call_id] = tool

    def has_call(self, call_id: str) -> bool:
        """Whether a call with this id was seen in this turn."""
        return call_id in self._by_id

    def tool_result(self, call_id: str, result: Any) -> bool:
        """Attach the agent's own result to its call; False when no call has that id.

        The adapters refuse a result for a call a tool mock answered (``mocked_tool``)
        before they get here: it would replace the mock's result and be scored as the call's.
        """
        tool = self._by_id.get(call_id)
        if tool is None:
            return False
        tool.result = result
        return True

    def mock_result(self, call_id: str, name: str, result: Any) -> None:
        """A tool mock answered the call ``call_id`` of tool ``name``."""
        self.mocked += 1
        self._mocked[call_id] = name
        self.tool_result(call_id, result)

    def mocked_tool(self, call_id: str) -> str | None:
        """The tool's name when a tool mock answered the call ``call_id`` in this turn."""
        return self._mocked.get(call_id)

    def message(self, text: str) -> None:
        """An intermediate response."""
        if len(self.messages) < AGENT_MAX_MESSAGES:
            self.messages.append(text)
        else:
            self.more_messages += 1

    def finish(self, final: str) -> Invocation:
        """The recorded turn, with ``final`` as its final response."""
        self.final = final
        return self._invocation(Message(role="assistant", content=final))

    def unfinished(self) -> Invocation | None:
        """A turn that failed, as far as it got (no final response), when the agent reported
        what model calls in it spent: that spend is the agent's all the same.  None when it
        reported none (the turn adds nothing to count)."""
        return None if self.usage is None else self._invocation(None)

    def _invocation(self, final: Message | None) -> Invocation:
        fields: dict[str, Any] = {
            "invocation_id": str(uuid.uuid4()),
            "user_content": self.user_content,
            "final_response": final,
            "creation_timestamp": self.started,
        }
        if self.tools:
            fields["tools"] = self.tools
        texts = self.messages
        if self.more_messages:
            texts = [*texts, f"… {self.more_messages} more intermediate responses (not kept)"]
        if texts:
            fields["intermediate_responses"] = [
                Message(role="assistant", content=text) for text in texts
            ]
        if self.usage is not None:
            fields["usage"] = self.usage
        return Invocation(**fields)


class TraceRecordFile:
    """``--record FILE``: one ``--traces`` JSONL line per driven case run.

    A case run whose agent failed (a crash, a protocol error, an unmatched tool mock) is
    recorded too, with the turns it finished (and the failing turn as far as it got, when
    the agent reported usage in it: ``TurnRecorder.unfinished``) and its ``errorMessage``:
    replaying the file fails that case with the same message and counts the same spend.  The runner writes a line when it delivers the
    case (``line`` is built when the driving ends, ``append`` writes it), so the file holds
    exactly the case runs the result files hold, even when a signal stops the run.

    Appended to (``--resume``), the file may already hold a case run that this run drives
    again (it was incomplete, or its inputs changed); ``close`` then keeps only the newest
    line of each case run, so the file still replays (``--traces`` refuses a case twice).
    """

    def __init__(self, path: Path, *, append: bool = False) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        # The case runs of the lines already in the file, and those written again since.
        self._earlier = _recorded_runs(path) if append else set()
        self._again: set[tuple[str, int]] = set()
        self._file: IO[str] = path.open("a" if append else "w", encoding="utf-8")
        self._lock = threading.Lock()

    @staticmethod
    def line(
        eval_id: str,
        run_id: int,
        turns: list[Invocation],
        error: str | None = None,
        *,
        incomplete: bool = False,
        expected: list[Invocation] | None = None,
    ) -> str:
        """One case run's record line (without the newline); ``incomplete``: the run failed
        through no fault of the agent, and a replay leaves the case incomplete again;
        ``expected``: the turns ``--expected-agent`` produced, which a replay scores against."""
        record: dict[str, Any] = {"evalId": eval_id}
        if run_id != 1:
            record["runId"] = run_id
        if error is not None:
            record["errorMessage"] = error
            if incomplete:
                record["incomplete"] = True
        record["actualConversation"] = [dump(turn) for turn in turns]
        if expected is not None:
            record["expectedConversation"] = [dump(turn) for turn in expected]
        return json.dumps(record, ensure_ascii=False, separators=(",", ":"))

    def append(self, line: str, run: tuple[str, int]) -> None:
        """Append the line of case run ``run`` (evalId, runId) and flush it to the system."""
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()
            if run in self._earlier:
                self._again.add(run)

    def write(self, eval_id: str, run_id: int, turns: list[Invocation]) -> None:
        """Append one case run's captured turns and flush."""
        self.append(self.line(eval_id, run_id, turns), (eval_id, run_id))

    def close(self) -> str | None:
        """Close the file; the text it must be rewritten to (the caller writes it atomically)
        when case runs recorded earlier were recorded again, else None."""
        self._file.close()
        return _newest_only(self.path, self._again) if self._again else None


def _run_of(line: str) -> tuple[str, int] | None:
    """The (evalId, runId) of a record line; None for a line that is not one."""
    try:
        record = json.loads(line)
    except ValueError:
        return None
    if not isinstance(record, dict) or not isinstance(record.get("evalId"), str):
        return None
    run_id = record.get("runId", 1)
    return (record["evalId"], run_id) if isinstance(run_id, int) else None


def record_file_problems(path: Path) -> list[Problem]:
    """Why ``--resume`` cannot append to the record file ``path``: a line that is no UTF-8
    (with its byte), which rewriting the file would change; none when there is no file."""
    try:
        for _ in _record_lines(path):
            pass
    except ConfigError as exc:
        return exc.problems
    return []


def _record_lines(path: Path) -> Iterator[str]:
    """The lines of an existing record file, split at ``\n`` only, as written; ConfigError at
    the first that is no UTF-8 (read as U+FFFD, a rewrite put that into the user's file)."""
    if not path.is_file():
        return
    hint = "--resume appends to the --record file and may rewrite it: save it as UTF-8"
    with path.open("rb") as handle:
        for lineno, line in enumerate(handle, start=1):
            yield line_text(line, f"line {lineno}", str(path), hint)


def _recorded_runs(path: Path) -> set[tuple[str, int]]:
    """The case runs a record file already holds (none when it does not exist yet)."""
    return {run for line in _record_lines(path) if (run := _run_of(line)) is not None}


def _newest_only(path: Path, again: set[tuple[str, int]]) -> str:
    """The text of ``path`` without the older lines of the case runs in ``again``."""
    lines = list(_record_lines(path))
    runs = [_run_of(line) if line.strip() else None for line in lines]
    last = {run: index for index, run in enumerate(runs) if run in again}
    kept = [
        line
        for index, (line, run) in enumerate(zip(lines, runs, strict=True))
        if run not in again or last[run] == index
    ]
    return "".join(kept)
