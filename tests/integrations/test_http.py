"""The HTTP port's errors name where a request went, never the credentials its URL carried."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator

import pytest

from app.definitions.signals import StepError
from app.integrations.http import GuardedHttp
from app.security.egress import EgressAllowList
from tests.support.loopback_http import LoopbackHTTP

LOOPBACK = EgressAllowList.parse("127.0.0.1/32")
SECRETS = ("path-sekrit", "query-sekrit")


def _with_credentials(base: str) -> str:
    """Slack-style secret paths and `?token=` queries: the guard refuses userinfo, not these."""
    return f"{base}/hooks/path-sekrit?token=query-sekrit"


@pytest.fixture
async def server() -> AsyncIterator[LoopbackHTTP]:
    running = await LoopbackHTTP("a").start()
    yield running
    await running.stop()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _failure(url: str, timeout_seconds: float = 5.0) -> StepError:
    with pytest.raises(StepError) as failure:
        await GuardedHttp(LOOPBACK).request(
            "GET", url, headers={}, params={}, json_body=None, content=None, timeout_seconds=timeout_seconds
        )
    return failure.value


async def test_a_refused_connection_names_the_host_only() -> None:
    port = _closed_port()
    error = await _failure(_with_credentials(f"http://127.0.0.1:{port}"))
    assert error.code == "http_error"
    assert f"127.0.0.1:{port}" in error.message
    assert not [secret for secret in SECRETS if secret in error.message]


async def test_a_timeout_names_the_host_only(server: LoopbackHTTP) -> None:
    error = await _failure(server.url("/hang") + "?token=query-sekrit", timeout_seconds=0.2)
    assert error.code == "http_timeout"
    assert f"127.0.0.1:{server.port}" in error.message
    assert not [secret for secret in SECRETS if secret in error.message]
