"""Wire ``--agent`` into a run: check the options and cases up front, open and close the driver.

Tested in tests/agents/test_agent_interrupt.py, tests/agents/test_cmd_agent.py and
tests/cli/test_fingerprints.py (the agent in the fingerprint).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from agenteval.agents.adapter import AgentLimits
from agenteval.agents.driver import AgentDriver, check_case, needs_agent
from agenteval.agents.recorder import TraceRecordFile, record_file_problems
from agenteval.agents.spec import AgentSpecError, check_spec, open_adapter, shown_spec
from agenteval.errors import Problem
from agenteval.report.atomic_write import write_text_atomic
from agenteval.report.output_paths import check_output_file
from agenteval.results.fingerprints import agent_digest
from agenteval.run.runner import call_soon_in

if TYPE_CHECKING:
    from agenteval.api import JudgeOutcome, Options
    from agenteval.run.runner import EvalSetPlan, RunSettings
    from agenteval.schema.evalset import Invocation


def check_agent_options(
    options: Options, plans: Sequence[EvalSetPlan], problems: list[Problem]
) -> None:
    """Spec syntax, numbers, and every case the agent would drive (tool mocks, scenarios)."""
    for flag, spec in (("--agent", options.agent), ("--expected-agent", options.expected_agent)):
        if spec is None:
            continue
        try:
            check_spec(spec)
        except AgentSpecError as exc:
            problems.append(
                Problem(flag, "", str(exc), "e.g. cmd:./my_agent.py or agui:http://127.0.0.1:8000/")
            )
    if options.agent is None:
        problems.append(Problem("--expected-agent", "", "needs --agent for the actual turns"))
    if options.agent_concurrency < 1:
        problems.append(Problem("--agent-concurrency", "", "must be at least 1"))
    if not options.agent_timeout > 0:
        problems.append(Problem("--agent-timeout", "", "must be positive"))
    if options.record is not None:
        # Opened before the first case is driven: a bad path is a usage error (exit 2).
        problems.extend(check_output_file("--record", Path(options.record)))
        if options.resume:
            # Appended to and maybe rewritten: a line that is no UTF-8 is refused before the
            # first case is driven, not changed into U+FFFD.
            problems.extend(record_file_problems(Path(options.record)))
        # Without --resume the record starts empty: a --traces file given again would be lost.
        traces = options.traces
        if traces is not None and not options.resume and _same_file(options.record, traces):
            problems.append(
                Problem(
                    options.record,
                    "",
                    "--record is also the --traces file: recording would overwrite the "
                    "turns it holds",
                    "give --record another file, or add --resume to append to it",
                )
            )
    for flag, value in (
        ("--agent-max-event-bytes", options.agent_max_event_bytes),
        ("--agent-max-turn-bytes", options.agent_max_turn_bytes),
    ):
        if value < 1:
            problems.append(Problem(flag, "", "must be at least 1"))
    if options.record is not None:
        problems.extend(_record_collisions(plans))
    expected = options.expected_agent is not None
    for plan in plans:
        for index, case in plan.cases.indexed():
            if not needs_agent(case):
                continue
            for problem in check_case(case, expected):
                where, _, text = problem.partition(": ")
                if not text:
                    where, text = "", problem
                path = f"evalCases[{index}]" + (f".{where}" if where else "")
                problems.append(Problem(str(plan.path), path, text))


def _record_collisions(plans: Sequence[EvalSetPlan]) -> list[Problem]:
    """Driven cases of two eval sets with one evalId: ``--record`` would write a line for
    each, and ``--traces`` (one record per evalId and run) refuses such a file."""
    first: dict[str, str] = {}
    problems: list[Problem] = []
    for plan in plans:
        for index, case in plan.cases.indexed():
            if not needs_agent(case):
                continue
            other = first.setdefault(case.eval_id, str(plan.path))
            if other != str(plan.path):
                problems.append(
                    Problem(
                        str(plan.path),
                        f"evalCases[{index}].evalId",
                        f"--record: evalId {case.eval_id!r} is also driven from {other}, and a "
                        "--traces file holds one record per evalId, so the record would not "
                        "replay",
                        "record each of these eval sets in a run of its own",
                    )
                )
    return problems


def _same_file(first: str, second: str) -> bool:
    """Whether two paths name one existing file (links and relative paths included)."""
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


def name_agent(
    options: Options,
    plans: Sequence[EvalSetPlan],
    traces: Mapping[str, list[Invocation]] | None,
) -> None:
    """Put the agent (its secrets as ``***``) into the fingerprint of each eval set it drives
    a case of: ``--resume`` then re-scores what another agent answered, and ``merge``
    refuses shards of two agents (agenteval.results.fingerprints)."""
    if options.agent is None:
        return
    environ = {**os.environ, **(options.environ or {})}
    expected = options.expected_agent
    digest = agent_digest(
        shown_spec(options.agent, environ),
        shown_spec(expected, environ) if expected is not None else None,
    )
    for plan in plans:
        if plan.fingerprint is not None and _drives_some(plan, traces):
            plan.fingerprint.agent = digest


def _drives_some(plan: EvalSetPlan, traces: Mapping[str, list[Invocation]] | None) -> bool:
    """Whether the agent drives a case of the eval set's file: one whose turns are neither
    its own nor from ``--traces`` (no case is built).  Every case counts, not only the
    ``--case`` and ``--shard`` selection: each shard of a run names the same agent."""
    trace_mode, conversation = plan.cases.own_turns
    return any(
        eval_id not in trace_mode
        and eval_id not in conversation
        and not (traces and eval_id in traces)
        for eval_id in plan.cases.ids
    )


def driven_cases(plans: Sequence[EvalSetPlan]) -> int:
    """How many selected cases the agent would drive (per run)."""
    return sum(1 for plan in plans for case in plan.cases if needs_agent(case))


@asynccontextmanager
async def open_driver(
    options: Options, settings: RunSettings, outcome: JudgeOutcome | None
) -> AsyncIterator[AgentDriver]:
    """The run's driver; workers, connections and the record file are closed on the way out."""
    assert options.agent is not None
    limits = AgentLimits(
        timeout=options.agent_timeout,
        event_bytes=options.agent_max_event_bytes,
        turn_bytes=options.agent_max_turn_bytes,
    )
    adapter = open_adapter(options.agent, concurrency=options.agent_concurrency, limits=limits)
    expected = (
        open_adapter(options.expected_agent, concurrency=options.agent_concurrency, limits=limits)
        if options.expected_agent is not None
        else None
    )
    record = (
        TraceRecordFile(Path(options.record), append=bool(options.resume))
        if options.record is not None
        else None
    )
    progress = options.progress
    on_turn = getattr(progress, "agent_turn_done", None)
    driver = AgentDriver(
        adapter,
        expected,
        record,
        on_turn=on_turn,
        stopping=settings.stopping,
    )
    if outcome is not None:
        outcome.agent = driver.stats
    # A stop cancels the agent work in flight instead of waiting up to --agent-timeout.
    loop = asyncio.get_running_loop()
    remove = (
        options.stop.on_stop(lambda: call_soon_in(loop, driver.cancel_in_flight))
        if options.stop is not None
        else None
    )
    try:
        yield driver
    finally:
        if remove is not None:
            remove()
        try:
            await adapter.aclose()
            if expected is not None:
                await expected.aclose()
        finally:
            if record is not None:
                rewritten = record.close()
                if rewritten is not None:
                    write_text_atomic(record.path, rewritten)
