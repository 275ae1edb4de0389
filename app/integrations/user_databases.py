"""Queries on PostgreSQL databases a space registered (not the service's own database).

The role behind the DSN is the wall (`app.integrations.database_roles`): checked before a claim's first
query, it may not reach the database host or other sessions, nor (unless the registration is `write`)
change data. A `read` registration's query also runs, on its own, as a read: the body of a cursor
(`DECLARE … CURSOR FOR`, which the server's grammar allows only for a SELECT, VALUES or TABLE) in a
`READ ONLY` transaction, on a session whose default is read-only. Neither stops a side effect hidden
in a function a SELECT calls (`pg_notify`, `pg_terminate_backend` on the role's own sessions, `dblink`):
only what the role may call does. Every query has a `statement_timeout`, the session an
`idle_in_transaction_session_timeout`, and each transaction starts with `RESET ROLE`, so a role taken on
with `set_config('role', …)` does not outlive the query that took it (the pool's own reset keeps it).
Parameters are bound by the server (`$1`, `$2`, ...), never formatted into the text. Answers stop at a
row and a byte cap and say so (`truncated`). Pools are per process (a worker), small and bounded, and
few: the least recently used pool is closed when a new one would pass the cap.

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
from app.integrations.database_roles import ROLE_FINDINGS_SQL, RoleFinding, role_error, role_findings_args
from app.integrations.dsn import DsnProblem, checked_address, parse_dsn
from app.integrations.sql_statements import other_command
from app.security.egress import EgressAllowList, EgressDenied

MAX_ROWS = 1000
MAX_ANSWER_BYTES = 1024 * 1024
MAX_TABLE_COLUMNS = 5000
POOL_MAX_SIZE = 2
MAX_POOLS = 16
FETCH_BATCH = 100
CURSOR = "automations_query"


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


async def role_check(connection: asyncpg.Connection, access: str) -> None:
    """Raise the `database_role_unsafe` step error when the connection's role may not serve `access`."""
    rows = await connection.fetch(ROLE_FINDINGS_SQL, *role_findings_args())
    refusal = role_error([RoleFinding(row[0], row[1]) for row in rows], access)
    if refusal is not None:
        raise refusal


def _not_a_read(keyword: str) -> StepError:
    return StepError(
        "database_read_only",
        "the database is registered read-only: a query is one SELECT, WITH … SELECT, VALUES or TABLE "
        f"statement, and this one starts with {keyword}",
        retryable=False,
    )


class ConnectionProbe:
    """One short connection to a registered database, to tell an admin whether its DSN works: connect
    (to the address the egress guard approved), check its role for the registration's access, count the
    tables the role sees, read-only, and close."""

    def __init__(self, allow: EgressAllowList, timeout_seconds: float) -> None:
        self.allow = allow
        self.timeout_seconds = timeout_seconds

    async def check(self, dsn_text: str, access: str) -> int:
        """How many tables outside the system schemas the DSN's role sees; a `StepError` otherwise
        (`database_role_unsafe` when the role may not serve `access`)."""
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
                async with connection.transaction(readonly=True):
                    await role_check(connection, access)
                    count = await connection.fetchval(
                        "SELECT count(*) FROM information_schema.tables"
                        " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
                    )
            finally:
                await connection.close()
        except StepError:
            raise
        except (asyncpg.exceptions.PostgresError, asyncpg.exceptions.InterfaceError, OSError) as exc:
            raise _step_error(exc) from None
        return int(count)


