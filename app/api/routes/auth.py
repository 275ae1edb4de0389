"""Password sign-in, sign-out, invitations and the caller's own account."""

from __future__ import annotations

from datetime import timedelta

from fastapi import APIRouter, Response, status

from app.api.body import JsonBodyRoute
from app.api.deps import CallerDep, LockoutDep, PasswordCostDep, SessionDep, SettingsDep
from app.api.identity_schemas import InvitationAccept, PasswordChange, SessionOut, SignInBody, UserOut
from app.persistence.models import User
from app.services.identity.invitations import invitation_service
from app.services.identity.signin import SignedIn, sign_in_service
from app.services.identity.tokens import token_service

router = APIRouter(tags=["auth"], route_class=JsonBodyRoute)


def _user_out(user: User) -> UserOut:
    return UserOut(id=user.id, email=user.email, name=user.name, has_password=user.password_hash is not None)


@router.post(
    "/auth/sessions",
    status_code=status.HTTP_201_CREATED,
    summary="Sign in with email and password; answers a short-lived API token",
    openapi_extra={"security": []},
)
async def sign_in(
    body: SignInBody, session: SessionDep, lockout: LockoutDep, settings: SettingsDep, cost: PasswordCostDep
) -> SessionOut:
    signed = await sign_in_service.sign_in(
        session,
        lockout,
        email=body.email,
        password=body.password,
        lifetime=timedelta(hours=settings.session_token_hours),
        cost=cost,
    )
    return _session_out(signed)


def _session_out(signed: SignedIn) -> SessionOut:
    assert signed.token.expires_at is not None
    return SessionOut(
        token=signed.plain,
        token_id=signed.token.id,
        expires_at=signed.token.expires_at,
        user=_user_out(signed.user),
    )


@router.post(
    "/invitations/accept",
    status_code=status.HTTP_201_CREATED,
    summary="Accept an invitation: set your first password and sign in (the invitation is used up)",
    openapi_extra={"security": []},
)
async def accept_invitation(
    body: InvitationAccept, session: SessionDep, settings: SettingsDep, cost: PasswordCostDep
) -> SessionOut:
    signed = await invitation_service.accept(
        session,
        token=body.token,
        password=body.password,
        session_lifetime=timedelta(hours=settings.session_token_hours),
        cost=cost,
    )
    return _session_out(signed)


@router.delete(
    "/auth/sessions/current",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Sign out: revoke the token this request carries",
)
async def sign_out(session: SessionDep, caller: CallerDep) -> Response:
    await token_service.revoke(session, caller.user_id, caller.token_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/me", summary="The signed-in user")
async def me(session: SessionDep, caller: CallerDep) -> UserOut:
    return _user_out(await sign_in_service.user(session, caller.user_id))


@router.put(
    "/me/password",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Set your password (the current one is required once one is set); "
    "every other token and sign-in of yours is revoked",
)
async def change_password(
    body: PasswordChange, session: SessionDep, caller: CallerDep, cost: PasswordCostDep
) -> Response:
    await sign_in_service.change_own_password(
        session,
        caller,
        current=body.current_password,
        new=body.password,
        cost=cost,
    )
    return Response(status_code=status.HTTP_204_NO_CONTENT)
