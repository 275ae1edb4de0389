"""Engines and sessions. Created by the composition roots, never at import time."""

from __future__ import annotations

import select
import time
import uuid
from typing import Any

from sqlalchemy import event, exc
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import ConnectionPoolEntry, Pool

TRANSACTION_POOLER = "automations_transaction_pooler"
"""Execution option of an engine whose connections go through a transaction pooler (`create_engine`)."""
IDLE_PING_SECONDS = 30.0
"""A pooled connection idle for longer than this is pinged before use (see `create_engine`)."""
_CHECKED_IN_AT = "automations_checked_in_at"


def create_engine(
    url: str,
    *,
    pool_size: int = 10,
    max_overflow: int | None = None,
    application_name: str = "automations",
    ping_after_idle: float | None = None,
    transaction_pooler: bool = False,
) -> AsyncEngine:
    """An asyncpg engine that hands out only live connections, so a restarted database does not fail
    the first request.

    By default every checkout pings the server (`pool_pre_ping`: with asyncpg that is three round
    trips, BEGIN, an empty query and ROLLBACK). With `ping_after_idle` (seconds), a checkout instead
    drops a connection the server already closed (a restarted server closes its sockets, and the
    event loop or a look at the socket sees it) at no cost, and pings only a connection idle for
    longer than that, which a firewall or proxy may have dropped silently. Busy connections then cost
    no extra round trip.

    `pool_size` connections stay open once opened; up to `max_overflow` more (default: `pool_size`)
    open in a burst and close when returned, so a steady load should fit in `pool_size`: each
    reopened connection costs a connect and the driver's type introspection.

    With `transaction_pooler` (`url` reaches PostgreSQL through PgBouncer in transaction mode), no
    prepared statement is kept: consecutive transactions of one connection may land on different
    server connections, where a statement prepared on another does not exist (or, by name, is another
    one). See `pooler_connect_args`. The engine is marked (`behind_transaction_pooler`) so that nothing
    runs in autocommit mode on it: outside a transaction, the pooler may hand a statement's parse and
    its execution to two different server connections.

    Errors name the statement but never its parameters, so a logged database error leaks no value.
    """
    connect_args: dict[str, Any] = {"server_settings": {"application_name": application_name}}
    if transaction_pooler:
        connect_args.update(pooler_connect_args())
    engine = create_async_engine(
        url,
        pool_size=pool_size,
        max_overflow=pool_size if max_overflow is None else max_overflow,
        pool_pre_ping=ping_after_idle is None,
        # Bound values are user data (payloads, inputs) and token digests: keep them out of error logs.
        hide_parameters=True,
        connect_args=connect_args,
        execution_options={TRANSACTION_POOLER: transaction_pooler},
    )
    if ping_after_idle is not None:
        _check_on_checkout(engine.sync_engine.pool, ping_after_idle)
    return engine


def behind_transaction_pooler(bind: AsyncEngine | AsyncConnection) -> bool:
    """Whether `bind` (an engine of `create_engine`, or one of its connections) goes through a
    transaction pooler, where every statement must run inside a transaction."""
    return bool(bind.sync_engine.get_execution_options().get(TRANSACTION_POOLER, False))


def pooler_connect_args() -> dict[str, Any]:
    """asyncpg settings for a connection through a transaction pooler.

    asyncpg's statement cache and SQLAlchemy's prepared statement cache are off, so nothing prepared
    is looked for again later, and every statement SQLAlchemy prepares gets a name of its own:
    asyncpg's default names count up per client connection, so two clients sharing a server
    connection would collide on `__asyncpg_stmt_1__`. `application_name` is a startup parameter
    PgBouncer passes on; nothing else is set per session.
    """
    return {
        "statement_cache_size": 0,
        "prepared_statement_cache_size": 0,
        "prepared_statement_name_func": _unique_statement_name,
    }


def _unique_statement_name() -> str:
    return f"__automations_{uuid.uuid4().hex}__"


def _check_on_checkout(pool: Pool, ping_after_idle: float) -> None:
    @event.listens_for(pool, "checkin")
    def _stamp(dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info[_CHECKED_IN_AT] = time.monotonic()

    @event.listens_for(pool, "checkout")
    def _check(dbapi_connection: Any, record: ConnectionPoolEntry, proxy: Any) -> None:
        # Raising DisconnectionError makes the pool discard this connection and check out another.
        driver = dbapi_connection.driver_connection
        if driver.is_closed() or _has_unread_input(driver):
            raise exc.DisconnectionError("the server closed this connection")
        checked_in_at = record.info.get(_CHECKED_IN_AT)
        if checked_in_at is None or time.monotonic() - checked_in_at <= ping_after_idle:
            return
        try:
            dbapi_connection.ping()
        except Exception as error:
            raise exc.DisconnectionError("the connection did not answer a ping") from error


def _has_unread_input(driver: Any) -> bool:
    """Whether the server sent something to a connection that has no statement in flight.

    An idle connection receives only a closing server's farewell (an error, then end of file). A loop
    that stood still since the checkin (a worker's, between two tasks) has not read it yet, so
    `is_closed` does not know; the socket does, without a round trip.
    """
    transport = getattr(driver, "_transport", None)
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is None:
        return False
    readable, _, _ = select.select([sock], [], [], 0)
    return bool(readable)


def create_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded attributes after commit (answers are shaped after the commit)."""
    return async_sessionmaker(engine, expire_on_commit=False, autoflush=False)
