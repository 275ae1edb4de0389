"""Automations of a space: CRUD, status changes and version history."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import APIRouter, Query, Response, status

from app.api.body import JsonBodyRoute
from app.api.deps import (
    CodeSpaceDep,
    CodeVocabularyDep,
    IfMatchDep,
    PageDep,
    SessionDep,
    SpaceDep,
    VersionPath,
    VocabularyDep,
    expected_version,
)
from app.api.overlap_schemas import OverlapCheckOut
from app.api.schemas import (
    Activation,
    AutomationCreate,
    AutomationOut,
    AutomationSavedOut,
    AutomationUpdate,
    AutomationVersionOut,
    DefinitionCheck,
    OverlapOut,
    PageOut,
    ProblemOut,
    ValidationOut,
    VersionPrecondition,
)
from app.persistence.models import Automation, AutomationStatus
from app.services.automations.overlap import overlap_service
from app.services.automations.overlap_query import TargetQuery
from app.services.automations.store import Saved, StatusAction, automation_service
from app.services.identity.token_scopes import require_full_access

router = APIRouter(prefix="/spaces/{space_id}/automations", tags=["automations"], route_class=JsonBodyRoute)


def _out(response: Response, automation: Automation) -> AutomationOut:
    response.headers["ETag"] = f'"{automation.version}"'
    return AutomationOut.model_validate(automation)


async def saved_out(session: SessionDep, response: Response, saved: Saved) -> AutomationSavedOut:
    response.headers["ETag"] = f'"{saved.automation.version}"'
    out = AutomationSavedOut.model_validate(saved.automation)
    out.warnings = [ProblemOut(**problem.as_dict()) for problem in saved.warnings]
    overlaps = await overlap_service.find(
        session, saved.automation.space_id, saved.automation.definition, exclude=saved.automation.id
    )
    out.overlaps = [OverlapOut.model_validate(overlap.as_dict()) for overlap in overlaps]
    tokens = {new.trigger_id: new.token for new in saved.tokens}
    for trigger in out.triggers:
        trigger.token = tokens.get(trigger.id)
    return out


@router.post("", status_code=status.HTTP_201_CREATED, summary="Create an automation (saved paused)")
async def create_automation(
    body: AutomationCreate,
    session: SessionDep,
    access: CodeSpaceDep,
    response: Response,
    load_vocabulary: CodeVocabularyDep,
) -> AutomationSavedOut:
    saved = await automation_service.create(session, access, body.definition, await load_vocabulary())
    response.headers["Location"] = f"/api/v1/spaces/{access.space_id}/automations/{saved.automation.id}"
    return await saved_out(session, response, saved)


@router.post("/validate", summary="Validate a definition without saving it")
async def validate_automation(
    body: DefinitionCheck, access: CodeSpaceDep, load_vocabulary: CodeVocabularyDep
) -> ValidationOut:
    problems = await automation_service.validate(access, body.definition, await load_vocabulary())
    found = [ProblemOut(**problem.as_dict()) for problem in problems]
    blocking = [p for p in found if p.severity == "error"]
    return ValidationOut(
        valid=not blocking, errors=blocking, warnings=[p for p in found if p.severity == "warning"]
    )


@router.get("", summary="List automations, newest first")
async def list_automations(
    session: SessionDep,
    access: CodeSpaceDep,
    page: PageDep,
    status_filter: Annotated[
        list[AutomationStatus] | None,
        Query(alias="status", description="Repeat to combine. Default: active and paused."),
    ] = None,
) -> PageOut[AutomationOut]:
    result = await automation_service.list(
        session, access, statuses=status_filter, limit=page.limit, cursor=page.cursor
    )
    return PageOut(
        items=[AutomationOut.model_validate(a) for a in result.items], next_cursor=result.next_cursor
    )


_TARGETS = "Repeat for several. "


@router.get("/overlaps", summary="Which automations would write where an automation or a candidate does")
async def check_overlaps(
    session: SessionDep,
    access: SpaceDep,
    automation_id: Annotated[
        uuid.UUID | None, Query(description="Check a saved automation (left out of its own answer).")
    ] = None,
    http: Annotated[
        list[str] | None,
        Query(description=_TARGETS + "'METHOD URL' of an HTTP write; the URL's query is ignored."),
    ] = None,
    slack_channel: Annotated[list[str] | None, Query(description=_TARGETS + "A Slack channel.")] = None,
    email_to: Annotated[list[str] | None, Query(description=_TARGETS + "A mail recipient.")] = None,
    tool: Annotated[
        list[str] | None,
        Query(
            description=_TARGETS + "A tool's capability id, optionally followed by a space and a JSON "
            'object of its literal key arguments: crm.create_note {"customer": "42"}.'
        ),
    ] = None,
    trigger_kind: Annotated[
        str | None, Query(description="Only automations with an enabled trigger of this kind.")
    ] = None,
) -> OverlapCheckOut:
    targets = TargetQuery(
        http=http or (), slack_channel=slack_channel or (), email_to=email_to or (), tool=tool or ()
    )
    report = await overlap_service.check(
        session, access, automation_id=automation_id, targets=targets, trigger_kind=trigger_kind
    )
    return OverlapCheckOut.of(report)


@router.get("/{automation_id:uuid}", summary="Get an automation")
async def get_automation(
    automation_id: uuid.UUID, session: SessionDep, access: CodeSpaceDep, response: Response
) -> AutomationOut:
    return _out(response, await automation_service.get(session, access, automation_id))


@router.put("/{automation_id:uuid}", summary="Replace the definition (needs the expected version)")
async def update_automation(
    automation_id: uuid.UUID,
    body: AutomationUpdate,
    session: SessionDep,
    access: CodeSpaceDep,
    response: Response,
    load_vocabulary: CodeVocabularyDep,
    if_match: IfMatchDep = None,
) -> AutomationSavedOut:
    expected = expected_version(if_match, body.version, required=True)
    saved = await automation_service.update(
        session,
        access,
        automation_id,
        body.definition,
        expected_version=expected,
        vocabulary=await load_vocabulary(),
    )
    return await saved_out(session, response, saved)


AS_CODE_STATUS_ACTIONS = ("pause",)
_STATUS_ACTIONS = {
    "activate": "Activate: its triggers fire (strict overlaps with active automations need acknowledging)",
    "pause": "Pause: its triggers stop firing",
    "archive": "Archive: hidden from use, kept with its runs",
    "unarchive": "Unarchive: back to paused",
}


def _activate_route() -> None:
    """Activation: the one status change that may acknowledge a strict overlap."""

    async def activate_automation(
        automation_id: uuid.UUID,
        session: SessionDep,
        access: CodeSpaceDep,
        response: Response,
        body: Activation | None = None,
        if_match: IfMatchDep = None,
    ) -> AutomationOut:
        expected = expected_version(if_match, body.version if body else None, required=False)
        await overlap_service.check_activation(
            session,
            await automation_service.get(session, access, automation_id),
            acknowledged=body.acknowledged_overlap if body else False,
            note=body.coexistence_note if body else None,
        )
        automation = await automation_service.change_status(
            session, access, automation_id, StatusAction.activate, expected_version=expected
        )
        return _out(response, automation)

    _add_status_route("activate", activate_automation)


def _status_route(action: str) -> None:
    """A status change without acknowledgement: its body names at most the expected version. An
    `as_code` token may pause (a file says paused), never archive or unarchive."""

    async def change_status(
        automation_id: uuid.UUID,
        session: SessionDep,
        access: CodeSpaceDep,
        response: Response,
        body: VersionPrecondition | None = None,
        if_match: IfMatchDep = None,
    ) -> AutomationOut:
        if action not in AS_CODE_STATUS_ACTIONS:
            require_full_access(access.caller.scopes)
        expected = expected_version(if_match, body.version if body else None, required=False)
        automation = await automation_service.change_status(
            session, access, automation_id, StatusAction[action], expected_version=expected
        )
        return _out(response, automation)

    _add_status_route(action, change_status)


def _add_status_route(action: str, endpoint: Callable[..., Awaitable[AutomationOut]]) -> None:
    """One route per status change, so other paths under an automation are never taken for one."""
    router.add_api_route(
        f"/{{automation_id:uuid}}/{action}",
        endpoint,
        methods=["POST"],
        summary=_STATUS_ACTIONS[action],
        name=f"{action}_automation",
    )


_activate_route()
for _action in ("pause", "archive", "unarchive"):
    _status_route(_action)


@router.get("/{automation_id:uuid}/versions", summary="List versions, newest first")
async def list_versions(
    automation_id: uuid.UUID, session: SessionDep, access: SpaceDep, page: PageDep
) -> PageOut[AutomationVersionOut]:
    result = await automation_service.list_versions(
        session, access, automation_id, limit=page.limit, cursor=page.cursor
    )
    return PageOut(
        items=[AutomationVersionOut.model_validate(v) for v in result.items], next_cursor=result.next_cursor
    )


@router.get("/{automation_id:uuid}/versions/{version}", summary="Get one version")
async def get_version(
    automation_id: uuid.UUID, version: VersionPath, session: SessionDep, access: SpaceDep
) -> AutomationVersionOut:
    return AutomationVersionOut.model_validate(
        await automation_service.get_version(session, access, automation_id, version)
    )


@router.post(
    "/{automation_id:uuid}/versions/{version}/restore",
    summary="Make version n current again, as a new version",
)
async def restore_version(
    automation_id: uuid.UUID,
    version: VersionPath,
    session: SessionDep,
    access: SpaceDep,
    response: Response,
    load_vocabulary: VocabularyDep,
    body: VersionPrecondition | None = None,
    if_match: IfMatchDep = None,
) -> AutomationSavedOut:
    expected = expected_version(if_match, body.version if body else None, required=False)
    saved = await automation_service.restore(
        session, access, automation_id, version, expected_version=expected, vocabulary=await load_vocabulary()
    )
    return await saved_out(session, response, saved)
