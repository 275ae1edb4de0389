"""Authentication of API tokens and resolution of space membership."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from app.errors import NotFound, Unauthorized
from app.persistence.base import utcnow
from app.persistence.models import ApiToken, Role, User
from app.persistence.repositories.tenancy import ApiTokenRepository, MembershipRepository
from app.persistence.types import AsyncSession
from app.security.tokens import hash_token, is_well_formed, token_matches
from app.services.identity.access import Caller, SpaceAccess
from app.services.identity.token_scopes import require_full_access

# Recording every use would turn each read into a write; once a minute is enough to audit.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class AuthService:
    async def authenticate(self, session: AsyncSession, token: str | None, *, scoped: bool = False) -> Caller:
        """The caller behind a bearer token; 401 for a missing, unknown, revoked or expired one.

        A scoped token is refused (403) unless `scoped` says the route checks the caller's scopes itself."""
        now = utcnow()
        found = None
        if token and is_well_formed(token):
            found = await ApiTokenRepository(session).get_active_by_hash(hash_token(token), now)
        return _caller(token, found, now, scoped=scoped)

    async def authenticate_in_space(
        self, session: AsyncSession, token: str | None, space_id: uuid.UUID, *, scoped: bool = False
    ) -> tuple[Caller, Role | None]:
        """`authenticate`, with the caller's role in the space (None when not a member) read by the same
        round trip; `member` turns the pair into the caller's access once the route checked the rest."""
        now = utcnow()
        found = None
        if token and is_well_formed(token):
            found = await ApiTokenRepository(session).get_active_with_role(hash_token(token), now, space_id)
        caller = _caller(token, found[:2] if found else None, now, scoped=scoped)
        return caller, found[2] if found else None

    async def space_access(self, session: AsyncSession, caller: Caller, space_id: uuid.UUID) -> SpaceAccess:
        """The caller's access to a space; a space they are not a member of does not exist for them."""
        membership = await MembershipRepository(session).get(space_id, caller.user_id)
        return member(caller, space_id, membership.role if membership else None)


def member(caller: Caller, space_id: uuid.UUID, role: Role | None) -> SpaceAccess:
    """The caller's access to the space they hold `role` in; 404 without one, so a space they are not a
    member of does not exist for them."""
    if role is None:
        raise NotFound("Space not found.", code="space_not_found")
    return SpaceAccess(caller=caller, space_id=space_id, role=role)


def _caller(token: str | None, found: tuple[ApiToken, User] | None, now: datetime, *, scoped: bool) -> Caller:
    """The checks on a token's lookup: 401 unless it found a live token matching `token`; the use
    recorded at most once a minute; a scoped token refused (403) unless `scoped`."""
    if not token:
        raise Unauthorized()
    if found is None or not token_matches(token, found[0].token_hash):
        raise Unauthorized(
            "The bearer token is not valid (unknown, revoked or expired).", code="invalid_token"
        )
    api_token, user = found
    if api_token.last_used_at is None or now - api_token.last_used_at > LAST_USED_RESOLUTION:
        api_token.last_used_at = now
    if not scoped:
        require_full_access(api_token.scopes)
    return Caller(user_id=user.id, email=user.email, token_id=api_token.id, scopes=api_token.scopes)


auth_service = AuthService()
