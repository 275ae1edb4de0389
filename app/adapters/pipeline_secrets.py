"""The capability pipeline's secret resolver, answered by the encrypted vault.

One short read per capability call for all the references it holds; nothing is cached, so a secret
deleted or replaced since the run started is seen at once. Values leave memory with the call.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping

from app.definitions.signals import StepError
from app.persistence.types import AsyncSession, async_sessionmaker
from app.security.egress import CarriedSecret
from app.services.resources.vault import SecretMissing, SecretUnreadable, SecretVault


class VaultSecrets:
    """`SecretResolver` on the vault: the values of the names the space has; absent names left out."""

    def __init__(self, vault: SecretVault, sessions: async_sessionmaker[AsyncSession]) -> None:
        self.vault = vault
        self.sessions = sessions

    async def resolve(self, space_id: str, names: Collection[str]) -> Mapping[str, str]:
        """The values alone (a database's DSN)."""
        return {name: secret.value for name, secret in (await self.carried(space_id, names)).items()}

    async def carried(self, space_id: str, names: Collection[str]) -> Mapping[str, CarriedSecret]:
        """The values with the hosts each is bound to (the capability pipeline's `secrets` rule)."""
        space = uuid.UUID(space_id)
        async with self.sessions() as session:
            try:
                try:
                    return await self.vault.carried(session, space, names)
                except SecretMissing as absent:
                    # The rule names every missing one; what is present is still answered.
                    return await self.vault.carried(session, space, set(names) - set(absent.names))
            except SecretUnreadable as exc:
                # A key changed without rotation: retrying cannot help, and the message has no value.
                raise StepError("secret_unreadable", exc.message, retryable=False) from None
