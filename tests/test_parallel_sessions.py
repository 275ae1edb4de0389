"""How many parallel sessions `make test` runs (`-n auto`): one more than the cores, bounded by the
connections the shared PostgreSQL admits; embedded servers (one per session) are bounded by cores only."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.servers import CONNECTIONS_PER_SESSION, Servers, max_connections, parallel_sessions


def test_sessions_are_one_more_than_the_cores_where_connections_allow(
    servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", servers.admin_database_url)
    monkeypatch.delenv("AUTOMATIONS_TEST_SERVERS", raising=False)
    ceiling = asyncio.run(max_connections(servers.admin_database_url))
    assert ceiling >= 2 * CONNECTIONS_PER_SESSION, "the suite's own server admits two sessions"
    assert parallel_sessions(1) == 2
    many = ceiling // CONNECTIONS_PER_SESSION + 5
    assert parallel_sessions(many) == ceiling // CONNECTIONS_PER_SESSION, "the server's ceiling bounds them"


def test_an_unreachable_server_gets_two_sessions_and_embedded_ones_follow_the_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:9/postgres")
    monkeypatch.delenv("AUTOMATIONS_TEST_SERVERS", raising=False)
    assert parallel_sessions(8) == 2
    monkeypatch.setenv("AUTOMATIONS_TEST_SERVERS", "embedded")
    assert parallel_sessions(8) == 9
