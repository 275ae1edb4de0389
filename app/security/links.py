"""Signed, expiring artifact links: an HMAC over (artifact, space, expiry), nothing stored server-side.

The token is opaque and URL-safe. A forged, truncated, expired token, or one whose key changed, is
simply not valid: callers answer 404 without saying which of these it was.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

_PURPOSE = b"automations artifact link v1"
_PAYLOAD_BYTES = 16 + 16 + 8


@dataclass(frozen=True)
class LinkClaims:
    """What a valid token grants: one artifact of one space until `expires_at`."""

    artifact_id: uuid.UUID
    space_id: uuid.UUID
    expires_at: datetime


def _key(secret: str) -> bytes:
    return hmac.new(secret.encode("utf-8"), _PURPOSE, hashlib.sha256).digest()


def sign_link(secret: str, artifact_id: uuid.UUID, space_id: uuid.UUID, expires_at: datetime) -> str:
    """A token for the artifact, valid until `expires_at` (whole seconds)."""
    payload = artifact_id.bytes + space_id.bytes + int(expires_at.timestamp()).to_bytes(8, "big")
    signature = hmac.new(_key(secret), payload, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(payload + signature).decode("ascii").rstrip("=")


def verify_link(secret: str, token: str, now: datetime) -> LinkClaims | None:
    """The claims of a valid, unexpired token; None for anything else."""
    if len(token) > 200:
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (ValueError, TypeError):
        return None
    if len(raw) != _PAYLOAD_BYTES + 32:
        return None
    payload, signature = raw[:_PAYLOAD_BYTES], raw[_PAYLOAD_BYTES:]
    if not hmac.compare_digest(signature, hmac.new(_key(secret), payload, hashlib.sha256).digest()):
        return None
    expires_at = datetime.fromtimestamp(int.from_bytes(payload[32:], "big"), UTC)
    if expires_at <= now:
        return None
    return LinkClaims(uuid.UUID(bytes=payload[:16]), uuid.UUID(bytes=payload[16:32]), expires_at)
