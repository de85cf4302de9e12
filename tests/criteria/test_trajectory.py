"""Tool trajectory criterion: formats.md §3.9, §5.2, the §5.5 vectors, D1, and properties."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval.criteria import named
from agenteval.criteria.trajectory import check_tools
from agenteval.schema.evalset import Invocation, Tool
from agenteval.schema.metric import ToolTrajectoryCriterion


def crit(**fields: Any) -> ToolTrajectoryCriterion:
    return ToolTrajectoryCriterion.model_validate(fields)


def tool(name: str, args: Any = None, result: Any = None, id: str = "") -> Tool:
    return Tool(id=id or f"id-{name}", name=name, arguments=args, result=result)


def letters(text: str) -> list[Tool]:
    """Tools A, B, C... that match only themselves under the default strategy."""
    return [tool(letter) for letter in text]


DEFAULT = crit()


@pytest.mark.parametrize(
    ("subset", "ordered", "expected", "actual", "score"),
    [
        (False, False, "A", "AB", 0),
        (True, False, "A", "AB", 1),
        (True, False, "CA", "ABC", 1),
        (True, True, "AC", "ABC", 1),
        (True, True, "CA", "ABC", 0),
        (True, False, "CD", "ABC", 0),
        (False, False, "AA", "A", 0),
        (False, True, "AA", "A", 0),
        (True, False, "AA", "A", 0),
        (True, True, "AA", "A", 0),
        (False, False, "", "", 1),
        (False, False, "", "A", 0),
        (True, False, "", "A", 1),
        (True, True, "", "A", 1),
    ],
)
def test_examples_of_section_5_2(
    subset: bool, ordered: bool, expected: str, actual: str, score: int
) -> None:
    criterion = crit(subsetMatching=subset, orderSensitive=ordered)
    assert check_tools(criterion, letters(actual), letters(expected)).ok is bool(score)


def test_swapped_calls_match_only_when_unordered() -> None:
    actual = [
        tool("shared", {"a": 1}, {"r": 2}, id="call-1"),
        tool("shared", {"a": 2}, {"r": 3}, id="call-2"),
    ]
    expected = [actual[1], actual[0]]
    assert check_tools(DEFAULT, actual, expected).ok
    verdict = check_tools(crit(orderSensitive=True), actual, expected)
    assert not verdict.ok
    assert verdict.reason.startswith("tool trajectory mismatch: match tools: ")


def test_ordered_mismatch_names_the_unmatched_expected_call() -> None:
    actual = [
        tool("other", {"extra": 1}, id="call-0"),
        tool("tool", {"a": 1}, id="call-1"),
        tool("tool", {"a": 2}, id="call-2"),
    ]
    expected = [
        tool("tool", {"a": 1}, id="call-1"),
        tool("tool", {"a": 2}, id="call-2"),
        tool("tool", {"a": 3}, id="call-3"),
    ]
    verdict = check_tools(crit(orderSensitive=True), actual, expected)
    assert not verdict.ok
    assert "tool id call-3 with name tool mismatch" in verdict.reason


def test_subset_matching() -> None:
    actual = [tool("tool", {"a": n}, id=f"call-{n + 1}") for n in (0, 1, 2)]
    expected = [tool("tool", {"a": 1}, id="call-2"), tool("tool", {"a": 2}, id="call-3")]
    assert check_tools(crit(subsetMatching=True), actual, expected).ok
    assert check_tools(crit(subsetMatching=True, orderSensitive=True), actual, expected).ok


def test_count_rules() -> None:
    one = [tool("tool", {"a": 1})]
    two = [tool("tool", {"a": 1}), tool("tool", {"a": 2})]
    verdict = check_tools(DEFAULT, one, two)
    assert verdict.reason == (
        "tool trajectory mismatch: validate tool counts: "
        "number of tool calls mismatch: actual(1) != expected(2)"
    )
    verdict = check_tools(crit(subsetMatching=True), one, two)
    assert not verdict.ok
    assert "actual(1) < expected(2)" in verdict.reason


def test_ordered_subset_skips_leading_extra() -> None:
    actual = [tool("other", {"a": 0}, id="call-1"), tool("tool", {"a": 1}, id="call-2")]
    expected = [tool("tool", {"a": 1}, id="call-2")]
    assert check_tools(crit(orderSensitive=True, subsetMatching=True), actual, expected).ok


def test_strategy_lookup_falls_back_to_the_expected_name() -> None:
    criterion = crit(toolStrategy={"custom": {}})
    actual = [tool("unknown", {}, id="call-1")]
    expected = [tool("custom", {}, id="call-1")]
    assert check_tools(criterion, actual, expected).ok


def test_strategy_lookup_tries_the_actual_name_first() -> None:
    # actual "a" has a lenient strategy, expected "b" a strict one: the actual's wins.
    criterion = crit(toolStrategy={"a": {}, "b": {"name": {}}})
    assert check_tools(criterion, [tool("a")], [tool("b")]).ok
    assert not check_tools(criterion, [tool("b")], [tool("a")]).ok


def test_absent_parts_are_not_checked() -> None:
    only_result = crit(toolStrategy={"get_time": {"result": {"ignore": True}}})
    assert check_tools(
        only_result, [tool("get_time", {"tz": "UTC"}, "1")], [tool("get_time", {}, "2")]
    ).ok
    anything = crit(defaultStrategy={})
    assert check_tools(anything, [tool("x", 1, 2)], [tool("y", 3, 4)]).ok


def test_built_in_default_compares_name_arguments_and_result() -> None:
    base = tool("t", {"k": "v"}, {"out": "ok"})
    assert check_tools(DEFAULT, [base], [tool("t", {"k": "v"}, {"out": "ok"}, id="other-id")]).ok
    args = check_tools(DEFAULT, [base], [tool("t", {"k": "other"}, {"out": "ok"})])
    assert not args.ok
    assert 'arguments mismatch: value mismatch at $.k: "v" vs "other"' in args.reason
    result = check_tools(DEFAULT, [base], [tool("t", {"k": "v"}, {"out": "no"})])
    assert "result mismatch" in result.reason
    name = check_tools(DEFAULT, [tool("one")], [tool("two")])
    assert not name.ok
    assert "tool id id-two with name two mismatch" in name.reason


def test_tolerance_in_default_strategy() -> None:
    assert check_tools(DEFAULT, [tool("t", {"x": 0.3000005})], [tool("t", {"x": 0.3})]).ok
    assert not check_tools(DEFAULT, [tool("t", {"x": 0.301})], [tool("t", {"x": 0.3})]).ok


def test_d1_bool_argument_is_not_a_number() -> None:
    verdict = check_tools(DEFAULT, [tool("t", {"a": True})], [tool("t", {"a": 1})])
    assert not verdict.ok
    assert "arguments mismatch" in verdict.reason


def test_no_tools_on_both_sides() -> None:
    assert check_tools(DEFAULT, [], []).ok
    assert check_tools(crit(orderSensitive=True), (), ()).ok


def test_null_tool_strategy_entry_fails_its_pairs() -> None:
    criterion = ToolTrajectoryCriterion(tool_strategy={"t": None})
    verdict = check_tools(criterion, [tool("t")], [tool("t")])
    assert not verdict.ok
    assert "tool strategy is null" in verdict.reason


def test_named_turn_compare(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[Invocation, Invocation]] = []

    def same_count(actual: Invocation, expected: Invocation) -> bool:
        seen.append((actual, expected))
        return len(actual.tools or ()) == len(expected.tools or ())

    monkeypatch.setitem(named.turn_compares, "same_count", same_count)
    criterion = crit(compareName="same_count")
    turn_a = Invocation(invocation_id="a", tools=letters("XY"))
    turn_e = Invocation(invocation_id="e", tools=letters("AB"))
    assert check_tools(criterion, turn_a.tools or [], turn_e.tools or [], turn_a, turn_e).ok
    assert seen[-1] == (turn_a, turn_e)
    verdict = check_tools(criterion, letters("X"), letters("AB"))
    assert not verdict.ok
    assert verdict.reason.startswith("tool trajectory mismatch: ")
    assert [t.name for t in seen[-1][1].tools or []] == ["A", "B"]


def test_named_turn_compare_raises_or_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(actual: Invocation, expected: Invocation) -> bool:
        raise RuntimeError("boom")

    monkeypatch.setitem(named.turn_compares, "boom", boom)
    assert check_tools(crit(compareName="boom"), [], []).reason == "tool trajectory mismatch: boom"
    assert "gone" in check_tools(crit(compareName="gone"), [], []).reason


def edges_criterion() -> ToolTrajectoryCriterion:
    """Pairs match when the actual call's id is listed in the expected call's arguments."""
    return crit(defaultStrategy={"arguments": {"compareName": "listed"}})


def listed(actual: Any, expected: Any) -> bool:
    return bool(actual["id"] in expected["ok"])


def test_pair_predicate_is_memoised(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, int]] = []

    def counted(actual: Any, expected: Any) -> bool:
        calls.append((actual["id"], expected["me"]))
        return listed(actual, expected)

    monkeypatch.setitem(named.json_compares, "listed", counted)
    n = 6
    # Expected i accepts actual i and i+1, the last one only actual 0: long augmenting paths.
    expected = [tool("t", {"me": i, "ok": [i, i + 1] if i < n - 1 else [0]}) for i in range(n)]
    actual = [tool("t", {"id": j}) for j in range(n)]
    assert check_tools(edges_criterion(), actual, expected).ok
    assert len(calls) == len(set(calls))


def test_long_augmenting_path_needs_no_recursion(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(named.json_compares, "listed", listed)
    n = 3000  # far beyond Python's recursion limit
    expected = [tool("t", {"ok": [i, i + 1] if i < n - 1 else [0]}) for i in range(n)]
    actual = [tool("t", {"id": j}) for j in range(n)]
    assert check_tools(edges_criterion(), actual, expected).ok
    expected[-1] = tool("t", {"ok": [n]}, id="last")
    verdict = check_tools(edges_criterion(), actual, expected)
    assert not verdict.ok
    assert "tool id last with name t mismatch" in verdict.reason


# Properties: Kuhn and the greedy scan against brute force, permutation, subsets.

NAMES = st.text(alphabet="ab", max_size=2)
CONTAINS = crit(defaultStrategy={"name": {"matchStrategy": "contains"}})


def named_tools(names: list[str]) -> list[Tool]:
    return [tool(name, id=f"c{index}") for index, name in enumerate(names)]


def perfect_matching_exists(actual: list[str], expected: list[str]) -> bool:
    return any(
        all(e in actual[j] for e, j in zip(expected, chosen, strict=True))
        for chosen in itertools.permutations(range(len(actual)), len(expected))
    )


def subsequence_exists(actual: list[str], expected: list[str]) -> bool:
    return any(
        all(e in actual[j] for e, j in zip(expected, chosen, strict=True))
        for chosen in itertools.combinations(range(len(actual)), len(expected))
    )


@given(st.lists(NAMES, max_size=5), st.lists(NAMES, max_size=5))
def test_unordered_subset_equals_brute_force_matching(
    actual: list[str], expected: list[str]
) -> None:
    criterion = crit(defaultStrategy={"name": {"matchStrategy": "contains"}}, subsetMatching=True)
    verdict = check_tools(criterion, named_tools(actual), named_tools(expected))
    assert verdict.ok == (
        len(actual) >= len(expected) and perfect_matching_exists(actual, expected)
    )


@given(st.lists(NAMES, max_size=5), st.lists(NAMES, max_size=5))
def test_ordered_subset_equals_brute_force_subsequence(
    actual: list[str], expected: list[str]
) -> None:
    criterion = crit(
        defaultStrategy={"name": {"matchStrategy": "contains"}},
        subsetMatching=True,
        orderSensitive=True,
    )
    verdict = check_tools(criterion, named_tools(actual), named_tools(expected))
    assert verdict.ok == (len(actual) >= len(expected) and subsequence_exists(actual, expected))


@given(
    st.lists(NAMES, min_size=1, max_size=6), st.lists(NAMES, min_size=1, max_size=6), st.randoms()
)
def test_unordered_result_is_invariant_under_permutation(
    actual: list[str], expected: list[str], rng: Any
) -> None:
    shuffled = list(actual)
    rng.shuffle(shuffled)
    criterion = crit(defaultStrategy={"name": {"matchStrategy": "contains"}}, subsetMatching=True)
    first = check_tools(criterion, named_tools(actual), named_tools(expected))
    second = check_tools(criterion, named_tools(shuffled), named_tools(expected))
    assert first.ok == second.ok


@settings(max_examples=60)
@given(
    st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 2)), max_size=5),
    st.lists(st.tuples(st.sampled_from("xyz"), st.integers(0, 2)), max_size=4),
    st.randoms(),
)
def test_subset_never_fails_with_extra_actual_calls(
    calls: list[tuple[str, int]], extras: list[tuple[str, int]], rng: Any
) -> None:
    expected = [tool(name, {"n": n}) for name, n in calls]
    # Insert the extras at random places, keeping the expected calls in order.
    merged: list[Tool] = list(expected)
    for name, n in extras:
        merged.insert(rng.randint(0, len(merged)), tool(name, {"n": n}))
    for ordered in (False, True):
        assert check_tools(crit(subsetMatching=True, orderSensitive=ordered), merged, expected).ok
    shuffled = list(merged)
    rng.shuffle(shuffled)
    assert check_tools(crit(subsetMatching=True), shuffled, expected).ok


def test_unordered_reasons_explain_each_unmatched_call() -> None:
    criterion = crit(subsetMatching=True)
    actual = [tool("x", {"k": 1}, id="a1"), tool("y", id="a2")]
    taken = check_tools(
        criterion, actual, [tool("x", {"k": 1}, id="e1"), tool("x", {"k": 1}, id="e2")]
    )
    assert taken.reason == (
        "tool trajectory mismatch: match tools: tool id e2 with name x mismatch: "
        "every actual call it matches is used by another expected call"
    )
    differs = check_tools(criterion, actual, [tool("x", {"k": 2}, id="e1"), tool("z", id="e2")])
    assert differs.reason == (
        "tool trajectory mismatch: match tools: tool id e1 with name x mismatch: "
        "actual tool a1 named x mismatch with expected tool e1 named x: "
        "arguments mismatch: value mismatch at $.k: 1 vs 2; "
        "tool id e2 with name z mismatch: no actual call with that name"
    )
