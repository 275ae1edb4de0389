"""Drafts: automations written from a plain request, reviewed and edited, saved only by a user's call."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query, Response, status

from app.api.body import JsonBodyRoute
from app.api.deps import CallerDep, DraftServiceDep, SessionDep, SpaceDep
from app.api.draft_schemas import (
    DraftCreate,
    DraftEdit,
    DraftExampleOut,
    DraftListOut,
    DraftMessage,
    DraftOut,
    DraftWritePolicy,
)
from app.api.routes.automations import saved_out
from app.api.schemas import AutomationSavedOut, OverlapOut
from app.nl.drafts import Draft
from app.nl.examples import authoring_examples
from app.services.automations.overlap import overlap_service
from app.services.identity.access import SpaceAccess

router = APIRouter(tags=["drafts"], route_class=JsonBodyRoute)
DRAFTS = "/spaces/{space_id}/drafts"


def _out(draft: Draft) -> DraftOut:
    return DraftOut.model_validate(draft.model_dump(mode="json", exclude={"base_definition", "space_id"}))


async def _with_overlaps(session: SessionDep, access: SpaceAccess, draft: Draft) -> DraftOut:
    """The draft, with the space's automations its proposal overlaps (its own automation left out)."""
    out = _out(draft)
    if draft.definition is not None:
        exclude = uuid.UUID(draft.automation_id) if draft.automation_id else None
        overlaps = await overlap_service.find(session, access.space_id, draft.definition, exclude=exclude)
        out.overlaps = [OverlapOut.model_validate(overlap.as_dict()) for overlap in overlaps]
    return out


@router.get("/drafts/examples", summary="Requests and the definitions they lead to, to start from")
async def draft_examples(_: CallerDep) -> list[DraftExampleOut]:
    return [DraftExampleOut(**item) for item in authoring_examples()]


@router.post(DRAFTS, status_code=status.HTTP_201_CREATED, summary="Draft an automation from a plain request")
async def create_draft(
    body: DraftCreate, session: SessionDep, access: SpaceDep, drafts: DraftServiceDep, response: Response
) -> DraftOut:
    draft = await drafts.create(session, access, body.request)
    response.headers["Location"] = f"/api/v1/spaces/{access.space_id}/drafts/{draft.id}"
    return await _with_overlaps(session, access, draft)


@router.post(
    "/spaces/{space_id}/automations/{automation_id}/drafts",
    status_code=status.HTTP_201_CREATED,
    summary="Draft a change to an automation from a plain request (a reviewed diff)",
)
async def create_patch_draft(
    automation_id: uuid.UUID,
    body: DraftCreate,
    session: SessionDep,
    access: SpaceDep,
    drafts: DraftServiceDep,
) -> DraftOut:
    return await _with_overlaps(
        session, access, await drafts.create_patch(session, access, automation_id, body.request)
    )


@router.get(DRAFTS, summary="The space's drafts, newest first")
async def list_drafts(access: SpaceDep, drafts: DraftServiceDep) -> DraftListOut:
    return DraftListOut(items=[_out(draft) for draft in await drafts.listing(access)])


@router.get(DRAFTS + "/{draft_id}", summary="Get a draft")
async def get_draft(
    draft_id: str, session: SessionDep, access: SpaceDep, drafts: DraftServiceDep
) -> DraftOut:
    return await _with_overlaps(session, access, await drafts.get(access, draft_id))


@router.delete(DRAFTS + "/{draft_id}", status_code=status.HTTP_204_NO_CONTENT, summary="Discard a draft")
async def delete_draft(draft_id: str, access: SpaceDep, drafts: DraftServiceDep) -> None:
    await drafts.delete(access, draft_id)


@router.put(DRAFTS + "/{draft_id}", summary="Replace the proposal by hand; checks and flags run again")
async def edit_draft(
    draft_id: str,
    body: DraftEdit,
    session: SessionDep,
    access: SpaceDep,
    drafts: DraftServiceDep,
    review: Annotated[bool, Query(description="Also ask the review model for a new summary.")] = False,
) -> DraftOut:
    draft = await drafts.edit(session, access, draft_id, body.definition, with_review=review)
    return await _with_overlaps(session, access, draft)


@router.put(
    DRAFTS + "/{draft_id}/write-policy",
    summary="Switch the proposal's write policy; later proposals of the draft keep the choice",
)
async def set_draft_write_policy(
    draft_id: str, body: DraftWritePolicy, session: SessionDep, access: SpaceDep, drafts: DraftServiceDep
) -> DraftOut:
    draft = await drafts.choose_write_policy(session, access, draft_id, body.write_policy)
    return await _with_overlaps(session, access, draft)


@router.post(
    DRAFTS + "/{draft_id}/messages", summary="Refine the draft in plain words, or answer its questions"
)
async def message_draft(
    draft_id: str, body: DraftMessage, session: SessionDep, access: SpaceDep, drafts: DraftServiceDep
) -> DraftOut:
    draft = await drafts.message(session, access, draft_id, body.message, body.answers)
    return await _with_overlaps(session, access, draft)


@router.post(
    DRAFTS + "/{draft_id}/save", summary="Save a ready draft: a new paused automation, or the change"
)
async def save_draft(
    draft_id: str, session: SessionDep, access: SpaceDep, drafts: DraftServiceDep, response: Response
) -> AutomationSavedOut:
    saved = await drafts.save(session, access, draft_id)
    if saved.automation.version == 1:
        response.status_code = status.HTTP_201_CREATED
        response.headers["Location"] = f"/api/v1/spaces/{access.space_id}/automations/{saved.automation.id}"
    return await saved_out(session, response, saved)
