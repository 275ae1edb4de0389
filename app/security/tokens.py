"""Bearer tokens: generated with enough entropy to be stored as a plain SHA-256 digest."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

API_TOKEN_PREFIX = "aut_"  # noqa: S105 (a visible prefix, not a secret)
INVITATION_PREFIX = "ainv_"
"""Invitations have their own prefix, so one can never be taken for an API token (or the reverse)."""
TOKEN_BYTES = 32
DISPLAY_PREFIX_LENGTH = 12
# token_urlsafe(32): 43 characters of the URL-safe base64 alphabet, no padding.
_BODY = re.compile(r"[A-Za-z0-9_-]{43}")


def generate_token(prefix: str = API_TOKEN_PREFIX) -> str:
    """A new random token; shown to its owner once and never stored in clear."""
    return prefix + secrets.token_urlsafe(TOKEN_BYTES)


def is_well_formed(token: str, prefix: str = API_TOKEN_PREFIX) -> bool:
    """Whether `token` has the shape `generate_token(prefix)` gives; anything else cannot be one of ours.

    Checked before the digest is looked up, so a guess of the wrong shape (or a megabyte header) costs
    no database round trip. The shape is public, so this reveals nothing about any stored token.
    """
    return token.startswith(prefix) and _BODY.fullmatch(token, len(prefix)) is not None


def hash_token(token: str) -> str:
    """The digest stored in the database. Tokens are random, so no salt or slow hash is needed."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    """Constant-time comparison of a presented token against a stored digest."""
    return hmac.compare_digest(hash_token(token), stored_hash)


def display_prefix(token: str) -> str:
    """The part of a token that may be shown again (to tell tokens apart in listings)."""
    return token[:DISPLAY_PREFIX_LENGTH]
