"""The caller's own API tokens."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, status

from app.api.body import JsonBodyRoute
from app.api.deps import CallerDep, PageDep, SessionDep, SettingsDep
from app.api.identity_schemas import NewTokenOut, TokenCreate, TokenOut
from app.api.schemas import PageOut
from app.services.identity.tokens import TokenPolicy, token_service

router = APIRouter(prefix="/tokens", tags=["tokens"], route_class=JsonBodyRoute)


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    summary="Create an API token (shown once); it expires, unless an admin makes a service token",
)
async def create_token(
    body: TokenCreate, session: SessionDep, caller: CallerDep, settings: SettingsDep
) -> NewTokenOut:
    token, plain = await token_service.create_requested(
        session,
        caller.user_id,
        TokenPolicy(default_days=settings.token_ttl_days, max_days=settings.token_max_ttl_days),
        name=body.name,
        expires_in_days=body.expires_in_days,
        scopes=body.scopes,
    )
    return NewTokenOut.model_validate({**TokenOut.model_validate(token).model_dump(), "token": plain})


@router.get("", summary="List your API tokens (never their secret)")
async def list_tokens(session: SessionDep, caller: CallerDep, page: PageDep) -> PageOut[TokenOut]:
    result = await token_service.list(session, caller.user_id, limit=page.limit, cursor=page.cursor)
    return PageOut(items=[TokenOut.model_validate(t) for t in result.items], next_cursor=result.next_cursor)


@router.post("/{token_id}/revoke", summary="Revoke one of your tokens; it stops working at once")
async def revoke_token(token_id: uuid.UUID, session: SessionDep, caller: CallerDep) -> TokenOut:
    return TokenOut.model_validate(await token_service.revoke(session, caller.user_id, token_id))
