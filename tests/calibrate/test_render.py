"""The calibration's text: what the console and the page say of a group."""

from __future__ import annotations

import pytest

from agenteval.calibrate.render import _judge_parts


@pytest.mark.parametrize(
    ("flips", "turns", "said"),
    [(1, 300, "(1%)"), (299, 300, "(99%)"), (300, 300, "(100%)"), (0, 300, "(0%)")],
)
def test_a_flip_rate_never_rounds_onto_all_or_none(flips: int, turns: int, said: str) -> None:
    # 1 flip in 300 turns read "(0%)", 299 read "(100%)": as no flip, and every one.
    bias = {"turns": turns, "flips": flips, "flipRate": flips / turns}
    ((kind, line),) = _judge_parts({"positionBias": bias, "disagreements": []})
    assert kind == "line"
    assert str(line).endswith(f"in {flips} of {turns} turns {said}")
