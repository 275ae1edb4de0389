"""Secrets of a space: set, list, read the metadata of, and delete. Values are only ever written here.

Reading a value back is the vault's job (`app.services.resources.vault`), at the moment a capability needs it.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from app.engine.validation.secrets import first_destination
from app.errors import ErrorDetail, NotFound, ValidationFailed
from app.persistence.models import Secret
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.secrets import SecretRepository
from app.persistence.types import AsyncSession
from app.registry import actions, capabilities
from app.security.crypto import Context, Keyring
from app.security.egress import MAX_HOSTS, host_pattern_problem, normalised_pattern
from app.services.identity.access import Permissions, SpaceAccess

NAME_PATTERN = r"^[a-z0-9_]{1,64}$"
MAX_VALUE_BYTES = 8 * 1024
MAX_DESCRIPTION_LENGTH = 500
SECRET_PURPOSE = "secret"  # noqa: S105 (the purpose label of the encryption context, not a secret)

_NAME = re.compile(NAME_PATTERN)
# Automations read to suggest hosts for one page of secrets: the oldest that name any of them.
SUGGESTION_SCAN_LIMIT = 200


def secret_context(space_id: uuid.UUID, name: str) -> Context:
    """What a secret's value is sealed for: its space and its name."""
    return Context.of(SECRET_PURPOSE, str(space_id), name)


def check_name(name: str) -> None:
    """Refuse a name outside `NAME_PATTERN` with a pointer to it."""
    if not _NAME.fullmatch(name):
        raise ValidationFailed(
            "A secret name is 1 to 64 characters of a-z, 0-9 and _.",
            code="invalid_secret_name",
            details=[ErrorDetail(path="/path/name", message=f"must match {NAME_PATTERN}")],
        )


def value_size_problem(value: str) -> str | None:
    """Why a value cannot be stored (its UTF-8 size must be 1 byte to 8 KB), or None. Never quotes it."""
    size = len(value.encode("utf-8"))
    if size == 0:
        return "must not be empty"
    if size > MAX_VALUE_BYTES:
        return f"must be at most {MAX_VALUE_BYTES} bytes in UTF-8 (this one is {size})"
    return None


def checked_hosts(hosts: list[str]) -> list[str]:
    """The host patterns normalised and without repeats; `invalid_secret_hosts` points at a bad one."""
    problems = [
        ErrorDetail(path=f"/hosts/{index}", message=problem)
        for index, pattern in enumerate(hosts)
        if (problem := host_pattern_problem(pattern)) is not None
    ]
    if len(hosts) > MAX_HOSTS:
        problems.insert(0, ErrorDetail(path="/hosts", message=f"at most {MAX_HOSTS} hosts"))
    if problems:
        raise ValidationFailed(
            "A secret's hosts are host names (api.example.com), *.domain wildcards or addresses.",
            code="invalid_secret_hosts",
            details=problems,
        )
    return list(dict.fromkeys(normalised_pattern(pattern) for pattern in hosts))


@dataclass(frozen=True)
class SecretWrite:
    """A secret after PUT; `created` tells a new secret from a replaced one."""

    secret: Secret
    created: bool


class SecretService:
    async def put(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        keyring: Keyring,
        *,
        name: str,
        value: str,
        description: str | None,
        hosts: list[str] | None = None,
    ) -> SecretWrite:
        """Create or replace a secret (admin); the value is sealed for this space and name.

        `hosts` binds it (see `set_hosts`); None keeps a replaced secret's hosts, a new one has none."""
        access.require(Permissions.manage_secrets)
        check_name(name)
        bound = None if hosts is None else checked_hosts(hosts)
        problem = value_size_problem(value)
        if problem is not None:
            raise ValidationFailed(
                "The secret value has a size that cannot be stored.",
                code="invalid_secret_value",
                details=[ErrorDetail(path="/value", message=problem)],
            )
        ciphertext = keyring.encrypt(value.encode("utf-8"), secret_context(access.space_id, name))
        secret, created = await SecretRepository(session).upsert(
            space_id=access.space_id,
            name=name,
            description=description,
            ciphertext=ciphertext,
            key_id=keyring.current_key_id,
            user_id=access.user_id,
            hosts=bound,
        )
        return SecretWrite(secret=secret, created=created)

    async def set_hosts(
        self, session: AsyncSession, access: SpaceAccess, name: str, hosts: list[str]
    ) -> Secret:
        """Bind a secret to hosts (admin): its value is sent to no other host; empty unbinds it."""
        access.require(Permissions.manage_secrets)
        bound = checked_hosts(hosts)
        secret = await SecretRepository(session).set_hosts(access.space_id, name, bound, access.user_id)
        if secret is None:
            raise _not_found(name)
        return secret

    async def list(
        self, session: AsyncSession, access: SpaceAccess, *, limit: int, cursor: str | None
    ) -> Page[Secret]:
        """The space's secrets by name (metadata only)."""
        access.require(Permissions.read)
        return await paginate(
            session,
            SecretRepository(session).space_statement(access.space_id),
            order_by=[Secret.name],
            limit=limit,
            cursor=cursor,
            descending=False,
        )

    async def names(self, session: AsyncSession, access: SpaceAccess) -> frozenset[str]:
        """The names of the space's secrets, what a definition's references are checked against."""
        access.require(Permissions.read)
        return frozenset(await SecretRepository(session).all_names(access.space_id))

    async def bindings(self, session: AsyncSession, access: SpaceAccess) -> dict[str, tuple[str, ...]]:
        """Each secret's name with the hosts it is bound to (empty: any public host)."""
        access.require(Permissions.read)
        found = await SecretRepository(session).hosts_by_name(access.space_id)
        return {name: tuple(hosts) for name, hosts in found.items()}

    async def get(self, session: AsyncSession, access: SpaceAccess, name: str) -> Secret:
        """One secret's metadata."""
        access.require(Permissions.read)
        secret = await SecretRepository(session).get_by_name(access.space_id, name)
        if secret is None:
            raise _not_found(name)
        return secret

    async def suggested_hosts(
        self, session: AsyncSession, access: SpaceAccess, secrets: Sequence[Secret]
    ) -> dict[str, str]:
        """For each secret bound to no host, the host the space's first automation that uses it sends it
        to (when its URL is written out): what an admin may confirm as its binding. Never applied here."""
        access.require(Permissions.read)
        unbound = [secret.name for secret in secrets if not secret.hosts]
        definitions = await SecretRepository(session).definitions_naming(
            access.space_id, unbound, SUGGESTION_SCAN_LIMIT
        )
        found: dict[str, str] = {}
        for name in unbound:
            for definition in definitions:
                host = first_destination(definition, name, actions, capabilities)
                if host is not None:
                    found[name] = host
                    break
        return found

    async def delete(self, session: AsyncSession, access: SpaceAccess, name: str) -> None:
        """Delete a secret (admin); steps that name it fail with `secret_missing` from then on."""
        access.require(Permissions.manage_secrets)
        if not await SecretRepository(session).delete_by_name(access.space_id, name):
            raise _not_found(name)


def _not_found(name: str) -> NotFound:
    return NotFound(f"This space has no secret named {name!r}.", code="secret_not_found")


secret_service = SecretService()

__all__ = [
    "MAX_DESCRIPTION_LENGTH",
    "MAX_VALUE_BYTES",
    "NAME_PATTERN",
    "SecretService",
    "SecretWrite",
    "check_name",
    "checked_hosts",
    "secret_context",
    "secret_service",
    "value_size_problem",
]
