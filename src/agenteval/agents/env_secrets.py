"""The credentials in the environment a ``cmd:`` agent is started with.

The agent inherits agenteval's environment, API keys included, and what it writes to
stderr (or says in an ``error`` line) becomes the case's ``errorMessage``: in the
results, the reports and the ``--record`` file.  A wrapper script under ``set -x``
prints ``curl -H "Authorization: Bearer $OPENAI_API_KEY"`` expanded, a debug log prints
request headers; those values are shown as ``***`` (``judge.errors.redact``), as a
judge's key is.

A variable holds a credential when its name says so (``OPENAI_API_KEY``, ``HF_TOKEN``,
``AWS_SECRET_ACCESS_KEY``, ``DB_PASSWORD``); values shorter than 8 characters are left
alone (hiding every ``1`` or ``true`` in a message would say nothing and garble it).

Tested in tests/agents/test_cmd_agent.py.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_CREDENTIAL_NAME = re.compile(
    r"API_?KEY|TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|ACCESS_KEY|PRIVATE_KEY|(^|_)KEY$", re.I
)
_SHORTEST = 8


def environment_secrets(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The values of ``environ``'s credential variables, longest first (a key that holds
    another is hidden whole)."""
    found = {
        value
        for name, value in environ.items()
        if _CREDENTIAL_NAME.search(name) and len(value.strip()) >= _SHORTEST
    }
    return tuple(sorted(found, key=len, reverse=True))
