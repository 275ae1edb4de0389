"""Preview: what an automation (saved, or a definition not saved yet) would do, without doing it."""

from __future__ import annotations

import uuid
from urllib.parse import urlsplit

from fastapi import APIRouter

from app.api.body import JsonBodyRoute
from app.api.deps import LimitsDep, SessionDep, SettingsDep, SpaceDep, VocabularyDep
from app.api.tryout_schemas import DefinitionPreviewCreate, PreviewCreate, PreviewOut
from app.config import Settings
from app.services.automations.preview import preview_service
from app.services.automations.store import automation_service

router = APIRouter(prefix="/spaces/{space_id}/automations", tags=["automations"], route_class=JsonBodyRoute)


def _fixed_hosts(settings: Settings) -> dict[str, str]:
    """Hosts behind capabilities whose target is a setting, not an argument (host names only)."""
    hosts = {"slack.post_message": urlsplit(settings.slack_api_url).hostname or ""}
    if settings.smtp_url is not None and settings.smtp_url.get_secret_value():
        hosts["email.send"] = urlsplit(settings.smtp_url.get_secret_value()).hostname or ""
    return {capability: host for capability, host in hosts.items() if host}


@router.post("/preview", summary="Preview a definition that is not saved (nothing runs, nothing is written)")
async def preview_definition(
    body: DefinitionPreviewCreate,
    session: SessionDep,
    access: SpaceDep,
    load_vocabulary: VocabularyDep,
    limits: LimitsDep,
    settings: SettingsDep,
) -> PreviewOut:
    answer = await preview_service.of_definition(
        session,
        access,
        body.definition,
        inputs=body.inputs,
        trigger_payload=body.trigger_payload,
        vocabulary=await load_vocabulary(),
        limits=limits,
        fixed_hosts=_fixed_hosts(settings),
    )
    return PreviewOut.model_validate(answer)


@router.post(
    "/{automation_id}/preview",
    summary="Preview the automation's current version (nothing runs or is written)",
)
async def preview_automation(
    automation_id: uuid.UUID,
    session: SessionDep,
    access: SpaceDep,
    load_vocabulary: VocabularyDep,
    limits: LimitsDep,
    settings: SettingsDep,
    body: PreviewCreate | None = None,
) -> PreviewOut:
    request = body or PreviewCreate()
    automation = await automation_service.get(session, access, automation_id)
    answer = await preview_service.of_automation(
        session,
        access,
        automation,
        inputs=request.inputs,
        trigger_payload=request.trigger_payload,
        vocabulary=await load_vocabulary(),
        limits=limits,
        fixed_hosts=_fixed_hosts(settings),
    )
    return PreviewOut.model_validate(answer)
