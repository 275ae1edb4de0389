"""Read-only queries on PostgreSQL databases a space registered (not the service's own database).

Every query runs in a `READ ONLY` transaction with a `statement_timeout`, on a connection whose
session also has `idle_in_transaction_session_timeout` and read-only defaults. Parameters are bound
by the server (`$1`, `$2`, ...), never formatted into the text. Answers stop at a row and a byte cap
and say so (`truncated`). Pools are per process (a worker), small and bounded, and few: the least
recently used pool is closed when a new one would pass the cap.

The host of a DSN passes the egress guard's address check, and the connection goes to the address
that was checked, so a name that resolves differently a moment later cannot redirect it.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import decimal
import hashlib
import json
import uuid
from collections import OrderedDict
from typing import Any

import asyncpg

from app.definitions.signals import StepError
from app.persistence.dsn import DsnProblem, checked_address, parse_dsn
from app.security.egress import EgressAllowList, EgressDenied

MAX_ROWS = 1000
MAX_ANSWER_BYTES = 1024 * 1024
MAX_TABLE_COLUMNS = 5000
POOL_MAX_SIZE = 2
MAX_POOLS = 16


def _jsonable(value: Any) -> Any:
    """A database value as JSON data: exact numbers as strings, times in ISO 8601, bytes in base64."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    return str(value)


def _step_error(exc: BaseException) -> StepError:
    """A database failure as a step error: the server's own message for what the query did wrong."""
    if isinstance(exc, asyncpg.exceptions.ReadOnlySQLTransactionError):
        return StepError("database_read_only", f"the database refused a write: {exc}", retryable=False)
    if isinstance(exc, asyncpg.exceptions.QueryCanceledError):
        return StepError("query_timeout", f"the query was stopped: {exc}", retryable=False)
    if isinstance(exc, asyncpg.exceptions.InvalidAuthorizationSpecificationError):
        return StepError(
            "database_auth_failed", "the database refused the DSN's credentials", retryable=False
        )
    if isinstance(exc, asyncpg.exceptions.PostgresError):
        return StepError("query_error", f"{exc.sqlstate}: {exc}", retryable=False)
    if isinstance(exc, asyncpg.exceptions.InterfaceError | asyncpg.exceptions.DataError):
        return StepError("query_error", str(exc), retryable=False)
    # A connection that failed or dropped: no message, it may name hosts and users.
    return StepError("database_unavailable", f"the database could not be reached ({type(exc).__name__})")


async def _address(dsn_text: str, allow: EgressAllowList) -> tuple[Any, str]:
    """The parsed DSN and the address the egress guard approved for its host."""
    try:
        dsn = parse_dsn(dsn_text)
    except DsnProblem as exc:
        raise StepError("invalid_dsn", str(exc), retryable=False) from None
    try:
        return dsn, await checked_address(dsn, allow)
    except EgressDenied:
        raise StepError(
            "egress_denied", "the database host is refused by the egress guard", retryable=False
        ) from None
    except OSError:
        raise StepError("database_unavailable", "the database host does not resolve") from None


class ConnectionProbe:
    """One short connection to a registered database, to tell an admin whether its DSN works: connect
    (to the address the egress guard approved), count the tables the role sees, read-only, and close."""

    def __init__(self, allow: EgressAllowList, timeout_seconds: float) -> None:
        self.allow = allow
        self.timeout_seconds = timeout_seconds

    async def check(self, dsn_text: str) -> int:
        """How many tables outside the system schemas the DSN's role sees; a `StepError` otherwise."""
        dsn, address = await _address(dsn_text, self.allow)
        try:
            connection = await asyncpg.connect(
                host=address,
                port=dsn.port,
                user=dsn.user,
                password=dsn.password,
                database=dsn.database,
                ssl=dsn.sslmode,
                timeout=self.timeout_seconds,
                command_timeout=self.timeout_seconds,
                server_settings={
                    "application_name": "automations-check",
                    "default_transaction_read_only": "on",
                    "statement_timeout": str(int(self.timeout_seconds * 1000)),
                },
            )
            try:
                count = await connection.fetchval(
                    "SELECT count(*) FROM information_schema.tables"
                    " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
                )
            finally:
                await connection.close()
        except (asyncpg.exceptions.PostgresError, asyncpg.exceptions.InterfaceError, OSError) as exc:
            raise _step_error(exc) from None
        return int(count)


