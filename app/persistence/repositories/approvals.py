"""Queries over each approver's decisions, the email links, and the approval notices owed."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Select, Table, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import joinedload

from app.persistence.models import ApprovalDecision, ApprovalLink, ApprovalNotice, Membership, Role
from app.persistence.repositories.base import RepositoryBase

DECISIONS: Table = ApprovalDecision.__table__  # type: ignore[assignment]


def _approvals_of(invocation_id: uuid.UUID) -> Select[int]:
    """The count of a call's approvals (one per member: the decisions are unique per member)."""
    mine = DECISIONS.c.invocation_id == invocation_id
    return select(func.count()).where(mine, DECISIONS.c.decision == "approve")


class ApprovalDecisionRepository(RepositoryBase[ApprovalDecision]):
    model = ApprovalDecision

    async def for_invocations(self, invocation_ids: Sequence[uuid.UUID]) -> list[ApprovalDecision]:
        """Every decision on these calls, oldest first."""
        if not invocation_ids:
            return []
        statement = (
            select(ApprovalDecision)
            .where(ApprovalDecision.invocation_id.in_(invocation_ids))
            .order_by(ApprovalDecision.created_at, ApprovalDecision.id)
        )
        return await self.get_all(statement)

    async def add_once(self, decision: ApprovalDecision) -> tuple[bool, int]:
        """Insert a member's decision unless that member already decided on the call, and count the
        call's approvals before it, in one statement: (whether it was added, approvals before it)."""
        # Unset attributes are left out, so a column's server default applies as it would to an ORM add.
        values = {c.key: value for c in DECISIONS.columns if (value := getattr(decision, c.key)) is not None}
        added = (
            insert(DECISIONS)
            .values(values)
            .on_conflict_do_nothing(index_elements=[DECISIONS.c.invocation_id, DECISIONS.c.user_id])
            .returning(DECISIONS.c.id)
            .cte("added")
        )
        # The statement's snapshot predates its own insert: the count is of the decisions before it.
        before = _approvals_of(decision.invocation_id)
        statement = select(
            select(func.count()).select_from(added).scalar_subquery(), before.scalar_subquery()
        )
        was_added, approvals = (await self.session.execute(statement)).one()
        return bool(was_added), int(approvals)

    async def approvals(self, invocation_id: uuid.UUID) -> int:
        """How many distinct members approved the call so far."""
        return int((await self.session.execute(_approvals_of(invocation_id))).scalar_one())


class ApprovalLinkRepository(RepositoryBase[ApprovalLink]):
    model = ApprovalLink

    async def by_token_hash(self, token_hash: str, *, for_update: bool = False) -> ApprovalLink | None:
        statement = select(ApprovalLink).where(ApprovalLink.token_hash == token_hash)
        if for_update:
            statement = statement.with_for_update()
        return await self.get_one_or_none(statement)


class ApprovalNoticeRepository(RepositoryBase[ApprovalNotice]):
    model = ApprovalNotice

    async def due(self, now: datetime, limit: int = 100) -> list[ApprovalNotice]:
        """Notices owed and due, oldest first, locked so two senders never send one twice."""
        statement = (
            select(ApprovalNotice)
            .where(ApprovalNotice.status == "pending", ApprovalNotice.next_attempt_at <= now)
            .order_by(ApprovalNotice.next_attempt_at, ApprovalNotice.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        return await self.get_all(statement)

    async def claim(self, notice_id: uuid.UUID) -> ApprovalNotice | None:
        """One owed notice, locked for its sender (None when sent, failed or another sender holds it)."""
        statement = (
            select(ApprovalNotice)
            .where(ApprovalNotice.id == notice_id, ApprovalNotice.status == "pending")
            .with_for_update(skip_locked=True)
        )
        return await self.get_one_or_none(statement)

    async def slack_post_of(self, invocation_id: uuid.UUID) -> ApprovalNotice | None:
        """The Slack message posted for a call (its channel and ts are in `external_ref`)."""
        statement = select(ApprovalNotice).where(
            ApprovalNotice.invocation_id == invocation_id, ApprovalNotice.kind == "slack_post"
        )
        return await self.get_one_or_none(statement)

    async def for_invocation(self, invocation_id: uuid.UUID) -> list[ApprovalNotice]:
        statement = (
            select(ApprovalNotice)
            .where(ApprovalNotice.invocation_id == invocation_id)
            .order_by(ApprovalNotice.created_at, ApprovalNotice.id)
        )
        return await self.get_all(statement)

    async def defer(self, notice_id: uuid.UUID, when: datetime) -> None:
        await self.session.execute(
            update(ApprovalNotice).where(ApprovalNotice.id == notice_id).values(next_attempt_at=when)
        )


class DeciderRepository(RepositoryBase[Membership]):
    """Members who may decide approvals in a space (admins and owners), with their users."""

    model = Membership

    async def of_space(self, space_id: uuid.UUID) -> list[Membership]:
        statement = (
            select(Membership)
            .options(joinedload(Membership.user))
            .where(Membership.space_id == space_id, Membership.role.in_([Role.admin, Role.owner]))
        )
        return await self.get_all(statement)
