"""Sending one signed webhook (Standard Webhooks) through the egress guard, and reading the answer.

The signatures come from the `standardwebhooks` package, so receivers can verify with the same code.
Redirects are never followed: a 3xx is an answer like any other, and the caller treats it as a failure.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from standardwebhooks.webhooks import Webhook

from app.security.egress import EgressAllowList, EgressError, display_url

if TYPE_CHECKING:
    import httpx

# Enough of a receiver's answer to show an error; the rest is not read.
MAX_ANSWER_BYTES = 64 * 1024
USER_AGENT = "automations-webhooks/1"
SECRET_PREFIX = "whsec_"  # noqa: S105 (the format's prefix, not a secret)
MIN_SECRET_BYTES, MAX_SECRET_BYTES = 24, 64


def new_secret() -> str:
    """A fresh signing secret in the `whsec_` form receivers paste into their verifier."""
    return SECRET_PREFIX + base64.b64encode(os.urandom(MIN_SECRET_BYTES)).decode("ascii")


def check_secret(secret: str) -> None:
    """Raise ValueError unless `secret` is `whsec_` and 24 to 64 random bytes in base64 (the spec's range)."""
    problem = ValueError("a webhook signing secret is whsec_ followed by 24 to 64 bytes in base64")
    if not secret.startswith(SECRET_PREFIX):
        raise problem
    try:
        raw = base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except binascii.Error:
        raise problem from None
    if not MIN_SECRET_BYTES <= len(raw) <= MAX_SECRET_BYTES:
        raise problem


def signature_header(secrets: Sequence[str], message_id: str, timestamp: datetime, body: str) -> str:
    """`v1,<sig>` for each secret, space-separated (two during a secret rotation)."""
    return " ".join(Webhook(secret).sign(message_id, timestamp, body) for secret in secrets)


def encode(payload: dict[str, Any]) -> str:
    """The exact body that is signed and sent."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class SendResult:
    """What one attempt got: an HTTP status, or an error with no status (transport, egress refusal)."""

    status_code: int | None
    error: str | None
    duration_ms: int
    retry_after_seconds: float | None = None
    refused: bool = False


async def send(
    url: str,
    *,
    message_id: str,
    timestamp: datetime,
    body: str,
    secrets: Sequence[str],
    allow: EgressAllowList | None,
    timeout_seconds: float,
) -> SendResult:
    """POST one delivery; never raises for the receiver's or the network's failures."""
    # Here, not at import: the API only makes and checks secrets, and never loads the HTTP client.
    import httpx

    from app.security.egress import egress_client

    headers = {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": message_id,
        "webhook-timestamp": str(int(timestamp.timestamp())),
        "webhook-signature": signature_header(secrets, message_id, timestamp, body),
    }
    started = time.monotonic()

    def elapsed() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        async with egress_client(allow=allow, timeout=timeout_seconds, max_redirects=0) as client:
            request = client.build_request("POST", url, content=body.encode("utf-8"), headers=headers)
            response = await client.send(request, stream=True)
            try:
                read = 0
                async for chunk in response.aiter_raw():
                    read += len(chunk)
                    if read >= MAX_ANSWER_BYTES:
                        break
            finally:
                await response.aclose()
    except EgressError as exc:
        reason = getattr(exc, "reason", type(exc).__name__)
        return SendResult(None, f"refused by the egress guard: {reason}", elapsed(), refused=True)
    except httpx.TimeoutException:
        return SendResult(None, f"timed out after {timeout_seconds:g} s ({display_url(url)})", elapsed())
    except httpx.HTTPError as exc:
        return SendResult(None, f"{type(exc).__name__} ({display_url(url)})", elapsed())
    error = None if response.is_success else _describe(response.status_code)
    return SendResult(
        response.status_code, error, elapsed(), retry_after_seconds=_retry_after(response.headers)
    )


def _describe(status: int) -> str:
    if 300 <= status < 400:
        return f"answered {status} (a redirect: deliveries do not follow redirects)"
    return f"answered {status}"


def _retry_after(headers: httpx.Headers) -> float | None:
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
