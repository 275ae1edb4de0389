"""Databases a space registered for queries: register, list, read, check, delete. The capability source
that turns each into `<prefix>.query` and `<prefix>.tables` is `app.adapters.database_capabilities`.

The DSN never leaves the vault: a registration names the secret holding it, the source resolves it
right before each call, and no answer, error or record quotes it.

The DSN's role is checked when a registration is made or re-pointed and before each claim's first
query on it (`app.integrations.database_roles`): one that reaches the database host or other sessions is
refused, and one that can change data unless the registration's `access` is `write`. A `write`
registration's query is a write capability (risk `write`), so the permission mode of writes applies.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from app.definitions.signals import StepError
from app.errors import Conflict, ErrorDetail, NotFound, ValidationFailed
from app.integrations.database_roles import ACCESS_LEVELS
from app.integrations.dsn import DsnProblem, checked_address, parse_dsn
from app.persistence.models import SpaceDatabase
from app.persistence.repositories.artifacts import DatabaseRepository
from app.persistence.types import AsyncSession, IntegrityError
from app.registry.models import RESERVED_FIRST_SEGMENTS
from app.security.crypto import Keyring
from app.security.egress import EgressAllowList, EgressDenied
from app.services.identity.access import Permissions, SpaceAccess
from app.services.resources.vault import SecretMissing, SecretVault

NAME_PATTERN = r"^[a-z0-9_]{1,64}$"
PREFIX_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"
OPERATIONS = ("query", "tables")
_NAME = re.compile(NAME_PATTERN)
_PREFIX = re.compile(PREFIX_PATTERN)


@runtime_checkable
class ConnectionProbe(Protocol):
    """Tries a DSN once (`app.integrations.user_databases.ConnectionProbe`): the tables its role sees, or
    a `StepError` saying why not (`database_role_unsafe` when the role may not serve `access`)."""

    async def check(self, dsn: str, access: str) -> int: ...


@dataclass(frozen=True)
class CheckResult:
    """How a connection test went: reachable with the tables seen, or the reason it failed."""

    reachable: bool
    tables: int | None = None
    code: str | None = None
    message: str | None = None


def capability_ids(prefix: str) -> list[str]:
    return [f"{prefix}.{operation}" for operation in OPERATIONS]


@dataclass(frozen=True)
class DatabaseChanges:
    """The fields a PATCH names; None leaves a field as it is."""

    name: str | None = None
    dsn_secret: str | None = None
    tool_prefix: str | None = None
    access: str | None = None


def _exists() -> Conflict:
    return Conflict("A database with this name or tool prefix exists.", code="database_exists")


def _invalid(message: str, path: str, code: str) -> ValidationFailed:
    return ValidationFailed(message, code=code, details=[ErrorDetail(path=path, message=message)])


def _check_name(name: str) -> None:
    if not _NAME.fullmatch(name):
        raise _invalid(f"must match {NAME_PATTERN}", "/name", "invalid_database_name")


def _check_prefix(tool_prefix: str, taken_prefixes: frozenset[str]) -> None:
    if not _PREFIX.fullmatch(tool_prefix):
        raise _invalid(f"must match {PREFIX_PATTERN}", "/tool_prefix", "invalid_tool_prefix")
    if tool_prefix in RESERVED_FIRST_SEGMENTS or tool_prefix in taken_prefixes:
        raise _invalid(
            "names built-in capabilities or a reserved word; choose another",
            "/tool_prefix",
            "tool_prefix_taken",
        )


def _check_access(value: str) -> None:
    if value not in ACCESS_LEVELS:
        raise _invalid(f"must be one of {', '.join(ACCESS_LEVELS)}", "/access", "invalid_database_access")


async def _check_dsn_secret(
    session: AsyncSession, access: SpaceAccess, keyring: Keyring, allow: EgressAllowList, dsn_secret: str
) -> str:
    """The DSN in the named secret, when it exists and its host passes the egress guard; never echoed."""
    try:
        values = await SecretVault(keyring).resolve(session, access.space_id, [dsn_secret])
    except SecretMissing:
        raise _invalid("this space has no secret of that name", "/dsn_secret", "secret_missing") from None
    try:
        dsn = parse_dsn(values[dsn_secret])
    except DsnProblem as exc:
        raise _invalid(
            f"the secret does not hold a usable DSN: {exc}", "/dsn_secret", "invalid_dsn"
        ) from None
    try:
        await checked_address(dsn, allow)
    except EgressDenied:
        raise _invalid(
            "the DSN's host is refused by the egress guard (private, loopback or metadata address)",
            "/dsn_secret",
            "dsn_host_refused",
        ) from None
    except OSError:
        raise _invalid("the DSN's host does not resolve", "/dsn_secret", "dsn_host_unresolvable") from None
    return values[dsn_secret]


async def _check_role(probe: ConnectionProbe, dsn: str, database_access: str) -> None:
    """Connect once and refuse a DSN whose role may not serve `database_access` (or that cannot be
    checked now: the role is the wall, so a registration needs the database to answer)."""
    try:
        await probe.check(dsn, database_access)
    except StepError as exc:
        if exc.code != "database_role_unsafe":
            raise _invalid(
                f"the database could not be checked: {exc.message}", "/dsn_secret", exc.code
            ) from None
        # A privilege that writes points at `access` (registering `write` accepts it); the rest at the DSN.
        details = [
            ErrorDetail(
                path="/access" if finding["severity"] == "write" else "/dsn_secret",
                message=finding["what"],
                code=finding["severity"],
            )
            for finding in exc.details or []
        ]
        raise ValidationFailed(exc.message, code="database_role_unsafe", details=details) from None


class DatabaseService:
    async def register(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        keyring: Keyring,
        allow: EgressAllowList,
        probe: ConnectionProbe,
        *,
        name: str,
        dsn_secret: str,
        tool_prefix: str,
        taken_prefixes: frozenset[str],
        database_access: str = "read",
    ) -> SpaceDatabase:
        """Register a database (admin). The DSN is read from the vault, checked, and never echoed; its
        role is checked on the database for `database_access` (`read` or `write`)."""
        access.require(Permissions.manage_secrets)
        _check_name(name)
        _check_prefix(tool_prefix, taken_prefixes)
        _check_access(database_access)
        dsn = await _check_dsn_secret(session, access, keyring, allow, dsn_secret)
        repository = DatabaseRepository(session)
        if await repository.taken(access.space_id, name, tool_prefix) is not None:
            raise _exists()
        await _check_role(probe, dsn, database_access)
        row = SpaceDatabase(
            id=uuid.uuid4(),
            space_id=access.space_id,
            name=name,
            dsn_secret=dsn_secret,
            tool_prefix=tool_prefix,
            access=database_access,
            created_by=access.user_id,
        )
        try:
            async with session.begin_nested():
                await repository.create(row)
        except IntegrityError:
            raise Conflict(
                "A database with this name or tool prefix exists.", code="database_exists"
            ) from None
        return row

    async def update(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        keyring: Keyring,
        allow: EgressAllowList,
        probe: ConnectionProbe,
        database_id: uuid.UUID,
        *,
        changes: DatabaseChanges,
        taken_prefixes: frozenset[str],
    ) -> SpaceDatabase:
        """Rename, re-point, re-prefix or change the access of a registration (admin); each given field
        is checked as when registering. A new secret or access has the role checked again on the database
        (narrowing `write` to `read` too: the role must then change nothing)."""
        access.require(Permissions.manage_secrets)
        row = await self.get(session, access, database_id)
        if changes.name is not None:
            _check_name(changes.name)
        if changes.tool_prefix is not None:
            _check_prefix(changes.tool_prefix, taken_prefixes)
        if changes.access is not None:
            _check_access(changes.access)
        dsn: str | None = None
        if changes.dsn_secret is not None:
            dsn = await _check_dsn_secret(session, access, keyring, allow, changes.dsn_secret)
        name = changes.name or row.name
        prefix = changes.tool_prefix or row.tool_prefix
        database_access = changes.access or row.access
        repository = DatabaseRepository(session)
        clash = await repository.taken(access.space_id, name, prefix, excluding=row.id)
        if clash is not None:
            raise _exists()
        if dsn is not None or database_access != row.access:
            if dsn is None:
                dsn = await _check_dsn_secret(session, access, keyring, allow, row.dsn_secret)
            await _check_role(probe, dsn, database_access)
        values = {
            "name": name,
            "tool_prefix": prefix,
            "dsn_secret": changes.dsn_secret or row.dsn_secret,
            "access": database_access,
        }
        try:
            async with session.begin_nested():
                await repository.update(row, values)
        except IntegrityError:
            raise _exists() from None
        return row

    async def list(self, session: AsyncSession, access: SpaceAccess) -> Sequence[SpaceDatabase]:
        access.require(Permissions.read)
        return await DatabaseRepository(session).all_in_space(access.space_id)

    async def get(self, session: AsyncSession, access: SpaceAccess, database_id: uuid.UUID) -> SpaceDatabase:
        access.require(Permissions.read)
        row = await DatabaseRepository(session).get_in_space(access.space_id, database_id)
        if row is None:
            raise NotFound("Database not found.", code="database_not_found")
        return row

    async def check(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        keyring: Keyring,
        probe: ConnectionProbe,
        database_id: uuid.UUID,
    ) -> CheckResult:
        """Connect once with the registration's DSN (admin: it uses the credential) and check its role
        for the registration's access; a failure is an answer, not an error, and never quotes the DSN."""
        access.require(Permissions.manage_secrets)
        row = await self.get(session, access, database_id)
        try:
            values = await SecretVault(keyring).resolve(session, access.space_id, [row.dsn_secret])
        except SecretMissing:
            return CheckResult(
                False, code="secret_missing", message=f"this space has no secret named {row.dsn_secret!r}"
            )
        try:
            tables = await probe.check(values[row.dsn_secret], row.access)
        except StepError as exc:
            return CheckResult(False, code=exc.code, message=exc.message)
        return CheckResult(True, tables=tables)

    async def delete(self, session: AsyncSession, access: SpaceAccess, database_id: uuid.UUID) -> None:
        """Remove the registration (admin); steps naming its capabilities fail from then on."""
        access.require(Permissions.manage_secrets)
        row = await self.get(session, access, database_id)
        await DatabaseRepository(session).remove(row)


database_service = DatabaseService()
