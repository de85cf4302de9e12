"""agenteval.report.gc_pause: the collector is off inside the block and back as it was after."""

from __future__ import annotations

import gc

import pytest

from agenteval.report.gc_pause import collector_paused


def test_collector_is_paused_and_restored_even_on_error() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
