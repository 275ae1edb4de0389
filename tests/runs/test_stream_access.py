"""When an open stream re-checks its caller, and what it finds: against the real database, with a clock
the test moves. Between checks an event costs no query; a flag or a due check costs one."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from app.persistence.models import Role
from app.persistence.transaction import transaction
from app.services.identity.access import Caller as AccessCaller
from app.services.identity.access import SpaceAccess
from app.services.runs.stream_access import AccessEnded, StreamGuard
from tests.support.factories import Caller, Factory


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Counted:
    """The real unit of work, counting how often the guard opens one."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.opened = 0

    def __call__(self) -> AbstractAsyncContextManager[AsyncSession]:
        self.opened += 1
        return transaction(self.app.state.sessionmaker, self.app.state.send_job)


async def _token(owner: Caller, **body: object) -> uuid.UUID:
    made = await owner.request("POST", "/api/v1/tokens", json={"name": "stream", **body})
    assert made.status_code == 201, made.text
    return uuid.UUID(made.json()["id"])


def _reason(ended: AccessEnded | None) -> str | None:
    return ended.reason if ended is not None else None


def _access(caller: Caller, token_id: uuid.UUID) -> SpaceAccess:
    who = AccessCaller(uuid.UUID(caller.user_id), "someone@example.test", token_id)
    return SpaceAccess(who, uuid.UUID(caller.space_id), Role.owner)


@asynccontextmanager
async def _guard(app: FastAPI, access: SpaceAccess) -> AsyncIterator[tuple[StreamGuard, Counted, Clock]]:
    clock, counted = Clock(), Counted(app)
    guard = StreamGuard(access, counted, interval=30, clock=clock)
    async with counted() as session:
        assert await guard.start(session) is None
    counted.opened = 0
    yield guard, counted, clock


async def test_between_checks_an_event_costs_no_query(app: FastAPI, factory: Factory) -> None:
    owner = await factory.owner()
    async with _guard(app, _access(owner, await _token(owner))) as (guard, counted, clock):
        for _ in range(100):
            assert await guard.ended(flagged=False) is None
        assert counted.opened == 0
        assert guard.seconds_to_due() == 30
        clock.now += 29.9
        assert await guard.ended(flagged=False) is None
        assert counted.opened == 0
        clock.now += 0.1
        assert await guard.ended(flagged=False) is None
        assert counted.opened == 1, "a due check queries"
        assert guard.seconds_to_due() == 30
        assert await guard.ended(flagged=True) is None
        assert counted.opened == 2, "a flag queries at once"


async def test_each_end_of_access_is_named(app: FastAPI, factory: Factory) -> None:
    owner = await factory.owner()
    token_id = await _token(owner)
    async with _guard(app, _access(owner, token_id)) as (guard, _, _clock):
        await owner.request("POST", f"/api/v1/tokens/{token_id}/revoke")
        ended = await guard.ended(flagged=True)
        assert _reason(ended) == "token_revoked"
        assert ended is not None
        assert ended.message

    member = await factory.member(owner)
    member_token = await _token(member)
    async with _guard(app, _access(member, member_token)) as (guard, _, _clock):
        removed = await owner.request("DELETE", owner.space_path(f"/members/{member.user_id}"))
        assert removed.status_code == 204
        assert _reason(await guard.ended(flagged=True)) == "membership_removed"

    gone = _access(owner, uuid.uuid4())
    async with Counted(app)() as session:
        ended = await StreamGuard(gone, Counted(app), interval=30).start(session)
    assert _reason(ended) == "token_revoked", "an unknown token is no token"


async def test_the_check_falls_due_at_the_tokens_expiry(app: FastAPI, factory: Factory) -> None:
    owner = await factory.owner()
    token_id = await _token(owner, expires_in_days=1)
    async with app.state.sessionmaker.begin() as session:
        await session.execute(
            text("UPDATE api_tokens SET expires_at = now() + interval '5 seconds' WHERE id = :id"),
            {"id": token_id},
        )
    async with _guard(app, _access(owner, token_id)) as (guard, counted, clock):
        assert 0 < guard.seconds_to_due() <= 5
        async with app.state.sessionmaker.begin() as session:
            await session.execute(
                text("UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = :id"),
                {"id": token_id},
            )
        clock.now += guard.seconds_to_due()
        assert _reason(await guard.ended(flagged=False)) == "token_expired"
        assert counted.opened == 1
