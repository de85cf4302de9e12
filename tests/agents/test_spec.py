"""--agent SPEC parsing."""

from __future__ import annotations

import pytest

from agenteval.agents.spec import AgentSpecError, check_spec


def test_known_specs() -> None:
    assert check_spec("cmd:python agent.py --fast") == ("cmd", "python agent.py --fast")
    assert check_spec("agui:http://127.0.0.1:8000/agent") == ("agui", "http://127.0.0.1:8000/agent")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("python agent.py", "unknown agent spec"),
        ("ssh:host", "unknown agent spec"),
        ("cmd:  ", "needs a command"),
        ("agui:", "needs a URL"),
        ("agui:ftp://host/", "expected an http:// or https:// URL"),
        ("agui:localhost:8000", "expected an http:// or https:// URL"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message):
        check_spec(spec)
