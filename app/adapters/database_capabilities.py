"""The `database` tier of the capability resolver: each database a space registered, as `<prefix>.query` and
`<prefix>.tables`, visible only in its own space.

The DSN never leaves the vault: the source resolves it right before each call, checks its role once per
claim (the role may have changed since registration), and no answer, error or record quotes it.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from app.definitions.signals import StepError
from app.persistence.models import SpaceDatabase
from app.persistence.repositories.artifacts import DatabaseRepository
from app.persistence.shared_reads import read_session
from app.persistence.types import AsyncSession, async_sessionmaker
from app.registry import Capability
from app.registry.builtin_databases import QUERY_RESULT
from app.registry.ports import HandlerContext
from app.services.resources.databases import OPERATIONS, PREFIX_PATTERN

_PREFIX = re.compile(PREFIX_PATTERN)


class Queries(Protocol):
    """Runs statements on registered databases (`app.integrations.user_databases.QueryRunner`)."""

    async def check_role(self, database_id: str, dsn: str, access: str) -> None:
        """Raise `StepError("database_role_unsafe")` when the DSN's role may not serve `access`."""
        ...

    async def query(
        self, database_id: str, dsn: str, sql: str, params: list[Any], access: str
    ) -> dict[str, Any]: ...

    async def tables(self, database_id: str, dsn: str, access: str) -> dict[str, Any]: ...


def _unavailable() -> StepError:
    return StepError("database_unavailable", "this process does not run database queries")


class NoQueries:
    """The runner of a process that cannot reach registered databases: every call fails, retryably."""

    async def check_role(self, database_id: str, dsn: str, access: str) -> None:
        raise _unavailable()

    async def query(
        self, database_id: str, dsn: str, sql: str, params: list[Any], access: str
    ) -> dict[str, Any]:
        raise _unavailable()

    async def tables(self, database_id: str, dsn: str, access: str) -> dict[str, Any]:
        raise _unavailable()


class DsnSecrets(Protocol):
    """The space's secrets by name (the pipeline's `SecretResolver`)."""

    async def resolve(self, space_id: str, names: Collection[str]) -> Mapping[str, str]: ...


QUERY_INPUT: dict[str, Any] = {
    "type": "object",
    "required": ["sql"],
    "properties": {
        "sql": {"type": "string", "minLength": 1, "maxLength": 100_000, "description": "One statement."},
        "params": {
            "type": "array",
            "maxItems": 1000,
            "items": {"type": ["string", "number", "boolean", "null"]},
            "description": "Values of $1, $2, ... bound by the server (cast in SQL when needed: $1::int).",
        },
    },
    "additionalProperties": False,
}
QUERY_OUTPUT = QUERY_RESULT
TABLES_OUTPUT: dict[str, Any] = {
    "type": "object",
    "required": ["tables", "truncated"],
    "properties": {"tables": {"type": "array"}, "truncated": {"type": "boolean"}},
}


def _space_uuid(space_id: str | None) -> uuid.UUID | None:
    """The space's id, or None for a question about no space (or a label that names no real space)."""
    if space_id is None:
        return None
    try:
        return uuid.UUID(space_id)
    except ValueError:
        return None


class DatabaseSource:
    """The `database` tier of the capability resolver: each registered database's two capabilities,
    visible only in its own space."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], secrets: DsnSecrets, runner: Queries
    ) -> None:
        self.sessions = sessions
        self.secrets = secrets
        self.runner = runner

    async def capabilities(self, space_id: str | None) -> Sequence[Capability]:
        space = _space_uuid(space_id)
        if space is None:
            return []
        async with read_session(self.sessions) as session:
            rows = await DatabaseRepository(session).all_in_space(space)
        return [capability for row in rows for capability in self._capabilities(row)]

    async def get(self, space_id: str | None, capability_id: str) -> Capability | None:
        prefix, _, operation = capability_id.rpartition(".")
        space = _space_uuid(space_id)
        if space is None or operation not in OPERATIONS or not _PREFIX.fullmatch(prefix):
            return None
        async with read_session(self.sessions) as session:
            row = await DatabaseRepository(session).by_prefix(space, prefix)
        if row is None:
            return None
        return next(c for c in self._capabilities(row) if c.id == capability_id)

    def _capabilities(self, row: SpaceDatabase) -> list[Capability]:
        database_id, space_id, secret, access = str(row.id), str(row.space_id), row.dsn_secret, row.access

        async def checked_dsn(ctx: HandlerContext) -> str:
            """The DSN, its role checked once per claim (the role may have changed since registration)."""
            values = await self.secrets.resolve(space_id, [secret])
            if secret not in values:
                raise StepError(
                    "secret_missing", f"this space has no secret named {secret!r}", retryable=False
                )
            dsn = values[secret]
            key = "database-role:" + hashlib.sha256(f"{database_id}\0{access}\0{dsn}".encode()).hexdigest()
            if key not in ctx.ports.checks.passed:
                await self.runner.check_role(database_id, dsn, access)
                ctx.ports.checks.passed.add(key)
            return dsn

        async def query(ctx: HandlerContext, args: dict[str, Any]) -> Any:
            dsn, params = await checked_dsn(ctx), list(args.get("params", []))
            return await self.runner.query(database_id, dsn, args["sql"], params, access)

        async def tables(ctx: HandlerContext, args: dict[str, Any]) -> Any:
            return await self.runner.tables(database_id, await checked_dsn(ctx), access)

        writes = access == "write"
        query_description = (
            f"Run one SQL statement, a read or a write, on the {row.name} database (PostgreSQL)"
            if writes
            else f"Run one read-only SQL statement (SELECT, WITH, VALUES or TABLE) on the {row.name} "
            "database (PostgreSQL)"
        )
        return [
            Capability(
                id=f"{row.tool_prefix}.query",
                description=(
                    f"{query_description} with bound parameters ($1, $2, ...); at most 1,000 rows and "
                    "1 MB come back."
                ),
                input_schema=QUERY_INPUT,
                output_schema=QUERY_OUTPUT,
                handler=query,
                risk="write" if writes else "read",
                tier="database",
            ),
            Capability(
                id=f"{row.tool_prefix}.tables",
                description=f"List the tables and columns of the {row.name} database.",
                input_schema={"type": "object", "properties": {}, "additionalProperties": False},
                output_schema=TABLES_OUTPUT,
                handler=tables,
                risk="read",
                tier="database",
            ),
        ]
