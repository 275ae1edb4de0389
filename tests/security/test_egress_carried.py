"""The egress transport with a call's secrets in scope: host binding and the cross-origin redirect rule.

Two loopback servers on two ports are two origins; each records what reaches it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import quote

import httpx
import pytest

from app.security.egress import (
    CarriedSecret,
    EgressAllowList,
    RedirectRefused,
    SecretHostRefused,
    SecretRedirectRefused,
    carrying,
    egress_client,
    host_allowed,
    host_pattern_problem,
    normalised_pattern,
)
from tests.support.hops import HopServer

LOOPBACK = EgressAllowList.parse("127.0.0.1/32")
VALUE = 'tok"en/12345'  # JSON escapes the quote, percent-encoding the slash too


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


def secret(*hosts: str) -> CarriedSecret:
    return CarriedSecret("api_key", VALUE, hosts)


@pytest.mark.parametrize(
    "request_kwargs",
    [
        {"headers": {"X-Api-Key": VALUE}},
        {"json": {"nested": {"key": VALUE}}},
        {"content": f"key={VALUE}"},
        {"params": {"key": VALUE}},
    ],
)
async def test_a_bound_secret_is_not_sent_to_another_host_in_any_part(
    first: HopServer, request_kwargs: dict[str, object]
) -> None:
    before = len(first.received)
    with carrying([secret("api.example.com")]), pytest.raises(SecretHostRefused) as refused:
        async with egress_client(allow=LOOPBACK) as client:
            await client.fetch("POST", f"{first.origin}/me", **request_kwargs)  # type: ignore[arg-type]
    assert refused.value.code == "secret_host_refused"
    assert VALUE not in str(refused.value)
    assert len(first.received) == before


async def test_a_non_ascii_value_is_found_in_either_json_spelling(first: HopServer) -> None:
    carried = CarriedSecret("api_key", "pässwort-12345", ("api.example.com",))
    for ensure_ascii in (True, False):
        body = json.dumps({"key": carried.value}, ensure_ascii=ensure_ascii)
        with carrying([carried]), pytest.raises(SecretHostRefused):
            async with egress_client(allow=LOOPBACK) as client:
                await client.fetch("POST", f"{first.origin}/me", content=body)


async def test_a_request_without_the_value_and_a_bound_host_both_pass(first: HopServer) -> None:
    async with egress_client(allow=LOOPBACK) as client:
        with carrying([secret("api.example.com")]):
            assert (await client.fetch("GET", f"{first.origin}/plain")).status_code == 200
        with carrying([secret("127.0.0.1")]):
            answer = await client.fetch("GET", f"{first.origin}/me", headers={"X-Api-Key": VALUE})
            assert answer.status_code == 200
    assert first.received[-1].headers["X-Api-Key"] == VALUE


async def test_outside_a_call_nothing_is_checked(first: HopServer) -> None:
    async with egress_client(allow=LOOPBACK) as client:
        answer = await client.fetch("GET", f"{first.origin}/me", headers={"X-Api-Key": VALUE})
    assert answer.status_code == 200


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_a_request_carrying_a_secret_never_follows_a_cross_origin_redirect(
    first: HopServer, second: HopServer, status: int
) -> None:
    before = len(second.received)
    with carrying([secret()]), pytest.raises(SecretRedirectRefused) as refused:
        async with egress_client(allow=LOOPBACK) as client:
            await client.fetch(
                "GET", first.redirect(status, f"{second.origin}/x"), headers={"X-Api-Key": VALUE}
            )
    assert refused.value.code == "secret_redirect_refused"
    assert len(second.received) == before


async def test_the_streaming_path_follows_the_same_rule(first: HopServer, second: HopServer) -> None:
    before = len(second.received)
    url = first.redirect(302, f"{second.origin}/x") + "&k=" + quote(VALUE, safe="")
    with carrying([secret()]):
        async with egress_client(allow=LOOPBACK) as client:
            response = await client.send(client.build_request("GET", url), stream=True)
            await response.aclose()
            following = response.next_request
            assert following is not None
            with pytest.raises(SecretRedirectRefused):
                await client.send(following, stream=True)
    assert len(second.received) == before


async def test_a_cross_origin_307_with_a_body_is_not_followed(first: HopServer, second: HopServer) -> None:
    before = len(second.received)
    async with egress_client(allow=LOOPBACK) as client:
        with pytest.raises(RedirectRefused) as refused:
            await client.fetch("POST", first.redirect(307, f"{second.origin}/x"), json={"a": 1})
        assert refused.value.code == "egress_redirect_refused"
        # A 303 turns the POST into a GET without a body: followed.
        answer = await client.fetch("POST", first.redirect(303, f"{second.origin}/x"), json={"a": 1})
    assert answer.status_code == 200
    assert [hit.method for hit in second.received[before:]] == ["GET"]


async def test_credentials_are_dropped_on_a_cross_origin_hop_and_kept_on_the_same_origin(
    first: HopServer, second: HopServer
) -> None:
    headers = {"Authorization": "Bearer plain", "Cookie": "s=1", "Proxy-Authorization": "x", "X-Trace": "t"}
    async with egress_client(allow=LOOPBACK) as client:
        await client.fetch("GET", first.redirect(302, f"{second.origin}/x"), headers=headers)
        landed = second.received[-1].headers
        await client.fetch("GET", first.redirect(302, f"{first.origin}/x"), headers=headers)
        same = first.received[-1].headers
    assert {name.lower() for name in landed} & {"authorization", "cookie", "proxy-authorization"} == set()
    assert landed["X-Trace"] == "t"
    assert same["Authorization"] == "Bearer plain"


async def test_a_caller_that_does_not_follow_still_sees_the_redirect(
    first: HopServer, second: HopServer
) -> None:
    with carrying([secret()]):
        async with egress_client(allow=LOOPBACK, max_redirects=0) as client:
            request = client.build_request("POST", first.redirect(307, f"{second.origin}/x"), content=VALUE)
            response = await client.send(request, stream=True)
            await response.aclose()
    assert response.status_code == 307


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("https://api.example.com", "bare host name"),
        ("api.example.com:443", "bare host name"),
        ("api.example.com/path", "bare host name"),
        ("*", "bare host name"),
        ("a.*.example.com", "bare host name"),
        ("*.com", "two labels"),
        ("*.127.0.0.1", "addresses"),
        ("", "non-empty"),
        ("bad_host!", "not a valid host name"),
    ],
)
def test_bad_host_patterns_are_named(pattern: str, problem: str) -> None:
    found = host_pattern_problem(pattern)
    assert found is not None
    assert problem in found


def test_host_patterns_match_names_subdomains_and_addresses() -> None:
    patterns = [normalised_pattern(p) for p in ("API.Example.com.", "*.example.org", "::ffff:127.0.0.1")]
    assert patterns == ["api.example.com", "*.example.org", "127.0.0.1"]
    assert host_allowed("api.example.com", patterns)
    assert host_allowed("a.b.example.org", patterns)
    assert host_allowed("127.0.0.1", patterns)
    assert not host_allowed("example.org", patterns)
    assert not host_allowed("api.example.com.evil.test", patterns)
    assert not host_allowed("evilexample.org", patterns)


def test_a_carried_secret_hides_its_value_from_repr() -> None:
    assert VALUE not in repr(secret("a.example.com"))
    assert isinstance(httpx.URL("http://x/").host, str)
