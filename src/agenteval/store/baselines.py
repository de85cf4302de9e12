"""Stored runs named on the command line: ``@latest``, ``@RUN_ID``, ``@branch:NAME``.

* ``@latest`` — the newest finished logical run;
* ``@RUN_ID`` — a run id (or a unique prefix of at least 4 characters) or a run group;
* ``@branch:NAME`` — the newest finished logical run recorded on branch NAME.

Given the eval sets of the run being compared (``run --baseline``), ``@latest`` and
``@branch:NAME`` only consider runs of exactly those eval sets, so a PR's run is never
compared with main's run of another suite.  "Finished" means every member finished and,
for a sharded group, every shard reported: unfinished, interrupted and partial runs are
never picked.  ``@RUN_ID`` may name an interrupted run (its results say ``partial``), but
never an unfinished run or a group with shards missing.

Tested in tests/store/test_baselines.py.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection

from agenteval.errors import ControlFlow
from agenteval.inputs.safe_text import escape_control
from agenteval.store.queries import LogicalRun, logical_runs

PREFIX = "@"
MIN_PREFIX = 4


def is_reference(text: str) -> bool:
    """Whether a command-line argument names a stored run (``@…``)."""
    return text.startswith(PREFIX)


class ReferenceProblem(ControlFlow):
    """The reference names no usable run (message says why, hint what to do)."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


@dataclass(frozen=True, slots=True)
class Reference:
    """A parsed ``@…`` reference."""

    kind: str  # "latest", "run" or "branch"
    value: str = ""

    @classmethod
    def parse(cls, text: str) -> Reference:
        """``@latest``, ``@branch:NAME`` or ``@RUN_ID``; ReferenceProblem for anything else."""
        body = text[len(PREFIX) :] if text.startswith(PREFIX) else text
        if body == "latest":
            return cls("latest")
        if body.startswith("branch:"):
            name = body[len("branch:") :]
            if not name:
                raise ReferenceProblem("no branch named", "@branch:main")
            return cls("branch", name)
        if not body:
            raise ReferenceProblem("no run named", "@latest, @RUN_ID or @branch:NAME")
        return cls("run", body)


def _matches(run: LogicalRun, eval_sets: Collection[str] | None) -> bool:
    return eval_sets is None or set(run.eval_set_ids) == set(eval_sets)


def group_member_note(run_group: str | None) -> str:
    """What follows "stored run ID in STORE" for a member of a ``--run-group``: the group
    names it (``@GROUP``); the member's own id names nothing a command can read."""
    if run_group is None:
        return ""
    group = escape_control(run_group)
    return f", in run group {group} (read it as @{group})"


def resolve(conn: Connection, text: str, eval_sets: Collection[str] | None = None) -> LogicalRun:
    """The logical run ``text`` names; ReferenceProblem when there is none."""
    reference = Reference.parse(text)
    runs = logical_runs(conn)
    if reference.kind == "run":
        return _by_id(runs, reference.value)
    wanted = " of eval sets " + ", ".join(sorted(eval_sets)) if eval_sets is not None else ""
    candidates = [run for run in reversed(runs) if run.state == "finished"]
    if reference.kind == "branch":
        candidates = [run for run in candidates if run.first.branch == reference.value]
        where = f"branch {reference.value!r}"
    else:
        where = "the store"
    for run in candidates:
        if _matches(run, eval_sets):
            return run
    raise ReferenceProblem(
        f"no finished run{wanted} on {where}",
        "record one with `agenteval run --store URL`; `agenteval history` lists the runs",
    )


def _by_id(runs: Sequence[LogicalRun], value: str) -> LogicalRun:
    exact = [run for run in runs if run.id == value]
    if not exact:
        exact = [
            run
            for run in runs
            if len(value) >= MIN_PREFIX and run.id.startswith(value) and not run.group
        ]
    if not exact:
        raise ReferenceProblem(f"no run {value!r} in the store", "`agenteval history` lists them")
    if len(exact) > 1:
        names = ", ".join(run.id for run in exact[:5])
        raise ReferenceProblem(f"{value!r} names several runs ({names})", "give more of the id")
    run = exact[0]
    if run.state == "unfinished":
        raise ReferenceProblem(
            f"run {run.id} is unfinished", "it is still being written, or it died before the end"
        )
    if run.state == "partial":
        shards = run.shards
        told = f" ({shards[0]} of {shards[1]} shards reported)" if shards else ""
        raise ReferenceProblem(f"run group {run.id} is partial{told}", "wait for every shard")
    return run


__all__ = [
    "PREFIX",
    "Reference",
    "ReferenceProblem",
    "group_member_note",
    "is_reference",
    "resolve",
]
