"""The token-lifetime revision gives every existing token without an end one, 90 days from the upgrade."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

from sqlalchemy import text

from app.persistence.db import create_engine
from tests.support.servers import Servers, admin_sql, new_database_name, with_database
from tests.test_migrations import _alembic

REVISION = "5b8e2d4f7a31"


async def _seed(url: str) -> uuid.UUID:
    user_id = uuid.uuid4()
    engine = create_engine(url, pool_size=1)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                text("INSERT INTO users (id, email) VALUES (:id, 'old@example.test')"), {"id": user_id}
            )
            for name, hours in (("create-admin", None), ("ci", None), ("Web sign-in", 8), ("short", 240)):
                await connection.execute(
                    text(
                        "INSERT INTO api_tokens (id, user_id, name, token_hash, display_prefix, expires_at) "
                        "VALUES (:id, :user, :name, :hash, 'aut_x', now() + make_interval(hours => :hours))"
                    ),
                    {
                        "id": uuid.uuid4(),
                        "user": user_id,
                        "name": name,
                        "hash": uuid.uuid4().hex,
                        "hours": hours,
                    },
                )
    finally:
        await engine.dispose()
    return user_id


async def _tokens(url: str) -> dict[str, tuple[str, timedelta]]:
    engine = create_engine(url, pool_size=1)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(text("SELECT name, kind, expires_at - now() FROM api_tokens"))
            return {row[0]: (row[1], row[2]) for row in rows}
    finally:
        await engine.dispose()


async def _insert_without_expiry(url: str, user_id: uuid.UUID, kind: str) -> str | None:
    engine = create_engine(url, pool_size=1)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                text(
                    "INSERT INTO api_tokens (id, user_id, name, kind, token_hash, display_prefix) "
                    "VALUES (:id, :user, 'forever', :kind, :hash, 'aut_x')"
                ),
                {"id": uuid.uuid4(), "user": user_id, "kind": kind, "hash": uuid.uuid4().hex},
            )
    except Exception as exc:
        return str(exc)
    finally:
        await engine.dispose()
    return None


def test_existing_tokens_get_an_expiry_and_only_service_tokens_may_go_without(servers: Servers) -> None:
    name = new_database_name()
    asyncio.run(admin_sql(servers.admin_database_url, f'CREATE DATABASE "{name}"'))
    url = with_database(servers.admin_database_url, name)
    try:
        _alembic(url, "upgrade", f"{REVISION}-1")
        user_id = asyncio.run(_seed(url))
        _alembic(url, "upgrade", REVISION)
        tokens = asyncio.run(_tokens(url))
        for unbounded in ("create-admin", "ci"):
            kind, left = tokens[unbounded]
            assert kind == "personal"
            assert timedelta(days=89, hours=23) < left <= timedelta(days=90)
        assert tokens["Web sign-in"][0] == "session"
        assert tokens["Web sign-in"][1] <= timedelta(hours=8), "an existing expiry is kept"
        assert tokens["short"][1] <= timedelta(days=10)

        refused = asyncio.run(_insert_without_expiry(url, user_id, "personal"))
        assert refused is not None
        assert "ck_api_tokens_expiry" in refused
        assert asyncio.run(_insert_without_expiry(url, user_id, "service")) is None
        _alembic(url, "downgrade", f"{REVISION}-1")
    finally:
        asyncio.run(admin_sql(servers.admin_database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
