"""Per-automation key/value state: the limits, and the reads and writes of the API and of runs.

One service for both callers: the API (a member inspecting or fixing state) and a run's `kv.*`
capabilities (through the worker's port, bound to the run's automation). Limits: keys of 1 to 256
characters without control characters, values of at most 64 KB as compact JSON, at most 10,000 live
keys per automation. Expired entries are invisible at once and deleted when a new key needs room.
"""

from __future__ import annotations

import json
import unicodedata
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from app.errors import Conflict, ErrorDetail, ValidationFailed
from app.persistence.base import utcnow
from app.persistence.models import AutomationKv
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.kv import KvRepository
from app.persistence.types import AsyncSession

MAX_KEY_CHARS = 256
MAX_VALUE_BYTES = 64 * 1024
MAX_KEYS = 10_000
MAX_TTL_SECONDS = 366 * 24 * 3600


def key_problem(key: Any) -> str | None:
    """Why a key is refused, or None: 1 to 256 characters, none of them a control character."""
    if not isinstance(key, str) or not key:
        return "a key is a non-empty string"
    if len(key) > MAX_KEY_CHARS:
        return f"a key has at most {MAX_KEY_CHARS} characters (this one has {len(key)})"
    if any(unicodedata.category(char) in ("Cc", "Cs") for char in key):
        return "a key may not contain control characters"
    return None


def value_problem(value: Any) -> str | None:
    """Why a value is refused, or None: JSON data of at most 64 KB once written compactly."""
    try:
        size = len(json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode())
    except (TypeError, ValueError):
        return "a value is JSON data (no NaN or infinity)"
    if size > MAX_VALUE_BYTES:
        return f"a value is at most {MAX_VALUE_BYTES} bytes as JSON (this one is {size})"
    return None


def ttl_problem(ttl_seconds: Any) -> str | None:
    if ttl_seconds is None:
        return None
    if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int):
        return "ttl_seconds is a whole number of seconds"
    if not 1 <= ttl_seconds <= MAX_TTL_SECONDS:
        return f"ttl_seconds is between 1 and {MAX_TTL_SECONDS}"
    return None


def _refuse(code: str, path: str, problem: str) -> ValidationFailed:
    return ValidationFailed(problem, code=code, details=[ErrorDetail(path=path, message=problem)])


@dataclass(frozen=True)
class KvTarget:
    """The automation whose state is read or written (its space is kept on every row)."""

    space_id: uuid.UUID
    automation_id: uuid.UUID


class KvService:
    async def get(self, session: AsyncSession, target: KvTarget, key: str) -> AutomationKv | None:
        problem = key_problem(key)
        if problem is not None:
            raise _refuse("invalid_key", "/key", problem)
        return await KvRepository(session).get_live(target.automation_id, key, utcnow())

    async def set(
        self, session: AsyncSession, target: KvTarget, key: str, value: Any, *, ttl_seconds: int | None
    ) -> AutomationKv:
        """Write a key (new or replaced); `kv_quota_exceeded` when a new key would pass 10,000."""
        for code, path, problem in (
            ("invalid_key", "/key", key_problem(key)),
            ("value_too_large", "/value", value_problem(value)),
            ("invalid_ttl", "/ttl_seconds", ttl_problem(ttl_seconds)),
        ):
            if problem is not None:
                raise _refuse(code, path, problem)
        repository = KvRepository(session)
        now = utcnow()
        if await repository.get_live(target.automation_id, key, now) is None:
            await repository.lock(target.automation_id)
            await repository.purge_expired(target.automation_id, now)
            if await repository.count_live(target.automation_id, now) >= MAX_KEYS:
                raise Conflict(
                    f"The automation already keeps {MAX_KEYS} keys; delete some or let them expire.",
                    code="kv_quota_exceeded",
                )
        expires_at = now + timedelta(seconds=ttl_seconds) if ttl_seconds is not None else None
        return await repository.upsert(
            space_id=target.space_id,
            automation_id=target.automation_id,
            key=key,
            value=value,
            expires_at=expires_at,
            now=now,
        )

    async def delete(self, session: AsyncSession, target: KvTarget, key: str) -> bool:
        problem = key_problem(key)
        if problem is not None:
            raise _refuse("invalid_key", "/key", problem)
        return await KvRepository(session).delete_live(target.automation_id, key, utcnow())

    async def list(
        self, session: AsyncSession, target: KvTarget, *, prefix: str, limit: int, cursor: str | None
    ) -> Page[AutomationKv]:
        """Live entries whose key starts with `prefix`, in key order."""
        if prefix:
            problem = key_problem(prefix)
            if problem is not None:
                raise _refuse("invalid_key", "/prefix", problem)
        statement = KvRepository(session).prefixed(target.automation_id, prefix, utcnow())
        return await paginate(
            session, statement, order_by=[AutomationKv.key], limit=limit, cursor=cursor, descending=False
        )

    async def clear(self, session: AsyncSession, target: KvTarget, *, prefix: str) -> int:
        """Delete every key starting with `prefix` (all of them with an empty prefix); how many went."""
        repository = KvRepository(session)
        return await repository.delete_prefixed(target.automation_id, prefix)


kv_service = KvService()
