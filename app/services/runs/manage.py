"""Runs as users see them: run now, list, inspect, cancel, and the queue."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from app.definitions import run_states
from app.definitions.run_modes import LlmMode, RunMode, as_llm_mode, as_run_mode
from app.definitions.run_states import RunStatus
from app.errors import Conflict, ErrorDetail, NotFound, ValidationFailed
from app.persistence.base import utcnow
from app.persistence.models import Run, RunStep, User
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.runs import RunRepository, RunStepRepository
from app.persistence.repositories.tenancy import UserRepository
from app.persistence.types import AsyncSession
from app.services.automations.store import automation_service
from app.services.identity.access import Permissions, SpaceAccess
from app.services.outbound.endpoints import UrlPolicy, webhook_endpoint_service
from app.services.runs.dispatch import dispatcher
from app.services.runs.fire_request import FireRequest, FireResult
from app.services.runs.limits import DispatchLimits
from app.services.runs.moves import Move
from app.services.runs.transition import transition


@dataclass(frozen=True)
class RunDetail:
    run: Run
    steps: Sequence[RunStep]


async def _run_in_space(
    session: AsyncSession, access: SpaceAccess, run_id: uuid.UUID, *, for_update: bool = False
) -> Run:
    """The space's run (locked when `for_update`), or 404: another space's run is not found either."""
    run = await RunRepository(session).get_in_space(access.space_id, run_id, for_update=for_update)
    if run is None:
        raise NotFound("Run not found.", code="run_not_found")
    return run


class RunService:
    async def identities(
        self, session: AsyncSession, access: SpaceAccess, runs: Sequence[Run]
    ) -> dict[uuid.UUID, User]:
        """Who each of these runs (of the caller's space) acts as, by user id, in one query."""
        access.require(Permissions.read)
        ids = {
            run.created_by for run in runs if run.created_by is not None and run.space_id == access.space_id
        }
        return {user.id: user for user in await UserRepository(session).get_many(ids)}

    async def run_now(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        automation_id: uuid.UUID,
        *,
        inputs: dict[str, Any],
        idempotency_key: str | None,
        limits: DispatchLimits,
        callback_url: str | None = None,
        url_policy: UrlPolicy | None = None,
        mode: RunMode = "live",
        llm: LlmMode = "run",
        priority: int = 0,
    ) -> FireResult:
        """Fire an automation by hand (paused ones too, to try them before activating).

        `callback_url` receives this run's terminal event, signed with the space's callback secret.
        `mode` dry_run or verify holds writes back (see `app.definitions.run_modes`); such a run
        announces no end, so a callback URL is refused with it.
        """
        if mode != "live" and callback_url is not None:
            raise ValidationFailed(
                "A dry or verify run announces no end: it takes no callback_url.",
                code="callback_needs_live_run",
                details=[ErrorDetail(path="/callback_url", message="only a live run takes a callback")],
            )
        access.require(Permissions.write_automations)
        automation = await automation_service.get(session, access, automation_id)
        if callback_url is not None:
            if url_policy is None:
                raise ValueError("a callback URL is checked against the deployment's URL policy")
            await webhook_endpoint_service.check_callback(session, access.space_id, callback_url, url_policy)
        request = FireRequest(
            trigger_type="manual",
            inputs=inputs,
            idempotency_key=idempotency_key,
            actor_id=access.user_id,
            callback_url=callback_url,
            mode=mode,
            llm=llm,
            priority=priority,
        )
        return await dispatcher.fire(session, (automation, request), limits)

    async def replay(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        run_id: uuid.UUID,
        *,
        version: Literal["current", "snapshot"],
        mode: RunMode | None,
        llm: LlmMode | None,
        limits: DispatchLimits,
    ) -> Run:
        """A new run with the original's trigger payload and inputs, linked to it (`replay_of`).

        `snapshot` runs the definition the original executed, `current` the automation's as it is now.
        Mode and model choice default to the original's. A replay is a fire by hand: it works on a
        paused automation, not on an archived one, and the inputs must still match the schema.
        """
        access.require(Permissions.write_automations)
        original = await _run_in_space(session, access, run_id)
        automation = await automation_service.get(session, access, original.automation_id)
        request = FireRequest(
            trigger_type="manual",
            payload=original.trigger_payload,
            inputs=original.inputs,
            trigger_id=original.trigger_id,
            actor_id=access.user_id,
            mode=mode or as_run_mode(original.mode),
            llm=llm or as_llm_mode(original.llm_mode),
            replay_of=original.id,
            snapshot=(original.automation_version, original.definition) if version == "snapshot" else None,
        )
        return (await dispatcher.fire(session, (automation, request), limits)).run

    async def list(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        *,
        automation_id: uuid.UUID | None,
        statuses: list[str] | None,
        limit: int,
        cursor: str | None,
        parent_run_id: uuid.UUID | None = None,
    ) -> Page[Run]:
        statement = RunRepository(session).listing_statement(
            access.space_id, automation_id, statuses, parent_run_id=parent_run_id
        )
        return await paginate(
            session, statement, order_by=[Run.created_at, Run.id], limit=limit, cursor=cursor
        )

    async def changed_since(
        self, session: AsyncSession, access: SpaceAccess, since: datetime, *, limit: int = 200
    ) -> Sequence[Run]:
        """Runs of the space that changed after `since` (what a reconnecting live view missed)."""
        return await RunRepository(session).changed_since(access.space_id, since, limit)

    async def queue(
        self, session: AsyncSession, access: SpaceAccess, *, limit: int, cursor: str | None
    ) -> Page[Run]:
        """Queued runs of the space in promotion order (highest priority, then oldest first)."""
        statement = RunRepository(session).listing_statement(access.space_id, None, [RunStatus.queued])
        return await paginate(
            session,
            statement,
            order_by=[Run.priority, Run.created_at, Run.id],
            limit=limit,
            cursor=cursor,
            descending=(True, False, False),
        )

    async def set_priority(
        self, session: AsyncSession, access: SpaceAccess, run_id: uuid.UUID, priority: int
    ) -> Run:
        """Move a queued run in the line (admins and owners): 409 once it has left the queue."""
        access.require(Permissions.manage_space)
        run = await _run_in_space(session, access, run_id, for_update=True)
        # The row lock orders this after a promotion holding the row: a promoted run is not queued.
        if run.status is not RunStatus.queued:
            raise Conflict(
                f"Only a queued run's priority can change; this one is {run.status}.", code="run_not_queued"
            )
        run.priority = priority
        await session.flush()
        return run

    async def get(self, session: AsyncSession, access: SpaceAccess, run_id: uuid.UUID) -> RunDetail:
        run = await _run_in_space(session, access, run_id)
        return RunDetail(run, await RunStepRepository(session).for_run(run.id))

    async def steps_at(
        self, session: AsyncSession, access: SpaceAccess, run_id: uuid.UUID, path: str, phase: str | None
    ) -> Sequence[RunStep]:
        """The records of the run's step at `path` and of the steps under it; 404 when there are none."""
        run = await _run_in_space(session, access, run_id)
        steps = await RunStepRepository(session).at_path(run.id, path, phase)
        if not steps:
            raise NotFound("The run has no step record at this path.", code="step_not_found")
        return steps

    async def cancel(
        self, session: AsyncSession, access: SpaceAccess, run_id: uuid.UUID, limits: DispatchLimits
    ) -> Run:
        """Queued or pending: cancelled now. Running: stops at the next step boundary or wait."""
        access.require(Permissions.write_automations)
        run = await _run_in_space(session, access, run_id, for_update=True)
        # The row lock makes the check and the change one step, like a conditional update.
        if run.status in run_states.CANCEL.sources:
            cancelled = await transition(session, Move(run, run_states.CANCEL, utcnow(), limits))
            if cancelled is None:
                raise Conflict(f"The run has already moved on ({run.status}).", code="run_finished")
            return cancelled
        if run.status in run_states.STOP.sources:
            run.cancel_requested = True
            await session.flush()
            return run
        raise Conflict(f"The run has already finished ({run.status}).", code="run_finished")


run_service = RunService()
