"""What the commands that read saved results share: stored runs as files, their verdict.

``show``, ``diff``, ``merge``, ``report``, ``explain`` (and ``run --resume``) take result files, run
documents, or stored runs (``@latest``, ``@RUN_ID``, ``@branch:NAME``) read from the run
store; a saved run's exit code is the one the run that wrote it had.

Tested in tests/cli/test_commands.py, tests/cli/test_store_commands.py and
tests/cli/test_saved_results.py.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from agenteval.errors import ConfigError, Problem
from agenteval.inputs.result_inputs import ResultPart, case_count
from agenteval.report.set_tally import SetReport, outcome
from agenteval.schema.result import EvalSetResult


@contextlib.contextmanager
def stored_inputs(
    paths: list[Path],
    store: str | None,
    pinned: dict[str, str] | None = None,
    sides: Sequence[tuple[str, int]] = (),
) -> Iterator[list[Path]]:
    """``paths`` with each ``@latest`` / ``@RUN_ID`` / ``@branch:NAME`` read from the store
    (``pinned``: each copy's path to its run's ``@RUN_ID``, see store.inputs).

    ``sides``: (name, count) of each side's paths in order, as :func:`given_once` names
    them (default: one side, unnamed); two references to one stored run on one side
    (``show @latest @RUN_ID``) are refused as one file named twice is.
    """
    if not any(str(path).startswith("@") and not path.exists() for path in paths):
        yield paths  # no store in play: SQLAlchemy is not even imported
        return
    from agenteval.store.inputs import stored_inputs as from_store

    runs: dict[str, str] = {} if pinned is None else pinned
    with from_store(paths, store, runs) as replaced:
        _runs_given_once(paths, [runs.get(str(copy)) for copy in replaced], sides)
        yield replaced


def _runs_given_once(
    paths: Sequence[Path], runs: Sequence[str | None], sides: Sequence[tuple[str, int]]
) -> None:
    """Refuse a stored run named twice on one side by two references (``runs``: each path's
    stored run as ``@RUN_ID``, None for a file)."""
    problems: list[Problem] = []
    start = 0
    for side, count in sides or (("", len(paths)),):
        first: dict[str, Path] = {}
        side_paths, side_runs = paths[start : start + count], runs[start : start + count]
        for given, run in zip(side_paths, side_runs, strict=True):
            if run is None:
                continue
            if run in first:
                where = f" as {side}" if side else ""
                problems.append(
                    Problem(
                        str(given),
                        "",
                        f"given twice{where}: {first[run]} names the same stored run ({run})",
                        "give each once",
                    )
                )
            first.setdefault(run, given)
        start += count
    if problems:
        raise ConfigError(problems)


def given_once(paths: Sequence[Path | str], side: str = "") -> None:
    """Refuse a result file (directory, stored run) named twice on one side: exit 2.

    Read twice, its cases counted twice (``show f f``: "0 of 2 cases passed") or, for a run
    document, one run held each case twice (``report --base doc --base doc`` drew its page
    so); merge and diff refused only plain result files, by their cases.  The same file on
    both sides of a comparison (``diff f --new f``) is not a repeat.
    """
    seen: set[object] = set()
    problems: list[Problem] = []
    for given in paths:
        path = Path(given)
        key = path.resolve() if path.exists() else str(given)
        if key in seen:
            where = f" as {side}" if side else ""
            problems.append(Problem(str(given), "", f"given twice{where}", "give each once"))
        seen.add(key)
    if problems:
        raise ConfigError(problems)


def pinned_name(source: str, pinned: Mapping[str, str]) -> str:
    """``source``'s run as ``@RUN_ID`` when it is (in) a stored run's copy, else ``source``."""
    path = Path(source)
    return next((run for copy, run in pinned.items() if path.is_relative_to(copy)), source)


def refuse_no_cases(command: str, *sides: tuple[Sequence[ResultPart], Sequence[Path]]) -> None:
    """diff and merge over zero cases would report a success that means nothing: exit 2.

    Each side (``(parts, paths)``: diff's BASE and NEW, merge's one) without a case is a
    problem, all said at once: an empty NEW is said beside an empty BASE.
    """
    problems = [
        Problem(", ".join(str(p) for p in paths), "", f"no case results to {command}")
        for parts, paths in sides
        if case_count(parts) == 0
    ]
    if problems:
        raise ConfigError(problems)


def saved_warnings(parts: Sequence[ResultPart]) -> dict[str, list[Problem]]:
    """The warnings each ``--json`` run document saved (what its run printed), by document.

    Each was written as its one line, ``file: json.path: message (hint)``; it is given back
    as a problem that prints that line again.
    """
    found: dict[str, list[Problem]] = {}
    documents = {part.source: part.document_keys for part in parts if part.document_keys}
    for source, keys in documents.items():
        lines = keys.get("warnings")
        for line in lines if isinstance(lines, list) else []:
            if isinstance(line, str):
                file, _, rest = line.partition(": ")
                problem = Problem(file, "", rest) if rest else Problem("", "", line)
                found.setdefault(source, []).append(problem)
    return found


def saved_unfinished(heads: Sequence[EvalSetResult]) -> list[str]:
    """Why saved results are INCOMPLETE beyond their case statuses: a run stopped early."""
    return ["interrupted"] if any(head.partial for head in heads) else []


def saved_exit_code(heads: Sequence[EvalSetResult], reports: Sequence[SetReport]) -> int:
    """The exit code the run that wrote these results had: 3 when it could not finish.

    ``judgeFailures`` counts through the reports (its cases are INCOMPLETE there), as the
    verdict line reads them: an id no case of the file has no longer gave exit 3 under a
    PASSED line.
    """
    return outcome(reports, unfinished=bool(saved_unfinished(heads))).exit_code


__all__ = [
    "given_once",
    "pinned_name",
    "refuse_no_cases",
    "saved_exit_code",
    "saved_unfinished",
    "saved_warnings",
    "stored_inputs",
]
