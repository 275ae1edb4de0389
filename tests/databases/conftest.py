"""A second real PostgreSQL database with data, made for these tests and dropped after them."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import make_url

from tests.support.servers import Servers, admin_sql, new_database_name, with_database


@pytest.fixture(scope="session")
def warehouse_dsn(servers: Servers) -> Iterator[str]:
    """A plain `postgresql://` DSN of a fresh database holding `events` (100,000 rows) and `people`."""
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
    ):
        asyncio.run(admin_sql(target, statement))
    yield make_url(target).set(drivername="postgresql").render_as_string(hide_password=False)
    asyncio.run(admin_sql(servers.admin_database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
