"""Publishing domain events into a space (for external connectors), and reading them back."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, status

from app.api.body import JsonBodyRoute
from app.api.deps import PageDep, SessionDep, SpaceDep
from app.api.schemas import EventCreate, EventOut, PageOut
from app.services.triggers.events import event_service

router = APIRouter(prefix="/spaces/{space_id}/events", tags=["events"], route_class=JsonBodyRoute)


@router.post("", status_code=status.HTTP_202_ACCEPTED, summary="Publish an event; matching triggers fire")
async def publish_event(body: EventCreate, session: SessionDep, access: SpaceDep) -> EventOut:
    event = await event_service.publish_from(session, access, body.event_type, body.payload, body.source_id)
    return EventOut.model_validate(event)


@router.get("", summary="Recent events of the space, newest first, with the triggers they fired")
async def list_events(session: SessionDep, access: SpaceDep, page: PageDep) -> PageOut[EventOut]:
    result = await event_service.list(session, access, limit=page.limit, cursor=page.cursor)
    return PageOut(items=[EventOut.model_validate(e) for e in result.items], next_cursor=result.next_cursor)


@router.get("/{event_id}", summary="One event and the triggers it fired")
async def get_event(event_id: uuid.UUID, session: SessionDep, access: SpaceDep) -> EventOut:
    return EventOut.model_validate(await event_service.get(session, access, event_id))
