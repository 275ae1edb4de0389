"""Slack approvals: the space's setting (channel and secret names) and Slack's interactivity endpoint."""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, Header, Request, Response, status

from app.api.body import JsonBodyRoute
from app.api.deps import KeyringDep, RuntimeDep, SessionDep, SpaceDep
from app.api.governance_schemas import SlackApprovalsBody, SlackApprovalsOut
from app.errors import PayloadTooLarge
from app.services.governance.modes import governance_service
from app.services.governance.slack_interactions import SignedRequest, slack_interactions
from app.services.governance.slack_settings import SlackApprovalSettings, slack_settings_service
from app.services.resources.vault import SecretVault

if TYPE_CHECKING:
    from app.integrations.slack import SlackApi
    from app.security.egress import EgressAllowList

router = APIRouter(tags=["slack"], route_class=JsonBodyRoute)
# Slack posts its interactions form-encoded (`payload=<json>`), so this router takes raw bodies.
interactions_router = APIRouter(tags=["slack"])
MAX_INTERACTION_BYTES = 64 * 1024


def _slack_api(url: str, allow: EgressAllowList) -> SlackApi:
    # Loaded on the first interaction: the HTTP client stays out of API processes that never see one.
    from app.integrations.slack import SlackApi

    return SlackApi(url, allow)


def _interactivity_url(space_id: uuid.UUID) -> str:
    return f"/api/v1/integrations/slack/interactions/{space_id}"


def _out(space_id: uuid.UUID, settings: SlackApprovalSettings | None) -> SlackApprovalsOut:
    if settings is None:
        return SlackApprovalsOut(enabled=False, interactivity_url=_interactivity_url(space_id))
    return SlackApprovalsOut(
        enabled=True,
        channel=settings.channel,
        bot_token_secret=settings.bot_token_secret,
        signing_secret_secret=settings.signing_secret_secret,
        interactivity_url=_interactivity_url(space_id),
    )


@router.get("/spaces/{space_id}/slack-approvals", summary="Where pending approvals are posted in Slack")
async def get_slack_approvals(session: SessionDep, access: SpaceDep) -> SlackApprovalsOut:
    space = await governance_service.space(session, access)
    return _out(access.space_id, SlackApprovalSettings.of(space))


@router.put("/spaces/{space_id}/slack-approvals", summary="Post pending approvals to a Slack channel (admin)")
async def put_slack_approvals(
    body: SlackApprovalsBody, session: SessionDep, access: SpaceDep
) -> SlackApprovalsOut:
    settings = SlackApprovalSettings(body.channel, body.bot_token_secret, body.signing_secret_secret)
    space = await slack_settings_service.set(session, access, settings)
    return _out(space.id, SlackApprovalSettings.of(space))


@router.delete(
    "/spaces/{space_id}/slack-approvals",
    summary="Stop posting approvals to Slack (admin)",
    status_code=status.HTTP_204_NO_CONTENT,
)
async def delete_slack_approvals(session: SessionDep, access: SpaceDep) -> Response:
    await slack_settings_service.set(session, access, None)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@interactions_router.post(
    "/integrations/slack/interactions/{space_id}",
    summary="Slack's interactivity Request URL: Approve and Deny buttons (signed by Slack)",
)
async def slack_interaction(
    space_id: uuid.UUID,
    request: Request,
    session: SessionDep,
    runtime: RuntimeDep,
    keyring: KeyringDep,
    timestamp: Annotated[str | None, Header(alias="X-Slack-Request-Timestamp")] = None,
    signature: Annotated[str | None, Header(alias="X-Slack-Signature")] = None,
) -> dict[str, str]:
    body = await request.body()
    if len(body) > MAX_INTERACTION_BYTES:
        raise PayloadTooLarge("A Slack interaction is at most 64 KB.", code="payload_too_large")
    approval = await slack_interactions.handle(
        session,
        space_id,
        SignedRequest(timestamp, signature, body),
        time.time(),
        _slack_api(runtime.settings.slack_api_url, runtime.egress_allow),
        SecretVault(keyring),
    )
    return {"approval_id": str(approval.id), "status": approval.status}
