"""The httpx2 client the MCP SDK uses, built by the egress guard: the same checks, pinning and caps."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2
import pytest

from app.security.egress import EgressAllowList, EgressDenied, ResponseTooLarge
from app.security.egress.httpx2_bridge import egress_client_httpx2
from tests.support.loopback_http import LoopbackHTTP

LOOPBACK = EgressAllowList.parse("127.0.0.1/32")


@pytest.fixture
async def server() -> AsyncIterator[LoopbackHTTP]:
    running = await LoopbackHTTP("a").start()
    yield running
    await running.stop()


async def test_an_allowed_server_answers(server: LoopbackHTTP) -> None:
    async with egress_client_httpx2(allow=LOOPBACK) as client:
        response = await client.get(server.url("/gzip"))
        assert response.status_code == 200
        assert response.json() == {"zipped": True}


async def test_loopback_is_refused_without_the_allow_list(server: LoopbackHTTP) -> None:
    async with egress_client_httpx2(allow=None) as client:
        with pytest.raises(EgressDenied):
            await client.get(server.url("/ok"))
    assert server.requests == []


async def test_a_name_resolving_inside_is_refused_and_the_socket_pinned(server: LoopbackHTTP) -> None:
    answers = ["10.1.2.3"]
    async with egress_client_httpx2(allow=None, resolver=lambda host, port: answers) as client:
        with pytest.raises(EgressDenied) as refused:
            await client.get(server.url("/ok", host="mcp.example.test"))
    assert "10.1.2.3" in refused.value.reason
    answers[:] = ["127.0.0.1"]
    async with egress_client_httpx2(allow=LOOPBACK, resolver=lambda host, port: answers) as client:
        response = await client.get(server.url("/headers", host="mcp.example.test"))
    assert response.status_code == 200
    assert server.requests[-1].host.startswith("mcp.example.test")


async def test_redirects_are_not_followed_by_the_client(server: LoopbackHTTP) -> None:
    async with egress_client_httpx2(allow=LOOPBACK) as client:
        response = await client.get(server.url("/redirect?to=http://10.0.0.1/x"))
    assert response.status_code in (301, 302, 303, 307, 308)
    assert len(server.requests) == 1


async def test_size_and_time_are_capped(server: LoopbackHTTP) -> None:
    async with egress_client_httpx2(allow=LOOPBACK, max_response_bytes=1000) as client:
        with pytest.raises(ResponseTooLarge):
            await client.get(server.url("/big?size=5000"))
        with pytest.raises(ResponseTooLarge):
            await client.get(server.url("/stream?size=5000"))
    async with egress_client_httpx2(allow=LOOPBACK, timeout=0.3) as client:
        with pytest.raises(httpx2.TimeoutException):
            await client.get(server.url("/hang"))
