"""``--agent SPEC`` / ``--expected-agent SPEC``: ``cmd:COMMAND`` or ``agui:URL``."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from agenteval.agents.adapter import AgentAdapter, AgentLimits
from agenteval.agents.env_secrets import environment_secrets
from agenteval.errors import FormatError
from agenteval.inputs.url_secrets import credentials_issue, shown_base_url
from agenteval.judge.errors import redact_all


class AgentSpecError(FormatError):
    """The spec names no known adapter or is incomplete."""


def check_spec(spec: str) -> tuple[str, str]:
    """(kind, target) of a spec, or AgentSpecError with a hint."""
    kind, sep, target = spec.partition(":")
    target = target.strip()
    if not sep or kind not in ("cmd", "agui"):
        raise AgentSpecError(f"unknown agent spec {spec[:60]!r}: use cmd:COMMAND or agui:URL")
    if not target:
        raise AgentSpecError(f"{kind}: needs a {'command' if kind == 'cmd' else 'URL'}")
    if kind == "agui":
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise AgentSpecError(f"agui:{target[:60]}: expected an http:// or https:// URL")
        if credentials_issue(target):
            # aiohttp refuses them beside its own headers, and every message would show them.
            raise AgentSpecError(
                f"agui:{parts.scheme}://{parts.hostname}: the URL holds credentials "
                "(user:password@host); pass a key in the query (?token=...) instead"
            )
    return kind, target


def shown_spec(spec: str, environ: Mapping[str, str]) -> str:
    """A valid ``spec`` with its secrets as ``***``, as messages show them: an ``agui:`` URL's
    credential query values (``?token=``) and, in either kind, the values of ``environ``'s
    credential variables (a command line may carry a key the shell expanded).  The result
    fingerprint hashes this, so no hash is derived from a secret."""
    kind, target = check_spec(spec)  # user:password@ in a URL is refused here
    if kind == "agui":
        target = shown_base_url(target).shown
    return f"{kind}:{redact_all(target, environment_secrets(environ))}"


def open_adapter(spec: str, *, concurrency: int, limits: AgentLimits) -> AgentAdapter:
    """The adapter a spec names (workers and connections start lazily)."""
    kind, target = check_spec(spec)
    if kind == "cmd":
        from agenteval.agents.cmd_agent import CmdAgent

        return CmdAgent(target, concurrency=concurrency, limits=limits)
    from agenteval.agents.agui_agent import AguiAgent

    return AguiAgent(target, concurrency=concurrency, limits=limits)
