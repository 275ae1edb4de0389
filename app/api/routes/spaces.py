"""Spaces the caller belongs to, and their members."""

from __future__ import annotations

import uuid
from datetime import timedelta

from fastapi import APIRouter, Response, status

from app.api.body import JsonBodyRoute
from app.api.deps import CallerDep, CodeSpaceDep, PageDep, SessionDep, SettingsDep, SpaceDep
from app.api.identity_schemas import (
    InvitationOut,
    MemberCreate,
    MemberOut,
    MemberUpdate,
    NewMemberOut,
    SpaceCreate,
    SpaceOut,
    SpaceWithRoleOut,
)
from app.api.schemas import PageOut
from app.persistence.models import Membership
from app.services.identity.invitations import IssuedInvitation, invitation_service
from app.services.identity.spaces import space_service

router = APIRouter(prefix="/spaces", tags=["spaces"], route_class=JsonBodyRoute)


@router.post("", status_code=status.HTTP_201_CREATED, summary="Create a space (you become its owner)")
async def create_space(body: SpaceCreate, session: SessionDep, caller: CallerDep) -> SpaceOut:
    return SpaceOut.model_validate(await space_service.create(session, caller, name=body.name))


@router.get("", summary="List the spaces you belong to")
async def list_spaces(session: SessionDep, caller: CallerDep, page: PageDep) -> PageOut[SpaceOut]:
    result = await space_service.list(session, caller, limit=page.limit, cursor=page.cursor)
    return PageOut(items=[SpaceOut.model_validate(s) for s in result.items], next_cursor=result.next_cursor)


@router.get("/{space_id}", summary="Get a space and your role in it")
async def get_space(session: SessionDep, access: CodeSpaceDep) -> SpaceWithRoleOut:
    space = await space_service.get(session, access)
    return SpaceWithRoleOut(
        id=space.id,
        name=space.name,
        created_at=space.created_at,
        updated_at=space.updated_at,
        role=access.role,
    )


@router.patch("/{space_id}", summary="Rename a space (admin)")
async def rename_space(body: SpaceCreate, session: SessionDep, access: SpaceDep) -> SpaceOut:
    return SpaceOut.model_validate(await space_service.rename(session, access, name=body.name))


def _member_out(membership: Membership) -> MemberOut:
    return MemberOut(
        space_id=membership.space_id,
        user_id=membership.user_id,
        email=membership.user.email,
        role=membership.role,
        created_at=membership.created_at,
    )


@router.get("/{space_id}/members", summary="List members")
async def list_members(session: SessionDep, access: SpaceDep, page: PageDep) -> PageOut[MemberOut]:
    result = await space_service.list_members(session, access, limit=page.limit, cursor=page.cursor)
    return PageOut(items=[_member_out(m) for m in result.items], next_cursor=result.next_cursor)


def _invitation_out(issued: IssuedInvitation) -> InvitationOut:
    return InvitationOut(token=issued.plain, url=issued.url, expires_at=issued.invitation.expires_at)


@router.post(
    "/{space_id}/members",
    status_code=status.HTTP_201_CREATED,
    summary="Add a member by email (admin); a new user gets a single-use invitation to set a password",
)
async def add_member(
    body: MemberCreate, session: SessionDep, access: SpaceDep, settings: SettingsDep
) -> NewMemberOut:
    added = await space_service.add_member(
        session,
        access,
        email=str(body.email),
        role=body.role,
        invitation_lifetime=timedelta(hours=settings.invitation_ttl_hours),
    )
    return NewMemberOut(
        space_id=added.membership.space_id,
        user_id=added.user.id,
        email=added.user.email,
        role=added.membership.role,
        created_at=added.membership.created_at,
        invitation=_invitation_out(added.invitation) if added.invitation else None,
    )


@router.post(
    "/{space_id}/members/{user_id}/invitation",
    status_code=status.HTTP_201_CREATED,
    summary="Renew the invitation of a member this space invited who has not signed in yet (admin)",
)
async def renew_invitation(
    user_id: uuid.UUID, session: SessionDep, access: SpaceDep, settings: SettingsDep
) -> InvitationOut:
    issued = await invitation_service.renew(
        session, access, user_id, lifetime=timedelta(hours=settings.invitation_ttl_hours)
    )
    return _invitation_out(issued)


@router.patch("/{space_id}/members/{user_id}", summary="Change a member's role (admin; owner for owners)")
async def change_member_role(
    user_id: uuid.UUID, body: MemberUpdate, session: SessionDep, access: SpaceDep
) -> MemberOut:
    membership = await space_service.change_role(session, access, user_id, role=body.role)
    return _member_out(membership)


@router.delete(
    "/{space_id}/members/{user_id}", status_code=status.HTTP_204_NO_CONTENT, summary="Remove a member"
)
async def remove_member(user_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> Response:
    await space_service.remove_member(session, access, user_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
