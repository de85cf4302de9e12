"""Read results in every form a user may hand a result reader (show, diff, merge, --resume).

Accepted: a trpc-agent-go result file (``*.evalset_result.json``, also the
legacy string-wrapped layout), agenteval's ``--json`` run document (its
``evalSetResults``), and a directory of them.  In a directory the result files
are read; when it holds none, its run documents.  Anything else is a
configuration error naming the file and what it looks like.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pydantic_core
from pydantic import ValidationError

from agenteval.checks.file_kind import FileKind, kind_of, wrong_kind_message
from agenteval.errors import ConfigError, Problem
from agenteval.loading import RESULT_SUFFIX, read_text, validation_problems
from agenteval.long_lived import building_long_lived
from agenteval.result_validation import validate_result
from agenteval.schema.result import EvalSetResult

NOT_A_RESULT = "an agenteval or trpc-agent-go result"


def _unwrapped(text: str) -> str:
    """The legacy layout stores the whole result as one JSON string (formats.md §1)."""
    if text.lstrip().startswith('"'):
        try:
            inner = json.loads(text)
        except json.JSONDecodeError:
            return text
        if isinstance(inner, str):
            return inner
    return text


def parse_results(text: str, file: str) -> tuple[list[EvalSetResult], list[Problem]]:
    """The eval set results a result file or run document holds, or its problems."""
    text = _unwrapped(text)
    # One pause over parsing and validating: re-enabled in between, the collector
    # would scan every parsed object once before they are freed.
    with building_long_lived(len(text)):
        return _parse_results(text, file)


def _parse_results(text: str, file: str) -> tuple[list[EvalSetResult], list[Problem]]:
    try:
        data: Any = pydantic_core.from_json(text)
    except ValueError as exc:
        return [], [Problem(file, "", f"invalid JSON: {exc}")]
    kind = kind_of(data)
    if kind is FileKind.RESULT:
        try:
            return [validate_result(data, lambda: text)], []
        except ValidationError as exc:
            return [], validation_problems(file, exc)
    if kind is FileKind.RUN:
        return _run_document(data, file)
    message, hint = wrong_kind_message(NOT_A_RESULT, kind)
    return [], [Problem(file, "", message, hint)]


def _run_document(data: dict[str, Any], file: str) -> tuple[list[EvalSetResult], list[Problem]]:
    entries = data.get("evalSetResults")
    if not isinstance(entries, list):
        return [], [Problem(file, "evalSetResults", "expected an array of eval set results")]
    results: list[EvalSetResult] = []
    problems: list[Problem] = []
    for index, entry in enumerate(entries):
        try:
            # Problems are worded from the entry as JSON text, as when it was a file.
            results.append(validate_result(entry, partial(json.dumps, entry)))
        except ValidationError as exc:
            problems.extend(validation_problems(file, exc, f"evalSetResults[{index}]"))
    return results, problems


def _directory_files(directory: Path) -> tuple[list[Path], list[Problem]]:
    files = sorted(p for p in directory.iterdir() if p.is_file() and p.suffix == ".json")
    results = [p for p in files if p.name.endswith(RESULT_SUFFIX)]
    if results:
        return results, []
    documents = [p for p in files if _is_run_document(p)]
    if documents:
        return documents, []
    return [], [
        Problem(
            str(directory),
            "",
            f"no result files (*{RESULT_SUFFIX}) or --json run documents in this directory",
        )
    ]


def _is_run_document(path: Path) -> bool:
    try:
        return kind_of(pydantic_core.from_json(path.read_bytes())) is FileKind.RUN
    except (OSError, ValueError):
        return False


def read_results(paths: Sequence[Path | str]) -> tuple[list[EvalSetResult], list[str]]:
    """Every eval set result of ``paths`` with the file each came from; ConfigError lists all problems."""
    results: list[EvalSetResult] = []
    sources: list[str] = []
    problems: list[Problem] = []
    for given in paths:
        path = Path(given)
        files = [path]
        if path.is_dir():
            files, found = _directory_files(path)
            problems.extend(found)
        for file in files:
            try:
                text = read_text(file)
            except ConfigError as exc:
                problems.extend(exc.problems)
                continue
            loaded, found = parse_results(text, str(file))
            problems.extend(found)
            results.extend(loaded)
            sources.extend(str(file) for _ in loaded)
    if problems:
        raise ConfigError(problems)
    return results, sources


def case_count(results: Sequence[EvalSetResult]) -> int:
    """The number of case results over every eval set result."""
    return sum(len(result.case_results()) for result in results)
