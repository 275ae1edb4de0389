"""Queries over spaces, users, memberships and API tokens."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import datetime

from sqlalchemy import Select, and_, bindparam, or_, select, update
from sqlalchemy.orm import joinedload

from app.persistence.models import ApiToken, Invitation, Membership, Role, Space, User
from app.persistence.repositories.base import RepositoryBase

# Every authenticated request runs these two lookups. They are built once, with their values bound at
# execution: building a statement (its column comparisons above all) cost SQLAlchemy more CPU than
# running it.
_ACTIVE_TOKEN_BY_HASH = (
    select(ApiToken, User)
    .join(User, User.id == ApiToken.user_id)
    .where(
        ApiToken.token_hash == bindparam("token_hash"),
        ApiToken.revoked_at.is_(None),
        or_(ApiToken.expires_at.is_(None), ApiToken.expires_at > bindparam("now")),
    )
)
# A space route's lookup: the same, with the user's role in the path's space (NULL for a non-member).
_ACTIVE_TOKEN_WITH_ROLE = _ACTIVE_TOKEN_BY_HASH.add_columns(Membership.role).outerjoin(
    Membership, and_(Membership.user_id == ApiToken.user_id, Membership.space_id == bindparam("space_id"))
)
# A space's members with their users: the listing adds its space, the lookup its space and user.
_MEMBERS = select(Membership).options(joinedload(Membership.user))
_MEMBERSHIP = _MEMBERS.where(
    Membership.space_id == bindparam("space_id"), Membership.user_id == bindparam("user_id")
).limit(2)


class SpaceRepository(RepositoryBase[Space]):
    model = Space

    def readable_statement(self, user_id: uuid.UUID) -> Select[Space]:
        """Spaces the user is a member of: the one place space visibility is decided."""
        return (
            select(Space)
            .join(Membership, Membership.space_id == Space.id)
            .where(Membership.user_id == user_id)
        )


class UserRepository(RepositoryBase[User]):
    model = User

    async def get_by_email(self, email: str) -> User | None:
        return await self.get_one_or_none(select(User).where(User.email == email.lower()))

    async def get_by_id(self, user_id: uuid.UUID) -> User | None:
        return await self.session.get(User, user_id)

    async def get_many(self, user_ids: Collection[uuid.UUID]) -> list[User]:
        """The users of these ids that exist, in one query."""
        if not user_ids:
            return []
        return await self.get_all(select(User).where(User.id.in_(list(user_ids))))


class MembershipRepository(RepositoryBase[Membership]):
    model = Membership

    async def get(self, space_id: uuid.UUID, user_id: uuid.UUID) -> Membership | None:
        """The user's membership of the space, with the user, or None."""
        parameters = {"space_id": space_id, "user_id": user_id}
        return (await self.session.scalars(_MEMBERSHIP, parameters)).one_or_none()

    def members_statement(self, space_id: uuid.UUID) -> Select[Membership]:
        return _MEMBERS.where(Membership.space_id == space_id)

    async def is_admin_somewhere(self, user_id: uuid.UUID) -> bool:
        """Whether the user is an owner or admin of at least one space."""
        statement = select(Membership).where(
            Membership.user_id == user_id, Membership.role.in_([Role.owner, Role.admin])
        )
        return (await self.session.scalars(statement.limit(1))).first() is not None

    async def spaces_of(self, user_id: uuid.UUID) -> list[uuid.UUID]:
        """The ids of every space the user is a member of."""
        rows = await self.get_all(select(Membership).where(Membership.user_id == user_id))
        return [row.space_id for row in rows]

    async def count_owners(self, space_id: uuid.UUID) -> int:
        owners = await self.get_all(
            select(Membership).where(Membership.space_id == space_id, Membership.role == Role.owner)
        )
        return len(owners)


class ApiTokenRepository(RepositoryBase[ApiToken]):
    model = ApiToken

    async def get_active_by_hash(self, token_hash: str, now: datetime) -> tuple[ApiToken, User] | None:
        """The live token with this digest and its user, in one round trip."""
        parameters = {"token_hash": token_hash, "now": now}
        row = (await self.session.execute(_ACTIVE_TOKEN_BY_HASH, parameters)).one_or_none()
        return (row[0], row[1]) if row else None

    async def get_active_with_role(
        self, token_hash: str, now: datetime, space_id: uuid.UUID
    ) -> tuple[ApiToken, User, Role | None] | None:
        """`get_active_by_hash` with the user's role in the space (None when not a member), in the same
        round trip: what every space route asks before anything else."""
        parameters = {"token_hash": token_hash, "now": now, "space_id": space_id}
        row = (await self.session.execute(_ACTIVE_TOKEN_WITH_ROLE, parameters)).one_or_none()
        return (row[0], row[1], row[2]) if row else None

    def owned_statement(self, user_id: uuid.UUID) -> Select[ApiToken]:
        return select(ApiToken).where(ApiToken.user_id == user_id)

    async def standing(
        self, token_id: uuid.UUID, space_id: uuid.UUID
    ) -> tuple[datetime | None, datetime | None, bool] | None:
        """A token's `revoked_at` and `expires_at`, and whether its user is a member of the space, in one
        round trip; None when the token is gone."""
        statement = (
            select(ApiToken.revoked_at, ApiToken.expires_at, Membership.user_id.is_not(None))
            .outerjoin(
                Membership, and_(Membership.user_id == ApiToken.user_id, Membership.space_id == space_id)
            )
            .where(ApiToken.id == token_id)
        )
        row = (await self.session.execute(statement)).one_or_none()
        return (row[0], row[1], bool(row[2])) if row else None

    async def get_owned(self, user_id: uuid.UUID, token_id: uuid.UUID) -> ApiToken | None:
        return await self.get_one_or_none(self.owned_statement(user_id).where(ApiToken.id == token_id))

    async def revoke_all(self, user_id: uuid.UUID, now: datetime, *, keep: uuid.UUID | None = None) -> int:
        """Revoke every live token of the user but `keep`, in one statement; answers how many."""
        statement = (
            update(ApiToken)
            .where(ApiToken.user_id == user_id, ApiToken.revoked_at.is_(None))
            .values(revoked_at=now)
            .execution_options(synchronize_session=False)
        )
        if keep is not None:
            statement = statement.where(ApiToken.id != keep)
        result = await self.session.execute(statement)
        return int(getattr(result, "rowcount", 0) or 0)


class InvitationRepository(RepositoryBase[Invitation]):
    model = Invitation

    async def get_open_by_hash(self, token_hash: str, now: datetime) -> Invitation | None:
        """The unused, unexpired invitation with this digest, locked until the transaction ends (two
        acceptances of one invitation must not both pass)."""
        return await self.get_one_or_none(
            select(Invitation)
            .where(
                Invitation.token_hash == token_hash,
                Invitation.used_at.is_(None),
                Invitation.expires_at > now,
            )
            .with_for_update()
        )

    async def of_user(self, user_id: uuid.UUID) -> list[Invitation]:
        return list(await self.get_all(select(Invitation).where(Invitation.user_id == user_id)))

    async def close_open(self, user_id: uuid.UUID, now: datetime) -> None:
        """Mark every unused invitation of the user used: accepted, or withdrawn by a renewal."""
        await self.session.execute(
            update(Invitation)
            .where(Invitation.user_id == user_id, Invitation.used_at.is_(None))
            .values(used_at=now)
            .execution_options(synchronize_session=False)
        )
