"""Request and response shapes of webhook endpoints and their deliveries."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, Field, field_validator

from app.api.fields import HTTP_URL_PATTERN, stated
from app.api.schemas import Body, Out, RunDetailOut
from app.persistence.models import WebhookAttempt, WebhookDelivery
from app.services.outbound.endpoints import EVENT_TYPES, MAX_AUTOMATION_FILTER, MAX_EVENTS

# The event types an endpoint listens to, at least one: stated for clients, checked by the service.
EVENT_LIST = stated(min_items=1, items={"type": "string", "enum": sorted(EVENT_TYPES)})


class WebhookEndpointCreate(Body):
    url: str = Field(
        min_length=1,
        max_length=2048,
        description="https URL that receives deliveries.",
        json_schema_extra=stated(pattern=HTTP_URL_PATTERN),
    )
    events: list[str] = Field(
        max_length=MAX_EVENTS,
        description='Event types, e.g. "automation.run.failed" or "automation.run.*".',
        json_schema_extra=EVENT_LIST,
    )
    automation_ids: list[uuid.UUID] | None = Field(
        default=None, max_length=MAX_AUTOMATION_FILTER, description="Only these automations' events."
    )
    description: str | None = Field(default=None, max_length=500)


class WebhookEndpointPatch(Body):
    url: str | None = Field(
        default=None, min_length=1, max_length=2048, json_schema_extra=stated(pattern=HTTP_URL_PATTERN)
    )
    events: list[str] | None = Field(default=None, max_length=MAX_EVENTS, json_schema_extra=EVENT_LIST)
    automation_ids: list[uuid.UUID] | None = Field(default=None, max_length=MAX_AUTOMATION_FILTER)
    description: str | None = Field(default=None, max_length=500)
    enabled: bool | None = None


def masked_url(url: str) -> str:
    """The URL with every query value hidden: tokens often ride in the query, and answers never show them."""
    parts = urlsplit(url)
    if not parts.query:
        return url
    query = urlencode([(key, "***") for key, _ in parse_qsl(parts.query, keep_blank_values=True)])
    return urlunsplit(parts._replace(query=query))


class WebhookEndpointOut(Out):
    id: uuid.UUID
    space_id: uuid.UUID
    url: str = Field(description="Query values are shown as ***.")
    description: str | None
    events: list[str]
    automation_ids: list[uuid.UUID] | None
    enabled: bool
    disabled_reason: str | None
    consecutive_failures: int
    failing_since: datetime | None
    previous_secret_expires_at: datetime | None = Field(
        description="Until then the secret before the last rotation signs too."
    )
    created_at: datetime
    updated_at: datetime

    @field_validator("url")
    @classmethod
    def _mask(cls, value: str) -> str:
        return masked_url(value)


class WebhookEndpointWithSecretOut(WebhookEndpointOut):
    secret: str = Field(description="The signing secret (whsec_…). Shown only in this answer.")


class CallbackSecretOut(BaseModel):
    secret: str = Field(description="Signs every run's callback (whsec_…). Shown only in this answer.")
    previous_secret_expires_at: datetime | None = Field(
        description="Until then the secret it replaced signs too."
    )


class WebhookAttemptOut(Out):
    attempt: int
    status_code: int | None
    error: str | None
    duration_ms: int
    next_attempt_at: datetime | None
    created_at: datetime


class WebhookDeliveryOut(Out):
    id: uuid.UUID = Field(description="Also the webhook-id header, the same on every attempt.")
    endpoint_id: uuid.UUID | None = Field(description="Null for a run's own callback.")
    run_id: uuid.UUID | None
    event_type: str
    status: Literal["pending", "succeeded", "failed"]
    attempts: int
    max_attempts: int
    next_attempt_at: datetime | None
    last_status_code: int | None
    last_error: str | None
    created_at: datetime
    finished_at: datetime | None
    payload: dict[str, Any]
    attempt_log: list[WebhookAttemptOut] = Field(default_factory=list)


def delivery_out(delivery: WebhookDelivery, attempts: list[WebhookAttempt]) -> WebhookDeliveryOut:
    """A delivery as the API shows it, with its attempts in order."""
    out = WebhookDeliveryOut.model_validate(delivery)
    out.attempt_log = [WebhookAttemptOut.model_validate(a) for a in attempts]
    return out


class RunDetailWithDeliveriesOut(RunDetailOut):
    webhook_deliveries: list[WebhookDeliveryOut] = Field(
        description="Deliveries of this run's terminal event (newest first, at most 50), with attempts."
    )
