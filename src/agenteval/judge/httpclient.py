"""The run's shared judge HTTP client: an ``httpx.AsyncClient`` with a short path for plain sends."""

from __future__ import annotations

from typing import Any

import httpx


class JudgeHttpClient(httpx.AsyncClient):
    """An ``httpx.AsyncClient`` that hands plain requests straight to its transport.

    A judge call needs nothing ``AsyncClient.send`` wraps around the transport:
    no auth flow, no redirects, no cookies (a judge API is stateless), no event
    hooks.  At 64 calls in flight that wrapping (auth generator, redirect loop,
    a urllib request object per reply for the cookie jar) was a quarter of the
    client's CPU per call.  A request that asks for any of it (``stream=True``,
    an ``auth``, redirects, hooks) takes httpx's own path unchanged.
    """

    def __init__(self, *, transport: httpx.AsyncBaseTransport, **kwargs: Any) -> None:
        super().__init__(transport=transport, **kwargs)
        self._direct = transport

    async def send(
        self,
        request: httpx.Request,
        *,
        stream: bool = False,
        # Any: httpx names these types only in private modules.
        auth: Any = httpx.USE_CLIENT_DEFAULT,
        follow_redirects: Any = httpx.USE_CLIENT_DEFAULT,
    ) -> httpx.Response:
        """Send ``request``; see :meth:`httpx.AsyncClient.send`."""
        plain = (
            not stream
            and auth is httpx.USE_CLIENT_DEFAULT
            and self.auth is None
            and follow_redirects is not True
            and not self.follow_redirects
            and not any(self.event_hooks.values())
        )
        if not plain:
            return await super().send(
                request, stream=stream, auth=auth, follow_redirects=follow_redirects
            )
        if self.is_closed:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        request.extensions.setdefault("timeout", self.timeout.as_dict())
        response = await self._direct.handle_async_request(request)
        response.request = request  # as httpx does: a transport need not set it
        await response.aread()
        return response
