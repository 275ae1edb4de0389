"""Slack's Approve and Deny buttons: a signed interaction becomes a member's decision.

Slack signs each request with the app's signing secret: `v0=` + HMAC-SHA256 of `v0:{timestamp}:{body}`
(`X-Slack-Signature`, `X-Slack-Request-Timestamp`). A request older or newer than five minutes is
refused, so a captured request cannot be replayed later; a replay inside the window meets a call that is
already decided (409) and changes nothing. The Slack user is mapped to a member by the email of their
Slack profile (`users.info`), and the decision goes through the approvals service like the API's, with
the same role and self-approval checks.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

from app.definitions.signals import StepError
from app.errors import BadRequest, Forbidden, NotFound, ServiceUnavailable, Unauthorized
from app.persistence.models import ActionInvocation, Space
from app.persistence.repositories.tenancy import MembershipRepository, UserRepository
from app.persistence.types import AsyncSession
from app.services.governance.approvals import approval_service
from app.services.governance.notices import APPROVE, DENY
from app.services.governance.slack_settings import SlackApprovalSettings
from app.services.identity.access import Caller, SpaceAccess
from app.services.resources.vault import SecretMissing, SecretVault

if TYPE_CHECKING:  # the API imports this module; the HTTP client is handed in by the route
    from app.integrations.slack import SlackApi

MAX_SKEW_SECONDS = 5 * 60
SLACK_TIMEOUT_SECONDS = 5.0
# A decision through Slack presents no API token.
NO_TOKEN = uuid.UUID(int=0)


@dataclass(frozen=True)
class SignedRequest:
    timestamp: str | None
    signature: str | None
    body: bytes


def signature_for(secret: str, timestamp: str, body: bytes) -> str:
    """Slack's request signature (version v0) of `body` sent at `timestamp`."""
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def verify(secret: str, request: SignedRequest, now: float) -> None:
    """401 unless the request is signed with `secret` and sent within five minutes of `now`."""
    if not request.timestamp or not request.signature:
        raise Unauthorized("The request carries no Slack signature.", code="slack_signature_missing")
    try:
        sent = int(request.timestamp)
    except ValueError:
        raise Unauthorized("The Slack timestamp is not a number.", code="slack_signature_invalid") from None
    if abs(now - sent) > MAX_SKEW_SECONDS:
        raise Unauthorized(
            "The Slack request is too old or from the future (replays are refused).",
            code="slack_request_stale",
        )
    expected = signature_for(secret, request.timestamp, request.body)
    if not hmac.compare_digest(expected.encode(), request.signature.encode()):
        raise Unauthorized("The Slack signature does not match.", code="slack_signature_invalid")


def _action(body: bytes) -> tuple[str, uuid.UUID, str]:
    """(decision, approval id, Slack user id) of a `block_actions` payload; 400 for anything else."""
    try:
        payload = json.loads(parse_qs(body.decode("utf-8"), strict_parsing=True)["payload"][0])
        action = payload["actions"][0]
        decision, _, approval = str(action["value"]).partition(":")
        user = str(payload["user"]["id"])
        if payload.get("type") != "block_actions" or decision not in (APPROVE, DENY):
            raise ValueError("not an approval button")
        return decision, uuid.UUID(approval), user
    except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError):
        raise BadRequest(
            "This is not an approval button's interaction.", code="slack_payload_invalid"
        ) from None


class SlackInteractions:
    async def handle(
        self,
        session: AsyncSession,
        space_id: uuid.UUID,
        request: SignedRequest,
        now: float,
        slack: SlackApi,
        vault: SecretVault,
    ) -> ActionInvocation:
        """Verify, map the Slack user to a member, and record their decision (the caller commits)."""
        space = await session.get(Space, space_id)
        settings = SlackApprovalSettings.of(space) if space is not None else None
        if settings is None:
            raise NotFound("No Slack approvals here.", code="slack_not_configured")
        # Nothing but the signing secret is read before the request is known to come from Slack, and a
        # caller who is not Slack learns no secret's name.
        signing = await self._secret(session, vault, space_id, settings.signing_secret_secret)
        verify(signing, request, now)
        decision, approval_id, slack_user = _action(request.body)
        token = await self._secret(session, vault, space_id, settings.bot_token_secret)
        access = await self._member(session, space_id, slack_user, token, slack)
        if decision == APPROVE:
            return await approval_service.approve(session, access, approval_id, "once", via="slack")
        return await approval_service.deny(session, access, approval_id, None, via="slack")

    async def _secret(self, session: AsyncSession, vault: SecretVault, space_id: uuid.UUID, name: str) -> str:
        try:
            return (await vault.resolve(session, space_id, [name]))[name]
        except SecretMissing:
            raise NotFound("No Slack approvals here.", code="slack_not_configured") from None

    async def _member(
        self, session: AsyncSession, space_id: uuid.UUID, slack_user: str, token: str, slack: SlackApi
    ) -> SpaceAccess:
        try:
            email = await slack.user_email(token, slack_user, timeout_seconds=SLACK_TIMEOUT_SECONDS)
        except StepError as exc:
            if exc.code == "user_not_found":
                raise Forbidden("Slack knows no such user.", code="slack_user_not_member") from None
            raise ServiceUnavailable(
                f"Slack could not tell who clicked ({exc.code}).", code="slack_user_unknown"
            ) from None
        user = await UserRepository(session).get_by_email(email.lower()) if email else None
        membership = await MembershipRepository(session).get(space_id, user.id) if user is not None else None
        if user is None or membership is None:
            raise Forbidden(
                "Your Slack account's email belongs to no member of this space.", code="slack_user_not_member"
            )
        return SpaceAccess(Caller(user.id, user.email, NO_TOKEN), space_id, membership.role)


slack_interactions = SlackInteractions()

__all__ = ["SignedRequest", "signature_for", "slack_interactions", "verify"]