class QueryRunner:
    """This process's pools to registered databases, and the two operations the capabilities offer."""

    def __init__(self, allow: EgressAllowList, statement_timeout_seconds: float) -> None:
        self.allow = allow
        self.timeout_ms = int(statement_timeout_seconds * 1000)
        self._pools: OrderedDict[str, asyncpg.Pool] = OrderedDict()
        self._lock = asyncio.Lock()

    async def _pool(self, database_id: str, dsn_text: str) -> asyncpg.Pool:
        dsn, address = await _address(dsn_text, self.allow)
        fingerprint = hashlib.sha256(f"{database_id}\0{dsn_text}\0{address}".encode()).hexdigest()
        async with self._lock:
            pool = self._pools.get(fingerprint)
            if pool is not None:
                self._pools.move_to_end(fingerprint)
                return pool
            pool = await asyncpg.create_pool(
                host=address,
                port=dsn.port,
                user=dsn.user,
                password=dsn.password,
                database=dsn.database,
                ssl=dsn.sslmode,
                min_size=0,
                max_size=POOL_MAX_SIZE,
                max_inactive_connection_lifetime=60,
                command_timeout=self.timeout_ms / 1000 + 5,
                server_settings={
                    "application_name": "automations-query",
                    "default_transaction_read_only": "on",
                    "statement_timeout": str(self.timeout_ms),
                    "idle_in_transaction_session_timeout": str(self.timeout_ms * 2),
                },
            )
            self._pools[fingerprint] = pool
            while len(self._pools) > MAX_POOLS:
                _, oldest = self._pools.popitem(last=False)
                await oldest.close()
            return pool

    async def query(self, database_id: str, dsn: str, sql: str, params: list[Any]) -> dict[str, Any]:
        """Run one statement read-only: {columns, rows, row_count, truncated} within the caps."""
        try:
            pool = await self._pool(database_id, dsn)
            async with pool.acquire() as connection, connection.transaction(readonly=True):
                await connection.execute(f"SET LOCAL statement_timeout = {self.timeout_ms}")
                statement = await connection.prepare(sql)
                columns = [attribute.name for attribute in statement.get_attributes()]
                rows: list[list[Any]] = []
                size = 0
                truncated = False
                async for record in statement.cursor(*params, prefetch=100):
                    if len(rows) >= MAX_ROWS:
                        truncated = True
                        break
                    row = [_jsonable(value) for value in record.values()]
                    size += len(json.dumps(row, ensure_ascii=False)) + 1
                    if size > MAX_ANSWER_BYTES:
                        truncated = True
                        break
                    rows.append(row)
        except StepError:
            raise
        except (asyncpg.exceptions.PostgresError, asyncpg.exceptions.InterfaceError, OSError) as exc:
            raise _step_error(exc) from None
        return {"columns": columns, "rows": rows, "row_count": len(rows), "truncated": truncated}

    async def tables(self, database_id: str, dsn: str) -> dict[str, Any]:
        """The tables and views outside the system schemas, with their columns."""
        answer = await self.query(
            database_id,
            dsn,
            "SELECT table_schema, table_name, column_name, data_type FROM information_schema.columns"
            " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
            " ORDER BY table_schema, table_name, ordinal_position LIMIT $1",
            [MAX_TABLE_COLUMNS],
        )
        tables: dict[tuple[str, str], list[dict[str, str]]] = {}
        for schema, table, column, data_type in answer["rows"]:
            tables.setdefault((schema, table), []).append({"name": column, "type": data_type})
        return {
            "tables": [
                {"schema": schema, "name": name, "columns": columns}
                for (schema, name), columns in tables.items()
            ],
            "truncated": answer["truncated"],
        }

    @property
    def open_pools(self) -> int:
        """How many pools this process holds (at most `MAX_POOLS`)."""
        return len(self._pools)

    async def close(self) -> None:
        """Close every pool (a worker shutting down)."""
        while self._pools:
            _, pool = self._pools.popitem()
            await pool.close()
