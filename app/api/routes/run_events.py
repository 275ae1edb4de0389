"""Live run changes of a space as server-sent events (the runs page listens here).

Each event is `event: run`, `id: <milliseconds since the epoch>`, `data: {run_id, automation_id,
status, at}`. A client that reconnects sends the last id it saw as `Last-Event-ID` and first gets one
event per run of the space created or whose status moved since then (its current status), so a
dropped connection loses no change of status. Comments (`: keep-alive`) every `KEEPALIVE_SECONDS`
keep proxies from closing an idle stream. Authenticated like every route (a Bearer header, never a
token in the URL), so browsers read it with `fetch`, not `EventSource`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import StreamingResponse

from app.api.deps import SessionDep, SpaceDep, app_state
from app.errors import BadRequest, ErrorDetail
from app.persistence.base import utcnow
from app.persistence.run_events import RunChange, RunEventHub
from app.services.runs import run_service

router = APIRouter(prefix="/spaces/{space_id}", tags=["runs"])

KEEPALIVE_SECONDS = 15.0
RETRY_MILLISECONDS = 2000
# Notifications carry the database clock at the change, not at commit: replay a little earlier.
REPLAY_MARGIN = timedelta(seconds=2)
MAX_EVENT_ID_DIGITS = 16


async def get_run_event_hub(request: Request) -> RunEventHub:
    return app_state(request, "run_events", RunEventHub)


RunEventHubDep = Annotated[RunEventHub, Depends(get_run_event_hub)]


def _since(last_event_id: str | None) -> datetime | None:
    if last_event_id is None or not last_event_id.strip():
        return None
    value = last_event_id.strip()
    if not (value.isascii() and value.isdigit() and len(value) <= MAX_EVENT_ID_DIGITS):
        raise BadRequest(
            "Last-Event-ID must be the id of an event this stream sent.",
            code="invalid_last_event_id",
            details=[ErrorDetail(path="/header/last-event-id", message="expected milliseconds")],
        )
    return datetime.fromtimestamp(int(value) / 1000, tz=UTC) - REPLAY_MARGIN


def _event(data: dict[str, Any], event_id: int) -> bytes:
    return f"id: {event_id}\nevent: run\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


@router.get(
    "/runs/events",
    summary="Live run changes of the space (server-sent events; reconnect with Last-Event-ID)",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}}},
)
async def run_events(
    request: Request,
    session: SessionDep,
    access: SpaceDep,
    hub: RunEventHubDep,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID", max_length=64)] = None,
) -> StreamingResponse:
    since = _since(last_event_id)
    now_ms = int(utcnow().timestamp() * 1000)
    missed = []
    if since is not None:
        missed = [
            {
                "run_id": str(r.id),
                "automation_id": str(r.automation_id),
                "status": str(r.status),
                "at": now_ms,
            }
            for r in await run_service.changed_since(session, access, since)
        ]
    # The request's database session ends when this function returns: the stream holds no connection.
    return StreamingResponse(
        _stream(request, hub, access.space_id, missed, now_ms),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _stream(
    request: Request, hub: RunEventHub, space_id: Any, missed: list[dict[str, Any]], now_ms: int
) -> AsyncIterator[bytes]:
    async with hub.subscribe(space_id) as changes:
        yield f"retry: {RETRY_MILLISECONDS}\n\n".encode()
        for data in reversed(missed):
            yield _event(data, now_ms)
        while not await request.is_disconnected():
            try:
                change: RunChange = await asyncio.wait_for(changes.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                yield b": keep-alive\n\n"
                continue
            yield _event(change.as_dict(), change.at_ms)
