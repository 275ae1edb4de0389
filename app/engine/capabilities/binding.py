"""What an approval is bound to: a hash of the call's full arguments, before any redaction or cut.

The audit keeps params redacted (values under sensitive keys hidden) and cut to 10 KB, so two calls can
look the same there and still send different things. The hash is taken over the arguments exactly as
the pipeline holds them before the `secrets` rule: canonical JSON (sorted keys, no whitespace), with
`{"$secret": name}` references as written, never their values. A resumed call is covered by its
approval only when its arguments hash the same.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def _tagged(value: Any) -> str:
    # Arguments are JSON values once rendered; anything else still hashes by type and repr, never
    # silently as something a JSON value could equal.
    return f"<{type(value).__module__}.{type(value).__qualname__}>{value!r}"


def canonical_json(value: Any) -> str:
    """One text per value: sorted keys, no insignificant whitespace, unicode kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_tagged)


def arguments_hash(args: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of a call's full arguments."""
    return hashlib.sha256(canonical_json(args).encode("utf-8")).hexdigest()
