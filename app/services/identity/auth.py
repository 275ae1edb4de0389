"""Authentication of API tokens and resolution of space membership."""

from __future__ import annotations

import uuid
from datetime import timedelta

from app.errors import NotFound, Unauthorized
from app.persistence.base import utcnow
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
        if not token:
            raise Unauthorized()
        now = utcnow()
        found = None
        if is_well_formed(token):
            found = await ApiTokenRepository(session).get_active_by_hash(hash_token(token), now)
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

    async def space_access(self, session: AsyncSession, caller: Caller, space_id: uuid.UUID) -> SpaceAccess:
        """The caller's access to a space; a space they are not a member of does not exist for them."""
        membership = await MembershipRepository(session).get(space_id, caller.user_id)
        if membership is None:
            raise NotFound("Space not found.", code="space_not_found")
        return SpaceAccess(caller=caller, space_id=space_id, role=membership.role)


auth_service = AuthService()
