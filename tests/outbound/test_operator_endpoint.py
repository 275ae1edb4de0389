"""The operator-wide endpoint (AUTOMATIONS_WEBHOOK_URL): every space's run events, the same machinery."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest
from sqlalchemy import select

from app.config import Settings
from app.integrations.webhook_sender import new_secret
from app.persistence.base import utcnow
from app.persistence.models import WebhookDelivery, WebhookEndpoint
from app.services.outbound.deliveries import delivery_service
from app.services.outbound.endpoints import OPERATOR_ENDPOINT_ID, signing_secrets, sync_operator_endpoint
from app.services.resources.vault import keyring_for
from tests.support.factories import Factory, minimal_definition
from tests.support.outbound import KeptJobs, delivery, delivery_settings
from tests.support.receivers import Receivers
from tests.support.runs import start


async def test_every_space_run_event_reaches_the_operator_endpoint_and_verifies(
    factory: Factory, receivers: Receivers, kept: KeptJobs, settings: Settings
) -> None:
    secret = new_secret()
    receivers.secrets["operator"] = secret
    async with kept() as session:
        await sync_operator_endpoint(session, keyring_for(settings), receivers.url("ok/operator"), secret)

    for space in ("North", "South"):
        owner = await factory.owner(space)
        # A daily cap of 0 drops the fire at once: a terminal transition inside the API's transaction.
        _, run = await start(owner, minimal_definition(execution={"cost_cap_daily_usd": 0}))
        assert run["status"] == "dropped"
        async with kept() as session:
            (owed,) = (
                await session.scalars(
                    select(WebhookDelivery.id).where(
                        WebhookDelivery.endpoint_id == OPERATOR_ENDPOINT_ID,
                        WebhookDelivery.space_id == owner.space_id,
                    )
                )
            ).all()
        # The API's wake-up may reach a worker first; either way the delivery is made once.
        await delivery_service.attempt(kept, owed, delivery_settings(settings))
        deadline = time.monotonic() + 30
        while (await delivery(kept, owed))[0].status == "pending":
            assert time.monotonic() < deadline
            await asyncio.sleep(0.1)
        assert (await delivery(kept, owed))[0].status == "succeeded"
        listed = await owner.request("GET", owner.space_path("/webhook-endpoints/deliveries"))
        assert listed.json()["items"] == [], "the operator's deliveries are not the space's"

    north, south = receivers.wait_for("operator", 2)
    assert north.error is south.error is None
    assert north.payload["data"]["space_id"] != south.payload["data"]["space_id"]


async def test_unset_settings_remove_it_and_a_bad_secret_is_refused(
    kept: KeptJobs, settings: Settings, receivers: Receivers
) -> None:
    keyring = keyring_for(settings)
    async with kept() as session:
        assert (
            await sync_operator_endpoint(session, keyring, receivers.url("ok/op"), new_secret()) is not None
        )
    async with kept() as session:
        assert await sync_operator_endpoint(session, keyring, None, None) is None
    async with kept() as session:
        with pytest.raises(ValueError, match="whsec_"):
            await sync_operator_endpoint(session, keyring, receivers.url("ok/op"), "whsec_not base64!")


async def test_migrate_applies_the_operator_endpoint_and_refuses_a_bad_secret(
    kept: KeptJobs, service_env: dict[str, str], receivers: Receivers, settings: Settings
) -> None:
    secret = new_secret()
    env = {
        **service_env,
        "AUTOMATIONS_WEBHOOK_URL": receivers.url("ok/migrated"),
        "AUTOMATIONS_WEBHOOK_SECRET": secret,
    }
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "migrate"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "operator-wide webhook endpoint" in result.stdout

    async def stored() -> list[str]:
        async with kept() as session:
            row = await session.get(WebhookEndpoint, OPERATOR_ENDPOINT_ID)
            return [] if row is None else signing_secrets(row, keyring_for(settings), utcnow())

    assert await stored() == [secret]

    env["AUTOMATIONS_WEBHOOK_SECRET"] = "not-a-secret!"
    refused = subprocess.run(
        [sys.executable, "-m", "app.cli", "migrate"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 1
    assert "AUTOMATIONS_WEBHOOK_SECRET" in refused.stderr
    assert "not-a-secret" not in refused.stderr
    assert "Traceback" not in refused.stderr
