"""Tool-call trajectory comparison of one turn (formats.md §3.9, §5.2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenteval.criteria import named
from agenteval.criteria.compare import run_named_compare
from agenteval.criteria.json_compare import JSONDifference, json_matches, json_outcome
from agenteval.criteria.text import text_failure, text_matches
from agenteval.criteria.verdict import MATCH, Verdict, mismatch
from agenteval.schema.evalset import Invocation, Tool
from agenteval.schema.metric import (
    JSONCriterion,
    TextCriterion,
    ToolTrajectoryCriterion,
    ToolTrajectoryStrategy,
)
from agenteval.steps.record import listening

PREFIX = "tool trajectory mismatch: "

# Used only when the criterion has no defaultStrategy: exact name, arguments and result.
DEFAULT_STRATEGY = ToolTrajectoryStrategy(
    name=TextCriterion(match_strategy="exact"),
    arguments=JSONCriterion(),
    result=JSONCriterion(),
)


def strategy_for(
    criterion: ToolTrajectoryCriterion, actual: Tool, expected: Tool
) -> ToolTrajectoryStrategy | None:
    """A pair's strategy: by actual name, then expected name, then default (None: a null entry)."""
    table = criterion.tool_strategy
    if table:
        if actual.name in table:
            return table[actual.name]
        if expected.name in table:
            return table[expected.name]
    default = criterion.default_strategy
    return DEFAULT_STRATEGY if default is None else default


def pair_matches(strategy: ToolTrajectoryStrategy | None, actual: Tool, expected: Tool) -> bool:
    """Whether every present part of the strategy accepts the pair; the id is never compared."""
    if strategy is None:
        return False
    name = strategy.name
    if name is not None and not text_matches(name, actual.name, expected.name):
        return False
    arguments = strategy.arguments
    if arguments is not None and not json_matches(
        arguments, actual.arguments, expected.arguments, raw_text=False
    ):
        return False
    result = strategy.result
    return result is None or json_matches(result, actual.result, expected.result, raw_text=False)


def pair_reason(strategy: ToolTrajectoryStrategy | None, actual: Tool, expected: Tool) -> str:
    """Why a pair does not match, naming both tools (only called on failure)."""
    head = f"actual {_tool_label(actual)} mismatch with expected {_tool_label(expected)}"
    if strategy is None:
        return f"{head}: tool strategy is null"
    if strategy.name is not None:
        failure = text_failure(strategy.name, actual.name, expected.name)
        if failure is not None:
            return f"{head}: name mismatch: {failure}"
    for part, criterion, a, e in (
        ("arguments", strategy.arguments, actual.arguments, expected.arguments),
        ("result", strategy.result, actual.result, expected.result),
    ):
        if criterion is not None:
            outcome = json_outcome(criterion, a, e, raw_text=False)
            if outcome is not None:
                return f"{head}: {part} mismatch: {outcome}"
    return head


def _tool_label(tool: Tool) -> str:
    # Reference turns often carry no call id; leave it out rather than print an empty one.
    return f"tool {tool.id} named {tool.name}" if tool.id else f"tool named {tool.name}"


def _unmatched(expected: Tool) -> str:
    if expected.id:
        return f"tool id {expected.id} with name {expected.name} mismatch"
    return f"tool with name {expected.name} mismatch"


class PairTable:
    """The pair predicate of one comparison, each (expected, actual) pair evaluated at most once."""

    __slots__ = ("actual", "criterion", "expected", "known", "width")

    def __init__(
        self,
        criterion: ToolTrajectoryCriterion,
        actual: Sequence[Tool],
        expected: Sequence[Tool],
        memo: bool,
    ) -> None:
        self.criterion = criterion
        self.actual = actual
        self.expected = expected
        self.width = len(actual)
        # 0 = not evaluated yet, 1 = match, 2 = no match.
        self.known = bytearray(len(expected) * self.width if memo else 0)

    def fresh(self, left: int, right: int) -> bool:
        """Evaluate a pair without memoising (for scans that visit each pair once)."""
        a, e = self.actual[right], self.expected[left]
        return pair_matches(strategy_for(self.criterion, a, e), a, e)

    def __call__(self, left: int, right: int) -> bool:
        slot = left * self.width + right
        state = self.known[slot]
        if state == 0:
            state = 1 if self.fresh(left, right) else 2
            self.known[slot] = state
        return state == 1

    def reason(self, left: int, right: int) -> str:
        """Why expected tool ``left`` and actual tool ``right`` do not match."""
        a, e = self.actual[right], self.expected[left]
        return pair_reason(strategy_for(self.criterion, a, e), a, e)


