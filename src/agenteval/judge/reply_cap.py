"""Judge reply bodies read with a size cap, through httpx's public streaming API.

An endless chunked reply used to grow without bound (1.36 GB in 2 s) and five 50 MB
replies ended up in the result files.  The body is read chunk by chunk and the read
stops as soon as the running size passes the cap; a ``Content-Length`` above it is
refused before any byte of the body is read.
"""

from __future__ import annotations

import httpx

from agenteval.judge.errors import JudgeReplyError


def too_large(who: str, limit: int) -> JudgeReplyError:
    """The error of a reply above ``limit`` bytes: final for that turn, never retried."""
    return JudgeReplyError(
        f"response error: reply from {who} is larger than {limit:,} bytes "
        "(raise --judge-max-reply-bytes if the judge really sends that much)"
    )


async def read_capped(response: httpx.Response, limit: int, who: str) -> bytes:
    """The body of a streamed ``response``, at most ``limit`` bytes; the response is closed."""
    try:
        declared = response.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise too_large(who, limit)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise too_large(who, limit)
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        await response.aclose()


async def capped_response(response: httpx.Response, limit: int, who: str) -> httpx.Response:
    """A streamed ``response`` read (at most ``limit`` bytes) into an ordinary one.

    ``.content``, ``.json()`` and ``.text`` then work as on a response read at once, so
    the backends' reply and error parsing stay as they are.
    """
    content = await read_capped(response, limit, who)
    return httpx.Response(
        response.status_code,
        headers=response.headers,
        content=content,
        request=response.request,
        extensions=response.extensions,
    )


__all__ = ["capped_response", "read_capped", "too_large"]
