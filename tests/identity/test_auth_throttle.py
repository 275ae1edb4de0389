"""An address that keeps failing authentication is refused (429) before it costs a query or a body read."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from httpx import ASGITransport, AsyncClient

from app.api.throttle import RefusedAddresses, client_key
from app.config import Settings
from app.main import create_app
from tests.support.factories import Factory, minimal_definition

BAD = {"Authorization": "Bearer aut_not-a-token-anyone-was-given"}


def _address() -> str:
    """A documentation-range IPv6 address in a /64 of its own, so no other test shares its count."""
    block = uuid.uuid4().hex
    return f"2001:db8:{block[:4]}:{block[4:8]}::1"


@asynccontextmanager
async def _client(settings: Settings, address: str, **changes: Any) -> AsyncIterator[AsyncClient]:
    app = create_app(settings.model_copy(update={"auth_failure_window_seconds": 60, **changes}))
    transport = ASGITransport(app=app, client=(address, 40000))
    async with (
        app.router.lifespan_context(app),
        AsyncClient(transport=transport, base_url="http://testserver") as client,
    ):
        yield client


class TestThrottle:
    async def test_address_over_the_limit_is_refused_even_with_a_good_token(
        self, settings: Settings, factory: Factory
    ) -> None:
        owner = await factory.owner()
        address = _address()
        async with _client(settings, address, auth_failure_limit=3) as client:
            codes = [(await client.get("/api/v1/spaces", headers=BAD)).status_code for _ in range(4)]
            refused = await client.get("/api/v1/spaces", headers=owner.headers)
        assert codes == [401, 401, 401, 401]
        assert refused.status_code == 429
        assert refused.json() == {
            "error": {
                "code": "too_many_failed_authentications",
                "message": refused.json()["error"]["message"],
                "details": [],
            }
        }
        assert 1 <= int(refused.headers["retry-after"]) <= 20
        async with _client(settings, _address(), auth_failure_limit=3) as elsewhere:
            assert (await elsewhere.get("/api/v1/spaces", headers=owner.headers)).status_code == 200

    async def test_refused_address_gets_429_before_its_body_is_read(
        self, settings: Settings, factory: Factory
    ) -> None:
        owner = await factory.owner()
        async with _client(settings, _address(), auth_failure_limit=1) as client:
            for _ in range(2):
                assert (await client.get("/api/v1/spaces", headers=BAD)).status_code == 401
            oversized = await client.post(
                owner.space_path("/automations"),
                content=b"[" * (2 * 1024 * 1024),
                headers={**owner.headers, "Content-Type": "application/json"},
            )
        assert oversized.status_code == 429, "a 413 would mean the body was read"

    async def test_authenticated_requests_are_never_counted(
        self, settings: Settings, factory: Factory
    ) -> None:
        owner = await factory.owner()
        async with _client(settings, _address(), auth_failure_limit=2) as client:
            good = [
                (await client.get("/api/v1/spaces", headers=owner.headers)).status_code for _ in range(10)
            ]
            bad = [(await client.get("/api/v1/spaces", headers=BAD)).status_code for _ in range(2)]
            still = await client.get("/api/v1/spaces", headers=owner.headers)
        assert good == [200] * 10
        assert bad == [401, 401]
        assert still.status_code == 200

    async def test_wrong_webhook_tokens_count_too(self, settings: Settings, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation(minimal_definition(triggers=[{"type": "webhook"}]))
        await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
        fire = f"/api/v1/automations/{automation['id']}/fire"
        token = {"Authorization": f"Bearer {automation['triggers'][0]['token']}"}
        async with _client(settings, _address(), auth_failure_limit=2) as client:
            guesses = [(await client.post(fire, json={}, headers=BAD)).status_code for _ in range(3)]
            refused = await client.post(fire, json={}, headers=token)
        assert guesses == [401, 401, 401]
        assert refused.status_code == 429
        runs = await owner.request("GET", owner.space_path("/runs"))
        assert runs.json()["items"] == []

    async def test_loopback_callers_are_never_refused(self, settings: Settings, factory: Factory) -> None:
        owner = await factory.owner()
        async with _client(settings, "127.0.0.1", auth_failure_limit=1) as client:
            codes = [(await client.get("/api/v1/spaces", headers=BAD)).status_code for _ in range(4)]
            after = await client.get("/api/v1/spaces", headers=owner.headers)
        assert codes == [401] * 4
        assert after.status_code == 200

    async def test_loopback_callers_are_counted_in_production(
        self, settings: Settings, factory: Factory
    ) -> None:
        owner = await factory.owner()
        async with _client(settings, "127.0.0.1", auth_failure_limit=2, environment="production") as client:
            codes = [(await client.get("/api/v1/spaces", headers=BAD)).status_code for _ in range(3)]
            refused = await client.get("/api/v1/spaces", headers=owner.headers)
        assert codes == [401] * 3
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "too_many_failed_authentications"

    async def test_zero_turns_the_throttle_off(self, settings: Settings, factory: Factory) -> None:
        owner = await factory.owner()
        async with _client(settings, _address(), auth_failure_limit=0) as client:
            codes = [(await client.get("/api/v1/spaces", headers=BAD)).status_code for _ in range(5)]
            after = await client.get("/api/v1/spaces", headers=owner.headers)
        assert codes == [401] * 5
        assert after.status_code == 200

    async def test_redis_down_lets_requests_through_and_warns(
        self, settings: Settings, factory: Factory, caplog: pytest.LogCaptureFixture
    ) -> None:
        owner = await factory.owner()
        unreachable = "redis://127.0.0.1:1/0"
        with caplog.at_level(logging.WARNING, logger="app.integrations.rate_limit"):
            async with _client(settings, _address(), auth_failure_limit=1, redis_url=unreachable) as client:
                codes = [(await client.get("/api/v1/spaces", headers=BAD)).status_code for _ in range(4)]
                after = await client.get("/api/v1/spaces", headers=owner.headers)
        assert codes == [401] * 4
        assert after.status_code == 200
        assert "Rate limiting is off because Redis is unavailable" in caplog.text


class TestClientKey:
    @pytest.mark.parametrize(
        ("host", "key"),
        [
            ("203.0.113.7", "203.0.113.7"),
            ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
            ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
            ("::ffff:203.0.113.7", "203.0.113.7"),
            ("testclient", "testclient"),
        ],
    )
    def test_ipv6_counts_per_64_and_mapped_ipv4_as_ipv4(self, host: str, key: str) -> None:
        assert client_key({"type": "http", "client": (host, 1)}) == key

    @pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"])
    def test_loopback_is_not_counted(self, host: str) -> None:
        assert client_key({"type": "http", "client": (host, 1)}) is None

    @pytest.mark.parametrize("client", [None, ("", 0)])
    def test_unix_socket_callers_are_not_counted(self, client: tuple[str, int] | None) -> None:
        assert client_key({"type": "http", "client": client}) is None

    @pytest.mark.parametrize(
        ("client", "key"),
        [(("127.0.0.1", 1), "127.0.0.1"), (("::1", 1), "::/64"), (None, "local"), (("", 0), "local")],
    )
    def test_local_callers_are_counted_when_not_exempt(
        self, client: tuple[str, int] | None, key: str
    ) -> None:
        assert client_key({"type": "http", "client": client}, exempt_local=False) == key


class TestRefusedAddresses:
    def test_refusal_ends_at_its_deadline(self) -> None:
        refused = RefusedAddresses()
        refused.refuse("a", until=100.0)
        assert refused.retry_after("a", now=90.0) == 10.0
        assert refused.retry_after("a", now=100.0) == 0.0
        assert refused.retry_after("b", now=90.0) == 0.0

    def test_memory_is_bounded_and_forgets_the_oldest(self) -> None:
        refused = RefusedAddresses(size=2)
        for index, key in enumerate("abc"):
            refused.refuse(key, until=100.0 + index)
        assert refused.retry_after("a", now=0.0) == 0.0
        assert refused.retry_after("b", now=0.0) == 101.0
        assert refused.retry_after("c", now=0.0) == 102.0
