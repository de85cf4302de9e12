"""Up-front validation of criteria: problems a run would otherwise meet on every turn."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agenteval.criteria import named
from agenteval.criteria.json_compare import JSON_STRATEGIES, check_schema
from agenteval.criteria.rouge import parse_rouge_type
from agenteval.criteria.text import TEXT_STRATEGIES
from agenteval.evaluators.base import ConfigIssue
from agenteval.registry import Registry
from agenteval.schema.metric import (
    FinalResponseCriterion,
    JSONCriterion,
    LengthCriterion,
    RougeCriterion,
    TextCriterion,
    ToolTrajectoryCriterion,
    ToolTrajectoryStrategy,
    XMLCriterion,
)

ROUGE_MEASURES = ("", "f1", "precision", "recall")


def _unknown_name(kind: Registry[Any], name: str, path: str) -> Iterator[ConfigIssue]:
    if name and name not in kind:
        known = ", ".join(sorted(kind)) or "none registered"
        yield ConfigIssue(
            path, f"unknown {kind.kind} {name!r}", f"known: {known}; load it with --plugin"
        )


def check_length_criterion(criterion: LengthCriterion, path: str) -> Iterator[ConfigIssue]:
    """Length bounds must be set, non-negative and ordered."""
    if criterion.ignore:
        return
    if criterion.min is None and criterion.max is None:
        yield ConfigIssue(path, "length needs min or max", 'e.g. {"min": 1, "max": 200}')
    for key in ("min", "max"):
        value = getattr(criterion, key)
        if value is not None and value < 0:
            yield ConfigIssue(f"{path}.{key}", f"{key} is negative ({value})")
    if criterion.min is not None and criterion.max is not None and criterion.min > criterion.max:
        yield ConfigIssue(path, f"min {criterion.min} is greater than max {criterion.max}")


def check_text_criterion(criterion: TextCriterion, path: str) -> Iterator[ConfigIssue]:
    """Known strategy, valid length, registered compare function."""
    if criterion.ignore:
        return
    yield from _unknown_name(named.text_compares, criterion.compare_name, f"{path}.compareName")
    if criterion.match_strategy not in TEXT_STRATEGIES:
        yield ConfigIssue(
            f"{path}.matchStrategy",
            f"unknown matchStrategy {criterion.match_strategy!r}",
            "use exact, contains, regex or skip",
        )
    if criterion.length is not None:
        yield from check_length_criterion(criterion.length, f"{path}.length")


def check_json_criterion(criterion: JSONCriterion, path: str) -> Iterator[ConfigIssue]:
    """Known strategy, exclusive trees, well-formed onlyTree, valid schema, registered compare."""
    if criterion.ignore:
        return
    yield from _unknown_name(named.json_compares, criterion.compare_name, f"{path}.compareName")
    if criterion.match_strategy not in JSON_STRATEGIES:
        yield ConfigIssue(
            f"{path}.matchStrategy",
            f"unknown matchStrategy {criterion.match_strategy!r}",
            "use exact or skip",
        )
    tolerance = criterion.number_tolerance
    if tolerance is not None and tolerance < 0:
        yield ConfigIssue(
            f"{path}.numberTolerance",
            f"numberTolerance is negative ({tolerance:g})",
            "a tolerance is the largest difference accepted, 0 or more",
        )
    if criterion.only_tree and criterion.ignore_tree:
        yield ConfigIssue(path, "onlyTree and ignoreTree cannot both be set")
    if criterion.only_tree:
        yield from _check_only_tree(criterion.only_tree, f"{path}.onlyTree")
    if criterion.schema_ is not None:
        problem = check_schema(criterion.schema_)
        if problem:
            yield ConfigIssue(f"{path}.schema", f"invalid JSON Schema: {problem}")


def _check_only_tree(tree: dict[str, object], path: str) -> Iterator[ConfigIssue]:
    for key, entry in tree.items():
        if isinstance(entry, dict):
            yield from _check_only_tree(entry, f"{path}.{key}")
        elif not isinstance(entry, bool):
            yield ConfigIssue(f"{path}.{key}", "onlyTree entries must be true, false or an object")


def check_xml_criterion(criterion: XMLCriterion, path: str) -> Iterator[ConfigIssue]:
    """XML supports only the "skip" strategy (formats.md §3.6)."""
    if criterion.ignore:
        return
    if criterion.match_strategy != "skip":
        yield ConfigIssue(
            f"{path}.matchStrategy",
            f"unknown matchStrategy {criterion.match_strategy!r} for xml",
            'xml supports only "skip" (with "valid": true to check well-formedness)',
        )


def check_rouge_criterion(criterion: RougeCriterion, path: str) -> Iterator[ConfigIssue]:
    """Valid rougeType and measure, registered tokenizer."""
    if criterion.ignore:
        return
    try:
        parse_rouge_type(criterion.rouge_type)
    except ValueError as exc:
        yield ConfigIssue(f"{path}.rougeType", str(exc), "use rouge1..rouge9, rougeL or rougeLsum")
    if criterion.measure not in ROUGE_MEASURES:
        yield ConfigIssue(
            f"{path}.measure",
            f"unknown measure {criterion.measure!r}",
            "use f1, precision or recall",
        )
    yield from _unknown_name(named.tokenizers, criterion.tokenizer_name, f"{path}.tokenizerName")


def check_final_response_criterion(
    criterion: FinalResponseCriterion, path: str
) -> Iterator[ConfigIssue]:
    """Every configured sub-criterion of a final-response check."""
    if criterion.compare_name:
        yield from _unknown_name(named.turn_compares, criterion.compare_name, f"{path}.compareName")
        return
    if not (criterion.text or criterion.json_ or criterion.rouge or criterion.xml):
        yield ConfigIssue(
            path,
            "configures none of text, json, rouge or xml, so every turn fails",
            "add at least one of them",
            warning=True,
        )
    if criterion.text is not None:
        yield from check_text_criterion(criterion.text, f"{path}.text")
    if criterion.json_ is not None:
        yield from check_json_criterion(criterion.json_, f"{path}.json")
    if criterion.rouge is not None:
        yield from check_rouge_criterion(criterion.rouge, f"{path}.rouge")
    if criterion.xml is not None:
        yield from check_xml_criterion(criterion.xml, f"{path}.xml")


def check_strategy(strategy: ToolTrajectoryStrategy, path: str) -> Iterator[ConfigIssue]:
    """The three optional parts of a tool strategy."""
    if strategy.name is not None:
        yield from check_text_criterion(strategy.name, f"{path}.name")
    if strategy.arguments is not None:
        yield from check_json_criterion(strategy.arguments, f"{path}.arguments")
    if strategy.result is not None:
        yield from check_json_criterion(strategy.result, f"{path}.result")


def check_trajectory_criterion(
    criterion: ToolTrajectoryCriterion, path: str
) -> Iterator[ConfigIssue]:
    """Strategies, registered compare function; warn where a tool strategy skips the name."""
    yield from _unknown_name(named.turn_compares, criterion.compare_name, f"{path}.compareName")
    if criterion.default_strategy is not None:
        yield from check_strategy(criterion.default_strategy, f"{path}.defaultStrategy")
    for tool, strategy in (criterion.tool_strategy or {}).items():
        if strategy is None:
            continue  # reported by the loader
        where = f"{path}.toolStrategy.{tool}"
        yield from check_strategy(strategy, where)
        if strategy.name is None:
            yield ConfigIssue(
                where,
                "has no name criterion, so pairs using it are matched without comparing names",
                'add "name": {} to compare names exactly',
                warning=True,
            )