def ordered_pairs(pairs: PairTable) -> tuple[list[tuple[int, int]], tuple[int, int] | None]:
    """The in-order pairing (expected, actual) and, on failure, (expected, first candidate).

    Greedy earliest match is optimal for subsequence matching.  The candidate is the
    actual index the failing expected call was first tried against (-1: none left).
    """
    n_actual = len(pairs.actual)
    cursor = 0
    found: list[tuple[int, int]] = []
    for left in range(len(pairs.expected)):
        start = cursor
        while cursor < n_actual and not pairs.fresh(left, cursor):
            cursor += 1
        if cursor == n_actual:
            return found, (left, start if start < n_actual else -1)
        found.append((left, cursor))
        cursor += 1
    return found, None


def _ordered(pairs: PairTable) -> Verdict:
    _, failed = ordered_pairs(pairs)
    if failed is None:
        return MATCH
    left, start = failed
    detail = pairs.reason(left, start) if start >= 0 else "no actual tool call left"
    return mismatch(f"{PREFIX}match tools: {_unmatched(pairs.expected[left])}: {detail}")


def _augment(pairs: PairTable, root: int, owner: list[int], seen: list[int]) -> bool:
    """Kuhn's augmenting-path search from expected tool ``root``, iterative (no recursion limit)."""
    width = pairs.width
    seen[root] = root
    lefts = [root]
    offsets = [0]
    via: list[int] = []  # via[d] is the actual tool that leads from lefts[d] to lefts[d + 1]
    while lefts:
        left = lefts[-1]
        offset = offsets[-1]
        descended = False
        while offset < width:
            # Rotating from the diagonal finds the usual in-order pairing first; it does not
            # change which expected tools end up matched (those form the same greedy basis).
            right = (left + offset) % width
            offset += 1
            if not pairs(left, right):
                continue
            holder = owner[right]
            if holder == -1:
                via.append(right)
                for depth, taken in enumerate(via):
                    owner[taken] = lefts[depth]
                return True
            if seen[holder] != root:
                seen[holder] = root
                offsets[-1] = offset
                via.append(right)
                lefts.append(holder)
                offsets.append(0)
                descended = True
                break
        if not descended:
            lefts.pop()
            offsets.pop()
            if via:
                via.pop()
    return False


def _greedy_pairs_all(pairs: PairTable) -> list[tuple[int, int]] | None:
    """Each expected tool, in order, paired with a still-free actual tool it matches, or None.

    Success is a complete matching, so the maximum matching is complete too and the
    turn matches; that settles the common cases (same order, or a permutation of
    distinct calls) without the bookkeeping of augmenting paths.  On failure nothing
    is concluded: Kuhn's search runs, reusing every pair verdict already memoised.
    """
    free = list(range(pairs.width))
    found: list[tuple[int, int]] = []
    for left in range(len(pairs.expected)):
        for position, right in enumerate(free):
            if pairs(left, right):
                found.append((left, right))
                del free[position]
                break
        else:
            return None
    return found


def _unordered(pairs: PairTable) -> Verdict:
    if _greedy_pairs_all(pairs) is not None:
        return MATCH
    owner = [-1] * pairs.width  # owner[actual index] = expected index matched to it
    seen = [-1] * len(pairs.expected)  # seen[left] = root of the search that last visited it
    missing = [
        left for left in range(len(pairs.expected)) if not _augment(pairs, left, owner, seen)
    ]
    if not missing:
        return MATCH
    return mismatch(f"{PREFIX}match tools: " + "; ".join(_explain(pairs, left) for left in missing))


