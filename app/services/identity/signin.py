"""Password sign-in for the web UI: an email and password become a short-lived API token.

The token is an ordinary API token (listed with the user's tokens, revocable), named after the sign-in
and expiring after `session_token_hours`. Attempts are counted per email before the password is
verified (the count and the check are one atomic step, so parallel guesses cannot all slip past the
check): past the limit the email is locked for a while whatever the password, so guessing one user's
password from many addresses is slow too, and only a few verifications of one email run at once. Unknown
emails, users without a password and wrong passwords answer the same 401 after the
same Argon2 work, so the answer does not tell which emails exist.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

from app.errors import BadRequest, ErrorDetail, NotFound, TooManyRequests, Unauthorized
from app.integrations.lockout import Admission
from app.persistence.base import utcnow
from app.persistence.models import ApiToken, TokenKind, User
from app.persistence.repositories.tenancy import InvitationRepository, UserRepository
from app.persistence.types import AsyncSession
from app.security.passwords import HashCost, hash_password, needs_rehash, password_problem, verify_password
from app.services.identity.access import Caller
from app.services.identity.tokens import token_service

SIGN_IN_TOKEN_NAME = "Web sign-in"  # noqa: S105 (a label, not a secret)


class Lockout(Protocol):
    """Sign-in attempts per email (Redis in production: `app.integrations.lockout.SignInLockout`)."""

    async def admit(self, email: str) -> Admission: ...
    async def release(self, admission: Admission, *, succeeded: bool) -> None: ...


@dataclass(frozen=True)
class SignedIn:
    token: ApiToken
    plain: str
    user: User


class SignInService:
    async def sign_in(
        self,
        session: AsyncSession,
        lockout: Lockout,
        *,
        email: str,
        password: str,
        lifetime: timedelta,
        cost: HashCost,
    ) -> SignedIn:
        """A new API token for the user whose password this is; 401 otherwise, 429 while locked. A
        password hashed at another cost than `cost` is hashed again at it."""
        email = email.lower()
        admission = await lockout.admit(email)
        if admission.locked_for > 0:
            raise TooManyRequests(
                f"Too many failed sign-ins for this email; try again in {admission.locked_for} s.",
                code="sign_in_locked",
                headers={"Retry-After": str(admission.locked_for)},
            )
        if admission.busy_for > 0:
            raise TooManyRequests(
                "Other sign-ins of this email are being checked; try again in a moment.",
                code="sign_in_busy",
                headers={"Retry-After": str(admission.busy_for)},
            )
        succeeded = False
        try:
            user = await UserRepository(session).get_by_email(email)
            stored = user.password_hash if user is not None else None
            # Argon2 is deliberately slow and memory-hard: keep it off the event loop. It runs for
            # unknown emails too (against a dummy hash), so timing does not tell which emails exist.
            succeeded = await asyncio.to_thread(verify_password, stored, password, cost) and user is not None
        finally:
            await lockout.release(admission, succeeded=succeeded)
        if not succeeded or user is None:
            raise Unauthorized("The email or password is not right.", code="invalid_credentials")
        if stored is not None and needs_rehash(stored, cost):
            user.password_hash = await asyncio.to_thread(hash_password, password, cost)
        token, plain = await token_service.create(
            session, user.id, name=SIGN_IN_TOKEN_NAME, expires_in=lifetime, kind=TokenKind.session
        )
        return SignedIn(token=token, plain=plain, user=user)

    async def set_password(
        self,
        session: AsyncSession,
        user: User,
        password: str,
        *,
        cost: HashCost,
        keep: uuid.UUID | None = None,
    ) -> None:
        """Store a new password for the user (checked for length first), revoke every token and
        sign-in of theirs but `keep` and close their open invitations: whoever knew the old password,
        held a token taken with it or an invitation, is out."""
        problem = password_problem(password)
        if problem is not None:
            raise BadRequest(
                f"The password {problem}.",
                code="weak_password",
                details=[ErrorDetail(path="/password", message=problem)],
            )
        user.password_hash = await asyncio.to_thread(hash_password, password, cost)
        user.password_changed_at = utcnow()
        await session.flush()
        await token_service.revoke_all(session, user.id, keep=keep)
        # An invitation still open would let whoever holds it set the password again.
        await InvitationRepository(session).close_open(user.id, utcnow())

    async def set_password_by_email(
        self, session: AsyncSession, email: str, password: str, *, cost: HashCost
    ) -> User:
        """The operator's reset (`automations set-password`): a new password for an existing user,
        and every token of theirs revoked."""
        user = await UserRepository(session).get_by_email(email)
        if user is None:
            raise NotFound("No user has this email.", code="user_not_found")
        await self.set_password(session, user, password, cost=cost)
        return user

    async def user(self, session: AsyncSession, user_id: uuid.UUID) -> User:
        """The signed-in user's own record."""
        user = await UserRepository(session).get_by_id(user_id)
        if user is None:
            raise NotFound("User not found.", code="user_not_found")
        return user

    async def change_own_password(
        self, session: AsyncSession, caller: Caller, *, current: str | None, new: str, cost: HashCost
    ) -> None:
        """A signed-in user sets their password; once one is set, the current one must be given.

        Every other token and sign-in of the user is revoked; the one making the change stays."""
        user = await self.user(session, caller.user_id)
        if user.password_hash is not None and not await asyncio.to_thread(
            verify_password, user.password_hash, current or "", cost
        ):
            raise BadRequest(
                "The current password is not right.",
                code="wrong_current_password",
                details=[ErrorDetail(path="/current_password", message="does not match")],
            )
        await self.set_password(session, user, new, cost=cost, keep=caller.token_id)


sign_in_service = SignInService()
