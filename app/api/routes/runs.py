"""Runs: run now, list, inspect, cancel, the queue; and the space's notifications."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Annotated

from fastapi import APIRouter, Header, Path, Query, Request, Response, status

from app.api.body import JsonBodyRoute
from app.api.deps import (
    LimitsDep,
    PageDep,
    SessionDep,
    SettingsDep,
    SpaceDep,
    app_state,
    commit_now,
    request_transaction,
)
from app.api.governance_schemas import InvocationOut, RunDetailWithInvocationsOut
from app.api.outbound_schemas import delivery_out
from app.api.schemas import (
    NotificationOut,
    PageOut,
    RanAsOut,
    RunCreate,
    RunOut,
    RunPriority,
    RunStepOut,
    StepSpendOut,
)
from app.api.tryout_schemas import ReplayCreate
from app.definitions.run_states import RunStatus
from app.persistence.models import Run, User
from app.persistence.run_events import RunEventHub
from app.persistence.types import AsyncSession
from app.services.governance.invocations import invocation_service
from app.services.governance.ledger import ledger_service
from app.services.identity.access import SpaceAccess
from app.services.outbound.deliveries import delivery_service
from app.services.outbound.endpoints import UrlPolicy
from app.services.resources.notifications import notification_service
from app.services.runs.follow import is_finished, wait_until_finished
from app.services.runs.manage import run_service

router = APIRouter(prefix="/spaces/{space_id}", tags=["runs"], route_class=JsonBodyRoute)


def _run_out(run: Run, identities: Mapping[uuid.UUID, User] | None = None) -> RunOut:
    out = RunOut.model_validate(run)
    out.url = f"/api/v1/spaces/{run.space_id}/runs/{run.id}"
    user = identities.get(run.created_by) if identities and run.created_by else None
    if user is not None:
        out.ran_as = RanAsOut(user_id=user.id, email=user.email, name=user.name)
    return out


async def _runs_out(session: AsyncSession, access: SpaceAccess, runs: Sequence[Run]) -> list[RunOut]:
    """Runs with who each acts as, the users looked up in one query."""
    identities = await run_service.identities(session, access, runs)
    return [_run_out(run, identities) for run in runs]


@router.post(
    "/automations/{automation_id}/runs",
    status_code=status.HTTP_202_ACCEPTED,
    summary="Run now (202 with the new run; 200 with the existing one when the Idempotency-Key repeats)",
)
async def run_now(
    automation_id: uuid.UUID,
    request: Request,
    session: SessionDep,
    access: SpaceDep,
    limits: LimitsDep,
    settings: SettingsDep,
    response: Response,
    body: RunCreate | None = None,
    idempotency_key: Annotated[
        str | None, Header(alias="Idempotency-Key", min_length=1, max_length=255)
    ] = None,
) -> RunOut:
    result = await run_service.run_now(
        session,
        access,
        automation_id,
        inputs=body.inputs if body else {},
        idempotency_key=idempotency_key,
        limits=limits,
        callback_url=body.callback_url if body else None,
        url_policy=UrlPolicy.from_settings(settings),
        mode=body.mode if body else "live",
        llm=body.llm if body else "run",
        priority=body.priority if body else 0,
    )
    (out,) = await _runs_out(session, access, [result.run])
    response.headers["Location"] = out.url
    if not result.created:
        response.status_code = status.HTTP_200_OK
    if body is not None and body.wait_seconds > 0 and not is_finished(result.run):
        # Commit the fire and send its wake-up now, so the wait holds no connection and the run starts.
        await commit_now(request, session)
        hub = app_state(request, "run_events", RunEventHub)
        finished = await wait_until_finished(
            hub, access.space_id, result.run.id, body.wait_seconds, _reader(request, result.run.id)
        )
        if finished is not None and is_finished(finished):
            response.status_code = status.HTTP_200_OK
            done = _run_out(finished)
            done.ran_as = out.ran_as
            return done
    return out


def _reader(request: Request, run_id: uuid.UUID) -> Callable[[], Awaitable[Run | None]]:
    """Reads the run, each time in a short transaction of its own."""

    async def read() -> Run | None:
        async with request_transaction(request) as session:
            return await session.get(Run, run_id)

    return read


@router.put(
    "/runs/{run_id}/priority",
    summary="Move a queued run in the line (admins and owners; 409 once it left the queue)",
)
async def set_run_priority(
    run_id: uuid.UUID, body: RunPriority, session: SessionDep, access: SpaceDep
) -> RunOut:
    run = await run_service.set_priority(session, access, run_id, body.priority)
    (out,) = await _runs_out(session, access, [run])
    return out


@router.get("/runs", summary="List runs, newest first")
async def list_runs(
    session: SessionDep,
    access: SpaceDep,
    page: PageDep,
    automation_id: uuid.UUID | None = None,
    status_filter: Annotated[
        list[RunStatus] | None, Query(alias="status", description="Repeat to combine.")
    ] = None,
    parent_run_id: Annotated[
        uuid.UUID | None, Query(description="Only the child runs this run started (call_automation).")
    ] = None,
) -> PageOut[RunOut]:
    result = await run_service.list(
        session,
        access,
        automation_id=automation_id,
        parent_run_id=parent_run_id,
        statuses=list(status_filter) if status_filter else None,
        limit=page.limit,
        cursor=page.cursor,
    )
    return PageOut(items=await _runs_out(session, access, result.items), next_cursor=result.next_cursor)


@router.get("/runs/{run_id}", summary="A run with its step attempts, timings, errors and inputs")
async def get_run(run_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> RunDetailWithInvocationsOut:
    detail = await run_service.get(session, access, run_id)
    (summary,) = await _runs_out(session, access, [detail.run])
    deliveries, attempts = await delivery_service.list(
        session, access, endpoint_id=None, run_id=run_id, status=None, limit=50, cursor=None
    )
    invocations = await invocation_service.for_run(session, run_id)
    spend = await ledger_service.run_by_step(session, run_id)
    return RunDetailWithInvocationsOut(
        **summary.model_dump(),
        trigger_payload=detail.run.trigger_payload,
        definition=detail.run.definition,
        steps=[RunStepOut.model_validate(step) for step in detail.steps],
        webhook_deliveries=[delivery_out(d, attempts[d.id]) for d in deliveries.items],
        invocations=[InvocationOut.model_validate(i) for i in invocations],
        llm_spend=[StepSpendOut.model_validate(s) for s in spend],
    )


# A step's id, behind `<loop id>/<iteration>/` per enclosing loop; or an iteration (`fetch/3`).
STEP_PATH_PATTERN = r"^[a-z][a-z0-9_]{0,63}(/[0-9]{1,4}/[a-z][a-z0-9_]{0,63})*(/[0-9]{1,4})?$"


@router.get(
    "/runs/{run_id}/steps/{path:path}",
    summary="The records of one step of a run by its path, with those of the steps under it",
    description="`fetch` answers the loop `fetch`'s records and every iteration's; `fetch/3` the records "
    "of iteration 3; `fetch/3/classify` the attempts of `classify` in iteration 3. Oldest first.",
)
async def get_run_steps(
    run_id: uuid.UUID,
    path: Annotated[str, Path(max_length=1024, pattern=STEP_PATH_PATTERN)],
    session: SessionDep,
    access: SpaceDep,
    phase: Annotated[str | None, Query(pattern="^(plan|on_failure)$")] = None,
) -> list[RunStepOut]:
    steps = await run_service.steps_at(session, access, run_id, path, phase)
    return [RunStepOut.model_validate(step) for step in steps]


@router.post(
    "/runs/{run_id}/cancel", summary="Cancel: at once when queued or pending, at the next step when running"
)
async def cancel_run(run_id: uuid.UUID, session: SessionDep, access: SpaceDep, limits: LimitsDep) -> RunOut:
    (out,) = await _runs_out(session, access, [await run_service.cancel(session, access, run_id, limits)])
    return out


@router.post(
    "/runs/{run_id}/replay",
    status_code=status.HTTP_202_ACCEPTED,
    summary="Replay: a new run with the original's payload and inputs, on its snapshot or current version",
)
async def replay_run(
    run_id: uuid.UUID,
    session: SessionDep,
    access: SpaceDep,
    limits: LimitsDep,
    response: Response,
    body: ReplayCreate | None = None,
) -> RunOut:
    request = body or ReplayCreate()
    run = await run_service.replay(
        session, access, run_id, version=request.version, mode=request.mode, llm=request.llm, limits=limits
    )
    (out,) = await _runs_out(session, access, [run])
    response.headers["Location"] = out.url
    return out


@router.get("/queue", summary="Queued runs of the space, in promotion order")
async def list_queue(session: SessionDep, access: SpaceDep, page: PageDep) -> PageOut[RunOut]:
    result = await run_service.queue(session, access, limit=page.limit, cursor=page.cursor)
    return PageOut(items=await _runs_out(session, access, result.items), next_cursor=result.next_cursor)


@router.get("/notifications", summary="In-app notifications, newest first")
async def list_notifications(
    session: SessionDep, access: SpaceDep, page: PageDep
) -> PageOut[NotificationOut]:
    result = await notification_service.list(session, access, limit=page.limit, cursor=page.cursor)
    return PageOut(
        items=[NotificationOut.model_validate(n) for n in result.items], next_cursor=result.next_cursor
    )
