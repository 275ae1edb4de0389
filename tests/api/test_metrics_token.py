"""`/metrics` behind an optional bearer token (AUTOMATIONS_METRICS_TOKEN): anyone who can reach the API
otherwise reads what the service is doing (runs, spend per model, webhook refusals)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from httpx import ASGITransport, AsyncClient
from pydantic import SecretStr

from app.config import ConfigurationError, Settings
from app.main import create_app

TOKEN = "scrape-7d1e0c9b4a2f8e6d5c3b"


@pytest.fixture
async def guarded(settings: Settings) -> AsyncIterator[AsyncClient]:
    application = create_app(settings.model_copy(update={"metrics_token": SecretStr(TOKEN)}))
    async with AsyncClient(transport=ASGITransport(app=application), base_url="http://t") as client:
        yield client


class TestMetricsToken:
    async def test_without_the_token_metrics_are_401(self, guarded: AsyncClient) -> None:
        response = await guarded.get("/metrics")
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "metrics_token_required"
        assert response.headers["WWW-Authenticate"] == "Bearer"
        assert "automations_" not in response.text

    @pytest.mark.parametrize(
        "authorization",
        [
            f"Bearer {TOKEN}x",
            f"Bearer {TOKEN[:-1]}",
            "Bearer ",
            f"Basic {TOKEN}",
            TOKEN,
            f"Bearer {TOKEN.upper()}",
            "Bearer \u00e9t\u00e9",
        ],
    )
    async def test_a_wrong_token_is_401(self, guarded: AsyncClient, authorization: str) -> None:
        response = await guarded.get("/metrics", headers={"Authorization": authorization.encode()})
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "metrics_token_required"

    async def test_the_token_opens_metrics(self, guarded: AsyncClient) -> None:
        response = await guarded.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert response.status_code == 200
        assert "automations_" in response.text

    async def test_the_health_probes_stay_open(self, guarded: AsyncClient) -> None:
        assert (await guarded.get("/healthz")).status_code == 200

    async def test_without_a_token_setting_metrics_stay_open(self, settings: Settings) -> None:
        assert settings.metrics_token is None
        application = create_app(settings)
        async with AsyncClient(transport=ASGITransport(app=application), base_url="http://t") as client:
            assert (await client.get("/metrics")).status_code == 200

    def test_a_short_token_is_refused_at_start(self, settings: Settings) -> None:
        with pytest.raises(ConfigurationError) as caught:
            Settings.model_validate({**settings.model_dump(), "metrics_token": "short"})
        assert "AUTOMATIONS_METRICS_TOKEN" in str(caught.value)

    def test_an_empty_token_means_no_token(self, settings: Settings) -> None:
        # Compose passes an unset variable as "".
        assert Settings.model_validate({**settings.model_dump(), "metrics_token": ""}).metrics_token is None
