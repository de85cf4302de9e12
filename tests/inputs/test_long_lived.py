"""agenteval.inputs.long_lived: the collector paused while building, a large tree frozen after."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from agenteval.inputs.long_lived import FREEZE_FROM_CHARS, building_long_lived


@pytest.fixture(autouse=True)
def collector_state() -> Iterator[None]:
    """Each test starts with the collector on and nothing frozen, and leaves it so."""
    gc.unfreeze()
    gc.enable()
    yield
    gc.unfreeze()
    gc.enable()


def test_paused_inside_and_a_large_tree_frozen_after() -> None:
    with building_long_lived(FREEZE_FROM_CHARS):
        assert not gc.isenabled()
        tree = [{"k": [i]} for i in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(tree)


def test_a_small_tree_stays_in_the_collectors_reach() -> None:
    with building_long_lived(FREEZE_FROM_CHARS - 1):
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_failure_freezes_nothing_and_restores_the_collector() -> None:
    with pytest.raises(ValueError), building_long_lived(FREEZE_FROM_CHARS):
        raise ValueError("bad file")
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_collector_switched_off_by_the_caller_stays_off_and_unfrozen() -> None:
    gc.disable()
    with building_long_lived(FREEZE_FROM_CHARS):
        pass
    assert not gc.isenabled()
    assert gc.get_freeze_count() == 0