def pair_table(
    criterion: ToolTrajectoryCriterion, actual: Sequence[Tool], expected: Sequence[Tool]
) -> PairTable:
    """The memoised pair predicate ``(expected index, actual index) -> match`` of a criterion."""
    return PairTable(criterion, actual, expected, memo=True)


def maximum_matching(pairs: PairTable) -> list[tuple[int, int]]:
    """(expected, actual) index pairs of a maximum matching, as the unordered comparison finds it.

    The greedy pass first (a complete matching when calls come in order or permuted),
    then Kuhn's augmenting paths, the same search :func:`check_tools` runs.
    """
    greedy = _greedy_pairs_all(pairs)
    if greedy is not None:
        return greedy
    owner = [-1] * pairs.width
    seen = [-1] * len(pairs.expected)
    for left in range(len(pairs.expected)):
        _augment(pairs, left, owner, seen)
    return sorted((left, right) for right, left in enumerate(owner) if left != -1)


def _explain(pairs: PairTable, left: int) -> str:
    """Why expected tool ``left`` found no partner in a maximum matching."""
    expected = pairs.expected[left]
    partners = [right for right in range(pairs.width) if pairs(left, right)]
    if partners:
        return (
            f"{_unmatched(expected)}: every actual call it matches is used by another expected call"
        )
    # Explain against the first actual call of the same name, the likely counterpart.
    for right, actual in enumerate(pairs.actual):
        if actual.name == expected.name:
            return f"{_unmatched(expected)}: {pairs.reason(left, right)}"
    return f"{_unmatched(expected)}: no actual call with that name"


def check_tools(
    criterion: ToolTrajectoryCriterion,
    actual: Sequence[Tool],
    expected: Sequence[Tool],
    actual_turn: Invocation | None = None,
    expected_turn: Invocation | None = None,
) -> Verdict:
    """Compare the actual tool calls of a turn with the expected ones (formats.md §5.2)."""
    recorder = listening()
    if recorder is None:
        return _check_tools(criterion, actual, expected, actual_turn, expected_turn)
    with recorder.quiet():
        verdict = _check_tools(criterion, actual, expected, actual_turn, expected_turn)
        data = pairing_record(criterion, actual, expected)
    data.update(ok=verdict.ok, reason=verdict.reason)
    recorder.add("trajectory", data)
    return verdict


def strategy_source(criterion: ToolTrajectoryCriterion, actual: Tool, expected: Tool) -> str:
    """Where a pair's strategy comes from, as :func:`strategy_for` picks it."""
    table = criterion.tool_strategy
    if table:
        if actual.name in table:
            return f"toolStrategy[{actual.name!r}]"
        if expected.name in table:
            return f"toolStrategy[{expected.name!r}]"
    if criterion.default_strategy is None:
        return "built-in default (exact name, arguments and result)"
    return "defaultStrategy"


def part_verdicts(
    strategy: ToolTrajectoryStrategy | None, actual: Tool, expected: Tool
) -> list[dict[str, Any]]:
    """Per part (name, arguments, result) of one pair: compared or not, and the verdict."""
    if strategy is None:
        return [{"part": "strategy", "compared": False, "ok": False, "reason": "null strategy"}]
    parts: list[dict[str, Any]] = []
    name = strategy.name
    if name is None:
        parts.append({"part": "name", "compared": False, "ok": True})
    else:
        failure = text_failure(name, actual.name, expected.name)
        parts.append(
            {
                "part": "name",
                "compared": True,
                "ok": failure is None,
                "reason": failure or "",
                "actual": actual.name,
                "expected": expected.name,
            }
        )
    for part, criterion, a, e in (
        ("arguments", strategy.arguments, actual.arguments, expected.arguments),
        ("result", strategy.result, actual.result, expected.result),
    ):
        if criterion is None:
            parts.append({"part": part, "compared": False, "ok": True})
            continue
        outcome = json_outcome(criterion, a, e, raw_text=False)
        entry: dict[str, Any] = {
            "part": part,
            "compared": criterion.match_strategy != "skip" and not criterion.ignore,
            "ok": outcome is None,
            "reason": "" if outcome is None else str(outcome),
        }
        if isinstance(outcome, JSONDifference):
            entry.update(path=outcome.location(), actual=outcome.actual, expected=outcome.expected)
        parts.append(entry)
    return parts


