"""Engines and sessions. Created by the composition roots, never at import time."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine


def create_engine(url: str, *, pool_size: int = 10, application_name: str = "automations") -> AsyncEngine:
    """An asyncpg engine; `pool_pre_ping` so a restarted database does not fail the first request.

    Errors name the statement but never its parameters, so a logged database error leaks no value.
    """
    return create_async_engine(
        url,
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_pre_ping=True,
        # Bound values are user data (payloads, inputs) and token digests: keep them out of error logs.
        hide_parameters=True,
        connect_args={"server_settings": {"application_name": application_name}},
    )


def create_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded attributes after commit (answers are shaped after the commit)."""
    return async_sessionmaker(engine, expire_on_commit=False, autoflush=False)
