"""API tokens: created for their owner, shown once, listed without secret, revoked."""

from __future__ import annotations

import uuid
from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import NotFound
from app.persistence.base import utcnow
from app.persistence.models import ApiToken
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.tenancy import ApiTokenRepository
from app.security.tokens import display_prefix, generate_token, hash_token


class TokenService:
    async def create(
        self,
        session: AsyncSession,
        user_id: uuid.UUID,
        *,
        name: str,
        expires_in_days: int | None = None,
        expires_in: timedelta | None = None,
    ) -> tuple[ApiToken, str]:
        """A new token for the user; the plain value is returned once and only its digest is stored.

        `expires_in` (a sign-in's hours) wins over `expires_in_days` (tokens made in the API)."""
        plain = generate_token()
        now = utcnow()
        lifetime = expires_in or (timedelta(days=expires_in_days) if expires_in_days else None)
        expires_at = now + lifetime if lifetime else None
        token = ApiToken(
            user_id=user_id,
            name=name,
            token_hash=hash_token(plain),
            display_prefix=display_prefix(plain),
            expires_at=expires_at,
            created_at=now,
        )
        await ApiTokenRepository(session).create(token)
        return token, plain

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


token_service = TokenService()
