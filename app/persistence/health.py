"""Database reachability, for readiness checks."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine


async def database_answers(engine: AsyncEngine) -> None:
    """Raise if the database does not answer a trivial query."""
    async with engine.connect() as connection:
        await connection.execute(text("SELECT 1"))
