"""Webhook fires: an external system POSTs JSON with a trigger's bearer token and gets a run."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime
from typing import Any, Protocol

from app.engine.mapping import compile_mapping
from app.errors import AppError, Conflict, ErrorDetail, NotFound, Unauthorized, ValidationFailed
from app.persistence.base import utcnow
from app.persistence.models import AutomationTrigger, Run
from app.persistence.repositories.runs import RunRepository
from app.persistence.repositories.triggers import AutomationHead, TriggerRepository, WebhookTrigger
from app.persistence.types import AsyncSession
from app.security.tokens import hash_token, is_well_formed, token_matches
from app.services.outbound.endpoints import UrlPolicy, webhook_endpoint_service
from app.services.runs.admission import refusal
from app.services.runs.dispatch import dispatcher
from app.services.runs.fire_request import FireRequest, FireResult
from app.services.runs.limits import DispatchLimits
from app.services.triggers.sync import WEBHOOK_TOKEN_PREFIX

MAX_IDEMPOTENCY_KEY_LENGTH = 255
# Mapping a body larger than this runs on a thread: its cost grows with the body and the mapping.
MAPPING_INLINE_MAX_BYTES = 64 * 1024


class Limiter(Protocol):
    async def allow(self, key: str, *, limit: int, window_seconds: float) -> Any: ...


class TooManyRequests(AppError):
    status_code = 429
    code = "rate_limited"
    message = "Too many fires for this trigger; slow down."


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def idempotency_key_of(header: str | None, body: Any) -> str | None:
    """The `Idempotency-Key` header, else an `idempotency_key` string in the body."""
    key = header
    if key is None and isinstance(body, dict) and isinstance(body.get("idempotency_key"), str):
        key = body["idempotency_key"]
    if key is not None and not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY_LENGTH:
        raise ValidationFailed(
            f"An idempotency key has 1 to {MAX_IDEMPOTENCY_KEY_LENGTH} characters.",
            code="invalid_idempotency_key",
            details=[ErrorDetail(path="/header/idempotency-key", message="1 to 255 characters")],
        )
    return key


class WebhookService:
    async def fire(
        self,
        session: AsyncSession,
        automation_id: uuid.UUID,
        token: str | None,
        body: Any,
        *,
        idempotency_key: str | None,
        body_bytes: int = 0,
        limits: DispatchLimits,
        limiter: Limiter,
        rate_limit: int,
        rate_window_seconds: float,
        callback_url: str | None = None,
        url_policy: UrlPolicy | None = None,
        priority: int = 0,
    ) -> FireResult:
        """Authenticate the token, rate-limit, map the body to inputs, and fire through the dispatcher.

        `callback_url` (checked here, 422 when refused) receives the run's terminal event.
        """
        if not token:
            raise Unauthorized("A webhook trigger's bearer token is required.")
        found = await _target(session, automation_id, token)
        if found is None:
            raise Unauthorized("The webhook token is not valid for this automation.", code="invalid_token")
        row, automation = found
        # The dispatcher's fire guards, asked before the rate limit and the mapping: a paused or archived
        # automation answers 409 whatever the body, and its refused fires do not use up the limit.
        error = refusal(automation.status, "webhook")
        if error is not None:
            raise error
        if not row.enabled:
            raise Conflict("This webhook trigger is disabled in the definition.", code="trigger_disabled")
        decision = await limiter.allow(
            f"webhook:{row.id}", limit=rate_limit, window_seconds=rate_window_seconds
        )
        if not decision.allowed:
            raise TooManyRequests(headers={"Retry-After": str(max(1, round(decision.retry_after_seconds)))})
        key = idempotency_key_of(idempotency_key, body)
        # A MappingError is itself a 422 naming the input whose path failed.
        mapping = compile_mapping(row.config.get("input_mapping", {}))
        if body_bytes > MAPPING_INLINE_MAX_BYTES:
            inputs = await asyncio.to_thread(mapping.apply, body)
        else:
            inputs = mapping.apply(body)
        payload = body if isinstance(body, dict) else {"body": body}
        if callback_url is not None:
            if url_policy is None:
                raise ValueError("a callback URL is checked against the deployment's URL policy")
            await webhook_endpoint_service.check_callback(
                session, row.space_id, callback_url, url_policy, pointer="/query/callback_url"
            )
        request = FireRequest(
            priority=priority,
            trigger_type="webhook",
            trigger_id=row.id,
            payload=payload,
            inputs=inputs,
            idempotency_key=key,
            last_fired_at=_iso(row.last_fired_at),
            callback_url=callback_url,
        )
        # A new run and its trigger's `last_fired_at` are written in one statement.
        return await dispatcher.fire(session, (automation, request), limits, note_fired_at=utcnow())

    async def caller_run(
        self, session: AsyncSession, automation_id: uuid.UUID, token: str | None, run_id: uuid.UUID
    ) -> tuple[Run, str]:
        """A run this trigger's token fired, and the trigger's `output_visibility`.

        404 alike for a missing or wrong token, another automation's token, another trigger's run and
        a run that does not exist: a caller learns nothing about runs that are not its own."""
        found = await _target(session, automation_id, token) if token else None
        run = None
        if found is not None:
            run = await RunRepository(session).get_in_space(found[0].space_id, run_id)
        if (
            found is None
            or run is None
            or run.automation_id != automation_id
            or run.trigger_id != found[0].id
        ):
            raise NotFound("Run not found.", code="run_not_found")
        return run, str(found[0].config.get("output_visibility", "none"))

    async def output_visibility(self, session: AsyncSession, trigger_id: uuid.UUID | None) -> str:
        """The trigger's `output_visibility` now (`none` when the trigger is gone)."""
        row = await session.get(AutomationTrigger, trigger_id) if trigger_id is not None else None
        return str(row.config.get("output_visibility", "none")) if row is not None else "none"


async def _target(
    session: AsyncSession, automation_id: uuid.UUID, token: str
) -> tuple[WebhookTrigger, AutomationHead] | None:
    """The webhook trigger this token belongs to and its automation, or None unless the token is one
    of this automation's (compared in constant time)."""
    if not is_well_formed(token, WEBHOOK_TOKEN_PREFIX):
        return None
    found = await TriggerRepository(session).webhook_target(hash_token(token))
    if (
        found is None
        or found[0].secret_hash is None
        or found[0].automation_id != automation_id
        or not token_matches(token, found[0].secret_hash)
    ):
        return None
    return found


webhook_service = WebhookService()
