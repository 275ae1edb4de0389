"""Whether an open stream's caller may still read it: the token neither revoked nor expired, the user
still a member of the space. A request checks this once; a stream lasts for hours, so it checks again.

`StreamGuard` decides when: at once when the stream's subscription was told that this token or this
membership changed (a database notification, see `app.persistence.run_events`), at the token's expiry
to the second, and otherwise every `interval` seconds as a backstop for a notification that never
arrived. Between those moments, the check before each event is a flag read and a clock comparison.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from app.persistence.base import utcnow
from app.persistence.repositories.tenancy import ApiTokenRepository
from app.persistence.transaction import UnitOfWork
from app.persistence.types import AsyncSession
from app.services.identity.access import SpaceAccess

_MESSAGES = {
    "token_revoked": "The token this stream was opened with was revoked.",
    "token_expired": "The token this stream was opened with expired.",
    "membership_removed": "You are no longer a member of this space.",
}


@dataclass(frozen=True)
class AccessEnded:
    """Why a stream's caller lost access: `reason` is a stable code, `message` says it in words."""

    reason: str

    @property
    def message(self) -> str:
        return _MESSAGES[self.reason]


@dataclass(frozen=True)
class Standing:
    """What one check found: the end of access (or None), and when the token expires."""

    ended: AccessEnded | None
    expires_at: datetime | None


async def standing(session: AsyncSession, access: SpaceAccess) -> Standing:
    """The caller's standing now, in one query."""
    found = await ApiTokenRepository(session).standing(access.caller.token_id, access.space_id)
    if found is None or found[0] is not None:
        return Standing(AccessEnded("token_revoked"), None)
    expires_at = found[1]
    if expires_at is not None and expires_at <= utcnow():
        return Standing(AccessEnded("token_expired"), expires_at)
    if not found[2]:
        return Standing(AccessEnded("membership_removed"), expires_at)
    return Standing(None, expires_at)


class StreamGuard:
    """One open stream's checks of its caller (see the module's docstring)."""

    def __init__(
        self,
        access: SpaceAccess,
        unit_of_work: UnitOfWork,
        *,
        interval: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.access = access
        self.unit_of_work = unit_of_work
        self.interval = interval
        self.clock = clock
        self._due = clock()

    def seconds_to_due(self) -> float:
        """How long the stream may wait for its next event before it must check again."""
        return max(0.0, self._due - self.clock())

    async def start(self, session: AsyncSession) -> AccessEnded | None:
        """The first check, in the request's own session (it learns when the token expires)."""
        return self._schedule(await standing(session, self.access))

    async def ended(self, flagged: bool) -> AccessEnded | None:
        """Why access ended, or None while it holds. Checks the database only when `flagged` (the
        subscription heard of a change) or when a check is due; otherwise costs a clock read."""
        if not flagged and self.clock() < self._due:
            return None
        async with self.unit_of_work() as session:
            found = await standing(session, self.access)
        return self._schedule(found)

    def _schedule(self, found: Standing) -> AccessEnded | None:
        now = self.clock()
        self._due = now + self.interval
        if found.expires_at is not None:
            # The expiry to the second, on this process's clock (a wall-clock delay read once).
            self._due = min(self._due, now + max(0.0, (found.expires_at - utcnow()).total_seconds()))
        return found.ended
