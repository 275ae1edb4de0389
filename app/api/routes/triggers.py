"""Webhook trigger tokens: rotate (a new one, shown once) and revoke."""

from __future__ import annotations

import uuid

from fastapi import APIRouter

from app.api.body import JsonBodyRoute
from app.api.deps import SessionDep, SpaceDep
from app.api.schemas import TriggerOut
from app.services.triggers.sync import trigger_service

router = APIRouter(
    prefix="/spaces/{space_id}/automations/{automation_id}/triggers",
    tags=["triggers"],
    route_class=JsonBodyRoute,
)


@router.post("/{trigger_id}/rotate", summary="New webhook token (shown once); the old one stops working")
async def rotate_token(
    automation_id: uuid.UUID, trigger_id: uuid.UUID, session: SessionDep, access: SpaceDep
) -> TriggerOut:
    row, token = await trigger_service.rotate(session, access, automation_id, trigger_id)
    out = TriggerOut.model_validate(row)
    out.token = token
    return out


@router.post("/{trigger_id}/revoke", summary="Remove the webhook token: fires answer 401 until rotated")
async def revoke_token(
    automation_id: uuid.UUID, trigger_id: uuid.UUID, session: SessionDep, access: SpaceDep
) -> TriggerOut:
    return TriggerOut.model_validate(await trigger_service.revoke(session, access, automation_id, trigger_id))
