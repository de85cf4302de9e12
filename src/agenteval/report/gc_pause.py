"""Keep the cyclic garbage collector out of reporters that walk a whole run's results."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause automatic garbage collection inside the block, restoring its state after it.

    A run leaves millions of live result objects in the young generations. Rendering
    or writing them allocates enough to trigger a collection of those generations,
    which rescans every one of them (0.6 s for a 10,000-case run) to free nothing:
    reporters make only short-lived objects, and anything cyclic they leave behind
    is collected once the block ends.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
