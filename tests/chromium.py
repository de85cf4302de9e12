"""Where the HTML report's browser tests find Chromium (Debian's, installed by ``make chromium``)."""

from __future__ import annotations

import os
from pathlib import Path

CHROMIUM = Path(os.environ.get("AGENTEVAL_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
