"""API tokens: created for their owner, shown once, listed without secret, revoked; each has an end.

Every token expires: one asked without a lifetime lives `TokenPolicy.default_days`, none may ask more
than `max_days`, and a sign-in's lives hours. The one exception is a service token (for an unattended
job) that an admin of some space makes for themselves: it never expires and is listed as a service
token, so it stays visible. The database refuses any other token without an expiry.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from app.errors import BadRequest, ErrorDetail, Forbidden, NotFound
from app.persistence.base import utcnow
from app.persistence.models import ApiToken, TokenKind
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.tenancy import ApiTokenRepository, MembershipRepository
from app.persistence.types import AsyncSession
from app.security.tokens import display_prefix, generate_token, hash_token
from app.services.identity.token_scopes import TokenScopes, checked_scopes

Lifetime = int | Literal["never"] | None
"""Days, `never` (a service token), or None for the default."""


@dataclass(frozen=True)
class TokenPolicy:
    """The operator's limits on token lifetimes (AUTOMATIONS_TOKEN_TTL_DAYS, _TOKEN_MAX_TTL_DAYS)."""

    default_days: int = 90
    max_days: int = 365


class TokenService:
    async def create(
        self,
        session: AsyncSession,
        user_id: uuid.UUID,
        *,
        name: str,
        expires_in: timedelta | None,
        kind: TokenKind = TokenKind.personal,
        scopes: dict[str, Any] | None = None,
    ) -> tuple[ApiToken, str]:
        """A new token for the user; the plain value is returned once and only its digest is stored.

        Only a service token may have no `expires_in` (the database refuses any other)."""
        plain = generate_token()
        now = utcnow()
        token = ApiToken(
            user_id=user_id,
            name=name,
            kind=kind,
            token_hash=hash_token(plain),
            display_prefix=display_prefix(plain),
            expires_at=now + expires_in if expires_in is not None else None,
            created_at=now,
            scopes=scopes,
        )
        await ApiTokenRepository(session).create(token)
        return token, plain

    async def create_requested(
        self,
        session: AsyncSession,
        user_id: uuid.UUID,
        policy: TokenPolicy,
        *,
        name: str,
        expires_in_days: Lifetime,
        scopes: TokenScopes | None = None,
    ) -> tuple[ApiToken, str]:
        """A token the user asked for in the API, within the policy; `never` only for admins.

        With `scopes` the token can do only what they name (see `app.services.identity.token_scopes`)."""
        stored_scopes = await checked_scopes(session, user_id, scopes)
        if isinstance(expires_in_days, str):  # `never`: the schema admits no other text
            if not await MembershipRepository(session).is_admin_somewhere(user_id):
                raise Forbidden(
                    "Only an owner or admin of a space may make a service token that never expires.",
                    code="service_token_needs_admin",
                )
            return await self.create(
                session, user_id, name=name, expires_in=None, kind=TokenKind.service, scopes=stored_scopes
            )
        days = policy.default_days if expires_in_days is None else expires_in_days
        if days > policy.max_days:
            raise BadRequest(
                f"A token may live at most {policy.max_days} days.",
                code="token_lifetime_too_long",
                details=[ErrorDetail(path="/expires_in_days", message=f"must be at most {policy.max_days}")],
            )
        return await self.create(
            session, user_id, name=name, expires_in=timedelta(days=days), scopes=stored_scopes
        )

    async def list(
        self, session: AsyncSession, user_id: uuid.UUID, *, limit: int, cursor: str | None
    ) -> Page[ApiToken]:
        return await paginate(
            session,
            ApiTokenRepository(session).owned_statement(user_id),
            order_by=[ApiToken.created_at, ApiToken.id],
            limit=limit,
            cursor=cursor,
        )

    async def revoke(self, session: AsyncSession, user_id: uuid.UUID, token_id: uuid.UUID) -> ApiToken:
        """Revoke one of the user's tokens (idempotent); it stops working immediately."""
        token = await ApiTokenRepository(session).get_owned(user_id, token_id)
        if token is None:
            raise NotFound("Token not found.", code="token_not_found")
        if token.revoked_at is None:
            token.revoked_at = utcnow()
            await session.flush()
        return token

    async def revoke_all(
        self, session: AsyncSession, user_id: uuid.UUID, *, keep: uuid.UUID | None = None
    ) -> int:
        """Revoke every token (sessions included) of the user but `keep`; answers how many."""
        return await ApiTokenRepository(session).revoke_all(user_id, utcnow(), keep=keep)


token_service = TokenService()
