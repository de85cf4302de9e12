"""Up-front validation of criteria: problems a run would otherwise meet on every turn."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import Any

from agenteval.criteria import named
from agenteval.criteria.json_compare import check_schema
from agenteval.criteria.rouge import parse_rouge_type
from agenteval.evaluators.base import ConfigIssue
from agenteval.registry import Registry
from agenteval.schema.metric import (
    JSON_STRATEGIES,
    TEXT_STRATEGIES,
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


def _compare_and_strategy(
    criterion: TextCriterion | JSONCriterion,
    compares: Registry[Any],
    strategies: Collection[str],
    hint: str,
    path: str,
) -> Iterator[ConfigIssue]:
    """A registered ``compareName`` and a known ``matchStrategy`` (text and json alike)."""
    yield from _unknown_name(compares, criterion.compare_name, f"{path}.compareName")
    if criterion.match_strategy not in strategies:
        yield ConfigIssue(
            f"{path}.matchStrategy", f"unknown matchStrategy {criterion.match_strategy!r}", hint
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
    yield from _compare_and_strategy(
        criterion, named.text_compares, TEXT_STRATEGIES, "use exact, contains, regex or skip", path
    )
    if criterion.length is not None:
        yield from check_length_criterion(criterion.length, f"{path}.length")


def check_json_criterion(criterion: JSONCriterion, path: str) -> Iterator[ConfigIssue]:
    """Known strategy, exclusive trees, well-formed onlyTree, valid schema, registered compare."""
    if criterion.ignore:
        return
    yield from _compare_and_strategy(
        criterion, named.json_compares, JSON_STRATEGIES, "use exact or skip", path
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
    """Valid rougeType and measure, registered tokenizer, thresholds within ROUGE's 0..1."""
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
    for key in ("precision", "recall", "f1"):
        value = getattr(criterion.threshold, key)
        if not 0 <= value <= 1:
            effect = "no turn reaches it" if value > 1 else "every turn passes it"
            yield ConfigIssue(
                f"{path}.threshold.{key}",
                f"{value:g} is outside ROUGE's scores (0 to 1)",
                f"{effect}; e.g. 0.5",
            )


def _check_parts(
    path: str, *parts: tuple[str, Any | None, Callable[[Any, str], Iterator[ConfigIssue]]]
) -> Iterator[ConfigIssue]:
    """Each optional sub-criterion that is set, checked at ``path.<key>``, in the given order."""
    for key, part, check in parts:
        if part is not None:
            yield from check(part, f"{path}.{key}")


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
    yield from _check_parts(
        path,
        ("text", criterion.text, check_text_criterion),
        ("json", criterion.json_, check_json_criterion),
        ("rouge", criterion.rouge, check_rouge_criterion),
        ("xml", criterion.xml, check_xml_criterion),
    )


def check_strategy(strategy: ToolTrajectoryStrategy, path: str) -> Iterator[ConfigIssue]:
    """The three optional parts of a tool strategy."""
    yield from _check_parts(
        path,
        ("name", strategy.name, check_text_criterion),
        ("arguments", strategy.arguments, check_json_criterion),
        ("result", strategy.result, check_json_criterion),
    )


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
