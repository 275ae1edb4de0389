"""What a failure writes to the log carries no value a caller sent: no token, no payload."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.persistence.db import create_engine

SECRET = "aut_live-token-value-0123456789"


@pytest.fixture
async def service_engine(settings: Settings) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(settings.resolved_database_url(), pool_size=1)
    yield engine
    await engine.dispose()


async def test_database_errors_name_the_statement_but_not_its_values(
    service_engine: AsyncEngine, caplog: pytest.LogCaptureFixture
) -> None:
    # A token digest or a payload is a bound value of many statements; a failing one must not spill it.
    with caplog.at_level(logging.DEBUG), pytest.raises(DBAPIError) as failure:
        async with service_engine.begin() as connection:
            await connection.execute(text("SELECT CAST(:value AS text), 1 / 0"), {"value": SECRET})
    assert "division by zero" in str(failure.value)
    assert "SELECT CAST" in str(failure.value)
    assert SECRET not in str(failure.value)
    assert SECRET not in caplog.text
