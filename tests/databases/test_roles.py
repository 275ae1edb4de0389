"""The role behind a registered database: refused at registration and at each claim's first query when it
can reach the server's host, signal other sessions or (unless registered `write`) change data."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from tests.databases.conftest import RoleMaker
from tests.databases.test_api_and_runs import register, secret
from tests.support.factories import Factory
from tests.support.runs import definition, start, wait_for
from tests.support.servers import admin_sql


def role_of(dsn: str) -> str:
    name = make_url(dsn).username
    assert name
    return name


@pytest.fixture
def program_dir() -> Iterator[str]:
    """An empty folder the database server's own OS user may write in; removed after the test."""
    folder = tempfile.mkdtemp(prefix="automations-copy-program-")
    os.chmod(folder, 0o777)  # noqa: S103 - the server runs as another OS user; the folder is ours and gone after
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def query_step(sql: str, step_id: str = "q") -> dict[str, Any]:
    return {"step_id": step_id, "action": "database_query", "config": {"database": "warehouse", "sql": sql}}


class TestAttacks:
    async def test_a_superuser_dsn_is_refused_at_registration(
        self, factory: Factory, make_role: RoleMaker
    ) -> None:
        owner = await factory.owner()
        await secret(owner, "warehouse_dsn", await make_role("superuser"))
        answer = await register(owner)
        assert answer.status_code == 422, answer.text
        error = answer.json()["error"]
        assert error["code"] == "database_role_unsafe"
        assert "superuser" in error["message"]
        assert (await owner.request("GET", owner.space_path("/databases"))).json() == []

    async def test_copy_to_program_fails_once_the_role_became_superuser(
        self, factory: Factory, make_role: RoleMaker, warehouse_admin_url: str, program_dir: str, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        dsn = await make_role("reader")
        await secret(owner, "warehouse_dsn", dsn)
        assert (await register(owner)).status_code == 201
        # The role changes after registration: the next run's first query finds out.
        await admin_sql(warehouse_admin_url, f"ALTER ROLE {role_of(dsn)} SUPERUSER")
        marker = os.path.join(program_dir, "ran")
        _, run = await start(owner, definition(query_step(f"COPY (SELECT 1) TO PROGRAM 'touch {marker}'")))
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed", done
        assert done["steps"][0]["error"]["code"] == "database_role_unsafe"
        assert "superuser" in done["steps"][0]["error"]["message"]
        assert not os.path.exists(marker), "the shell command ran on the database host"
