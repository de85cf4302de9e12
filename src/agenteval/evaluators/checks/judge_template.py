"""Up-front checks of a template judge metric (``agenteval validate``; llm-evaluators.md §5.8.2).

Everything here finds, before any judge call, a problem that would otherwise
fail every turn of every case: the messages are Go's runtime errors where one
exists, and each :class:`~agenteval.evaluators.base.ConfigIssue` carries a
path relative to the metric object (``criterion.llmJudge.template...``).

:func:`check_template` needs only the metric.  :func:`check_case` needs a
case: the effective metric (case rubrics merged, llm-evaluators.md §7) and
its expected turns.  Scorer and aggregator names are checked by the
evaluator, which owns the operator registry.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from agenteval.evaluators.base import ConfigIssue
from agenteval.evaluators.llm.template.bindings import (
    SOURCES,
    TEMPLATE_PATH,
    TRACE_FIELDS,
    BindingFormatError,
    Source,
    read_source,
    text_field,
    visible_rubrics,
)
from agenteval.evaluators.llm.template.jsonpath import PathError, compile_path
from agenteval.evaluators.llm.template.placeholders import (
    Literal,
    Placeholder,
    is_valid_name,
    parse,
)
from agenteval.schema.evalset import Invocation
from agenteval.schema.gojson import go_quote
from agenteval.schema.metric import EvalMetric

SUPPORTED = ", ".join(f"{scope}.{field}" for scope, fields in SOURCES.items() for field in fields)
_NAME_RULE = "placeholder names cannot contain whitespace, quotes, backticks, braces or ?"


def _at(path: str) -> str:
    return f"{TEMPLATE_PATH}.{path}" if path else TEMPLATE_PATH


def check_template(metric: EvalMetric) -> list[ConfigIssue]:
    """Problems (and warnings) of ``criterion.llmJudge.template`` that need no case."""
    llm_judge = metric.criterion.llm_judge if metric.criterion is not None else None
    if llm_judge is None:
        return [
            ConfigIssue(
                "criterion.llmJudge",
                "missing llm judge criterion",
                "llm_judge_template reads criterion.llmJudge.template",
            )
        ]
    template = llm_judge.template
    if template is None:
        return [
            ConfigIssue(
                TEMPLATE_PATH,
                "template is nil",
                "give prompt, responseScorerName and variableBindings",
            )
        ]
    issues: list[ConfigIssue] = []
    prompt = _checked_text(template, "prompt", "", issues)
    if prompt == "":
        issues.append(
            ConfigIssue(_at("prompt"), "template prompt is empty", "write the judge prompt")
        )
    if _checked_text(template, "responseScorerName", "", issues) == "":
        issues.append(
            ConfigIssue(
                _at("responseScorerName"),
                "template responseScorerName is empty",
                "e.g. single_score, rubric_scores, boolean or categorical",
            )
        )
    bound = list(_binding_issues(template, issues))
    if prompt:
        issues.extend(_prompt_issues(prompt, bound))
    return issues


def _checked_text(
    obj: Mapping[str, Any], key: str, prefix: str, issues: list[ConfigIssue]
) -> str | None:
    try:
        return text_field(obj, key, prefix)
    except BindingFormatError as exc:
        issues.append(ConfigIssue(_at(exc.path), exc.detail))
        return None


def _binding_issues(
    template: Mapping[str, Any], issues: list[ConfigIssue]
) -> Iterator[tuple[str, str]]:
    """Append problems of every binding; yield (variable, path) of the well-formed names."""
    raw = template.get("variableBindings")
    if raw is None:
        return
    if not isinstance(raw, list):
        issues.append(ConfigIssue(_at("variableBindings"), "must be a list"))
        return
    first_at: dict[str, str] = {}
    for index, entry in enumerate(raw):
        path = f"variableBindings[{index}]"
        if entry is None:
            issues.append(ConfigIssue(_at(path), "template binding is nil", "remove the null"))
            continue
        if not isinstance(entry, Mapping):
            issues.append(ConfigIssue(_at(path), "must be an object"))
            continue
        name = _checked_text(entry, "templateVariable", f"{path}.", issues)
        if name == "":
            issues.append(
                ConfigIssue(
                    _at(f"{path}.templateVariable"),
                    "templateVariable is empty",
                    "name the placeholder this binding fills",
                )
            )
        elif name is not None:
            if name in first_at:
                issues.append(
                    ConfigIssue(
                        _at(f"{path}.templateVariable"),
                        f"templateVariable {go_quote(name)} is duplicated",
                        f"first bound at {first_at[name]}",
                    )
                )
            else:
                first_at[name] = path
                yield name, path
        issues.extend(_source_issues(entry, path))


def _source_issues(entry: Mapping[str, Any], path: str) -> list[ConfigIssue]:
    raw = entry.get("source")
    if raw is None:
        return [ConfigIssue(_at(f"{path}.source"), "source is nil", f"sources: {SUPPORTED}")]
    if not isinstance(raw, Mapping):
        return [ConfigIssue(_at(f"{path}.source"), "must be an object")]
    try:
        source = read_source(raw, f"{path}.source.")
    except BindingFormatError as exc:
        return [ConfigIssue(_at(exc.path), exc.detail)]
    issues: list[ConfigIssue] = []
    if source.field not in SOURCES.get(source.scope, ()):
        issues.append(
            ConfigIssue(
                _at(f"{path}.source"),
                f"unsupported source {source.name}",
                f"sources: {SUPPORTED}",
            )
        )
    elif source.field in TRACE_FIELDS and not source.node_id:
        issues.append(
            ConfigIssue(
                _at(f"{path}.source.selector.nodeID"),
                "trace selector nodeID is required",
                'name the executionTrace step, e.g. "selector": {"nodeID": "my-agent/tool_node"}',
            )
        )
    elif source.node_id and source.field not in TRACE_FIELDS:
        issues.append(
            ConfigIssue(
                _at(f"{path}.source.selector"),
                f"selector is ignored for {source.name}",
                "only traceStep* fields select a step",
                warning=True,
            )
        )
    if source.path:
        issues.extend(_path_issues(source, f"{path}.source.path"))
    return issues


def _path_issues(source: Source, path: str) -> list[ConfigIssue]:
    try:
        compile_path(source.path)
    except PathError as exc:
        return [ConfigIssue(_at(path), exc.message, exc.describe())]
    return []


def _prompt_issues(prompt: str, bound: list[tuple[str, str]]) -> list[ConfigIssue]:
    names = {name for name, _ in bound}
    parts = parse(prompt)
    tokens = [p for p in parts if isinstance(p, Placeholder)]
    used = {t.name for t in tokens}
    missing = sorted({t.raw for t in tokens if not t.optional and t.name not in names})
    issues: list[ConfigIssue] = []
    if missing:
        issues.append(
            ConfigIssue(
                _at("prompt"),
                f"prompt: unresolved placeholders: {', '.join(missing)}",
                "bind each in variableBindings, or write {{name?}} to make it optional",
            )
        )
    literal = sorted({p.text for p in parts if isinstance(p, Literal) and p.candidate})
    if literal:
        issues.append(
            ConfigIssue(
                _at("prompt"),
                f"not placeholders, sent as written: {', '.join(literal)}",
                _NAME_RULE,
                warning=True,
            )
        )
    for name, path in bound:
        if name not in used:
            hint = "its source is still resolved on every turn and can fail the case"
            if not is_valid_name(name):
                hint = _NAME_RULE
            issues.append(
                ConfigIssue(
                    _at(f"{path}.templateVariable"),
                    f"templateVariable {go_quote(name)} is not used in the prompt",
                    hint,
                    warning=True,
                )
            )
    return issues


def check_case(metric: EvalMetric, expecteds: Sequence[Invocation | None]) -> list[ConfigIssue]:
    """Bindings one case cannot satisfy: ``expected.finalResponse`` on a turn without one,
    ``metric.rubrics`` with no visible rubric.  ``metric`` is the case's effective metric."""
    llm_judge = metric.criterion.llm_judge if metric.criterion is not None else None
    template = llm_judge.template if llm_judge is not None else None
    raw = template.get("variableBindings") if template is not None else None
    if not isinstance(raw, list):
        return []
    issues: list[ConfigIssue] = []
    for index, entry in enumerate(raw):
        source = entry.get("source") if isinstance(entry, Mapping) else None
        if not isinstance(source, Mapping):
            continue
        path = _at(f"variableBindings[{index}].source")
        scope, field = source.get("scope"), source.get("field")
        if (scope, field) == ("expected", "finalResponse"):
            turns = [
                str(turn)
                for turn, expected in enumerate(expecteds)
                if expected is None or expected.final_response is None
            ]
            if turns:
                which = (
                    f"turn index {turns[0]} of this case has"
                    if len(turns) == 1
                    else f"turn indexes {', '.join(turns)} of this case have"
                )
                issues.append(
                    ConfigIssue(
                        path,
                        "expected finalResponse is empty",
                        f"{which} no expected finalResponse; add one or remove this binding",
                    )
                )
        elif (scope, field) == ("metric", "rubrics") and not visible_rubrics(metric):
            issues.append(
                ConfigIssue(
                    path,
                    "metric rubrics are empty",
                    "add criterion.llmJudge.rubrics or case rubrics for this metric",
                )
            )
    return issues
