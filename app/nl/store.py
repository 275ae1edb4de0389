"""Drafts in Redis: one key per draft with the draft's expiry, and a per-space index for listing.

Redis is the only home of a draft, so an unreachable Redis is a 503 (`drafts_unavailable`), never a
half-done change: every write here is a single command or happens before anything else is stored.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime

from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.errors import ServiceUnavailable
from app.nl.drafts import Draft

MAX_LISTED = 200


class DraftStore:
    """Reads and writes drafts; `prefix` keeps installations (and test sessions) sharing a Redis apart."""

    def __init__(self, redis: Redis, prefix: str = "") -> None:
        self.redis = redis
        self.prefix = prefix

    def _key(self, space_id: str, draft_id: str) -> str:
        return f"{self.prefix}drafts:{space_id}:{draft_id}"

    def _index(self, space_id: str) -> str:
        return f"{self.prefix}drafts:index:{space_id}"

    async def check(self) -> None:
        """Raise 503 now if Redis does not answer, before anything is spent on a draft."""
        async with _available():
            await self.redis.ping()

    async def put(self, draft: Draft) -> None:
        """Store a new draft; it disappears by itself at `expires_at`."""
        expires_ms = _ms(draft.expires_at)
        async with _available(), self.redis.pipeline(transaction=True) as pipe:
            pipe.set(self._key(draft.space_id, draft.id), draft.model_dump_json(), pxat=expires_ms)
            pipe.zadd(self._index(draft.space_id), {draft.id: draft.created_at.timestamp()})
            pipe.pexpireat(self._index(draft.space_id), expires_ms)
            await pipe.execute()

    async def replace(self, draft: Draft) -> bool:
        """Overwrite an existing draft, keeping its expiry; False when it has expired meanwhile."""
        async with _available():
            done = await self.redis.set(
                self._key(draft.space_id, draft.id),
                draft.model_dump_json(),
                pxat=_ms(draft.expires_at),
                xx=True,
            )
        return bool(done)

    async def get(self, space_id: str, draft_id: str) -> Draft | None:
        async with _available():
            raw = await self.redis.get(self._key(space_id, draft_id))
        return None if raw is None else Draft.model_validate_json(raw)

    async def take(self, space_id: str, draft_id: str) -> Draft | None:
        """Remove and return a draft in one step, so two concurrent saves cannot both get it."""
        async with _available():
            raw = await self.redis.getdel(self._key(space_id, draft_id))
            await self.redis.zrem(self._index(space_id), draft_id)
        return None if raw is None else Draft.model_validate_json(raw)

    async def delete(self, space_id: str, draft_id: str) -> bool:
        async with _available():
            removed = await self.redis.delete(self._key(space_id, draft_id))
            await self.redis.zrem(self._index(space_id), draft_id)
        return bool(removed)

    async def list(self, space_id: str) -> list[Draft]:
        """The space's live drafts, newest first; expired ones are dropped from the index on the way."""
        async with _available():
            ids = [
                item.decode() if isinstance(item, bytes) else str(item)
                for item in await self.redis.zrevrange(self._index(space_id), 0, MAX_LISTED - 1)
            ]
            if not ids:
                return []
            raws = await self.redis.mget([self._key(space_id, draft_id) for draft_id in ids])
            gone = [draft_id for draft_id, raw in zip(ids, raws, strict=True) if raw is None]
            if gone:
                await self.redis.zrem(self._index(space_id), *gone)
        return [Draft.model_validate_json(raw) for raw in raws if raw is not None]


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


@asynccontextmanager
async def _available() -> AsyncIterator[None]:
    try:
        yield
    except RedisError as exc:
        raise ServiceUnavailable(
            f"Drafts are kept in Redis, which did not answer ({type(exc).__name__}); try again shortly.",
            code="drafts_unavailable",
        ) from None
