"""How many runs waited on each worker queue over the last minutes: sampled by beat's tick once a
minute, answered per space for the Queue page's chart.

A minute with no sample of a queue answers 0 for it: the sampler writes a row only for a space and
queue with runs waiting. Samples older than `RETENTION` are deleted as new ones are written. In the
first seconds of a minute, before beat's tick has sampled it, the answer ends at the minute before:
its last minute would otherwise read 0 with runs waiting.

Every tick also sets the `automations_pending_runs` gauge: the runs each run queue's workers could
claim now, across spaces, for whoever scales workers on `/metrics`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from app import metrics
from app.persistence.repositories.queue_samples import QueueSampleRepository
from app.persistence.repositories.runs import RunRepository
from app.persistence.types import AsyncSession
from app.services.identity.access import SpaceAccess

MAX_MINUTES = 24 * 60
DEFAULT_MINUTES = 60
RETENTION = timedelta(minutes=MAX_MINUTES)


def _minute(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(second=0, microsecond=0)


class QueueDepthService:
    def __init__(self) -> None:
        # The last minute this process sampled: the tick runs every few seconds, a sample once a minute.
        self._sampled: datetime | None = None

    async def sample(self, session: AsyncSession, now: datetime) -> bool:
        """Sample the current minute unless this process already did; True when it sampled."""
        minute = _minute(now)
        if self._sampled == minute:
            return False
        repository = QueueSampleRepository(session)
        await repository.sample(minute)
        await repository.forget_before(minute - RETENTION)
        self._sampled = minute
        return True

    async def gauge_claimable(
        self, session: AsyncSession, now: datetime, queues: Iterable[str]
    ) -> dict[str, int]:
        """Set the `automations_pending_runs` gauge of each of `queues` (0 when none is pending) to the
        runs a worker of it could claim now, and answer those counts. With direct claims a run queue's
        Redis list holds a wake-up or two, not a message per run: this is the backlog to watch."""
        found = await RunRepository(session).claimable_by_queue(now)
        counts = {queue: found.get(queue, 0) for queue in queues}
        for queue, count in counts.items():
            metrics.pending_runs(queue, count)
        return counts

    async def of_space(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        minutes: int,
        now: datetime | None = None,
        last_tick: datetime | None = None,
    ) -> dict[str, Any]:
        """Per queue, the queued and pending runs of each of the last `minutes` minutes, oldest first.

        `last_tick`: when beat's last finished tick began (every tick samples its minute). A tick in the
        minute before this one means this minute is not sampled yet, and the answer ends there; without
        one, or with an older one (beat is not running), it ends at the current minute.
        """
        last = _minute(now or datetime.now(UTC))
        if last_tick is not None and _minute(last_tick) == last - timedelta(minutes=1):
            last -= timedelta(minutes=1)
        first = last - timedelta(minutes=minutes - 1)
        samples = await QueueSampleRepository(session).of_space(access.space_id, first)
        slots = [first + timedelta(minutes=offset) for offset in range(minutes)]
        index = {slot: position for position, slot in enumerate(slots)}
        queues: dict[str, dict[str, list[int]]] = {}
        for sample in samples:
            position = index.get(_minute(sample.sampled_at))
            if position is None:
                continue
            series = queues.setdefault(sample.queue, {"queued": [0] * minutes, "pending": [0] * minutes})
            series["queued"][position] = sample.queued
            series["pending"][position] = sample.pending
        return {
            "minutes": minutes,
            "first_minute": first,
            "last_minute": last,
            "queues": [{"queue": name, **queues[name]} for name in sorted(queues)],
        }


queue_depth_service = QueueDepthService()
