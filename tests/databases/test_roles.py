"""The role behind a registered database: refused at registration and at each claim's first query when it
can reach the server's host, signal other sessions or (unless registered `write`) change data."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from tests.databases.conftest import RoleMaker
from tests.databases.test_api_and_runs import register, secret
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback
from tests.support.runs import definition, fire, http_step, start, wait_for
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


async def registered(owner: Caller, dsn: str, **body: Any) -> dict[str, Any]:
    await secret(owner, "warehouse_dsn", dsn)
    answer = await register(owner, **body)
    assert answer.status_code == 201, answer.text
    made: dict[str, Any] = answer.json()
    return made


def refused_with(answer: Any, *fragments: str) -> dict[str, Any]:
    """The error of a 422 `database_role_unsafe` answer that names each fragment."""
    assert answer.status_code == 422, answer.text
    error: dict[str, Any] = answer.json()["error"]
    assert error["code"] == "database_role_unsafe", error
    for fragment in fragments:
        assert fragment in error["message"], (fragment, error)
    return error


class TestRegistration:
    @pytest.mark.parametrize(
        ("kind", "named", "pointer"),
        [
            ("superuser", "superuser", "/dsn_secret"),
            ("signaller", "member of pg_signal_backend", "/dsn_secret"),
            ("program", "member of pg_execute_server_program", "/dsn_secret"),
            ("replicator", "REPLICATION", "/dsn_secret"),
            ("inserter", "INSERT, UPDATE, DELETE or TRUNCATE on notes", "/access"),
            ("creator", "CREATE on schema public", "/access"),
        ],
    )
    async def test_an_unsafe_or_writing_role_is_refused_for_read(
        self, factory: Factory, make_role: RoleMaker, kind: str, named: str, pointer: str
    ) -> None:
        owner = await factory.owner()
        dsn = await make_role(kind)
        await secret(owner, "warehouse_dsn", dsn)
        error = refused_with(await register(owner), named)
        assert any(detail["path"] == pointer and named in detail["message"] for detail in error["details"])
        assert "unused-trust-auth" not in str(error)
        assert (await owner.request("GET", owner.space_path("/databases"))).json() == []

    async def test_a_clean_reader_is_accepted_as_read(self, factory: Factory, warehouse_dsn: str) -> None:
        owner = await factory.owner()
        made = await registered(owner, warehouse_dsn)
        assert made["access"] == "read"
        capability = await factory.app.state.runtime.capabilities.resolve(owner.space_id, "warehouse.query")
        assert capability.risk == "read"

    async def test_a_writing_role_is_accepted_as_write_an_unsafe_one_never(
        self, factory: Factory, make_role: RoleMaker
    ) -> None:
        owner = await factory.owner()
        made = await registered(owner, await make_role("inserter"), access="write")
        assert made["access"] == "write"
        resolve = factory.app.state.runtime.capabilities.resolve
        assert (await resolve(owner.space_id, "warehouse.query")).risk == "write"
        assert (await resolve(owner.space_id, "warehouse.tables")).risk == "read"
        for kind, named in (("signaller", "pg_signal_backend"), ("superuser", "superuser")):
            await secret(owner, f"{kind}_dsn", await make_role(kind))
            answer = await register(
                owner, name=kind, tool_prefix=kind, dsn_secret=f"{kind}_dsn", access="write"
            )
            refused_with(answer, named, "write queries")

    async def test_bad_access_and_an_unreachable_database_are_422(
        self, factory: Factory, warehouse_dsn: str
    ) -> None:
        owner = await factory.owner()
        await secret(owner, "warehouse_dsn", warehouse_dsn)
        assert (await register(owner, access="admin")).status_code == 422
        await secret(owner, "closed_dsn", "postgresql://reader:hunter2@127.0.0.1:1/warehouse")
        answer = await register(owner, dsn_secret="closed_dsn")
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"]["code"] == "database_unavailable"
        assert "hunter2" not in answer.text

    async def test_a_patch_checks_the_role_again_for_a_new_secret_or_access(
        self, factory: Factory, warehouse_dsn: str, make_role: RoleMaker
    ) -> None:
        owner = await factory.owner()
        made = await registered(owner, await make_role("inserter"), access="write")
        path = owner.space_path(f"/databases/{made['id']}")
        refused_with(await owner.request("PATCH", path, json={"access": "read"}), "notes", "`write`")
        await secret(owner, "root_dsn", await make_role("superuser"))
        refused_with(await owner.request("PATCH", path, json={"dsn_secret": "root_dsn"}), "superuser")
        assert (await owner.request("GET", path)).json() == made

        await secret(owner, "reader_dsn", warehouse_dsn)
        narrowed = await owner.request("PATCH", path, json={"dsn_secret": "reader_dsn", "access": "read"})
        assert narrowed.status_code == 200, narrowed.text
        assert narrowed.json()["access"] == "read"
        resolve = factory.app.state.runtime.capabilities.resolve
        assert (await resolve(owner.space_id, "warehouse.query")).risk == "read"

    async def test_the_connection_test_reports_a_role_that_changed(
        self, factory: Factory, make_role: RoleMaker, warehouse_admin_url: str
    ) -> None:
        owner = await factory.owner()
        dsn = await make_role("reader")
        made = await registered(owner, dsn)
        path = owner.space_path(f"/databases/{made['id']}/check")
        assert (await owner.request("POST", path)).json()["reachable"] is True
        await admin_sql(warehouse_admin_url, f"GRANT pg_signal_backend TO {role_of(dsn)}")
        body = (await owner.request("POST", path)).json()
        assert (body["reachable"], body["code"]) == (False, "database_role_unsafe")
        assert "pg_signal_backend" in body["message"]


class TestInRuns:
    async def test_a_membership_granted_after_registration_stops_the_next_run(
        self, factory: Factory, make_role: RoleMaker, warehouse_admin_url: str, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        dsn = await make_role("reader")
        await registered(owner, dsn)
        document = definition(query_step("SELECT count(*) FROM people"), execution={"max_retries": 2})
        automation_id, run = await start(owner, document)
        assert (await wait_for(owner, run["id"]))["status"] == "succeeded"

        await admin_sql(warehouse_admin_url, f"GRANT pg_signal_backend TO {role_of(dsn)}")
        failed = await wait_for(owner, (await fire(owner, automation_id))["id"])
        assert failed["status"] == "failed"
        attempts = [step for step in failed["steps"] if step["step_id"] == "q"]
        assert len(attempts) == 1, "a role refusal is never retried"
        error = attempts[0]["error"]
        assert error["code"] == "database_role_unsafe"
        assert "member of pg_signal_backend" in error["message"]
        assert error["details"] == [{"severity": "unsafe", "what": "member of pg_signal_backend"}]
        assert "unused-trust-auth" not in str(failed)

        await admin_sql(warehouse_admin_url, f"REVOKE pg_signal_backend FROM {role_of(dsn)}")
        again = await wait_for(owner, (await fire(owner, automation_id))["id"])
        assert again["status"] == "succeeded"

    async def test_the_role_is_checked_once_per_claim_not_per_query(
        self, factory: Factory, make_role: RoleMaker, warehouse_admin_url: str, loopback: Loopback, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        dsn = await make_role("reader")
        await registered(owner, dsn)
        name = f"pause-{role_of(dsn)}"
        document = definition(
            query_step("SELECT 1", "before"),
            http_step("pause", f"{loopback.url}/slow/{name}?seconds=5"),
            query_step("SELECT 2", "after"),
        )
        automation_id, run = await start(owner, document)
        deadline = time.monotonic() + 60
        while loopback.hits[name] == 0:  # the claim has checked the role and is inside the pause
            assert time.monotonic() < deadline, "the run never reached its pause"
            await asyncio.sleep(0.05)
        await admin_sql(warehouse_admin_url, f"ALTER ROLE {role_of(dsn)} SUPERUSER")
        granted = datetime.now(UTC)

        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        after = next(step for step in done["steps"] if step["step_id"] == "after")
        assert datetime.fromisoformat(after["started_at"]) > granted, "the change came before the query"

        refused = await wait_for(owner, (await fire(owner, automation_id))["id"])
        assert refused["status"] == "failed"
        assert refused["steps"][0]["error"]["code"] == "database_role_unsafe"

    async def test_a_write_registration_writes_under_the_write_rules(
        self, factory: Factory, make_role: RoleMaker, warehouse_admin_url: str, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        await registered(owner, await make_role("inserter"), access="write")
        insert = query_step("INSERT INTO notes VALUES (40, 'Written') RETURNING id", "write")
        _, run = await start(owner, definition(insert))
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        assert done["steps"][0]["output"]["rows"] == [[40]]

        # A write under `always_draft` waits for a human, as every write capability does.
        drafted = definition(
            query_step("INSERT INTO notes VALUES (41, 'Drafted')", "write"),
            execution={"write_policy": "always_draft"},
        )
        _, run = await start(owner, drafted)
        waiting = await wait_for(owner, run["id"], {"awaiting_approval"})
        assert waiting["status"] == "awaiting_approval"
        await admin_sql(warehouse_admin_url, "DELETE FROM notes")
