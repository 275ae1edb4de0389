"""One attempt at a time, called directly: signatures, the retry rules, refusals and auto-disable."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

from sqlalchemy import update
from standardwebhooks.webhooks import Webhook

from app.config import Settings
from app.persistence.base import utcnow
from app.persistence.models import WebhookEndpoint
from app.services.outbound.deliveries import delivery_service, retry_delay
from app.services.outbound.outbox import DELIVER_TASK, RETRY_SCHEDULE
from tests.support.factories import Factory
from tests.support.outbound import (
    KeptJobs,
    delivery,
    delivery_settings,
    endpoint,
    endpoint_row,
    make_due,
    notifications,
    owe_one,
    payload,
)
from tests.support.receivers import Receivers


class TestSigned:
    async def test_a_delivery_verifies_with_the_standardwebhooks_library(
        self, factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
    ) -> None:
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "ok/signed")
        body = payload()
        delivery_id = await owe_one(kept, target.id, body)
        assert [job.name for job in kept.jobs] == [DELIVER_TASK]

        outcome = await delivery_service.attempt(kept, delivery_id, delivery_settings(settings))

        assert outcome == "succeeded"
        (got,) = receivers.wait_for("signed", 1)
        assert got.error is None
        assert got.payload == body
        assert got.headers["webhook-id"] == str(delivery_id)
        row, attempts = await delivery(kept, delivery_id)
        assert (row.status, row.attempts, row.last_status_code) == ("succeeded", 1, 200)
        assert [(a.attempt, a.status_code) for a in attempts] == [(1, 200)]

    async def test_a_second_wake_up_sends_nothing(
        self, factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
    ) -> None:
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "ok/once")
        delivery_id = await owe_one(kept, target.id)
        assert await delivery_service.attempt(kept, delivery_id, delivery_settings(settings)) == "succeeded"
        assert await delivery_service.attempt(kept, delivery_id, delivery_settings(settings)) == "not_due"
        assert len(receivers.wait_for("once", 1)) == 1

    async def test_after_a_rotation_both_secrets_sign(
        self, factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
    ) -> None:
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "ok/rotated")
        response = await owner.request(
            "POST", owner.space_path(f"/webhook-endpoints/{target.id}/rotate-secret")
        )
        new_secret = response.json()["secret"]
        receivers.secrets["rotated"] = new_secret
        delivery_id = await owe_one(kept, target.id)
        await delivery_service.attempt(kept, delivery_id, delivery_settings(settings))

        (got,) = receivers.wait_for("rotated", 1)
        assert got.error is None
        assert len(got.headers["webhook-signature"].split(" ")) == 2
        # A receiver still holding the old secret verifies too.
        assert Webhook(target.secret).verify(got.body, got.headers) == json.loads(got.body)


class TestRetries:
    async def test_a_500_is_retried_with_the_same_webhook_id(
        self, factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
    ) -> None:
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "flaky/flaky?times=1")
        delivery_id = await owe_one(kept, target.id)
        kept.jobs.clear()

        assert await delivery_service.attempt(kept, delivery_id, delivery_settings(settings)) == "pending"
        row, _ = await delivery(kept, delivery_id)
        assert row.next_attempt_at is not None
        (retry,) = kept.jobs
        assert retry.name == DELIVER_TASK
        assert retry.countdown is not None
        # The schedule's second step (5 s), scaled down for the test.
        assert RETRY_SCHEDULE[1] * 0.001 <= retry.countdown <= RETRY_SCHEDULE[1] * 0.001 * 1.1

        await make_due(kept, delivery_id)
        assert await delivery_service.attempt(kept, delivery_id, delivery_settings(settings)) == "succeeded"
        first, second = receivers.wait_for("flaky", 2)
        assert first.headers["webhook-id"] == second.headers["webhook-id"] == str(delivery_id)
        assert first.error is second.error is None
        row, attempts = await delivery(kept, delivery_id)
        assert [(a.attempt, a.status_code) for a in attempts] == [(1, 500), (2, 200)]
        assert (await endpoint_row(kept, target.id)).failing_since is None

    async def test_a_receiver_that_hangs_times_out_and_is_retried(
        self, factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
    ) -> None:
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "hang/hangs")
        delivery_id = await owe_one(kept, target.id)

        outcome = await delivery_service.attempt(
            kept, delivery_id, delivery_settings(settings, timeout_seconds=0.5)
        )

        assert outcome == "pending"
        _, (attempt,) = await delivery(kept, delivery_id)
        assert attempt.status_code is None
        assert attempt.error is not None
        assert "timed out" in attempt.error
        assert "hangs" not in attempt.error, "errors never show the URL's path"

    async def test_every_attempt_failing_ends_failed_after_the_schedule(
        self, factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
    ) -> None:
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "status/503/down")
        delivery_id = await owe_one(kept, target.id)
        outcomes = []
        for _ in RETRY_SCHEDULE:
            await make_due(kept, delivery_id)
            outcomes.append(await delivery_service.attempt(kept, delivery_id, delivery_settings(settings)))
        assert outcomes == ["pending"] * (len(RETRY_SCHEDULE) - 1) + ["failed"]
        await make_due(kept, delivery_id)
        assert await delivery_service.attempt(kept, delivery_id, delivery_settings(settings)) == "not_due"
        row, attempts = await delivery(kept, delivery_id)
        assert row.status == "failed"
        assert len(attempts) == len(RETRY_SCHEDULE)
        endpoint_now = await endpoint_row(kept, target.id)
        assert endpoint_now.consecutive_failures == 1
        assert endpoint_now.enabled

    async def test_408_is_retried(
        self, factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
    ) -> None:
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "status/408/timeout408")
        delivery_id = await owe_one(kept, target.id)
        assert await delivery_service.attempt(kept, delivery_id, delivery_settings(settings)) == "pending"

    def test_retry_after_is_honoured_when_longer_and_capped_at_an_hour(self) -> None:
        assert 120 <= retry_delay(1, 1.0, 120).total_seconds() <= 132
        assert 3600 <= retry_delay(1, 1.0, 10**9).total_seconds() <= 3960
        # Shorter than the schedule's step: the schedule wins.
        assert 300 <= retry_delay(2, 1.0, 1).total_seconds() <= 330


class TestFailsAtOnce:
    async def test_a_redirect_to_a_metadata_address_is_not_followed(
        self, factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
    ) -> None:
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "redirect/redirects")
        delivery_id = await owe_one(kept, target.id)
        kept.jobs.clear()

        assert await delivery_service.attempt(kept, delivery_id, delivery_settings(settings)) == "failed"
        _, (attempt,) = await delivery(kept, delivery_id)
        assert attempt.status_code == 302
        assert "redirect" in (attempt.error or "")
        assert kept.jobs == [], "no retry is scheduled"

    async def test_other_4xx_fail_at_once_without_disabling(
        self, factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
    ) -> None:
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "status/400/bad")
        delivery_id = await owe_one(kept, target.id)
        assert await delivery_service.attempt(kept, delivery_id, delivery_settings(settings)) == "failed"
        assert (await endpoint_row(kept, target.id)).enabled

    async def test_410_disables_the_endpoint_with_a_notification(
        self, factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
    ) -> None:
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "gone/gone")
        delivery_id = await owe_one(kept, target.id)
        assert await delivery_service.attempt(kept, delivery_id, delivery_settings(settings)) == "failed"

        row = await endpoint_row(kept, target.id)
        assert not row.enabled
        assert "410" in (row.disabled_reason or "")
        (notice,) = await notifications(kept)
        assert str(target.id) in notice.body
        shown = await owner.request("GET", owner.space_path(f"/webhook-endpoints/{target.id}"))
        assert shown.json()["enabled"] is False

        # A disabled endpoint is sent nothing more.
        later = await owe_one(kept, target.id)
        assert await delivery_service.attempt(kept, later, delivery_settings(settings)) == "failed"
        assert len(receivers.wait_for("gone", 1)) == 1

    async def test_the_egress_guard_refuses_at_delivery_time(
        self, factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
    ) -> None:
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "ok/closed")
        delivery_id = await owe_one(kept, target.id)
        # The operator closed loopback since the endpoint was saved.
        closed = delivery_settings(settings, allow=delivery_settings(settings).allow.parse(""))

        assert await delivery_service.attempt(kept, delivery_id, closed) == "failed"
        _, (attempt,) = await delivery(kept, delivery_id)
        assert "egress guard" in (attempt.error or "")
        assert receivers.received["closed"] == []

    async def test_consecutive_failed_deliveries_disable_the_endpoint(
        self, factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
    ) -> None:
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "status/404/missing")
        for _ in range(3):
            delivery_id = await owe_one(kept, target.id)
            await delivery_service.attempt(
                kept, delivery_id, delivery_settings(settings, disable_after_failures=3)
            )
        row = await endpoint_row(kept, target.id)
        assert not row.enabled
        assert "3 deliveries in a row" in (row.disabled_reason or "")
        enabled = await owner.request(
            "PATCH", owner.space_path(f"/webhook-endpoints/{target.id}"), json={"enabled": True}
        )
        assert enabled.json()["enabled"] is True
        assert enabled.json()["consecutive_failures"] == 0

    async def test_an_endpoint_failing_for_five_days_is_disabled(
        self, factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
    ) -> None:
        owner = await factory.owner()
        target = await endpoint(owner, receivers, "status/400/stale")
        async with kept() as session:
            await session.execute(
                update(WebhookEndpoint)
                .where(WebhookEndpoint.id == uuid.UUID(target.id))
                .values(failing_since=utcnow() - timedelta(days=5, minutes=1))
            )
        delivery_id = await owe_one(kept, target.id)
        assert await delivery_service.attempt(kept, delivery_id, delivery_settings(settings)) == "failed"
        row = await endpoint_row(kept, target.id)
        assert not row.enabled
        assert "5 days" in (row.disabled_reason or "")
        (notice,) = await notifications(kept)
        assert "5 days" in notice.body
