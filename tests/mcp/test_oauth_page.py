"""The OAuth callback as a browser sees it: a small HTML page for each outcome (under the strict CSP,
with no script and nothing from the query echoed), while API clients keep the JSON answers."""

from __future__ import annotations

from collections.abc import Iterator

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


async def test_a_browser_sees_each_outcome_as_a_page(
    factory: Factory, oauth_server: OAuthMcpTestServer
) -> None:
    owner = await factory.owner()
    created = await connect(owner, oauth_server.url, auth={"type": "oauth"})
    query = await authorize(owner, created["id"])
    params = {k: v[0] for k, v in query.items()}
    done = await owner.client.get(CALLBACK, params=params, headers=BROWSER)
    text = assert_page(done, 200, "Authorized")
    assert params["code"] not in text
    assert params["state"] not in text
    shown = await connection(owner, created["id"])
    assert shown["needs_authorization"] is False
    assert shown["harvest_status"] == "pending"

    replay = await owner.client.get(CALLBACK, params=params, headers=BROWSER)
    assert "No authorization is waiting" in assert_page(replay, 404, "Authorization failed")
    assert "oauth_state_missing" not in assert_page(
        await owner.client.get(CALLBACK, params={"code": "x"}, headers=BROWSER), 400, "Authorization failed"
    )
    too_long = await owner.client.get(CALLBACK, params={"state": "s" * 600}, headers=BROWSER)
    assert_page(too_long, 422, "Authorization failed")
    hostile = await owner.client.get(CALLBACK, params={"state": "<b>x</b>"}, headers=BROWSER)
    assert "<b>" not in assert_page(hostile, 404, "Authorization failed")

    query = await authorize(owner, created["id"])
    denied = await owner.client.get(
        CALLBACK, params={"state": query["state"][0], "error": "access_denied"}, headers=BROWSER
    )
    assert_page(denied, 200, "Not authorized")
    assert "access_denied" in (await connection(owner, created["id"]))["harvest_error"]


async def test_api_clients_still_get_json(factory: Factory, oauth_server: OAuthMcpTestServer) -> None:
    owner = await factory.owner()
    created = await connect(owner, oauth_server.url, auth={"type": "oauth"})
    query = await authorize(owner, created["id"])
    answer = await owner.client.get(
        CALLBACK, params={k: v[0] for k, v in query.items()}, headers={"Accept": "application/json"}
    )
    assert answer.status_code == 200
    assert answer.json()["authorized"] is True
    unknown = await owner.client.get(CALLBACK, params={"state": "made-up"}, headers={"Accept": "*/*"})
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "oauth_state_unknown"


async def test_openapi_documents_the_page(factory: Factory) -> None:
    owner = await factory.owner()
    document = (await owner.client.get("/openapi.json")).json()
    responses = document["paths"][CALLBACK]["get"]["responses"]
    for status in ("200", "400", "404", "409", "422"):
        assert set(responses[status]["content"]) == {"application/json", "text/html"}, status
    other = document["paths"]["/api/v1/spaces/{space_id}/mcp/connections"]["get"]["responses"]
    assert set(other["200"]["content"]) == {"application/json"}
