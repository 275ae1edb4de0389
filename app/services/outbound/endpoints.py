"""Webhook endpoints of a space: create (secret shown once), list, read, change, delete, rotate, test."""

from __future__ import annotations

import asyncio
import ipaddress
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from app.config import Settings
from app.errors import Conflict, ErrorDetail, NotFound, ValidationFailed
from app.integrations.webhook_sender import check_secret, new_secret
from app.persistence.base import utcnow
from app.persistence.models import CallbackSecret, WebhookEndpoint
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.outbound import WebhookEndpointRepository
from app.persistence.types import AsyncSession
from app.security.crypto import Context, Keyring
from app.security.egress import EgressAllowList, EgressDenied, check_url
from app.services.identity.access import Permissions, SpaceAccess

ENDPOINT_SECRET_PURPOSE = "webhook_endpoint_secret"  # noqa: S105 (an encryption purpose label)
MAX_ENDPOINTS_PER_SPACE = 20
MAX_EVENTS = 20
MAX_AUTOMATION_FILTER = 100
PREVIOUS_SECRET_GRACE = timedelta(hours=24)
RUN_EVENTS = (
    "automation.run.succeeded",
    "automation.run.failed",
    "automation.run.timed_out",
    "automation.run.cancelled",
    "automation.run.dropped",
)
EVENT_TYPES = frozenset({*RUN_EVENTS, "automation.run.*", "approval.requested", "approval.decided"})
TEST_EVENT = "webhook.test"


OPERATOR_ENDPOINT_ID = uuid.UUID("6f0c52a4-3d1e-4b8e-9a57-0e4f5b1c2d3a")
OPERATOR_EVENTS = ["automation.run.*"]


def secret_context(endpoint_id: uuid.UUID, space_id: uuid.UUID | None, which: str) -> Context:
    """What an endpoint's signing secret is sealed for: its endpoint, space, and current or previous."""
    owner = str(space_id) if space_id is not None else "operator"
    return Context.of(ENDPOINT_SECRET_PURPOSE, owner, str(endpoint_id), which)


def signing_secrets(endpoint: WebhookEndpoint, keyring: Keyring, now: datetime) -> list[str]:
    """The secrets that sign a delivery now: the current one, and the previous one within its grace."""
    found = [
        keyring.decrypt(
            endpoint.secret_ciphertext, secret_context(endpoint.id, endpoint.space_id, "current")
        ).decode()
    ]
    expires = endpoint.previous_secret_expires_at
    if endpoint.previous_secret_ciphertext is not None and expires is not None and expires > now:
        context = secret_context(endpoint.id, endpoint.space_id, "previous")
        found.append(keyring.decrypt(endpoint.previous_secret_ciphertext, context).decode())
    return found


def callback_context(space_id: uuid.UUID, which: str) -> Context:
    """What a space's callback secret is sealed for."""
    return Context.of(ENDPOINT_SECRET_PURPOSE, str(space_id), "callback", which)


def callback_signing_secrets(secret: CallbackSecret, keyring: Keyring, now: datetime) -> list[str]:
    """The secrets that sign a callback now: the current one, and the previous one within its grace."""
    found = [keyring.decrypt(secret.secret_ciphertext, callback_context(secret.space_id, "current")).decode()]
    expires = secret.previous_secret_expires_at
    if secret.previous_secret_ciphertext is not None and expires is not None and expires > now:
        context = callback_context(secret.space_id, "previous")
        found.append(keyring.decrypt(secret.previous_secret_ciphertext, context).decode())
    return found


@dataclass(frozen=True)
class UrlPolicy:
    """What endpoint URLs the deployment accepts: the egress allow list, and whether plain http is fine."""

    allow: EgressAllowList
    development: bool

    @classmethod
    def from_settings(cls, settings: Settings) -> UrlPolicy:
        """The policy of AUTOMATIONS_EGRESS_ALLOW and AUTOMATIONS_ENVIRONMENT."""
        return cls(EgressAllowList.parse(settings.egress_allow), settings.environment == "development")


async def check_endpoint_url(url: str, policy: UrlPolicy, pointer: str = "/url") -> None:
    """Refuse (422, with the reason) a URL the egress guard refuses, one with credentials, or plain http.

    Plain http is accepted in development and for hosts the operator opened in the allow list.
    """

    def refuse(message: str) -> ValidationFailed:
        return ValidationFailed(
            "The webhook URL cannot be used.",
            code="invalid_webhook_url",
            details=[ErrorDetail(path=pointer, message=message)],
        )

    try:
        parts = urlsplit(url)
    except ValueError:
        raise refuse("is not a URL") from None
    if "@" in parts.netloc:
        raise refuse("must not carry credentials (user:password@); the signature authenticates deliveries")
    if parts.scheme == "http" and not policy.development and not _opened(parts.hostname, policy.allow):
        raise refuse("must use https (plain http only for hosts in AUTOMATIONS_EGRESS_ALLOW)")
    try:
        await asyncio.to_thread(check_url, url, allow=policy.allow)
    except EgressDenied as exc:
        raise refuse(f"refused by the egress guard: {exc.reason}") from None


