"""Helpers for outbound tests: units of work that keep their jobs, endpoints made through the API,
deliveries owed directly, rows read back."""

from __future__ import annotations

import uuid
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.jobs import Job
from app.persistence.base import utcnow
from app.persistence.models import Notification, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from app.persistence.transaction import transaction
from app.security.egress import EgressAllowList
from app.services.outbound.deliveries import DeliverySettings
from app.services.outbound.outbox import owe
from app.services.resources.vault import keyring_for
from tests.support.factories import Caller
from tests.support.receivers import Receivers


class KeptJobs:
    """A unit of work like a worker's, except that its jobs are kept here instead of sent to the broker."""

    def __init__(self, app) -> None:  # type: ignore[no-untyped-def]
        self.app = app
        self.jobs: list[Job] = []

    def __call__(self) -> AbstractAsyncContextManager[AsyncSession]:
        return transaction(self.app.state.sessionmaker, self.jobs.append)


@dataclass(frozen=True)
class Endpoint:
    id: str
    secret: str
    name: str


async def endpoint(
    caller: Caller, receivers: Receivers, route: str, events: list[str] | None = None, **extra: Any
) -> Endpoint:
    """An endpoint at a receiver route (`ok/<name>`, …); the receiver learns its secret to verify."""
    response = await caller.request(
        "POST",
        caller.space_path("/webhook-endpoints"),
        json={"url": receivers.url(route), "events": events or ["automation.run.*"], **extra},
    )
    assert response.status_code == 201, response.text
    body = response.json()
    name = route.partition("?")[0].rsplit("/", 1)[-1]
    receivers.secrets[name] = body["secret"]
    return Endpoint(body["id"], body["secret"], name)


def delivery_settings(settings: Settings, **changes: Any) -> DeliverySettings:
    values: dict[str, Any] = {
        "keyring": keyring_for(settings),
        "allow": EgressAllowList.parse(settings.egress_allow),
        "timeout_seconds": 1.0,
        "retry_scale": 0.001,
    }
    values.update(changes)
    return DeliverySettings(**values)


def payload(kind: str = "automation.run.succeeded") -> dict[str, Any]:
    return {"type": kind, "timestamp": utcnow().isoformat(), "data": {"run_id": str(uuid.uuid4())}}


async def owe_one(kept: KeptJobs, endpoint_id: str, body: dict[str, Any] | None = None) -> uuid.UUID:
    """Owe one delivery to the endpoint, as the outbox does (its wake-up is kept, not sent)."""
    async with kept() as session:
        row = await session.get(WebhookEndpoint, uuid.UUID(endpoint_id))
        assert row is not None
        delivery = await owe(session, row, body or payload())
        return delivery.id


async def make_due(kept: KeptJobs, delivery_id: uuid.UUID) -> None:
    """Move a scheduled retry to now, instead of waiting for it."""
    async with kept() as session:
        await session.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.id == delivery_id)
            .values(next_attempt_at=utcnow() - timedelta(seconds=1))
        )


async def delivery(kept: KeptJobs, delivery_id: uuid.UUID) -> tuple[WebhookDelivery, list[WebhookAttempt]]:
    async with kept() as session:
        row = await session.get(WebhookDelivery, delivery_id)
        assert row is not None
        attempts = (
            await session.scalars(
                select(WebhookAttempt)
                .where(WebhookAttempt.delivery_id == delivery_id)
                .order_by(WebhookAttempt.attempt)
            )
        ).all()
        return row, list(attempts)


async def endpoint_row(kept: KeptJobs, endpoint_id: str) -> WebhookEndpoint:
    async with kept() as session:
        row = await session.get(WebhookEndpoint, uuid.UUID(endpoint_id))
        assert row is not None
        return row


async def notifications(kept: KeptJobs) -> list[Notification]:
    async with kept() as session:
        return list((await session.scalars(select(Notification))).all())
