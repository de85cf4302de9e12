"""Build large, long-lived object trees (loaded result files) without the cyclic GC.

Validating a 10,000-case result file (70 MB) builds about five million objects,
none of them garbage.  With the collector on, every automatic collection of the
older generations re-scanned all that was built so far: 80% of the reading time
(``bench/result_reading.py``).  Paused while building, the same collections would
only come later, once per generation, when the command renders or diffs; so a
large tree is frozen once built (``gc.freeze``): it lives as long as the command
that read it, and :func:`agenteval.api.relaxed_gc` unfreezes after a run.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Texts from this size on are frozen once read (~150 result cases); smaller ones cost
# the collector little and stay in its reach.
FREEZE_FROM_CHARS = 1_000_000


@contextmanager
def building_long_lived(chars: int) -> Iterator[None]:
    """Pause automatic collection while the block builds objects from a text of ``chars``.

    When the block succeeds, the collector was on, and the text is large, everything
    alive is moved out of the collector's reach (``gc.freeze``).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    except BaseException:
        if was_enabled:
            gc.enable()
        raise
    if was_enabled:
        if chars >= FREEZE_FROM_CHARS:
            gc.freeze()
        gc.enable()


__all__ = ["FREEZE_FROM_CHARS", "building_long_lived"]
