"""The vault: secret values decrypted per call for the capability that needs them, and key rotation.

Nothing here caches a value: each `resolve` reads and decrypts, and the caller drops the values
when its call ends.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache

from app.config import Settings
from app.errors import AppError, NotFound
from app.persistence.repositories.secrets import SecretRepository
from app.persistence.types import AsyncSession
from app.security.crypto import CryptoError, Keyring
from app.security.egress import CarriedSecret
from app.services.resources.secrets import secret_context


class SecretMissing(NotFound):
    """A step names secrets its space does not have (deleted since the definition was saved)."""

    code = "secret_missing"

    def __init__(self, names: Collection[str]) -> None:
        self.names = sorted(names)
        super().__init__(f"This space has no secret named {', '.join(self.names)}.")


class SecretUnreadable(AppError):
    """A stored secret cannot be decrypted with the configured keys (a key was changed without rotation)."""

    code = "secret_unreadable"

    def __init__(self, name: str, reason: CryptoError) -> None:
        self.name = name
        super().__init__(f"The secret {name!r} cannot be decrypted: {reason}.")


class SecretValues(dict[str, str]):
    """Resolved values by name; its repr shows the names only, so a stray log line leaks nothing."""

    def __repr__(self) -> str:
        return f"SecretValues(names={sorted(self)})"

    __str__ = __repr__


class SecretVault:
    """Answers secret values for one space at the moment of a call."""

    def __init__(self, keyring: Keyring) -> None:
        self._keyring = keyring

    def __repr__(self) -> str:
        return f"SecretVault({self._keyring!r})"

    async def resolve(
        self, session: AsyncSession, space_id: uuid.UUID, names: Collection[str]
    ) -> dict[str, str]:
        """The values of `names` in the space; raises `SecretMissing` naming every absent one."""
        carried = await self.carried(session, space_id, names)
        return SecretValues({name: secret.value for name, secret in carried.items()})

    async def carried(
        self, session: AsyncSession, space_id: uuid.UUID, names: Collection[str]
    ) -> dict[str, CarriedSecret]:
        """`names` in the space with their values and bound hosts; `SecretMissing` names every absent one."""
        wanted = set(names)
        if not wanted:
            return {}
        rows = await SecretRepository(session).named(space_id, wanted)
        absent = wanted - {row.name for row in rows}
        if absent:
            raise SecretMissing(absent)
        found: dict[str, CarriedSecret] = {}
        for row in rows:
            try:
                plain = self._keyring.decrypt(row.ciphertext, secret_context(space_id, row.name))
            except CryptoError as exc:
                raise SecretUnreadable(row.name, exc) from None
            found[row.name] = CarriedSecret(row.name, plain.decode("utf-8"), tuple(row.hosts))
        return found

    async def missing(self, session: AsyncSession, space_id: uuid.UUID, names: Collection[str]) -> set[str]:
        """Which of `names` the space has no secret for (for validating a definition before saving it)."""
        wanted = set(names)
        if not wanted:
            return set()
        return wanted - await SecretRepository(session).existing_names(space_id, wanted)


@lru_cache(maxsize=8)
def _keyring(current: str, previous: tuple[str, ...]) -> Keyring:
    return Keyring(current, previous)


def keyring_for(settings: Settings, *previous: str) -> Keyring:
    """The keyring of these settings: the secret key seals, the previous key (and `previous`) still open."""
    older = [settings.previous_secret_key.get_secret_value()] if settings.previous_secret_key else []
    return _keyring(settings.resolved_secret_key(), tuple(secret for secret in (*previous, *older) if secret))


@dataclass(frozen=True)
class RotationBatch:
    """One batch of a key rotation: how many rows were resealed under the current key."""

    resealed: int


async def reseal_batch(session: AsyncSession, keyring: Keyring, *, limit: int = 100) -> RotationBatch:
    """Reseal up to `limit` secrets sealed under an older key of `keyring` with its current key.

    The rows stay locked until the caller commits, so a concurrent write waits instead of being
    overwritten by a stale value.
    """
    older = keyring.key_ids - {keyring.current_key_id}
    if not older:
        return RotationBatch(resealed=0)
    repository = SecretRepository(session)
    rows = await repository.sealed_under(older, limit)
    for row in rows:
        context = secret_context(row.space_id, row.name)
        try:
            ciphertext = keyring.reencrypt(row.ciphertext, context)
        except CryptoError as exc:
            raise SecretUnreadable(row.name, exc) from None
        await repository.reseal(row.id, ciphertext, keyring.current_key_id)
    return RotationBatch(resealed=len(rows))


async def secrets_by_key(session: AsyncSession) -> dict[str, int]:
    """How many secrets each key id seals (to see what a rotation left behind)."""
    return await SecretRepository(session).count_by_key()
