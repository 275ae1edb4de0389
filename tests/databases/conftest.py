"""A second real PostgreSQL database with data, and login roles of this session to query it with; both are
made for these tests and dropped after them (roles are cluster-wide, so their names are unique)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Iterator

import pytest
from sqlalchemy.engine import make_url

from tests.support.servers import Servers, admin_sql, new_database_name, with_database

# What each kind of test role is given on top of LOGIN and CONNECT, USAGE and SELECT (a clean reader).
ROLE_KINDS: dict[str, tuple[str, ...]] = {
    "reader": (),
    "superuser": ("ALTER ROLE {role} SUPERUSER",),
    "signaller": ("GRANT pg_signal_backend TO {role}",),
    "program": ("GRANT pg_execute_server_program TO {role}",),
    "inserter": ("GRANT INSERT ON notes TO {role}",),
    "creator": ("GRANT CREATE ON SCHEMA public TO {role}",),
    "replicator": ("ALTER ROLE {role} REPLICATION",),
    "monitor": ("GRANT pg_monitor TO {role}",),
}
RoleMaker = Callable[[str], Awaitable[str]]


@pytest.fixture(scope="session")
def warehouse_admin_url(servers: Servers) -> Iterator[str]:
    """The superuser URL of a fresh database holding `events` (100,000 rows), `people` and `notes` (empty;
    the one table a test role may be given INSERT on)."""
    url = make_url(servers.admin_database_url)
    if not url.host or url.host.startswith("/"):
        pytest.skip("the test server listens on a Unix socket; database DSNs need a TCP host")
    name = new_database_name()
    asyncio.run(admin_sql(servers.admin_database_url, f'CREATE DATABASE "{name}"'))
    target = with_database(servers.admin_database_url, name)
    for statement in (
        "CREATE TABLE events (id integer PRIMARY KEY, kind text NOT NULL, at timestamptz NOT NULL)",
        "INSERT INTO events SELECT n, 'kind' || (n % 7), now() FROM generate_series(1, 100000) AS n",
        "CREATE TABLE people (id integer PRIMARY KEY, name text NOT NULL, score numeric)",
        "INSERT INTO people VALUES (1, 'Ada', 9.5), (2, 'Grace', 8.25), (3, 'Linus', NULL)",
        "CREATE TABLE notes (id integer PRIMARY KEY, body text NOT NULL)",
    ):
        asyncio.run(admin_sql(target, statement))
    yield target
    asyncio.run(admin_sql(servers.admin_database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def make_role(servers: Servers, warehouse_admin_url: str) -> Iterator[RoleMaker]:
    """`await make_role(kind)`: a new login role of this session (one of `ROLE_KINDS`) and its plain DSN.

    Each role is a clean reader first (CONNECT, USAGE on `public`, SELECT on its tables), then given
    what its kind names. Every role made is dropped when the session ends, after the database.
    """
    made: list[str] = []
    session = uuid.uuid4().hex[:8]

    async def make(kind: str) -> str:
        role = f"automations_test_{session}_{kind}_{len(made)}"
        database = make_url(warehouse_admin_url).database
        statements = (
            f"CREATE ROLE {role} LOGIN PASSWORD 'unused-trust-auth'",
            f'GRANT CONNECT ON DATABASE "{database}" TO {role}',
            f"GRANT USAGE ON SCHEMA public TO {role}",
            f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}",
            *(statement.format(role=role) for statement in ROLE_KINDS[kind]),
        )
        made.append(role)
        for statement in statements:
            await admin_sql(warehouse_admin_url, statement)
        url = make_url(warehouse_admin_url).set(
            drivername="postgresql", username=role, password="unused-trust-auth"
        )
        return url.render_as_string(hide_password=False)

    yield make
    # A role cannot be dropped while it holds privileges: DROP OWNED revokes those in the warehouse
    # database and on shared objects (its CONNECT), before the database itself goes.
    for role in made:
        asyncio.run(admin_sql(warehouse_admin_url, f"DROP OWNED BY {role}"))
        asyncio.run(admin_sql(servers.admin_database_url, f"DROP ROLE IF EXISTS {role}"))


@pytest.fixture(scope="session")
def warehouse_dsn(make_role: RoleMaker) -> str:
    """A plain `postgresql://` DSN of a clean reader of the warehouse database."""
    return asyncio.run(make_role("reader"))
