"""Helpers for secrets tests: a transaction on the app's database, and every stored row as text."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.persistence.transaction import transaction


@asynccontextmanager
async def app_session(app: FastAPI) -> AsyncIterator[AsyncSession]:
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        yield session


async def dump_database(engine: AsyncEngine) -> str:
    """Every row of every table as PostgreSQL prints it (bytea as hex), one per line."""
    async with engine.connect() as connection:
        tables = (
            await connection.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"))
        ).scalars()
        lines: list[str] = []
        for table in list(tables):
            # Table names come from the catalog, not from input.
            rows = await connection.execute(text(f'SELECT t::text FROM "{table}" t'))  # noqa: S608
            lines += [f"{table}: {row[0]}" for row in rows]
    return "\n".join(lines)
