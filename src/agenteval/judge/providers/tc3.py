"""Tencent Cloud API 3.0 request signing (TC3-HMAC-SHA256) for a JSON POST.

Steps as Tencent Cloud's "Signature v3" document gives them: a canonical
request over the method, ``/``, an empty query, the signed headers (lowercase
``name:value`` lines, sorted) and the body's SHA-256; a string to sign over
the algorithm, timestamp, credential scope (``date/service/tc3_request``, the
UTC date of the timestamp) and the canonical request's SHA-256; a signing key
derived by HMAC-SHA256 chaining from ``"TC3" + SecretKey`` over date, service
and ``tc3_request``.  The result is the ``Authorization`` header value.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from datetime import UTC, datetime

ALGORITHM = "TC3-HMAC-SHA256"


def _hmac(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode("utf-8"), hashlib.sha256).digest()


def canonical_request(headers: Mapping[str, str], payload: bytes) -> tuple[str, str]:
    """The canonical request of a POST to ``/`` and its signed-headers list."""
    lines = sorted((name.lower(), value.strip().lower()) for name, value in headers.items())
    canonical_headers = "".join(f"{name}:{value}\n" for name, value in lines)
    signed = ";".join(name for name, _ in lines)
    body_hash = hashlib.sha256(payload).hexdigest()
    return f"POST\n/\n\n{canonical_headers}\n{signed}\n{body_hash}", signed


def credential_scope(timestamp: int, service: str) -> str:
    """``YYYY-MM-DD/service/tc3_request`` for the UTC date of ``timestamp``."""
    date = datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d")
    return f"{date}/{service}/tc3_request"


def string_to_sign(canonical: str, timestamp: int, service: str) -> str:
    """The string the signing key signs."""
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return f"{ALGORITHM}\n{timestamp}\n{credential_scope(timestamp, service)}\n{digest}"


def signature(secret_key: str, timestamp: int, service: str, to_sign: str) -> str:
    """Hex HMAC-SHA256 of ``to_sign`` under the key derived from ``secret_key``."""
    date = credential_scope(timestamp, service).split("/", 1)[0]
    key = _hmac(("TC3" + secret_key).encode("utf-8"), date)
    key = _hmac(key, service)
    key = _hmac(key, "tc3_request")
    return hmac.new(key, to_sign.encode("utf-8"), hashlib.sha256).hexdigest()


def authorization(
    secret_id: str,
    secret_key: str,
    service: str,
    headers: Mapping[str, str],
    payload: bytes,
    timestamp: int,
) -> str:
    """The ``Authorization`` header signing ``headers`` (content-type, host, ...) and ``payload``."""
    canonical, signed = canonical_request(headers, payload)
    to_sign = string_to_sign(canonical, timestamp, service)
    scope = credential_scope(timestamp, service)
    return (
        f"{ALGORITHM} Credential={secret_id}/{scope}, SignedHeaders={signed}, "
        f"Signature={signature(secret_key, timestamp, service, to_sign)}"
    )
