"""TC3-HMAC-SHA256 against the worked example of Tencent Cloud's "Signature v3" document.

The document (TencentCloud API 3.0, "Signature v3", section "Signature
Calculation Process") signs a CVM ``DescribeInstances`` POST at timestamp
1551113065 with SecretKey ``Gu5t9xGARNpq86cd98joQYCN3EXAMPLE`` and publishes
every intermediate value: the payload hash, the canonical request, its hash,
the string to sign and the final signature.  Each is asserted here.
"""

from __future__ import annotations

from agenteval.judge.providers.tc3 import (
    authorization,
    canonical_request,
    credential_scope,
    signature,
    string_to_sign,
)

PAYLOAD = (
    b'{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}'
)
HEADERS = {"Content-Type": "application/json; charset=utf-8", "Host": "cvm.tencentcloudapi.com"}
TIMESTAMP = 1551113065
SECRET_ID = "AKID**********************0123456789EXAMPLE"
SECRET_KEY = "Gu5t9xGARNpq86cd98joQYCN3EXAMPLE"

PUBLISHED_CANONICAL = (
    "POST\n/\n\ncontent-type:application/json; charset=utf-8\nhost:cvm.tencentcloudapi.com\n\n"
    "content-type;host\n35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064"
)
PUBLISHED_STRING_TO_SIGN = (
    "TC3-HMAC-SHA256\n1551113065\n2019-02-25/cvm/tc3_request\n"
    "5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031"
)
PUBLISHED_SIGNATURE = "72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168"


def test_canonical_request_is_the_published_one() -> None:
    canonical, signed = canonical_request(HEADERS, PAYLOAD)
    assert canonical == PUBLISHED_CANONICAL
    assert signed == "content-type;host"


def test_string_to_sign_uses_the_utc_date() -> None:
    # 1551113065 is 2019-02-26 00:44:25 in UTC+8 but 2019-02-25 in UTC, as the document warns.
    assert credential_scope(TIMESTAMP, "cvm") == "2019-02-25/cvm/tc3_request"
    assert string_to_sign(PUBLISHED_CANONICAL, TIMESTAMP, "cvm") == PUBLISHED_STRING_TO_SIGN


def test_signature_and_authorization_are_the_published_ones() -> None:
    assert signature(SECRET_KEY, TIMESTAMP, "cvm", PUBLISHED_STRING_TO_SIGN) == PUBLISHED_SIGNATURE
    assert authorization(SECRET_ID, SECRET_KEY, "cvm", HEADERS, PAYLOAD, TIMESTAMP) == (
        "TC3-HMAC-SHA256 Credential=AKID**********************0123456789EXAMPLE/2019-02-25/cvm/"
        "tc3_request, SignedHeaders=content-type;host, Signature=" + PUBLISHED_SIGNATURE
    )


def test_any_change_changes_the_signature() -> None:
    base = authorization(SECRET_ID, SECRET_KEY, "cvm", HEADERS, PAYLOAD, TIMESTAMP)
    assert authorization(SECRET_ID, SECRET_KEY + "x", "cvm", HEADERS, PAYLOAD, TIMESTAMP) != base
    assert authorization(SECRET_ID, SECRET_KEY, "cvm", HEADERS, PAYLOAD + b" ", TIMESTAMP) != base
    assert authorization(SECRET_ID, SECRET_KEY, "cvm", HEADERS, PAYLOAD, TIMESTAMP + 1) != base


def test_signed_headers_are_sorted_and_lowercased() -> None:
    headers = {
        "X-TC-Action": "ChatCompletions",
        "Host": "h.example",
        "Content-Type": "application/json",
    }
    canonical, signed = canonical_request(headers, b"{}")
    assert signed == "content-type;host;x-tc-action"
    assert "x-tc-action:chatcompletions\n" in canonical