def _pair_entry(
    criterion: ToolTrajectoryCriterion,
    actual: Sequence[Tool],
    expected: Sequence[Tool],
    left: int,
    right: int,
) -> dict[str, Any]:
    a, e = actual[right], expected[left]
    return {
        "expected": left,
        "actual": right,
        "expectedName": e.name,
        "actualName": a.name,
        "strategy": strategy_source(criterion, a, e),
        "parts": part_verdicts(strategy_for(criterion, a, e), a, e),
    }


def pairing_record(
    criterion: ToolTrajectoryCriterion, actual: Sequence[Tool], expected: Sequence[Tool]
) -> dict[str, Any]:
    """How the calls of one turn were paired, with each pair's per-part verdicts."""
    data: dict[str, Any] = {
        "mode": "ordered" if criterion.order_sensitive else "unordered",
        "subset": criterion.subset_matching,
        "compareName": criterion.compare_name or None,
        "actualCalls": [tool.name for tool in actual],
        "expectedCalls": [tool.name for tool in expected],
    }
    if criterion.compare_name or not expected or not actual:
        data.update(pairs=[], unmatched=[], extra=list(range(len(actual))))
        return data
    table = PairTable(criterion, actual, expected, memo=True)
    unmatched: list[dict[str, Any]] = []
    if criterion.order_sensitive:
        found, failed = ordered_pairs(table)
        if failed is not None:
            left, start = failed
            tried = _pair_entry(criterion, actual, expected, left, start) if start >= 0 else None
            unmatched.append(
                {"expected": left, "expectedName": expected[left].name, "tried": tried}
            )
    else:
        found = maximum_matching(table)
        paired = {left for left, _ in found}
        for left in range(len(expected)):
            if left in paired:
                continue
            partners = [right for right in range(len(actual)) if table(left, right)]
            same = [r for r, tool in enumerate(actual) if tool.name == expected[left].name]
            tried = _pair_entry(criterion, actual, expected, left, same[0]) if same else None
            unmatched.append(
                {
                    "expected": left,
                    "expectedName": expected[left].name,
                    "tried": tried,
                    "partnersTaken": partners,
                }
            )
    used = {right for _, right in found}
    data.update(
        pairs=[_pair_entry(criterion, actual, expected, left, right) for left, right in found],
        unmatched=unmatched,
        extra=[right for right in range(len(actual)) if right not in used],
    )
    return data


def _check_tools(
    criterion: ToolTrajectoryCriterion,
    actual: Sequence[Tool],
    expected: Sequence[Tool],
    actual_turn: Invocation | None,
    expected_turn: Invocation | None,
) -> Verdict:
    if criterion.compare_name:
        if actual_turn is None:
            actual_turn = Invocation(tools=list(actual))
        if expected_turn is None:
            expected_turn = Invocation(tools=list(expected))
        failure = run_named_compare(
            named.turn_compares, criterion.compare_name, actual_turn, expected_turn
        )
        return MATCH if failure is None else mismatch(PREFIX + failure)
    n_actual, n_expected = len(actual), len(expected)
    if n_actual == 0 and n_expected == 0:
        return MATCH
    if criterion.subset_matching:
        if n_actual < n_expected:
            return mismatch(
                f"{PREFIX}validate tool counts: number of tool calls mismatch: "
                f"actual({n_actual}) < expected({n_expected})"
            )
    elif n_actual != n_expected:
        return mismatch(
            f"{PREFIX}validate tool counts: number of tool calls mismatch: "
            f"actual({n_actual}) != expected({n_expected})"
        )
    if n_expected == 0:
        return MATCH
    if criterion.order_sensitive:
        return _ordered(PairTable(criterion, actual, expected, memo=False))
    return _unordered(PairTable(criterion, actual, expected, memo=True))