def _opened(host: str | None, allow: EgressAllowList) -> bool:
    if host is None:
        return False
    if allow.allows_host(host.lower()):
        return True
    try:
        return allow.allows_address(ipaddress.ip_address(host))
    except ValueError:
        return False


def _check_events(events: Sequence[str]) -> list[str]:
    if not events:
        raise ValidationFailed(
            "An endpoint listens to at least one event type.",
            code="invalid_webhook_events",
            details=[ErrorDetail(path="/events", message="must not be empty")],
        )
    problems = [
        ErrorDetail(path=f"/events/{index}", message=f"unknown event type; one of {sorted(EVENT_TYPES)}")
        for index, event in enumerate(events)
        if event not in EVENT_TYPES
    ]
    if problems:
        raise ValidationFailed("Unknown event types.", code="invalid_webhook_events", details=problems)
    return sorted(set(events))


@dataclass(frozen=True)
class EndpointWithSecret:
    """An endpoint just created or rotated, with the secret in clear: shown this once."""

    endpoint: WebhookEndpoint
    secret: str


class WebhookEndpointService:
    async def create(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        keyring: Keyring,
        policy: UrlPolicy,
        *,
        url: str,
        events: Sequence[str],
        automation_ids: Sequence[uuid.UUID] | None,
        description: str | None,
    ) -> EndpointWithSecret:
        """Create an endpoint (admin); the answer carries the signing secret, which is never shown again."""
        access.require(Permissions.manage_space)
        await check_endpoint_url(url, policy)
        checked_events = _check_events(events)
        repository = WebhookEndpointRepository(session)
        if await repository.count_in_space(access.space_id) >= MAX_ENDPOINTS_PER_SPACE:
            raise Conflict(
                f"A space has at most {MAX_ENDPOINTS_PER_SPACE} webhook endpoints.",
                code="too_many_webhook_endpoints",
            )
        endpoint_id = uuid.uuid4()
        secret = new_secret()
        endpoint = WebhookEndpoint(
            id=endpoint_id,
            space_id=access.space_id,
            url=url,
            description=description,
            events=checked_events,
            automation_ids=[str(a) for a in automation_ids] if automation_ids else None,
            enabled=True,
            consecutive_failures=0,
            secret_ciphertext=keyring.encrypt(
                secret.encode(), secret_context(endpoint_id, access.space_id, "current")
            ),
            created_by=access.user_id,
        )
        await repository.create(endpoint)
        return EndpointWithSecret(endpoint, secret)

    async def list(
        self, session: AsyncSession, access: SpaceAccess, *, limit: int, cursor: str | None
    ) -> Page[WebhookEndpoint]:
        """The space's endpoints, newest first."""
        access.require(Permissions.read)
        return await paginate(
            session,
            WebhookEndpointRepository(session).space_statement(access.space_id),
            order_by=[WebhookEndpoint.created_at, WebhookEndpoint.id],
            limit=limit,
            cursor=cursor,
        )

    async def get(
        self, session: AsyncSession, access: SpaceAccess, endpoint_id: uuid.UUID, *, for_update: bool = False
    ) -> WebhookEndpoint:
        """One endpoint of the space (404 for another space's)."""
        access.require(Permissions.read)
        endpoint = await WebhookEndpointRepository(session).get_in_space(
            access.space_id, endpoint_id, for_update=for_update
        )
        if endpoint is None:
            raise NotFound("Webhook endpoint not found.", code="webhook_endpoint_not_found")
        return endpoint

    async def update(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        policy: UrlPolicy,
        endpoint_id: uuid.UUID,
        *,
        changes: dict[str, object],
    ) -> WebhookEndpoint:
        """Change url, events, automation filter, description or enabled (admin).

        Enabling an endpoint clears why it was disabled and its failure streak.
        """
        access.require(Permissions.manage_space)
        endpoint = await self.get(session, access, endpoint_id, for_update=True)
        values: dict[str, object] = {}
        if "url" in changes:
            url = str(changes["url"])
            await check_endpoint_url(url, policy)
            values["url"] = url
        if "events" in changes:
            values["events"] = _check_events(list(changes["events"]))  # type: ignore[call-overload]
        if "automation_ids" in changes:
            ids = changes["automation_ids"]
            values["automation_ids"] = [str(a) for a in ids] if ids else None  # type: ignore[attr-defined]
        if "description" in changes:
            values["description"] = changes["description"]
        if "enabled" in changes:
            values["enabled"] = bool(changes["enabled"])
            if values["enabled"]:
                values.update(disabled_reason=None, consecutive_failures=0, failing_since=None)
        return await WebhookEndpointRepository(session).update(endpoint, values)

    async def delete(self, session: AsyncSession, access: SpaceAccess, endpoint_id: uuid.UUID) -> None:
        """Delete an endpoint and its deliveries log (admin)."""
        access.require(Permissions.manage_space)
        endpoint = await self.get(session, access, endpoint_id, for_update=True)
        await WebhookEndpointRepository(session).delete(endpoint)

    async def rotate_secret(
        self, session: AsyncSession, access: SpaceAccess, keyring: Keyring, endpoint_id: uuid.UUID
    ) -> EndpointWithSecret:
        """A new signing secret (shown once); the old one keeps signing alongside it for 24 hours."""
        access.require(Permissions.manage_space)
        endpoint = await self.get(session, access, endpoint_id, for_update=True)
        old = keyring.decrypt(
            endpoint.secret_ciphertext, secret_context(endpoint.id, endpoint.space_id, "current")
        )
        secret = new_secret()
        await WebhookEndpointRepository(session).update(
            endpoint,
            {
                "secret_ciphertext": keyring.encrypt(
                    secret.encode(), secret_context(endpoint.id, endpoint.space_id, "current")
                ),
                "previous_secret_ciphertext": keyring.encrypt(
                    old, secret_context(endpoint.id, endpoint.space_id, "previous")
                ),
                "previous_secret_expires_at": utcnow() + PREVIOUS_SECRET_GRACE,
            },
        )
        return EndpointWithSecret(endpoint, secret)

    async def rotate_callback_secret(
        self, session: AsyncSession, access: SpaceAccess, keyring: Keyring
    ) -> tuple[CallbackSecret, str]:
        """Create the space's callback secret, or replace it (the old one signs too for 24 hours) (admin).

        The secret in clear is in the answer only.
        """
        access.require(Permissions.manage_space)
        secret = new_secret()
        sealed = keyring.encrypt(secret.encode(), callback_context(access.space_id, "current"))
        row = await session.get(CallbackSecret, access.space_id, with_for_update=True)
        if row is None:
            row = CallbackSecret(space_id=access.space_id, secret_ciphertext=sealed)
            session.add(row)
        else:
            old = keyring.decrypt(row.secret_ciphertext, callback_context(access.space_id, "current"))
            row.previous_secret_ciphertext = keyring.encrypt(
                old, callback_context(access.space_id, "previous")
            )
            row.previous_secret_expires_at = utcnow() + PREVIOUS_SECRET_GRACE
            row.secret_ciphertext = sealed
        await session.flush()
        return row, secret

    async def check_callback(
        self,
        session: AsyncSession,
        space_id: uuid.UUID,
        url: str,
        policy: UrlPolicy,
        pointer: str = "/callback_url",
    ) -> None:
        """Refuse (422) a callback URL the egress guard refuses, or any while the space has no secret."""
        await check_endpoint_url(url, policy, pointer=pointer)
        if await session.get(CallbackSecret, space_id) is None:
            raise ValidationFailed(
                "This space has no callback secret to sign callbacks with.",
                code="callback_secret_missing",
                details=[
                    ErrorDetail(
                        path=pointer,
                        message="create one first: POST …/webhook-endpoints/callback-secret",
                    )
                ],
            )


