"""Queries over trigger rows: by automation, by webhook token digest, due schedules, event candidates."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import DateTime, Uuid, bindparam, cast, func, insert, or_, select, update
from sqlalchemy.dialects.postgresql import ARRAY

from app.persistence.base import Base, constant
from app.persistence.models import (
    Automation,
    AutomationStatus,
    AutomationTrigger,
    EventTriggerGeneration,
    Run,
)
from app.persistence.repositories.base import RepositoryBase


class DueSchedule(NamedTuple):
    id: uuid.UUID
    automation_id: uuid.UUID
    config: dict[str, Any]
    next_fire_at: datetime
    last_fired_at: datetime | None


class ScheduleMove(NamedTuple):
    trigger_id: uuid.UUID
    next_fire_at: datetime | None
    fired_at: datetime | None  # set when the slot fired


class WebhookTrigger(NamedTuple):
    """The columns a webhook fire reads of its trigger."""

    id: uuid.UUID
    automation_id: uuid.UUID
    space_id: uuid.UUID
    secret_hash: str | None
    enabled: bool
    config: dict[str, Any]
    last_fired_at: datetime | None


class AutomationHead(NamedTuple):
    """The columns a fire reads of its automation (what `Dispatcher.fire` needs), as plain values."""

    id: uuid.UUID
    space_id: uuid.UUID
    status: AutomationStatus
    version: int
    created_by: uuid.UUID | None
    definition: dict[str, Any]


_TRIGGER_WIDTH = len(WebhookTrigger._fields)
# The tables themselves, for Core statements that need no ORM bookkeeping.
_TRIGGERS = Base.metadata.tables[AutomationTrigger.__tablename__]
_RUNS = Base.metadata.tables[Run.__tablename__]
_AUTOMATIONS = Base.metadata.tables[Automation.__tablename__]

# The hot path's statements are built once, with bound parameters: building one per request (and its
# cache key) would cost more than running it.
_WEBHOOK_TARGET = (
    select(
        *(_TRIGGERS.c[name] for name in WebhookTrigger._fields),
        *(_AUTOMATIONS.c[name] for name in AutomationHead._fields),
    )
    .join(_AUTOMATIONS, _AUTOMATIONS.c.id == _TRIGGERS.c.automation_id)
    .where(_TRIGGERS.c.secret_hash == bindparam("secret_hash"), _TRIGGERS.c.type == "webhook")
    .limit(1)
)
_STAMP_AT = bindparam("stamp_at", type_=_TRIGGERS.c.last_fired_at.type)
# Moves `last_fired_at` forward, skipping the row while another fire holds it.
_STAMP = (
    update(_TRIGGERS)
    .where(
        _TRIGGERS.c.id
        == select(_TRIGGERS.c.id)
        .where(
            _TRIGGERS.c.id == bindparam("stamp_trigger_id"),
            or_(_TRIGGERS.c.last_fired_at.is_(None), _TRIGGERS.c.last_fired_at < _STAMP_AT),
        )
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    .values(last_fired_at=_STAMP_AT, updated_at=_STAMP_AT)
)


@functools.lru_cache(maxsize=8)
def _run_and_stamp(columns: tuple[str, ...]) -> Any:
    """INSERT of a run giving these columns, with `_STAMP` in the same statement (one per column set)."""
    values = {name: bindparam(f"run_{name}", type_=_RUNS.c[name].type) for name in columns}
    new_run = insert(_RUNS).values(values).returning(_RUNS.c.id).cte("new_run")
    return select(new_run.c.id).add_cte(_STAMP.cte("stamp"))


class TriggerRepository(RepositoryBase[AutomationTrigger]):
    model = AutomationTrigger

    async def for_automation(self, automation_id: uuid.UUID) -> Sequence[AutomationTrigger]:
        statement = select(AutomationTrigger).where(AutomationTrigger.automation_id == automation_id)
        return (await self.session.scalars(statement)).all()

    async def get_of_automation(
        self, automation_id: uuid.UUID, trigger_id: uuid.UUID
    ) -> AutomationTrigger | None:
        return await self.get_one_or_none(
            select(AutomationTrigger).where(
                AutomationTrigger.automation_id == automation_id, AutomationTrigger.id == trigger_id
            )
        )

    async def by_secret_hash(self, secret_hash: str) -> AutomationTrigger | None:
        return await self.get_one_or_none(
            select(AutomationTrigger).where(
                AutomationTrigger.secret_hash == secret_hash, AutomationTrigger.type == "webhook"
            )
        )

    async def webhook_target(self, secret_hash: str) -> tuple[WebhookTrigger, AutomationHead] | None:
        """The webhook trigger holding this token digest and its automation, in one round trip.

        Plain columns, not ORM objects: a fire only reads them, and building (and tracking) two
        mapped objects per request is most of what the lookup would cost.
        """
        # Core statements on the session's connection: the ORM's execution layer has nothing to add.
        connection = await self.session.connection()
        row = (await connection.execute(_WEBHOOK_TARGET, {"secret_hash": secret_hash})).first()
        if row is None:
            return None
        return WebhookTrigger(*row[:_TRIGGER_WIDTH]), AutomationHead(*row[_TRIGGER_WIDTH:])

    async def note_fired(self, trigger_id: uuid.UUID, at: datetime) -> None:
        """Move `last_fired_at` forward to `at`, unless another fire holds the row right now.

        A fire that finds the row locked skips it (`SKIP LOCKED`): the holder is writing a moment just
        as recent, and waiting for its commit would make concurrent fires of one trigger take turns.
        The stamp never moves backwards.
        """
        await self.session.execute(_STAMP, {"stamp_trigger_id": trigger_id, "stamp_at": at})

    async def insert_run_and_note_fired(
        self, run: dict[str, Any], trigger_id: uuid.UUID, at: datetime
    ) -> None:
        """Insert a run (its column values) and move its trigger's `last_fired_at` as `note_fired`
        does, in one statement: one round trip where a flush and an UPDATE would take two."""
        parameters = {f"run_{name}": value for name, value in run.items()}
        parameters.update(stamp_trigger_id=trigger_id, stamp_at=at)
        connection = await self.session.connection()
        await connection.execute(_run_and_stamp(tuple(run)), parameters)

    async def due_schedule_batch(self, now: datetime, limit: int) -> Sequence[DueSchedule]:
        """Up to `limit` due schedule triggers, oldest slot first, locked until the transaction ends.

        Rows another tick holds are skipped (SKIP LOCKED), so ticks racing over the same minute share
        the due rows out and each slot fires once. Plain rows, not ORM objects: their new
        `next_fire_at` goes back in one statement (`move_schedules`).
        """
        statement = (
            select(
                AutomationTrigger.id,
                AutomationTrigger.automation_id,
                AutomationTrigger.config,
                AutomationTrigger.next_fire_at,
                AutomationTrigger.last_fired_at,
            )
            .where(
                AutomationTrigger.type == constant("schedule"),
                AutomationTrigger.next_fire_at <= now,
                AutomationTrigger.enabled.is_(True),
            )
            .order_by(AutomationTrigger.next_fire_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        return [DueSchedule(*row) for row in (await self.session.execute(statement)).all()]

    async def move_schedules(self, moves: Sequence[ScheduleMove]) -> None:
        """Store every trigger's next slot (None stops it) and, for those that fired, `last_fired_at`,
        in one UPDATE."""
        if not moves:
            return
        values = select(
            func.unnest(cast([move.trigger_id for move in moves], ARRAY(Uuid))).label("id"),
            func.unnest(cast([move.next_fire_at for move in moves], ARRAY(DateTime(timezone=True)))).label(
                "next_fire_at"
            ),
            func.unnest(cast([move.fired_at for move in moves], ARRAY(DateTime(timezone=True)))).label(
                "fired_at"
            ),
        ).subquery("moves")
        await self.session.execute(
            update(AutomationTrigger)
            .where(AutomationTrigger.id == values.c.id)
            .values(
                next_fire_at=values.c.next_fire_at,
                last_fired_at=func.coalesce(values.c.fired_at, AutomationTrigger.last_fired_at),
                updated_at=func.now(),
            )
            .execution_options(synchronize_session=False)
        )

    async def event_generation(self, space_id: uuid.UUID) -> int:
        """The space's event trigger generation (0 before its first event trigger)."""
        statement = select(EventTriggerGeneration.generation).where(
            EventTriggerGeneration.space_id == space_id
        )
        return int((await self.session.execute(statement)).scalar_one_or_none() or 0)

    async def event_filters(
        self, space_id: uuid.UUID, event_types: list[str]
    ) -> Sequence[tuple[uuid.UUID, dict[str, Any] | None]]:
        """(id, filter document) of every enabled event trigger in the space listening to one of these
        types, whatever its automation's status (matches are checked against it when they fire)."""
        statement = (
            select(AutomationTrigger.id, AutomationTrigger.config["filters"])
            .where(
                AutomationTrigger.space_id == space_id,
                AutomationTrigger.type == constant("event"),
                AutomationTrigger.enabled.is_(True),
                AutomationTrigger.event_type.in_(event_types),
            )
            .order_by(AutomationTrigger.id)
        )
        return [(row[0], row[1]) for row in (await self.session.execute(statement)).all()]

    async def event_candidates(
        self, space_id: uuid.UUID, event_types: list[str], ids: Collection[uuid.UUID] | None = None
    ) -> Sequence[AutomationTrigger]:
        """Enabled event triggers of active automations in the space listening to one of these types
        (only those among `ids` when given), ordered by id."""
        # Trigger rows only: the automations (and their definitions) are loaded for the matches alone.
        statement = (
            select(AutomationTrigger)
            .join(Automation, Automation.id == AutomationTrigger.automation_id)
            .where(
                AutomationTrigger.space_id == space_id,
                AutomationTrigger.type == constant("event"),
                AutomationTrigger.enabled.is_(True),
                AutomationTrigger.event_type.in_(event_types),
                Automation.status == AutomationStatus.active,
            )
            .order_by(AutomationTrigger.id)
        )
        if ids is not None:
            if not ids:
                return []
            statement = statement.where(AutomationTrigger.id.in_(list(ids)))
        return (await self.session.scalars(statement)).all()
