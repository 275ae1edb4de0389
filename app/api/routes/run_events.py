"""Live run changes of a space as server-sent events (the runs page listens here).

Each event is `event: run`, `id: <milliseconds since the epoch>`, `data: {run_id, automation_id,
status, at}`. A client that reconnects sends the last id it saw as `Last-Event-ID` and first gets one
event per run of the space created or whose status moved since then (its current status), so a
dropped connection loses no change of status. Comments (`: keep-alive`) every `KEEPALIVE_SECONDS`
keep proxies from closing an idle stream. Authenticated like every route (a Bearer header, never a
token in the URL), so browsers read it with `fetch`, not `EventSource`.

The stream holds its caller's access only while it lasts: when the token is revoked (or signed out),
expires, or the membership is removed, it sends `event: revoked` with `data: {reason, message}`
(`token_revoked`, `token_expired`, `membership_removed`) and closes, and no run change goes out after
the revocation is known. See `app.services.runs.stream_access` for when it checks.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import StreamingResponse

from app.api.deps import SessionDep, SettingsDep, SpaceDep, app_state, request_transaction
from app.errors import BadRequest, ErrorDetail, Unauthorized
from app.persistence.base import utcnow
from app.persistence.run_events import RunChange, RunEventHub, Subscription
from app.services.runs.manage import run_service
from app.services.runs.stream_access import AccessEnded, StreamGuard

logger = logging.getLogger(__name__)

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


def _revoked(ended: AccessEnded) -> bytes:
    data = json.dumps({"reason": ended.reason, "message": ended.message}, separators=(",", ":"))
    return f"event: revoked\ndata: {data}\n\n".encode()


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
    settings: SettingsDep,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID", max_length=64)] = None,
) -> StreamingResponse:
    since = _since(last_event_id)
    guard = StreamGuard(
        access, lambda: request_transaction(request), interval=settings.stream_recheck_seconds
    )
    # Authentication just passed; this also learns when the token expires (one query per stream).
    ended = await guard.start(session)
    if ended is not None:
        raise Unauthorized(ended.message, code=ended.reason)
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
        _stream(request, hub, guard, missed, now_ms),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


class _Unchecked(Exception):
    """The caller could not be re-checked (the database away): the stream closes rather than keep
    serving, and the client's reconnect is authenticated afresh."""


async def _check(guard: StreamGuard, subscription: Subscription) -> AccessEnded | None:
    try:
        return await guard.ended(subscription.take_access_changed())
    except Exception as exc:
        raise _Unchecked from exc


async def _next(subscription: Subscription, seconds: float) -> RunChange | None:
    """The next item of the subscription (None: a wake-up to re-check), or None once `seconds` pass."""
    try:
        return await asyncio.wait_for(subscription.get(), seconds)
    except TimeoutError:
        return None


async def _stream(
    request: Request, hub: RunEventHub, guard: StreamGuard, missed: list[dict[str, Any]], now_ms: int
) -> AsyncIterator[bytes]:
    access = guard.access
    async with hub.subscribe(
        access.space_id, token_id=access.caller.token_id, user_id=access.user_id
    ) as subscription:
        yield f"retry: {RETRY_MILLISECONDS}\n\n".encode()
        for data in reversed(missed):
            yield _event(data, now_ms)
        keepalive_at = time.monotonic() + KEEPALIVE_SECONDS
        try:
            while not await request.is_disconnected():
                ended = await _check(guard, subscription)
                if ended is not None:
                    yield _revoked(ended)
                    return
                wait = min(max(0.0, keepalive_at - time.monotonic()), guard.seconds_to_due())
                change = await _next(subscription, wait)
                if change is None:
                    # A wake-up, a check due, or a quiet while: the loop checks before anything else.
                    if time.monotonic() >= keepalive_at:
                        yield b": keep-alive\n\n"
                        keepalive_at = time.monotonic() + KEEPALIVE_SECONDS
                    continue
                # Checked again right before sending: a revocation heard meanwhile stops this change.
                ended = await _check(guard, subscription)
                if ended is not None:
                    yield _revoked(ended)
                    return
                yield _event(change.as_dict(), change.at_ms)
                keepalive_at = time.monotonic() + KEEPALIVE_SECONDS
        except _Unchecked:
            logger.warning("re-checking a run event stream's caller failed; closing it", exc_info=True)