async def sync_operator_endpoint(
    session: AsyncSession, keyring: Keyring, url: str | None, secret: str | None
) -> WebhookEndpoint | None:
    """Make the operator-wide endpoint match AUTOMATIONS_WEBHOOK_URL and _SECRET.

    It is a row like any endpoint, with no space, so run events of every space reach it through the
    same outbox and delivery machinery. Unset settings remove it; a changed URL enables it again.
    """
    repository = WebhookEndpointRepository(session)
    endpoint = await session.get(WebhookEndpoint, OPERATOR_ENDPOINT_ID, with_for_update=True)
    if not url or not secret:
        if endpoint is not None:
            await repository.delete(endpoint)
        return None
    check_secret(secret)
    sealed = keyring.encrypt(secret.encode(), secret_context(OPERATOR_ENDPOINT_ID, None, "current"))
    if endpoint is None:
        endpoint = WebhookEndpoint(
            id=OPERATOR_ENDPOINT_ID,
            space_id=None,
            url=url,
            description="Operator-wide endpoint (AUTOMATIONS_WEBHOOK_URL)",
            events=OPERATOR_EVENTS,
            enabled=True,
            consecutive_failures=0,
            secret_ciphertext=sealed,
        )
        return await repository.create(endpoint)
    values: dict[str, object] = {"secret_ciphertext": sealed, "events": OPERATOR_EVENTS}
    if endpoint.url != url:
        values.update(url=url, enabled=True, disabled_reason=None, consecutive_failures=0, failing_since=None)
    return await repository.update(endpoint, values)


webhook_endpoint_service = WebhookEndpointService()