class QueryRunner:
    """This process's pools to registered databases, the role check, and the two operations the
    capabilities offer."""

    def __init__(self, allow: EgressAllowList, statement_timeout_seconds: float) -> None:
        self.allow = allow
        self.timeout_ms = int(statement_timeout_seconds * 1000)
        self._pools: OrderedDict[str, asyncpg.Pool] = OrderedDict()
        self._lock = asyncio.Lock()

    async def _pool(self, database_id: str, dsn_text: str, access: str) -> asyncpg.Pool:
        dsn, address = await _address(dsn_text, self.allow)
        fingerprint = hashlib.sha256(f"{database_id}\0{dsn_text}\0{address}\0{access}".encode()).hexdigest()
        async with self._lock:
            pool = self._pools.get(fingerprint)
            if pool is not None:
                self._pools.move_to_end(fingerprint)
                return pool
            settings = {
                "application_name": "automations-query",
                "statement_timeout": str(self.timeout_ms),
                "idle_in_transaction_session_timeout": str(self.timeout_ms * 2),
            }
            if access != "write":
                settings["default_transaction_read_only"] = "on"
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
                server_settings=settings,
            )
            self._pools[fingerprint] = pool
            while len(self._pools) > MAX_POOLS:
                _, oldest = self._pools.popitem(last=False)
                await oldest.close()
            return pool

    async def check_role(self, database_id: str, dsn: str, access: str = "read") -> None:
        """Refuse (`database_role_unsafe`, never retried) a role that may not serve `access` now."""
        try:
            pool = await self._pool(database_id, dsn, access)
            async with pool.acquire() as connection, connection.transaction(readonly=True):
                await connection.execute(f"RESET ROLE; SET LOCAL statement_timeout = {self.timeout_ms}")
                await role_check(connection, access)
        except StepError:
            raise
        except (asyncpg.exceptions.PostgresError, asyncpg.exceptions.InterfaceError, OSError) as exc:
            raise _step_error(exc) from None

    async def query(
        self, database_id: str, dsn: str, sql: str, params: list[Any], access: str = "read"
    ) -> dict[str, Any]:
        """Run one statement: {columns, rows, row_count, truncated} within the caps. A `read` query is
        one read, in a read-only transaction; a `write` one any single statement, in a read-write one."""
        writes = access == "write"
        command = None if writes else other_command(sql)
        if command is not None:
            raise _not_a_read(command)
        try:
            pool = await self._pool(database_id, dsn, access)
            async with pool.acquire() as connection, connection.transaction(readonly=not writes):
                await connection.execute(f"RESET ROLE; SET LOCAL statement_timeout = {self.timeout_ms}")
                if writes:
                    return await _collect_statement(connection, sql, params)
                return await _collect_cursor(connection, sql, params)
        except StepError:
            raise
        except (asyncpg.exceptions.PostgresError, asyncpg.exceptions.InterfaceError, OSError) as exc:
            raise _step_error(exc) from None

    async def tables(self, database_id: str, dsn: str, access: str = "read") -> dict[str, Any]:
        """The tables and views outside the system schemas, with their columns (a read, whatever the
        registration's access)."""
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


class _Rows:
    """Rows gathered within the caps: `add` answers False once a cap is reached (`truncated` set)."""

    def __init__(self) -> None:
        self.rows: list[list[Any]] = []
        self.size = 0
        self.truncated = False

    def add(self, record: asyncpg.Record) -> bool:
        if len(self.rows) >= MAX_ROWS:
            self.truncated = True
            return False
        row = [_jsonable(value) for value in record.values()]
        self.size += len(json.dumps(row, ensure_ascii=False)) + 1
        if self.size > MAX_ANSWER_BYTES:
            self.truncated = True
            return False
        self.rows.append(row)
        return True

    def answer(self, columns: list[str]) -> dict[str, Any]:
        return {
            "columns": columns,
            "rows": self.rows,
            "row_count": len(self.rows),
            "truncated": self.truncated,
        }


async def _collect_cursor(connection: asyncpg.Connection, sql: str, params: list[Any]) -> dict[str, Any]:
    """A read as the body of a cursor, fetched in batches. Prepared (the extended protocol): one
    statement only, and the server refuses a body that is not a plain read."""
    declared = await connection.prepare(f"DECLARE {CURSOR} NO SCROLL CURSOR FOR {sql}")
    await declared.fetch(*params)
    batch = await connection.prepare(f"FETCH {FETCH_BATCH} FROM {CURSOR}")
    columns = [attribute.name for attribute in batch.get_attributes()]
    rows = _Rows()
    while records := await batch.fetch():
        if not all(rows.add(record) for record in records):
            break
    return rows.answer(columns)


async def _collect_statement(connection: asyncpg.Connection, sql: str, params: list[Any]) -> dict[str, Any]:
    """Any one statement (a `write` registration), its rows, if any, read through a portal."""
    statement = await connection.prepare(sql)
    columns = [attribute.name for attribute in statement.get_attributes()]
    rows = _Rows()
    async for record in statement.cursor(*params, prefetch=FETCH_BATCH):
        if not rows.add(record):
            break
    return rows.answer(columns)
