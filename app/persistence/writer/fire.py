"""The fire writer: the runs a fire plan decided, written in the fewest statements its shape allows.

Services decide what a fire makes (`app.services.runs.fire_plan`); this module only writes it:

- one run that stamps its trigger (`RunRow.stamp`): one INSERT … that also moves the trigger's
  `last_fired_at` (`TriggerRepository.insert_run_and_note_fired`); on a session in autocommit that one
  statement is its whole transaction;
- runs without a stamp: one multi-row INSERT (the session's flush, a thousand rows a statement);
- anything more (a lock, an idempotency look-up, an announcement after the INSERT, several statements):
  a transaction, left autocommit for first.

Wake-ups (`RunRow.wake_up`) are buffered by `app.jobs` and sent only once the transaction commits.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app import jobs
from app.persistence.models import Run
from app.persistence.repositories.automations import AutomationRepository
from app.persistence.repositories.runs import RunRepository
from app.persistence.repositories.triggers import TriggerRepository
from app.persistence.transaction import in_autocommit, leave_autocommit
from app.persistence.types import AsyncSession

__all__ = ["FireWriter", "RunRow", "TriggerStamp", "WakeUp", "fire_writer"]


@dataclass(frozen=True)
class TriggerStamp:
    """Move this trigger's `last_fired_at` to `at` with the run's INSERT (never backwards)."""

    trigger_id: uuid.UUID
    at: datetime


@dataclass(frozen=True)
class WakeUp:
    """The job that starts a pending run, sent after the commit."""

    task: str
    queue: str


@dataclass(frozen=True)
class RunRow:
    """One run a fire plan creates: its column values, its trigger's stamp, its wake-up."""

    values: dict[str, Any]
    stamp: TriggerStamp | None = None
    wake_up: WakeUp | None = None


def statements_for(rows: Sequence[RunRow]) -> int:
    """How many statements `FireWriter.insert` sends for these rows (before any that follow)."""
    stamped = sum(1 for row in rows if row.stamp is not None)
    return stamped + (1 if stamped < len(rows) else 0)


class FireWriter:
    async def begin(self, session: AsyncSession, serialise: uuid.UUID | None = None) -> None:
        """Give the fire a transaction; with `serialise`, hold that automation's row until it ends, so a
        key check and a policy count of its fires cannot race."""
        await leave_autocommit(session)
        if serialise is not None:
            await AutomationRepository(session).lock(serialise)

    async def earlier_run(
        self, session: AsyncSession, automation_id: uuid.UUID, key: str, cutoff: datetime
    ) -> Run | None:
        """The run this idempotency key made since `cutoff`; an older key is freed for a new run."""
        runs = RunRepository(session)
        await runs.forget_idempotency_keys_before(automation_id, key, cutoff)
        return await runs.by_idempotency_key(automation_id, key)

    async def insert(
        self, session: AsyncSession, rows: Sequence[RunRow], *, more_follows: bool = False
    ) -> list[Run]:
        """Write these runs, in order, and buffer their wake-ups.

        A stamped run is a plain copy of its row, not an object of the session; the others are the
        session's. `more_follows`: the caller writes more in the same transaction (a dropped run's
        notices), so a session in autocommit gets a transaction first, as it does for several statements.
        """
        if in_autocommit(session) and (more_follows or statements_for(rows) > 1):
            await leave_autocommit(session)
        made = [Run(**row.values) for row in rows]
        plain = [run for run, row in zip(made, rows, strict=True) if row.stamp is None]
        for row in rows:
            if row.stamp is not None:
                await TriggerRepository(session).insert_run_and_note_fired(
                    row.values, row.stamp.trigger_id, row.stamp.at
                )
        if plain:
            await RunRepository(session).create_many(plain)
        for row in rows:
            if row.wake_up is not None:
                jobs.enqueue(row.wake_up.task, str(row.values["id"]), queue=row.wake_up.queue)
        return made


fire_writer = FireWriter()
