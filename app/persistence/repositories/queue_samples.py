"""Samples of each space's waiting runs per worker queue: written once a minute, read for the chart."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Integer, delete, func, literal, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.definitions.run_states import RunStatus
from app.persistence.models import QueueSample, Run


@dataclass(frozen=True)
class Sample:
    sampled_at: datetime
    queue: str
    queued: int
    pending: int


class QueueSampleRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def sample(self, minute: datetime) -> None:
        """Count every space's queued and pending runs per queue as of `minute`: one row per minute, and
        a second sample of the same minute (another beat, a retried tick) brings it up to date rather
        than adding one. Spaces with no waiting run get no row: no row means nothing waited."""
        waiting = (
            select(
                Run.space_id,
                literal(minute).label("sampled_at"),
                Run.queue,
                func.count().filter(Run.status == RunStatus.queued).cast(Integer).label("queued"),
                func.count().filter(Run.status == RunStatus.pending).cast(Integer).label("pending"),
            )
            .where(Run.status.in_((RunStatus.queued, RunStatus.pending)))
            .group_by(Run.space_id, Run.queue)
        )
        statement = insert(QueueSample).from_select(
            ["space_id", "sampled_at", "queue", "queued", "pending"], waiting
        )
        await self.session.execute(
            statement.on_conflict_do_update(
                index_elements=["space_id", "sampled_at", "queue"],
                set_={"queued": statement.excluded.queued, "pending": statement.excluded.pending},
            )
        )

    async def forget_before(self, moment: datetime) -> None:
        await self.session.execute(delete(QueueSample).where(QueueSample.sampled_at < moment))

    async def of_space(self, space_id: uuid.UUID, since: datetime) -> list[Sample]:
        rows = await self.session.execute(
            select(QueueSample.sampled_at, QueueSample.queue, QueueSample.queued, QueueSample.pending)
            .where(QueueSample.space_id == space_id, QueueSample.sampled_at >= since)
            .order_by(QueueSample.sampled_at, QueueSample.queue)
        )
        return [Sample(*row) for row in rows]
