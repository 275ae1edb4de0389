"""Queries over `action_invocations`: the audit listing, the inbox, decisions of paused calls, expiry."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, or_, select, update

from app.definitions import invocation_states
from app.definitions.invocation_states import InvocationEdge, InvocationStatus
from app.persistence.models import ActionInvocation
from app.persistence.repositories.base import RepositoryBase

# What a resumed claim must know about its own calls: those still waiting or decided by a human.
_DECIDED_STATUSES = tuple(sorted(invocation_states.OPEN))
_DECIDED_REASONS = ("human", "expired")
# Denials made before the per-run rate limit counts a call (and its own).
_BEFORE_RATE_LIMIT = ("policy", "grant", "rate_limit")


class InvocationRepository(RepositoryBase[ActionInvocation]):
    model = ActionInvocation

    def listing_statement(
        self,
        space_id: uuid.UUID,
        *,
        run_id: uuid.UUID | None = None,
        statuses: Sequence[str] | None = None,
        capability: str | None = None,
    ) -> Select[ActionInvocation]:
        statement = select(ActionInvocation).where(ActionInvocation.space_id == space_id)
        if run_id is not None:
            statement = statement.where(ActionInvocation.run_id == run_id)
        if statuses:
            statement = statement.where(ActionInvocation.status.in_(statuses))
        if capability is not None:
            statement = statement.where(ActionInvocation.capability == capability)
        return statement

    async def get_in_space(
        self, space_id: uuid.UUID, invocation_id: uuid.UUID, *, for_update: bool = False
    ) -> ActionInvocation | None:
        statement = select(ActionInvocation).where(
            ActionInvocation.space_id == space_id, ActionInvocation.id == invocation_id
        )
        if for_update:
            statement = statement.with_for_update()
        return await self.get_one_or_none(statement)

    async def for_run(self, run_id: uuid.UUID, limit: int = 500) -> Sequence[ActionInvocation]:
        statement = (
            select(ActionInvocation)
            .where(ActionInvocation.run_id == run_id)
            .order_by(ActionInvocation.created_at, ActionInvocation.id)
            .limit(limit)
        )
        return await self.get_all(statement)

    async def call_times_since(self, run_id: uuid.UUID, since: datetime) -> Sequence[datetime]:
        """When the run's calls that got past the rate limit were made, since `since` (oldest first)."""
        statement = (
            select(ActionInvocation.created_at)
            .where(
                ActionInvocation.run_id == run_id,
                ActionInvocation.created_at >= since,
                or_(
                    ActionInvocation.denied_reason.is_(None),
                    ActionInvocation.denied_reason.not_in(_BEFORE_RATE_LIMIT),
                ),
            )
            .order_by(ActionInvocation.created_at)
        )
        return (await self.session.scalars(statement)).all()

    async def decided_for_run(self, run_id: uuid.UUID) -> Sequence[ActionInvocation]:
        """The run's calls that paused: still pending, approved, being executed, or denied/expired."""
        statement = select(ActionInvocation).where(
            ActionInvocation.run_id == run_id,
            or_(
                ActionInvocation.status.in_(_DECIDED_STATUSES),
                ActionInvocation.denied_reason.in_(_DECIDED_REASONS),
            ),
        )
        return await self.get_all(statement)

    async def count_pending(
        self, *, run_id: uuid.UUID | None = None, space_id: uuid.UUID | None = None
    ) -> int:
        statement = (
            select(func.count())
            .select_from(ActionInvocation)
            .where(ActionInvocation.status == InvocationStatus.pending)
        )
        if run_id is not None:
            statement = statement.where(ActionInvocation.run_id == run_id)
        if space_id is not None:
            statement = statement.where(ActionInvocation.space_id == space_id)
        return int((await self.session.execute(statement)).scalar_one())

    async def pending_for_run(
        self, run_id: uuid.UUID, *, call_key: str | None = None
    ) -> Sequence[ActionInvocation]:
        """The run's pending calls (only the one of `call_key` when given), locked for a decision."""
        statement = (
            select(ActionInvocation)
            .where(ActionInvocation.run_id == run_id, ActionInvocation.status == InvocationStatus.pending)
            .with_for_update()
        )
        if call_key is not None:
            statement = statement.where(ActionInvocation.call_key == call_key)
        return await self.get_all(statement)

    async def transition(
        self,
        invocation_id: uuid.UUID,
        edge: InvocationEdge,
        values: dict[str, Any],
        *,
        fence: int | None = None,
    ) -> ActionInvocation | None:
        """One conditional update along `edge` of the invocation table: the row moves only if it is
        still where the edge leaves from (and, given a fence, still held by that claim)."""
        values = {**values, "status": edge.target}
        conditions = [ActionInvocation.id == invocation_id, ActionInvocation.status == edge.source]
        if fence is not None:
            conditions.append(ActionInvocation.fence == fence)
        statement = (
            update(ActionInvocation)
            .where(*conditions)
            .values(**values)
            .returning(ActionInvocation)
            .execution_options(synchronize_session=False)
        )
        return (await self.session.scalars(statement)).one_or_none()

    async def due_for_expiry(self, now: datetime, limit: int = 100) -> Sequence[ActionInvocation]:
        statement = (
            select(ActionInvocation)
            .where(ActionInvocation.status == InvocationStatus.pending, ActionInvocation.expires_at <= now)
            .order_by(ActionInvocation.expires_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        return await self.get_all(statement)
