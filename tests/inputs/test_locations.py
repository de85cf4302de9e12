"""agenteval.inputs.locations: pydantic error locations rendered as the JSON paths users read."""

from __future__ import annotations

import pytest

from agenteval.inputs.locations import join, render


@pytest.mark.parametrize(
    ("loc", "path"),
    [
        (("evalCases", 2, "evalId"), "evalCases[2].evalId"),
        ((0, "metricName"), "[0].metricName"),
        (("criterion", "function-after[check()]", "gate", "rougeF1"), "criterion.gate.rougeF1"),
        (("a", "union[str,int]", "nullable[int]", 3), "a[3]"),
        # The arm of a plain union the error is about: judgeFailures is list[str] | int.
        (("judgeFailures", "list[str]"), "judgeFailures"),
        (("judgeFailures", "int"), "judgeFailures"),
        (("x", "literal['a']", "dict[str,any]", "y"), "x.y"),
        ((), ""),
    ],
)
def test_render_drops_pydantic_tags(loc: tuple[int | str, ...], path: str) -> None:
    assert render(loc) == path


def test_join_extends_a_rendered_path() -> None:
    assert join("evalCases[1]", "conversation", 0) == "evalCases[1].conversation[0]"
    assert join("[2]", 4) == "[2][4]"
    assert join("", "a", 1) == "a[1]"
    assert join("a.b") == "a.b"
