"""Sending owed webhook deliveries: one attempt at a time, retried from the rows, never silent.

An attempt is two short transactions around the request: the claim (count the attempt, hold the row
so no other sender takes it), then the record (the attempt row, and what follows: done, retry at a
time, or failed for good). A sender that dies between the two leaves a held row whose hold expires;
beat's sweep then sends it again.
"""

from __future__ import annotations

import logging
import random
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from app import jobs
from app.errors import Conflict, NotFound
from app.integrations import webhook_sender
from app.integrations.webhook_sender import SendResult
from app.persistence.base import utcnow
from app.persistence.models import CallbackSecret, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from app.persistence.pagination import Page, paginate
from app.persistence.repositories.outbound import (
    WebhookAttemptRepository,
    WebhookDeliveryRepository,
)
from app.persistence.transaction import UnitOfWork
from app.persistence.types import AsyncSession
from app.security.crypto import CryptoError, Keyring
from app.security.egress import EgressAllowList
from app.services.identity.access import Permissions, SpaceAccess
from app.services.outbound.endpoints import (
    TEST_EVENT,
    callback_signing_secrets,
    signing_secrets,
    webhook_endpoint_service,
)
from app.services.outbound.outbox import DELIVER_TASK, RETRY_SCHEDULE, SYSTEM_QUEUE, owe
from app.services.resources.notifications import notification_service

logger = logging.getLogger(__name__)
RETRYABLE_STATUSES = frozenset({408, 429})
MAX_RETRY_AFTER = timedelta(hours=1)
FAILING_FOR_TOO_LONG = timedelta(days=5)
# A held delivery whose sender died is due again this long after its request's time limit.
HOLD_MARGIN = timedelta(seconds=60)


@dataclass(frozen=True)
class DeliverySettings:
    """The operator's settings a sender honours."""

    keyring: Keyring
    allow: EgressAllowList
    timeout_seconds: float = 15.0
    # Multiplies the schedule's delays (and Retry-After): 1 in production, small in tests.
    retry_scale: float = 1.0
    disable_after_failures: int = 50


def retry_delay(attempts: int, scale: float, retry_after: float | None) -> timedelta:
    """How long to wait after `attempts` attempts: the schedule's step plus up to 10 % jitter.

    A receiver's Retry-After is honoured when it asks for longer, up to an hour.
    """
    seconds: float = RETRY_SCHEDULE[min(attempts, len(RETRY_SCHEDULE) - 1)]
    if retry_after is not None:
        seconds = max(seconds, min(retry_after, MAX_RETRY_AFTER.total_seconds()))
    return timedelta(seconds=seconds * scale * (1 + random.uniform(0, 0.1)))


def retryable(result: SendResult) -> bool:
    """Transport errors, timeouts, 5xx, 408 and 429 are worth another try; refusals and 4xx are not."""
    if result.refused:
        return False
    if result.status_code is None:
        return True
    return result.status_code >= 500 or result.status_code in RETRYABLE_STATUSES


@dataclass(frozen=True)
class _Claimed:
    delivery_id: uuid.UUID
    attempt: int
    url: str
    body: str
    secrets: list[str]


