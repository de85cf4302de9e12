"""Read eval sets, metric files, result files and trace files into schema objects.

Every reader collects *all* problems of its file before failing, each one as a
``Problem(file, json.path, message, hint)``; the caller merges the problems of
every file into one ``ConfigError`` so a user sees everything at once.
"""

from __future__ import annotations

import glob as globlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pydantic_core
from pydantic import TypeAdapter, ValidationError

from agenteval.errors import ConfigError, Problem
from agenteval.inputs import locations
from agenteval.inputs.evalset_file import case_rules
from agenteval.inputs.file_kind import FileKind, kind_of
from agenteval.inputs.finite_numbers import beyond_float64, integer_problem
from agenteval.inputs.foreign_files import foreign_evalset_problem
from agenteval.inputs.go_escapes import go_escapes
from agenteval.inputs.input_limits import (
    empty_problem,
    head_problem,
    input_file_problem,
    limit_problem,
    nesting_problem,
)
from agenteval.inputs.metrics_file import metric_rules, null_tool_strategies
from agenteval.inputs.trace_records import (
    Inspect,
    check_record,
    duplicate_problem,
    not_traces,
    parse_line,
    read_trace_lines,
    wrong_kind,
)
from agenteval.schema.evalset import EvalSet, Invocation
from agenteval.schema.gojson import json_kind
from agenteval.schema.metric import EvalMetric
from agenteval.schema.result import EvalSetResult
from agenteval.schema.turns import run_trace_key

EVALSET_SUFFIX = ".evalset.json"
METRICS_SUFFIX = ".metrics.json"
RESULT_SUFFIX = ".evalset_result.json"
JUDGE_ENV_FIELDS = ("provider_name", "model_name", "variant", "base_url", "api_key")

_metrics_adapter: TypeAdapter[list[EvalMetric] | None] = TypeAdapter(list[EvalMetric] | None)

_TYPE_WORDS = {
    "string_type": "expected a string",
    "bool_type": "expected true or false",
    "int_type": "expected an integer",
    "int_from_float": "expected an integer",
    "float_type": "expected a number",
    "list_type": "expected an array",
    "dict_type": "expected an object",
    "model_type": "expected an object",
    "model_attributes_type": "expected an object",
    "enum": "unknown value",
}


def _json_type(value: Any) -> str:
    kind = json_kind(value)
    if kind in ("boolean", "number", "string"):
        return f"a {kind}"
    return f"an {kind}" if kind in ("array", "object") else kind


def validation_problems(
    file: str,
    error: ValidationError,
    prefix: str = "",
    rename: Callable[[tuple[int | str, ...]], tuple[int | str, ...]] | None = None,
) -> list[Problem]:
    """Turn a pydantic error into one problem per location (``rename``: locations as the file spells them)."""
    problems: list[Problem] = []
    for item in error.errors():
        kind = item["type"]
        if kind == "json_invalid":
            detail = str(item.get("ctx", {}).get("error", item["msg"]))
            problems.append(Problem(file, "", f"invalid JSON: {detail}"))
            continue
        loc = rename(item["loc"]) if rename is not None else item["loc"]
        path = locations.join(prefix, *loc) or "$"
        words = _TYPE_WORDS.get(kind)
        value = item.get("input")
        if kind == "float_type" and isinstance(value, int) and beyond_float64(value):
            # Said as the non-finite check says it (the two are one line), not "expected
            # a number, got a number".
            problems.append(integer_problem(file, path, value))
            continue
        if words and kind != "enum":
            message = f"{words}, got {_json_type(item.get('input'))}"
        elif kind == "enum":
            expected = item.get("ctx", {}).get("expected", "")
            message = f"unknown value {item.get('input')!r}"
            problems.append(
                Problem(file, path, message, f"expected {expected}" if expected else "")
            )
            continue
        else:
            message = item["msg"]
        problems.append(Problem(file, path, message))
    return _arms_joined(problems)


def _arms_joined(problems: list[Problem]) -> list[Problem]:
    """One problem per place where each arm of a union refused the value: ``judgeFailures:
    expected an array or an integer, got a string``, not one line per arm."""
    joined: list[Problem] = []
    for problem in problems:
        last = joined[-1] if joined else None
        if (
            last is not None
            and (last.file, last.path) == (problem.file, problem.path)
            and problem.message.startswith("expected ")
            and last.message.startswith("expected ")
        ):
            wanted, _, got = problem.message.partition(", got ")
            before, _, last_got = last.message.partition(", got ")
            if got and got == last_got:
                message = f"{before} or {wanted.removeprefix('expected ')}, got {got}"
                joined[-1] = Problem(last.file, last.path, message, last.hint)
                continue
        joined.append(problem)
    return joined


