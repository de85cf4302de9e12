"""--agent SPEC parsing."""

from __future__ import annotations

import pytest

from agenteval.agents.spec import AgentSpecError, check_spec, shown_spec


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


def test_a_shown_spec_hides_its_secrets() -> None:
    url = "agui:https://agents.example/run?agent=v2&token=s3cr3t-t0k3n-value"
    shown = shown_spec(url, {})
    assert shown == "agui:https://agents.example/run?agent=v2&token=***"
    # Another token shows alike (a rotated key keeps results valid); another agent does not.
    assert shown_spec(url.replace("s3cr3t", "r0tated"), {}) == shown
    assert shown_spec(url.replace("v2", "v3"), {}) != shown
    # A key the shell expanded into a command line, as the agent's own messages hide it.
    environ = {"OPENAI_API_KEY": "sk-live-0123456789abcdef", "HOME": "/home/someone"}
    command = "cmd:./agent.py --key sk-live-0123456789abcdef --home /home/someone"
    assert shown_spec(command, environ) == "cmd:./agent.py --key *** --home /home/someone"
    assert shown_spec("cmd:  ./agent.py ", {}) == "cmd:./agent.py"
    with pytest.raises(AgentSpecError, match="credentials"):
        shown_spec("agui:https://user:password@agents.example/", {})