class DeliveryService:
    async def attempt(self, uow: UnitOfWork, delivery_id: uuid.UUID, settings: DeliverySettings) -> str:
        """Make one attempt at a due delivery; the answer says what became of it ("not_due" if nothing)."""
        claimed = await self._claim(uow, delivery_id, settings)
        if isinstance(claimed, str):
            return claimed
        result = await webhook_sender.send(
            claimed.url,
            message_id=str(claimed.delivery_id),
            timestamp=utcnow(),
            body=claimed.body,
            secrets=claimed.secrets,
            allow=settings.allow,
            timeout_seconds=settings.timeout_seconds,
        )
        async with uow() as session:
            return await self._record(session, claimed, result, settings)

    async def _claim(
        self, uow: UnitOfWork, delivery_id: uuid.UUID, settings: DeliverySettings
    ) -> _Claimed | str:
        async with uow() as session:
            now = utcnow()
            hold = now + timedelta(seconds=settings.timeout_seconds) + HOLD_MARGIN
            delivery = await WebhookDeliveryRepository(session).claim(delivery_id, now, hold)
            if delivery is None:
                return "not_due"
            target = await self._target(session, delivery, settings, now)
            if isinstance(target, str):
                await self._close(session, delivery, "failed", None, target, now)
                await self._log(session, delivery, None, target, 0, None)
                return "failed"
            url, secrets = target
            return _Claimed(
                delivery.id, delivery.attempts, url, webhook_sender.encode(delivery.payload), secrets
            )

    async def _target(
        self, session: AsyncSession, delivery: WebhookDelivery, settings: DeliverySettings, now: datetime
    ) -> tuple[str, list[str]] | str:
        """Where to send and the secrets that sign, or why the delivery cannot be sent."""
        try:
            if delivery.endpoint_id is None:
                secret = await session.get(CallbackSecret, delivery.space_id)
                if secret is None or delivery.callback_url is None:
                    return "the space has no callback secret"
                return delivery.callback_url, callback_signing_secrets(secret, settings.keyring, now)
            endpoint = await session.get(WebhookEndpoint, delivery.endpoint_id)
            if endpoint is None or not endpoint.enabled:
                return "the endpoint is disabled"
            return endpoint.url, signing_secrets(endpoint, settings.keyring, now)
        except CryptoError as exc:
            return f"the signing secret cannot be decrypted ({type(exc).__name__})"

    async def _record(
        self, session: AsyncSession, claimed: _Claimed, result: SendResult, settings: DeliverySettings
    ) -> str:
        now = utcnow()
        delivery = await session.get(WebhookDelivery, claimed.delivery_id, with_for_update=True)
        if delivery is None:  # the endpoint was deleted meanwhile, with its log
            return "gone"
        endpoint = (
            await session.get(WebhookEndpoint, delivery.endpoint_id, with_for_update=True)
            if delivery.endpoint_id is not None
            else None
        )
        succeeded = result.status_code is not None and 200 <= result.status_code < 300
        next_at = None
        if succeeded:
            outcome = "succeeded"
        elif retryable(result) and delivery.attempts < delivery.max_attempts:
            outcome = "pending"
            delay = retry_delay(delivery.attempts, settings.retry_scale, result.retry_after_seconds)
            next_at = now + delay
            jobs.enqueue(DELIVER_TASK, str(delivery.id), queue=SYSTEM_QUEUE, countdown=delay.total_seconds())
        else:
            outcome = "failed"
        await self._log(session, delivery, result.status_code, result.error, result.duration_ms, next_at)
        await self._close(session, delivery, outcome, result.status_code, result.error, next_at or now)
        if endpoint is not None:
            await self._endpoint_health(session, endpoint, outcome, result, settings, now)
        return outcome

    async def _close(
        self,
        session: AsyncSession,
        delivery: WebhookDelivery,
        outcome: str,
        status_code: int | None,
        error: str | None,
        at: datetime,
    ) -> None:
        delivery.status = outcome
        delivery.last_status_code = status_code
        delivery.last_error = error
        delivery.next_attempt_at = at if outcome == "pending" else None
        delivery.finished_at = None if outcome == "pending" else at
        await session.flush()

    async def _log(
        self,
        session: AsyncSession,
        delivery: WebhookDelivery,
        status_code: int | None,
        error: str | None,
        duration_ms: int,
        next_at: datetime | None,
    ) -> None:
        await WebhookAttemptRepository(session).create(
            WebhookAttempt(
                id=uuid.uuid4(),
                delivery_id=delivery.id,
                attempt=delivery.attempts,
                status_code=status_code,
                error=error,
                duration_ms=duration_ms,
                next_attempt_at=next_at,
                created_at=utcnow(),
            )
        )

    async def _endpoint_health(
        self,
        session: AsyncSession,
        endpoint: WebhookEndpoint,
        outcome: str,
        result: SendResult,
        settings: DeliverySettings,
        now: datetime,
    ) -> None:
        """A success resets the failure streak; 410, too many failures or 5 days failing disable it."""
        if outcome == "succeeded":
            endpoint.consecutive_failures, endpoint.failing_since = 0, None
            return
        if endpoint.failing_since is None:
            endpoint.failing_since = now
        reason = None
        if result.status_code == 410:
            reason = "the receiver answered 410 Gone"
        elif outcome == "failed":
            endpoint.consecutive_failures += 1
            if endpoint.consecutive_failures >= settings.disable_after_failures:
                reason = f"{endpoint.consecutive_failures} deliveries in a row failed"
            elif now - endpoint.failing_since >= FAILING_FOR_TOO_LONG:
                reason = "every attempt failed for 5 days"
        if reason is not None and endpoint.enabled:
            endpoint.enabled, endpoint.disabled_reason = False, reason
            if endpoint.space_id is None:
                # The operator-wide endpoint belongs to no space: its operator reads the logs.
                logger.warning("the operator-wide webhook endpoint was disabled: %s", reason)
                await session.flush()
                return
            await notification_service.create(
                session,
                space_id=endpoint.space_id,
                run_id=None,
                level="warning",
                title="A webhook endpoint was disabled",
                body=f"Endpoint {endpoint.id} was disabled: {reason}. "
                "Fix the receiver, then enable it again (PATCH enabled=true).",
            )
        await session.flush()

    async def sweep(self, session: AsyncSession, now: datetime, *, limit: int = 500) -> int:
        """Wake senders for due deliveries whose wake-up was lost or whose sender died; answer how many."""
        due = await WebhookDeliveryRepository(session).due_ids(now, limit)
        for delivery_id in due:
            jobs.enqueue(DELIVER_TASK, str(delivery_id), queue=SYSTEM_QUEUE)
        return len(due)

    async def list(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        *,
        endpoint_id: uuid.UUID | None,
        run_id: uuid.UUID | None,
        status: str | None,
        limit: int,
        cursor: str | None,
    ) -> tuple[Page[WebhookDelivery], dict[uuid.UUID, list[WebhookAttempt]]]:
        """Deliveries of the space (or one endpoint, or one run), newest first, with their attempts."""
        access.require(Permissions.read)
        if endpoint_id is not None:
            await webhook_endpoint_service.get(session, access, endpoint_id)
        statement = WebhookDeliveryRepository(session).listing_statement(
            access.space_id, endpoint_id=endpoint_id, run_id=run_id, status=status
        )
        page = await paginate(
            session,
            statement,
            order_by=[WebhookDelivery.created_at, WebhookDelivery.id],
            limit=limit,
            cursor=cursor,
        )
        attempts: dict[uuid.UUID, list[WebhookAttempt]] = {d.id: [] for d in page.items}
        for row in await WebhookAttemptRepository(session).for_deliveries([d.id for d in page.items]):
            attempts[row.delivery_id].append(row)
        return page, attempts

    async def redeliver(
        self, session: AsyncSession, access: SpaceAccess, delivery_id: uuid.UUID
    ) -> WebhookDelivery:
        """Send a finished delivery once more (same webhook-id, a new attempt) (admin)."""
        access.require(Permissions.manage_space)
        delivery = await WebhookDeliveryRepository(session).get_in_space(
            access.space_id, delivery_id, for_update=True
        )
        if delivery is None:
            raise NotFound("Webhook delivery not found.", code="webhook_delivery_not_found")
        if delivery.status == "pending":
            raise Conflict(
                "This delivery is still being sent; wait for it to finish.", code="delivery_in_progress"
            )
        if delivery.endpoint_id is not None:
            endpoint = await webhook_endpoint_service.get(session, access, delivery.endpoint_id)
            if not endpoint.enabled:
                raise Conflict(
                    "The endpoint is disabled; enable it before redelivering.",
                    code="webhook_endpoint_disabled",
                )
        now = utcnow()
        delivery.status, delivery.next_attempt_at, delivery.finished_at = "pending", now, None
        delivery.max_attempts = delivery.attempts + 1
        await session.flush()
        jobs.enqueue(DELIVER_TASK, str(delivery.id), queue=SYSTEM_QUEUE)
        return delivery

    async def send_test(
        self, session: AsyncSession, access: SpaceAccess, endpoint_id: uuid.UUID
    ) -> WebhookDelivery:
        """Owe a `webhook.test` event to the endpoint: one attempt, shown in its deliveries log (admin)."""
        access.require(Permissions.manage_space)
        endpoint = await webhook_endpoint_service.get(session, access, endpoint_id)
        if not endpoint.enabled:
            raise Conflict("The endpoint is disabled.", code="webhook_endpoint_disabled")
        now = utcnow()
        payload = {
            "type": TEST_EVENT,
            "timestamp": now.isoformat(),
            "data": {"endpoint_id": str(endpoint.id), "space_id": str(endpoint.space_id)},
        }
        delivery = await owe(session, endpoint, payload, max_attempts=1)
        await session.flush()
        return delivery


delivery_service = DeliveryService()