def read_text(
    path: Path,
    *,
    allow_bom: bool = False,
    allow_empty: bool = False,
    csv: bool = False,
    warnings: list[Problem] | None = None,
) -> str:
    """Read a UTF-8 file of JSON, raising ConfigError with a one-line reason (``allow_bom``: a
    leading byte order mark is kept, for a format that takes one, such as CSV;
    ``allow_empty``: a file of nothing but blanks is read, for a format of lines that says
    itself what it holds none of, such as traces or labels; ``csv``: the text is no JSON).

    A lone UTF-16 surrogate escape (``\\ud800``) is read as U+FFFD, as Go's decoder reads
    it (:mod:`agenteval.inputs.go_escapes`); so is invalid UTF-8 inside a JSON string
    (:mod:`agenteval.inputs.go_utf8`) when the caller takes the warning that says so in
    ``warnings`` (without it the file is refused, as it was: never read silently)."""
    refused = input_file_problem(path)
    if refused is not None:
        raise ConfigError([refused])
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError([Problem(str(path), "", "file not found")]) from None
    except IsADirectoryError:
        raise ConfigError([Problem(str(path), "", "is a directory, expected a file")]) from None
    except UnicodeDecodeError as exc:
        text = _not_utf8(path, exc, None if csv else warnings, allow_bom=allow_bom)
    except OSError as exc:
        raise ConfigError([Problem(str(path), "", f"cannot read: {exc.strerror}")]) from None
    # JSON (and Go's decoder) refuses a byte order mark; say what it is, not "expected value".
    bom = head_problem(str(path), text[:1].encode("utf-8", "surrogatepass"), allow_bom=allow_bom)
    if bom is not None:
        raise ConfigError([bom])
    empty = None if allow_empty else empty_problem(str(path), text)
    if empty is not None:
        raise ConfigError([empty])
    exceeded = limit_problem(text)
    if exceeded is not None:
        raise ConfigError([Problem(str(path), "", exceeded)])
    return text if csv else go_escapes(text)


def _not_utf8(
    path: Path, exc: UnicodeDecodeError, warnings: list[Problem] | None, *, allow_bom: bool
) -> str:
    """The text of a file with invalid UTF-8 inside JSON strings, read as Go reads it (its
    warning put in ``warnings``); ConfigError for a file that is no UTF-8 text."""
    data = bytes(exc.object)
    known = head_problem(str(path), data[:8], allow_bom=allow_bom)
    if known is not None:
        raise ConfigError([known]) from None
    if warnings is not None:
        from agenteval.inputs.go_utf8 import go_utf8

        read = go_utf8(data, str(path))
        if read is not None:
            warnings.append(read[1])
            return read[0]
    from agenteval.inputs.foreign_files import binary_file_hint

    hint = binary_file_hint(path)
    raise ConfigError([Problem(str(path), "", f"not UTF-8 text ({exc.reason})", hint)]) from None


