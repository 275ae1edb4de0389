"""The step-path revision gives every existing step record its path (its step id) and makes the path,
not the index, what keeps one record per attempt."""

from __future__ import annotations

import asyncio
import uuid

from sqlalchemy import text

from app.persistence.db import create_engine
from tests.support.servers import Servers, admin_sql, new_database_name, with_database
from tests.test_migrations import _alembic

REVISION = "e31b4c7d2a10"
INSERT = (
    "INSERT INTO run_steps (id, run_id, phase, step_index, step_id, action, attempt, status{path_column}) "
    "VALUES (:id, :run, 'plan', :index, :step, 'transform_data', 1, 'succeeded'{path_value})"
)


async def _insert(
    url: str, run_id: uuid.UUID, index: int, step_id: str, path: str | None = None
) -> str | None:
    """One step record (the run's row is left out: foreign keys are not checked for this session)."""
    engine = create_engine(url, pool_size=1)
    statement = INSERT.format(
        path_column=", path" if path is not None else "", path_value=", :path" if path is not None else ""
    )
    try:
        async with engine.begin() as connection:
            await connection.execute(text("SET LOCAL session_replication_role = replica"))
            params = {"id": uuid.uuid4(), "run": run_id, "index": index, "step": step_id, "path": path}
            await connection.execute(text(statement), params)
    except Exception as exc:
        return str(exc)
    finally:
        await engine.dispose()
    return None


async def _paths(url: str) -> list[tuple[str, str]]:
    engine = create_engine(url, pool_size=1)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(text("SELECT step_id, path FROM run_steps ORDER BY step_index"))
            return [(row[0], row[1]) for row in rows]
    finally:
        await engine.dispose()


def test_existing_records_take_their_step_id_as_path_and_iterations_may_share_an_index(
    servers: Servers,
) -> None:
    name = new_database_name()
    asyncio.run(admin_sql(servers.admin_database_url, f'CREATE DATABASE "{name}"'))
    url = with_database(servers.admin_database_url, name)
    run_id = uuid.uuid4()
    try:
        _alembic(url, "upgrade", f"{REVISION}-1")
        assert asyncio.run(_insert(url, run_id, 0, "fetch")) is None
        assert asyncio.run(_insert(url, run_id, 1, "classify")) is None
        _alembic(url, "upgrade", REVISION)

        assert asyncio.run(_paths(url)) == [("fetch", "fetch"), ("classify", "classify")]
        # Two iterations of one step: same index and attempt, different paths.
        assert asyncio.run(_insert(url, run_id, 0, "get", "loop/0/get")) is None
        assert asyncio.run(_insert(url, run_id, 0, "get", "loop/1/get")) is None
        duplicate = asyncio.run(_insert(url, run_id, 0, "get", "loop/1/get"))
        assert duplicate is not None
        assert "uq_run_steps_path_attempt" in duplicate
        missing = asyncio.run(_insert(url, run_id, 5, "nopath"))
        assert missing is not None
        assert "path" in missing
        _alembic(url, "downgrade", f"{REVISION}-1")
    finally:
        asyncio.run(admin_sql(servers.admin_database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
