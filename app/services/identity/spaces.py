"""Spaces (tenants) and their members."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

from app.errors import Conflict, NotFound
from app.persistence.models import Membership, Role, Space, User
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.tenancy import MembershipRepository, SpaceRepository, UserRepository
from app.persistence.types import AsyncSession
from app.services.identity.access import Caller, Permissions, SpaceAccess
from app.services.identity.invitations import IssuedInvitation, invitation_service
from app.services.identity.tokens import TokenPolicy, token_service


@dataclass(frozen=True)
class NewMember:
    """A membership just created; `invitation` is set when the user was new (its secret shown once)."""

    membership: Membership
    user: User
    invitation: IssuedInvitation | None


@dataclass(frozen=True)
class Bootstrap:
    space: Space
    user: User
    token: str


class SpaceService:
    async def create(self, session: AsyncSession, caller: Caller, *, name: str) -> Space:
        """A new space with the caller as its owner."""
        space = await SpaceRepository(session).create(Space(name=name))
        await MembershipRepository(session).create(
            Membership(space_id=space.id, user_id=caller.user_id, role=Role.owner)
        )
        return space

    async def list(
        self, session: AsyncSession, caller: Caller, *, limit: int, cursor: str | None
    ) -> Page[Space]:
        return await paginate(
            session,
            SpaceRepository(session).readable_statement(caller.user_id),
            order_by=[Space.created_at, Space.id],
            limit=limit,
            cursor=cursor,
        )

    async def get(self, session: AsyncSession, access: SpaceAccess) -> Space:
        space = await session.get(Space, access.space_id)
        if space is None:
            raise NotFound("Space not found.", code="space_not_found")
        return space

    async def rename(self, session: AsyncSession, access: SpaceAccess, *, name: str) -> Space:
        access.require(Permissions.manage_space)
        space = await self.get(session, access)
        return await SpaceRepository(session).update(space, {"name": name})

    async def list_members(
        self, session: AsyncSession, access: SpaceAccess, *, limit: int, cursor: str | None
    ) -> Page[Membership]:
        return await paginate(
            session,
            MembershipRepository(session).members_statement(access.space_id),
            order_by=[Membership.created_at, Membership.user_id],
            limit=limit,
            cursor=cursor,
            descending=False,
        )

    async def add_member(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        *,
        email: str,
        role: Role,
        invitation_lifetime: timedelta,
    ) -> NewMember:
        """Add a user by email; a new user gets an invitation to set a password, never a token the
        adding admin could use."""
        access.require(Permissions.manage_owners if role is Role.owner else Permissions.manage_members)
        users = UserRepository(session)
        user = await users.get_by_email(email)
        invitation: IssuedInvitation | None = None
        if user is None:
            user = await users.create(User(email=email.lower()))
            invitation = await invitation_service.issue(
                session,
                user_id=user.id,
                space_id=access.space_id,
                created_by=access.user_id,
                lifetime=invitation_lifetime,
            )
        memberships = MembershipRepository(session)
        if await memberships.get(access.space_id, user.id) is not None:
            raise Conflict("This user is already a member of the space.", code="already_member")
        membership = await memberships.create(
            Membership(space_id=access.space_id, user_id=user.id, role=role, user=user)
        )
        return NewMember(membership=membership, user=user, invitation=invitation)

    async def change_role(
        self, session: AsyncSession, access: SpaceAccess, user_id: uuid.UUID, *, role: Role
    ) -> Membership:
        membership = await self._member(session, access, user_id)
        touches_owner = Role.owner in (role, membership.role)
        access.require(Permissions.manage_owners if touches_owner else Permissions.manage_members)
        if membership.role is Role.owner and role is not Role.owner:
            await self._keep_an_owner(session, access.space_id)
        return await MembershipRepository(session).update(membership, {"role": role})

    async def remove_member(self, session: AsyncSession, access: SpaceAccess, user_id: uuid.UUID) -> None:
        membership = await self._member(session, access, user_id)
        if user_id != access.user_id:
            access.require(
                Permissions.manage_owners if membership.role is Role.owner else Permissions.manage_members
            )
        if membership.role is Role.owner:
            await self._keep_an_owner(session, access.space_id)
        await session.delete(membership)
        await session.flush()

    async def bootstrap(
        self,
        session: AsyncSession,
        *,
        space_name: str,
        email: str,
        token_lifetime: timedelta = timedelta(days=TokenPolicy.default_days),
    ) -> Bootstrap:
        """First-run setup: a space, its owner (created if new) and an API token for them, which
        expires like any token made without a lifetime."""
        users = UserRepository(session)
        user = await users.get_by_email(email) or await users.create(User(email=email.lower()))
        space = await SpaceRepository(session).create(Space(name=space_name))
        await MembershipRepository(session).create(
            Membership(space_id=space.id, user_id=user.id, role=Role.owner)
        )
        _, token = await token_service.create(
            session, user.id, name="create-admin", expires_in=token_lifetime
        )
        return Bootstrap(space=space, user=user, token=token)

    async def _member(self, session: AsyncSession, access: SpaceAccess, user_id: uuid.UUID) -> Membership:
        membership = await MembershipRepository(session).get(access.space_id, user_id)
        if membership is None:
            raise NotFound("Member not found.", code="member_not_found")
        return membership

    async def _keep_an_owner(self, session: AsyncSession, space_id: uuid.UUID) -> None:
        if await MembershipRepository(session).count_owners(space_id) <= 1:
            raise Conflict("A space must keep at least one owner.", code="last_owner")


space_service = SpaceService()

__all__ = ["Bootstrap", "NewMember", "SpaceService", "space_service"]
