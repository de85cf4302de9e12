"""``toolMock`` rules (formats.md §2.9): answer the agent's calls of mocked tools.

Rules for one tool name are tried in file order and the first whose argument
rule matches wins; arguments are compared with the JSON criterion of §3.5
(``numberTolerance`` defaults to 0 here).  A call of a mocked tool that no rule
matches fails the turn, as in trpc-agent-go.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agenteval.criteria.json_compare import json_outcome
from agenteval.errors import CaseError
from agenteval.schema.metric import JSONCriterion

# (prompt, the call's arguments as JSON text) -> generated result
Generator = Callable[[str, str], Awaitable[Any]]

_ARGUMENT_KEYS = frozenset({"ignore", "expected", "onlyTree", "ignoreTree", "numberTolerance"})
_RULE_KEYS = frozenset({"name", "arguments", "result", "llmGenerator"})


class ToolMockError(CaseError):
    """A toolMock entry is malformed, or a mocked call matched no rule."""


@dataclass(frozen=True, slots=True)
class MockRule:
    """One ``MockTool`` entry."""

    name: str
    criterion: JSONCriterion | None
    expected: Any = None
    result: Any = None
    prompt: str | None = None

    def matches(self, arguments: Any) -> str | None:
        """None when the call's arguments satisfy this rule, else why not."""
        if self.criterion is None:
            return None
        outcome = json_outcome(self.criterion, arguments, self.expected, raw_text=False)
        return None if outcome is None else str(outcome)


@dataclass(slots=True)
class ToolMocks:
    """The mock rules of one turn, by tool name."""

    rules: dict[str, list[MockRule]] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """The mocked tool names, sorted."""
        return sorted(self.rules)

    def __contains__(self, name: object) -> bool:
        return name in self.rules

    async def answer(self, name: str, arguments: Any, generate: Generator | None) -> Any:
        """The mocked result of a call, or ToolMockError when no rule matches."""
        reasons: list[str] = []
        for rule in self.rules.get(name, []):
            reason = rule.matches(arguments)
            if reason is not None:
                reasons.append(reason)
                continue
            if rule.prompt is None:
                return rule.result
            if generate is None:
                raise ToolMockError(
                    f"tool {name!r}: llmGenerator needs a judge model in the metric file"
                )
            text = json.dumps(arguments, ensure_ascii=False) if arguments is not None else "{}"
            return await generate(rule.prompt, text)
        detail = f": {reasons[-1]}" if reasons else ""
        raise ToolMockError(f"tool {name!r} configured for mock but no rule matched{detail}")


def _criterion(raw: Any, where: str) -> tuple[JSONCriterion | None, Any]:
    if raw is None:
        return None, None
    if not isinstance(raw, Mapping):
        raise ToolMockError(f"{where}.arguments: expected an object")
    unknown = sorted(set(raw) - _ARGUMENT_KEYS)
    if unknown:
        raise ToolMockError(f"{where}.arguments: unknown key {unknown[0]!r}")
    if raw.get("ignore") is True:
        if len(raw) > 1:
            raise ToolMockError(
                f"{where}.arguments: ignore cannot be configured with expected, onlyTree, "
                "ignoreTree, or numberTolerance"
            )
        return None, None
    if "expected" not in raw or raw["expected"] is None:
        raise ToolMockError(f"{where}.arguments: expected is required when ignore is false")
    if raw.get("onlyTree") and raw.get("ignoreTree"):
        raise ToolMockError(
            f"{where}.arguments: onlyTree and ignoreTree cannot be set at the same time"
        )
    tolerance = raw.get("numberTolerance", 0.0)
    if not isinstance(tolerance, int | float) or isinstance(tolerance, bool) or tolerance < 0:
        raise ToolMockError(f"{where}.arguments.numberTolerance: must be a number >= 0")
    criterion = JSONCriterion(
        only_tree=raw.get("onlyTree") or None,
        ignore_tree=raw.get("ignoreTree") or None,
        number_tolerance=float(tolerance),
    )
    return criterion, raw["expected"]


def _rule(raw: Any, where: str) -> MockRule:
    if not isinstance(raw, Mapping):
        raise ToolMockError(f"{where}: expected an object")
    unknown = sorted(set(raw) - _RULE_KEYS)
    if unknown:
        raise ToolMockError(f"{where}: unknown key {unknown[0]!r}")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise ToolMockError(f"{where}.name: a non-empty tool name is required")
    criterion, expected = _criterion(raw.get("arguments"), where)
    generator = raw.get("llmGenerator")
    has_result = "result" in raw and raw["result"] is not None
    if generator is not None:
        if has_result:
            raise ToolMockError(f"{where}: llmGenerator cannot be configured with result")
        prompt = generator.get("prompt") if isinstance(generator, Mapping) else None
        if not isinstance(prompt, str) or not prompt.strip():
            raise ToolMockError(f"{where}.llmGenerator.prompt: must be a non-empty string")
        return MockRule(name, criterion, expected, prompt=prompt)
    if not has_result:
        raise ToolMockError(f"{where}: a static tool mock needs result (or llmGenerator)")
    return MockRule(name, criterion, expected, result=raw["result"])


def parse_tool_mocks(raw: Any, side: str = "actual", where: str = "toolMock") -> ToolMocks:
    """The ``toolMock.<side>`` rules of a turn; ToolMockError names the bad entry."""
    mocks = ToolMocks()
    if raw is None:
        return mocks
    if not isinstance(raw, Mapping):
        raise ToolMockError(f"{where}: expected an object")
    unknown = sorted(set(raw) - {"actual", "expected"})
    if unknown:
        raise ToolMockError(f"{where}: unknown key {unknown[0]!r}")
    entries = raw.get(side)
    if entries is None:
        return mocks
    if not isinstance(entries, Sequence) or isinstance(entries, str):
        raise ToolMockError(f"{where}.{side}: expected an array")
    for index, entry in enumerate(entries):
        rule = _rule(entry, f"{where}.{side}[{index}]")
        mocks.rules.setdefault(rule.name, []).append(rule)
    return mocks