def _raw_entries(text: str, key: str | None) -> list[Any]:
    """The top-level list (or ``key``'s list) of a JSON text, best effort, for rule checks."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return []
    if key is not None:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, list) else []


def _field(entry: Any, key: str) -> str:
    value = entry.get(key) if isinstance(entry, dict) else None
    return value if isinstance(value, str) else ""


def _validate_evalset(text: str, data: Any = None) -> EvalSet:
    """``EvalSet.model_validate_json(text)``, by a faster route for valid files.

    Parsing the JSON first and validating the Python data takes about 60% of the time
    of pydantic's JSON-mode validation on large eval sets.  For the eval set schema
    (strings, booleans, numbers, lists, objects; no enums, dates or bytes) strict
    Python-mode validation of parsed JSON accepts exactly what JSON mode accepts; any
    failure is redone in JSON mode, so problems keep JSON mode's wording (and a schema
    field that only JSON mode can read still loads).
    """
    try:
        # ``data``: the caller's parse of ``text`` (the up-front checks parse it too).
        data = pydantic_core.from_json(text) if data is None else data
    except ValueError:
        return EvalSet.model_validate_json(text)
    try:
        return EvalSet.model_validate(data)
    except ValidationError:
        return EvalSet.model_validate_json(text)


def parse_evalset(text: str, file: str, data: Any = None) -> tuple[EvalSet | None, list[Problem]]:
    """Parse eval set JSON (``data``: already parsed) and check the file-local rules, all problems together."""
    foreign = foreign_evalset_problem(text, file)
    if foreign is not None:
        return None, [foreign]
    try:
        evalset = _validate_evalset(text, data)
    except ValidationError as exc:
        problems = validation_problems(file, exc)
        raw = _raw_entries(text, "evalCases")
        cases = [
            (
                i,
                _field(c, "evalId"),
                _field(c, "evalMode"),
                isinstance(c, dict) and isinstance(c.get("evalId", ""), str | None),
            )
            for i, c in enumerate(raw)
            if c is not None
        ]
        return None, problems + case_rules(file, cases)
    cases = [
        (i, c.eval_id, c.eval_mode, True) for i, c in enumerate(evalset.eval_cases) if c is not None
    ]
    return evalset, case_rules(file, cases)


def parse_metrics(
    text: str, file: str, environ: Mapping[str, str] | None = None
) -> tuple[list[EvalMetric], list[Problem]]:
    """Parse a metric file, check names and tool strategies, expand judge env vars."""
    try:
        metrics = _metrics_adapter.validate_json(text) or []
    except ValidationError as exc:
        raw = _raw_entries(text, None)
        names = [
            (
                i,
                _field(m, "metricName"),
                isinstance(m, dict) and isinstance(m.get("metricName", ""), str | None),
            )
            for i, m in enumerate(raw)
        ]
        return [], validation_problems(file, exc) + metric_rules(file, names)
    problems = metric_rules(file, [(i, m.metric_name, True) for i, m in enumerate(metrics)])
    problems.extend(null_tool_strategies(file, metrics))
    for metric in metrics:
        _expand_judge_env(metric, environ if environ is not None else os.environ)
    return metrics, problems


def _expand_judge_env(metric: EvalMetric, environ: Mapping[str, str]) -> None:
    # Only these five judge-model fields are substituted (formats.md §3.12).
    judge = metric.criterion.llm_judge if metric.criterion else None
    model = judge.judge_model if judge else None
    if model is None:
        return
    # Loaded only when a metric names a judge model.
    from agenteval.inputs.env_expansion import expand_env
    from agenteval.inputs.url_secrets import expand_base_url

    for field in JUDGE_ENV_FIELDS:
        value = getattr(model, field)
        if field == "base_url":
            # A key put into the URL's query or path is found here, once: it is shown
            # and written as *** (result files, run documents, messages).
            url = expand_base_url(value, environ)
            if url.url != value:
                model.base_url = url.url
            if url.secrets:
                model.hide_url_secrets(url.secrets, url.shown)
        elif "$" in value:
            setattr(model, field, expand_env(value, environ))


def parse_result(text: str, file: str) -> tuple[EvalSetResult | None, list[Problem]]:
    """Parse a result file, accepting the legacy string-wrapped layout (formats.md §1).

    The one result reader's route (:mod:`agenteval.inputs.result_inputs`): the same results and
    problems as ``EvalSetResult.model_validate_json(text)``.
    """
    from agenteval.inputs.result_inputs import read_as_result

    return read_as_result(text, file)


def load_evalset(path: Path) -> EvalSet:
    """Load one eval set file or raise ConfigError."""
    evalset, problems = parse_evalset(read_text(path), str(path))
    if problems or evalset is None:
        raise ConfigError(problems)
    return evalset


def load_metrics(path: Path, environ: Mapping[str, str] | None = None) -> list[EvalMetric]:
    """Load one metric file or raise ConfigError."""
    metrics, problems = parse_metrics(read_text(path), str(path), environ)
    if problems:
        raise ConfigError(problems)
    return metrics


def load_result(path: Path) -> EvalSetResult:
    """Load one result file (ours or trpc-agent-go's) or raise ConfigError."""
    result, problems = parse_result(read_text(path), str(path))
    if problems or result is None:
        raise ConfigError(problems)
    return result


def parse_traces(
    text: str, file: str, inspect: Inspect | None = None
) -> tuple[dict[str, list[Invocation]], list[Problem]]:
    """Parse a traces file: a trpc-agent-go result file, or JSON/JSONL ``{evalId, actualConversation}`` records.

    ``inspect`` is called with each record that is an object (not a result file's cases)."""
    stripped = text.lstrip()
    if stripped.startswith("{") and '"evalCaseResults"' in text:
        result, problems = parse_result(text, file)
        if result is None or problems:
            # A --json run document holds result files: refused as one, not as a result
            # file with unknown keys ("'overallStatus' is not a field of EvalSetResult").
            whole = _one_object(text)
            if whole is not None and kind_of(whole) is FileKind.RUN:
                return {}, wrong_kind(FileKind.RUN, file)
        if result is None:
            return {}, problems
        if "agentevalVersion" in (result.model_extra or {}):
            return {}, wrong_kind(FileKind.RUN, file)  # a --json run document
        traces: dict[str, list[Invocation]] = {}
        for case in result.case_results():
            # Each run of a --num-runs result is its own trace, as --record's runId lines
            # are (only run 1 was read: every run replayed that one).
            key = run_trace_key(case.eval_id, max(case.run_id, 1))
            if key in traces or not case.eval_metric_result_per_invocation:
                continue
            turns = [p.actual_invocation for p in case.eval_metric_result_per_invocation]
            traces[key] = [t for t in turns if t is not None]
        return traces, problems
    records: list[tuple[str, Any]] = []
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            return {}, [
                Problem(
                    file, "", f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
                )
            ]
        except RecursionError as exc:
            return {}, [Problem(file, "", nesting_problem(exc))]
        refused = not_traces(data, file)
        if refused:
            return {}, refused
        records = [(f"[{i}]", item) for i, item in enumerate(data)]
    elif stripped.startswith("{") and (whole := _one_object(text)) is not None:
        # One object, not one per line: a pretty-printed record, or a file of another kind.
        refused = not_traces(whole, file)
        if refused:
            return {}, refused
        records = [("$", whole)]
    else:
        for lineno, line in enumerate(text.encode("utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append((f"line {lineno}", parse_line(line, f"line {lineno}", file)))
            except ConfigError as exc:
                return {}, exc.problems
    return _trace_records(records, file, inspect)


def _one_object(text: str) -> dict[str, Any] | None:
    """``text`` as one JSON object, or None (JSON lines, or broken: read line by line)."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _trace_records(
    records: Iterable[tuple[str, Any]], file: str, inspect: Inspect | None
) -> tuple[dict[str, list[Invocation]], list[Problem]]:
    traces: dict[str, list[Invocation]] = {}
    problems: list[Problem] = []
    for where, record in records:
        checked = check_record(record, where, file)
        if inspect is not None and isinstance(record, dict):
            inspect(record, where, None)
        if isinstance(checked, list):
            problems.extend(checked)
        elif checked.key in traces:
            problems.append(duplicate_problem(checked.key, where, file))
        else:
            traces[checked.key] = checked.turns
    return traces, problems


def _is_json_lines(path: Path) -> bool:
    """True when a file's first non-blank line is a JSON object by itself (or starts as one
    with a byte that is no UTF-8), and no result file."""
    try:
        with path.open("rb") as handle:
            for line in handle:
                if not line.strip():
                    continue
                if not line.lstrip().startswith(b"{") or b'"evalCaseResults"' in line:
                    return False  # an array or a result file: read whole, parsed once
                return isinstance(json.loads(line), dict)
    except UnicodeDecodeError:
        # A first line that starts as an object but holds a byte that is no UTF-8 is read line
        # by line, so its error says where the byte is, as on any later line (it was "not
        # UTF-8 text (invalid start byte)", with no line or column).
        return True
    except (OSError, ValueError, RecursionError):
        return False
    return False


def read_traces(
    path: Path, inspect: Inspect | None = None
) -> tuple[Mapping[str, list[Invocation]], list[Problem]]:
    """A traces file's records by trace key, and its problems; ConfigError when it cannot be read.

    JSON lines are checked line by line and indexed, never held whole
    (:mod:`agenteval.inputs.trace_records`); a JSON array or a result file is read whole.
    """
    refused = input_file_problem(path)
    if refused is not None:
        raise ConfigError([refused])
    if _is_json_lines(path):
        return read_trace_lines(path, inspect)
    return parse_traces(read_text(path, allow_empty=True), str(path), inspect)


def load_traces(path: Path) -> Mapping[str, list[Invocation]]:
    """Load a traces file or raise ConfigError."""
    traces, problems = read_traces(path)
    if problems:
        raise ConfigError(problems)
    return traces


def expand_evalset_paths(specs: Iterable[str]) -> tuple[list[Path], list[Problem]]:
    """Resolve ``--evalset`` values: a file, a directory (its ``*.evalset.json``) or a glob."""
    paths: list[Path] = []
    problems: list[Problem] = []
    for spec in specs:
        path = Path(spec)
        if path.is_dir():
            found = sorted(
                p for p in path.iterdir() if p.name.endswith(EVALSET_SUFFIX) and p.is_file()
            )
            if not found:
                problems.append(Problem(spec, "", f"no *{EVALSET_SUFFIX} files in this directory"))
            paths.extend(found)
        elif path.is_file():
            paths.append(path)
        elif globlib.has_magic(spec):
            matches = sorted(
                Path(p) for p in globlib.glob(spec, recursive=True) if Path(p).is_file()
            )
            if not matches:
                problems.append(Problem(spec, "", "the pattern matches no file"))
            paths.extend(matches)
        else:
            problems.append(input_file_problem(path) or Problem(spec, "", "file not found"))
    unique: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique, problems


def evalset_id_for(path: Path) -> str:
    """The eval set id a file name implies (``x.evalset.json`` → ``x``)."""
    name = path.name
    return name[: -len(EVALSET_SUFFIX)] if name.endswith(EVALSET_SUFFIX) else path.stem


def default_metrics_path(evalset_path: Path) -> Path:
    """trpc-agent-go's convention: ``<dir>/<evalSetId>.metrics.json`` beside the eval set."""
    return evalset_path.with_name(evalset_id_for(evalset_path) + METRICS_SUFFIX)
