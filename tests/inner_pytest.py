"""Running pytest inside the suite (the pytest plugin's scratch projects, the skip-line tests).

``PYTEST``: ``python -m pytest`` as a user runs it, with the plugins installed for other
tests' sake left out: hypothesis's (about 1.5 s of CPU to import, in the child and in each
of its xdist workers; the inner runs have no hypothesis test), anyio's and platformdirs'
(no async or platformdirs test either). agenteval's plugin and xdist load as for a user.
"""

from __future__ import annotations

import sys

PYTEST = [
    sys.executable,
    "-m",
    "pytest",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:hypothesispytest",
    "-p",
    "no:anyio",
    "-p",
    "no:platformdirs",
]
