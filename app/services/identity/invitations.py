"""Invitations: how a user added to a space sets their first password.

The admin who adds a new user gets a single-use link to hand over, never a token of that user: the
secret in it can do nothing but set the user's password (it is no API token and has its own prefix),
it expires after `invitation_ttl_hours`, and accepting it signs the user in. An admin of the space that
made the user renews it while the user has not signed in yet; a renewal withdraws the earlier ones.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

from app.errors import BadRequest, Conflict, ErrorDetail, NotFound, Unauthorized
from app.persistence.base import utcnow
from app.persistence.models import Invitation, TokenKind, User
from app.persistence.repositories.tenancy import InvitationRepository, MembershipRepository, UserRepository
from app.persistence.types import AsyncSession
from app.security.passwords import HashCost, password_problem
from app.security.tokens import INVITATION_PREFIX, generate_token, hash_token, is_well_formed
from app.services.identity.access import Permissions, SpaceAccess
from app.services.identity.signin import SIGN_IN_TOKEN_NAME, SignedIn, sign_in_service
from app.services.identity.tokens import token_service


@dataclass(frozen=True)
class IssuedInvitation:
    """An invitation just made; `plain` is its secret, shown once to the admin who made it."""

    invitation: Invitation
    plain: str

    @property
    def url(self) -> str:
        """The UI page that accepts it; the secret rides in the fragment, which browsers never send."""
        return f"/invitation#{self.plain}"


class InvitationService:
    async def issue(
        self,
        session: AsyncSession,
        *,
        user_id: uuid.UUID,
        space_id: uuid.UUID,
        created_by: uuid.UUID,
        lifetime: timedelta,
    ) -> IssuedInvitation:
        """A new invitation for the user; any earlier one still open is withdrawn."""
        now = utcnow()
        invitations = InvitationRepository(session)
        await invitations.close_open(user_id, now)
        plain = generate_token(INVITATION_PREFIX)
        invitation = await invitations.create(
            Invitation(
                user_id=user_id,
                space_id=space_id,
                created_by=created_by,
                token_hash=hash_token(plain),
                created_at=now,
                expires_at=now + lifetime,
            )
        )
        return IssuedInvitation(invitation=invitation, plain=plain)

    async def renew(
        self, session: AsyncSession, access: SpaceAccess, user_id: uuid.UUID, *, lifetime: timedelta
    ) -> IssuedInvitation:
        """A fresh invitation for a member this space invited who has not signed in yet.

        Only the space that made the user may renew, and only while the user belongs to no other
        space: whoever holds an invitation can become the user, so an admin must not be able to mint
        one for an account another space has since let in."""
        access.require(Permissions.manage_members)
        memberships = MembershipRepository(session)
        membership = await memberships.get(access.space_id, user_id)
        if membership is None:
            raise NotFound("Member not found.", code="member_not_found")
        if membership.user.password_hash is not None:
            raise Conflict("This member has set a password already.", code="member_has_signed_in")
        earlier = await InvitationRepository(session).of_user(user_id)
        elsewhere = set(await memberships.spaces_of(user_id)) - {access.space_id}
        if elsewhere or not earlier or any(i.space_id != access.space_id for i in earlier):
            raise Conflict(
                "This member was not invited by this space alone; an operator sets their password "
                "with `automations set-password`.",
                code="member_not_invited_here",
            )
        return await self.issue(
            session, user_id=user_id, space_id=access.space_id, created_by=access.user_id, lifetime=lifetime
        )

    async def accept(
        self,
        session: AsyncSession,
        *,
        token: str,
        password: str,
        session_lifetime: timedelta,
        cost: HashCost,
    ) -> SignedIn:
        """Set the invited user's password, close the invitation and sign the user in."""
        invitation = None
        if is_well_formed(token, INVITATION_PREFIX):
            invitation = await InvitationRepository(session).get_open_by_hash(hash_token(token), utcnow())
        if invitation is None:
            raise Unauthorized(
                "The invitation is not valid (unknown, used, withdrawn or expired); ask for a new one.",
                code="invalid_invitation",
            )
        problem = password_problem(password)
        if problem is not None:
            raise BadRequest(
                f"The password {problem}.",
                code="weak_password",
                details=[ErrorDetail(path="/password", message=problem)],
            )
        user: User | None = await UserRepository(session).get_by_id(invitation.user_id)
        if user is None or user.password_hash is not None:
            # Setting a password closes the invitations; one left open must not reset a password.
            raise Unauthorized("The invitation is not valid.", code="invalid_invitation")
        await sign_in_service.set_password(session, user, password, cost=cost)
        token_row, plain = await token_service.create(
            session, user.id, name=SIGN_IN_TOKEN_NAME, expires_in=session_lifetime, kind=TokenKind.session
        )
        return SignedIn(token=token_row, plain=plain, user=user)


invitation_service = InvitationService()
