"""Redaction of credentials from JSON-like values before they are stored, logged or shown.

Two rules, applied to a copy of the value:

1. Sensitive keys. A key is sensitive when, after turning camelCase into snake_case, lower-casing and
   reading "-" as "_", it is one of `SENSITIVE_KEYS` or ends with one of `SENSITIVE_SUFFIXES`
   (`X-Api-Key`, `accessToken`, `db_password`, `OPENAI_API_KEY`, `webhook_secret` all are). The whole value
   under such a key, whatever its type, becomes `"[REDACTED]"`, except a secret reference
   (`{"$secret": "name"}`), which names a credential without holding it. The suffix rule errs on the
   safe side: `sort_key` is redacted too.
2. Secret text. In every string (keys included), each occurrence of a known secret value of at least
   six characters, and the credential of a `Bearer <token of 8+ characters>` or
   `Basic <base64 of user:password>`, becomes `[REDACTED]`. Should hiding a secret make two keys of
   one object equal, the later entry wins.

Redaction is idempotent and the result never contains a given secret, except a secret that is itself
part of the marker text `[REDACTED]` (such a string cannot be hidden and reveals nothing).
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Iterable
from typing import Any

REDACTED = "[REDACTED]"
MIN_SECRET_LENGTH = 6

SENSITIVE_KEYS = frozenset(
    {
        "authorization",
        "proxy_authorization",
        "cookie",
        "set_cookie",
        "x_api_key",
        "api_key",
        "apikey",
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "secret",
        "client_secret",
        "password",
        "passwd",
        "pwd",
        "private_key",
        "credentials",
    }
)
SENSITIVE_SUFFIXES = ("_token", "_secret", "_password", "_key")

# "accessToken" -> "access_Token", "APIKey" -> "API_Key": word boundaries that snake_case would mark.
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_BEARER = re.compile(r"(?i)(\bbearer\s+)([A-Za-z0-9._~+/-]{8,}=*)")
_BASIC = re.compile(r"(?i)(\bbasic\s+)([A-Za-z0-9+/]{4,}={0,2})")
# What both credential patterns need (same case folding): text without it skips their two passes.
_CREDENTIAL_HINT = re.compile(r"(?i)b(?:earer|asic)\s")


def is_sensitive_key(key: str, extra_keys: Iterable[str] = ()) -> bool:
    """Whether values under `key` are always redacted (see the module docstring for the rule)."""
    return _is_sensitive(key, frozenset(_normal_key(extra) for extra in extra_keys))


# Records repeat the same few keys; the camelCase pass is the costly part of redacting one.
@functools.lru_cache(maxsize=4096)
def _normal_key(key: str) -> str:
    return _CAMEL_BOUNDARY.sub("_", key).lower().replace("-", "_")


def _is_sensitive(key: str, extra: frozenset[str]) -> bool:
    normal = _normal_key(key)
    return normal in SENSITIVE_KEYS or normal.endswith(SENSITIVE_SUFFIXES) or normal in extra


def redact(value: Any, *, secrets: Iterable[str] = (), extra_keys: Iterable[str] = ()) -> Any:
    """A redacted deep copy of a JSON-like value (dicts, lists, tuples as lists, scalars); input untouched.

    `secrets` are known credential values to hide wherever they appear (shorter than six characters are
    ignored: they would match ordinary text); `extra_keys` adds sensitive key names. Work is linear in the
    size of the value and uses no recursion, so deep or huge input cannot exhaust the stack.
    """
    scrub = _Scrubber(secrets)
    extra = frozenset(_normal_key(key) for key in extra_keys)

    def copy_leaf(item: Any) -> Any:
        return scrub(item) if isinstance(item, str) else item

    # Copies by id(), like copy.deepcopy's memo: shared sub-values are copied once and cycles terminate.
    copies: dict[int, dict[Any, Any] | list[Any]] = {}
    pending: list[tuple[dict[Any, Any] | list[Any] | tuple[Any, ...], dict[Any, Any] | list[Any]]] = []

    def copy_node(item: Any) -> Any:
        if not isinstance(item, dict | list | tuple):
            return copy_leaf(item)
        if id(item) not in copies:
            copies[id(item)] = {} if isinstance(item, dict) else []
            pending.append((item, copies[id(item)]))
        return copies[id(item)]

    root = copy_node(value)
    while pending:
        source, target = pending.pop()
        if isinstance(source, dict) and isinstance(target, dict):
            for key, item in source.items():
                is_secret = isinstance(key, str) and _is_sensitive(key, extra) and not _is_reference(item)
                target[copy_leaf(key)] = REDACTED if is_secret else copy_node(item)
        elif isinstance(target, list):
            target.extend(copy_node(item) for item in source)
    return root


def _is_reference(value: Any) -> bool:
    """A secret reference (`{"$secret": "name"}`) names a credential without holding it: kept as it is."""
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get("$secret"), str)


class _Scrubber:
    """Replaces known secrets and Bearer/Basic credentials inside one string."""

    def __init__(self, secrets: Iterable[str]) -> None:
        # A secret inside the marker itself could never be removed; it reveals nothing, so it is skipped.
        self._secrets = sorted(
            {s for s in secrets if len(s) >= MIN_SECRET_LENGTH and s not in REDACTED}, key=len, reverse=True
        )

    def __call__(self, text: str) -> str:
        if not self._secrets and _CREDENTIAL_HINT.search(text) is None:
            return text
        result = _BASIC.sub(_basic_credential, _BEARER.sub(rf"\1{REDACTED}", self._hide_secrets(text)))
        # Marker text next to original text can, in contrived cases, spell a secret again; hide it all then.
        if any(secret in result for secret in self._secrets):
            return REDACTED
        return result

    def _hide_secrets(self, text: str) -> str:
        spans: list[tuple[int, int]] = []
        for secret in self._secrets:
            start = text.find(secret)
            while start != -1:
                spans.append((start, start + len(secret)))
                start = text.find(secret, start + 1)
        if not spans:
            return text
        # Overlapping occurrences (of one secret or of several) merge into one marker.
        pieces: list[str] = []
        cursor = 0
        spans.sort()
        merged_start, merged_end = spans[0]
        for start, end in [*spans[1:], (len(text) + 1, len(text) + 1)]:
            if start <= merged_end:
                merged_end = max(merged_end, end)
                continue
            pieces += [text[cursor:merged_start], REDACTED]
            cursor = merged_end
            merged_start, merged_end = start, end
        pieces.append(text[cursor:])
        return "".join(pieces)


def _basic_credential(match: re.Match[str]) -> str:
    # "Basic" is an ordinary word too: only redact what decodes to the user:password shape.
    try:
        decoded = base64.b64decode(match.group(2), validate=True)
    except (binascii.Error, ValueError):
        return match.group(0)
    return match.group(1) + REDACTED if b":" in decoded else match.group(0)
