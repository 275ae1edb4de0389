"""Where a secret's value may travel on the wire: only to its bound hosts, never across a redirect.

A real worker runs each step; two loopback servers on two ports are two origins. The first redirects
to the second, which records what it receives: a secret must never show up there.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.factories import Caller, Factory
from tests.support.hops import HopServer
from tests.support.runs import attempts, definition, start, wait_for

VALUE = "sk-live-" + uuid.uuid4().hex


@pytest.fixture(scope="module")
def first() -> Iterator[HopServer]:
    server = HopServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def second() -> Iterator[HopServer]:
    server = HopServer().start()
    yield server
    server.stop()


async def store(owner: Caller, hosts: list[str] | None = None) -> None:
    body: dict[str, Any] = {"value": VALUE}
    if hosts is not None:
        body["hosts"] = hosts
    response = await owner.request("PUT", owner.space_path("/secrets/api_key"), json=body)
    assert response.status_code == 201, response.text


def request_step(url: str, method: str = "GET", **config: Any) -> dict[str, Any]:
    return {"step_id": "call", "action": "http_request", "config": {"method": method, "url": url, **config}}


async def run_step(owner: Caller, step: dict[str, Any]) -> dict[str, Any]:
    _, run = await start(owner, definition(step))
    done = await wait_for(owner, run["id"])
    (attempt,) = attempts(done, "call")
    return attempt


def seen(server: HopServer, since: int) -> str:
    return "\n".join(f"{hit.headers} {hit.body!r}" for hit in server.received[since:])


async def test_a_cross_origin_302_never_carries_a_secret_header(
    factory: Factory, first: HopServer, second: HopServer, worker: Any
) -> None:
    owner = await factory.owner()
    await store(owner)
    before = len(second.received)
    step = request_step(
        first.redirect(302, f"{second.origin}/landed"), headers={"X-Api-Key": {"$secret": "api_key"}}
    )
    attempt = await run_step(owner, step)
    assert attempt["status"] == "failed", attempt
    assert attempt["error"]["code"] == "secret_redirect_refused"
    assert VALUE not in json.dumps(attempt)
    assert len(second.received) == before, seen(second, before)


async def test_a_cross_origin_307_never_resends_a_body_holding_a_secret(
    factory: Factory, first: HopServer, second: HopServer, worker: Any
) -> None:
    owner = await factory.owner()
    await store(owner)
    before = len(second.received)
    step = request_step(
        first.redirect(307, f"{second.origin}/landed"), method="POST", json={"key": {"$secret": "api_key"}}
    )
    attempt = await run_step(owner, step)
    assert attempt["status"] == "failed", attempt
    assert attempt["error"]["code"] == "secret_redirect_refused"
    assert len(second.received) == before, seen(second, before)


async def test_a_cross_origin_307_never_resends_any_body(
    factory: Factory, first: HopServer, second: HopServer, worker: Any
) -> None:
    owner = await factory.owner()
    before = len(second.received)
    step = request_step(first.redirect(308, f"{second.origin}/landed"), method="POST", json={"a": 1})
    attempt = await run_step(owner, step)
    assert attempt["status"] == "failed", attempt
    assert attempt["error"]["code"] == "egress_redirect_refused"
    assert len(second.received) == before, seen(second, before)


async def test_a_cross_origin_302_without_secrets_is_followed_without_credentials(
    factory: Factory, first: HopServer, second: HopServer, worker: Any
) -> None:
    owner = await factory.owner()
    before = len(second.received)
    step = request_step(
        first.redirect(302, f"{second.origin}/landed"),
        headers={"Cookie": "session=plain", "Authorization": "Basic plain", "X-Trace": "kept"},
    )
    attempt = await run_step(owner, step)
    assert attempt["status"] == "succeeded", attempt
    (hit,) = second.received[before:]
    names = {name.lower() for name in hit.headers}
    assert "cookie" not in names
    assert "authorization" not in names
    assert hit.headers.get("X-Trace") == "kept"


async def test_a_same_origin_redirect_keeps_the_secret(
    factory: Factory, first: HopServer, worker: Any
) -> None:
    owner = await factory.owner()
    await store(owner, hosts=["127.0.0.1"])
    before = len(first.received)
    step = request_step(
        first.redirect(302, f"{first.origin}/landed"), headers={"X-Api-Key": {"$secret": "api_key"}}
    )
    attempt = await run_step(owner, step)
    assert attempt["status"] == "succeeded", attempt
    assert [hit.headers.get("X-Api-Key") for hit in first.received[before:]] == [VALUE, VALUE]


async def test_a_literal_url_to_an_unbound_host_is_refused_at_save(
    factory: Factory, first: HopServer
) -> None:
    owner = await factory.owner()
    await store(owner, hosts=["api.example.com"])
    step = request_step(f"{first.origin}/me", headers={"X-Api-Key": {"$secret": "api_key"}})
    response = await owner.request(
        "POST", owner.space_path("/automations"), json={"definition": definition(step)}
    )
    assert response.status_code == 422, response.text
    [detail] = response.json()["error"]["details"]
    assert (detail["path"], detail["code"]) == (
        "/definition/plan/0/config/headers/X-Api-Key",
        "secret_host_refused",
    )


async def test_a_secret_in_a_templated_url_to_an_unbound_host_is_refused(
    factory: Factory, first: HopServer, worker: Any
) -> None:
    owner = await factory.owner()
    await store(owner, hosts=["api.example.com"])
    before = len(first.received)
    step = request_step("{{ inputs.target }}", headers={"X-Api-Key": {"$secret": "api_key"}})
    document = definition(
        step,
        inputs={"schema": {"type": "object", "properties": {"target": {"type": "string"}}}},
    )
    automation = await owner.create_automation(document)
    await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
    response = await owner.request(
        "POST",
        owner.space_path(f"/automations/{automation['id']}/runs"),
        json={"inputs": {"target": f"{first.origin}/steal"}},
    )
    assert response.status_code in (200, 202), response.text
    done = await wait_for(owner, response.json()["id"])
    (attempt,) = attempts(done, "call")
    assert attempt["error"]["code"] == "secret_host_refused"
    assert len(first.received) == before, seen(first, before)


async def test_a_secret_bound_to_the_host_is_sent(factory: Factory, first: HopServer, worker: Any) -> None:
    owner = await factory.owner()
    await store(owner, hosts=["127.0.0.1"])
    before = len(first.received)
    attempt = await run_step(
        owner, request_step(f"{first.origin}/me", headers={"X-Api-Key": {"$secret": "api_key"}})
    )
    assert attempt["status"] == "succeeded", attempt
    assert [hit.headers.get("X-Api-Key") for hit in first.received[before:]] == [VALUE]
