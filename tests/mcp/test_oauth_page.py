"""The OAuth callback as a browser sees it: sent on to the web UI's completion page when it can go on,
a small HTML page when it cannot (under the strict CSP, with no script and nothing from the query
echoed), while API clients keep the JSON errors. The callback itself completes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from app.api.callback_page import prefers_html
from tests.mcp.conftest import connect, connection
from tests.mcp.test_oauth import authorize
from tests.support.factories import Factory
from tests.support.mcp_oauth import OAuthMcpTestServer

CALLBACK = "/api/v1/mcp/oauth/callback"
BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture
def oauth_server() -> Iterator[OAuthMcpTestServer]:
    server = OAuthMcpTestServer().start()
    yield server
    server.stop()


@pytest.mark.parametrize(
    ("accept", "html"),
    [
        (BROWSER["Accept"], True),
        ("text/html", True),
        ("application/json, text/html;q=0.5", False),
        ("text/html;q=0.5, application/json", False),
        ("text/html;q=0", False),
        ("text/html;q=oops", False),
        ("*/*", False),
        ("application/json", False),
        (None, False),
        ("", False),
    ],
)
def test_who_gets_a_page(accept: str | None, html: bool) -> None:
    assert prefers_html(accept) is html


def assert_page(answer, status: int, heading: str) -> str:  # type: ignore[no-untyped-def]
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in answer.headers["content-security-policy"]
    assert answer.headers["cache-control"] == "no-store"
    text: str = answer.text
    assert f"<h1>{heading}</h1>" in text
    assert '<a href="/connections">' in text
    assert "<script" not in text.lower()
    return text


async def test_a_browser_is_sent_on_to_the_ui_or_sees_why_not(
    factory: Factory, oauth_server: OAuthMcpTestServer
) -> None:
    owner = await factory.owner()
    created = await connect(owner, oauth_server.url, auth={"type": "oauth"})
    query = await authorize(owner, created["id"])
    params = {k: v[0] for k, v in query.items()}
    handed = await owner.client.get(CALLBACK, params=params, headers=BROWSER)
    assert handed.status_code == 303
    assert handed.headers["cache-control"] == "no-store"
    location = urlsplit(handed.headers["location"])
    assert (location.scheme, location.netloc, location.path) == ("", "", "/connections/mcp-oauth")
    assert {k: v[0] for k, v in parse_qs(location.query).items()} == params
    assert (await connection(owner, created["id"]))["needs_authorization"] is True, "nothing completed yet"

    assert "oauth_state_missing" not in assert_page(
        await owner.client.get(CALLBACK, params={"code": "x"}, headers=BROWSER), 400, "Authorization failed"
    )
    too_long = await owner.client.get(CALLBACK, params={"state": "s" * 600}, headers=BROWSER)
    assert_page(too_long, 422, "Authorization failed")
    hostile = await owner.client.get(CALLBACK, params={"code": "<b>x</b>"}, headers=BROWSER)
    assert "<b>" not in assert_page(hostile, 400, "Authorization failed")


async def test_api_clients_get_json_errors(factory: Factory) -> None:
    owner = await factory.owner()
    missing = await owner.client.get(CALLBACK, params={"code": "x"}, headers={"Accept": "application/json"})
    assert missing.status_code == 400
    assert missing.json()["error"]["code"] == "oauth_state_missing"
    handed = await owner.client.get(CALLBACK, params={"state": "made-up"}, headers={"Accept": "*/*"})
    assert handed.status_code == 303


async def test_openapi_documents_the_page(factory: Factory) -> None:
    owner = await factory.owner()
    document = (await owner.client.get("/openapi.json")).json()
    responses = document["paths"][CALLBACK]["get"]["responses"]
    assert "303" in responses
    for status in ("400", "422"):
        assert set(responses[status]["content"]) == {"application/json", "text/html"}, status
    other = document["paths"]["/api/v1/spaces/{space_id}/mcp/connections"]["get"]["responses"]
    assert set(other["200"]["content"]) == {"application/json"}
    completion = document["paths"]["/api/v1/mcp/oauth/complete"]["post"]["responses"]
    assert set(completion["403"]["content"]) == {"application/json"}
