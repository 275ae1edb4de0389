"""OAuth connections against a real authorization server on loopback (the `mcp` package's pieces):
discovery, dynamic registration, PKCE, the callback, refresh per call, and a revoked refresh."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text

from app.definitions.signals import StepError
from app.security.crypto import Keyring
from app.services.mcp.endpoints import reseal_oauth
from tests.mcp.conftest import connect, connection, tools
from tests.support.factories import Caller, Factory
from tests.support.mcp_oauth import OAuthMcpTestServer


@pytest.fixture
def oauth_server() -> Iterator[OAuthMcpTestServer]:
    server = OAuthMcpTestServer().start()
    yield server
    server.stop()


@dataclass
class Context:
    """What a handler is given by a step, reduced to what an MCP handler reads."""

    space_id: str
    timeout_seconds: float = 10.0


async def authorize(owner: Caller, connection_id: str) -> dict[str, list[str]]:
    """Start the authorization and play the user: follow the URL, answer the redirect's query."""
    started = await owner.request("POST", owner.space_path(f"/mcp/connections/{connection_id}/authorize"))
    assert started.status_code == 200, started.text
    url = started.json()["authorization_url"]
    async with httpx.AsyncClient() as browser:
        answer = await browser.get(url)
    assert answer.status_code in (302, 307), answer.text
    return parse_qs(urlsplit(answer.headers["location"]).query)


CALLBACK = "/api/v1/mcp/oauth/callback"
COMPLETE = "/api/v1/mcp/oauth/complete"
ACCESS_TTL = 2
BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


async def land(browser_of: Caller, query: dict[str, list[str]]) -> dict[str, str]:
    """The redirect from the authorization server reaching the callback in `browser_of`'s browser, and
    the query that browser then holds (what the UI hands to the completion endpoint)."""
    params = {k: v[0] for k, v in query.items()}
    await browser_of.client.get(CALLBACK, params=params, headers=BROWSER)
    return params


async def complete(owner: Caller, query: dict[str, list[str]]) -> Any:
    """The starter's browser back at the callback, and the UI completing the flow with their token."""
    return await owner.request("POST", COMPLETE, json=await land(owner, query))


async def call(app: FastAPI, owner: Caller, capability_id: str, args: dict[str, Any]) -> Any:
    capability = await app.state.runtime.capabilities.resolve(owner.space_id, capability_id)
    assert capability is not None
    return await capability.handler(Context(owner.space_id), args)


async def stored_text(app: FastAPI) -> str:
    async with app.state.sessionmaker() as session:
        rows = await session.execute(text("SELECT row_to_json(t)::text FROM mcp_connections t"))
        return "\n".join(row[0] for row in rows)


async def test_authorize_callback_call_refresh_and_revoke(
    app: FastAPI, factory: Factory, oauth_server: OAuthMcpTestServer, harvest
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    created = await connect(owner, oauth_server.url, auth={"type": "oauth"})
    assert created["needs_authorization"] is True
    assert await harvest(created["id"]) == "error"
    assert (await connection(owner, created["id"]))["harvest_error"].startswith("mcp_needs_authorization:")

    # Short-lived access tokens, so the test sees refreshes; long enough that the tenth of their life
    # kept as a margin outlasts how late a loaded machine takes the token in after the server made it.
    oauth_server.provider.access_ttl = ACCESS_TTL
    query = await authorize(owner, created["id"])
    assert set(query) >= {"code", "state"}
    [client] = oauth_server.provider.clients.values()
    assert client.token_endpoint_auth_method == "none"

    back = await complete(owner, query)
    assert back.status_code == 200, back.text
    assert back.json() == {"connection_id": created["id"], "space_id": owner.space_id, "authorized": True}
    shown = await connection(owner, created["id"])
    assert shown["needs_authorization"] is False
    assert shown["harvest_status"] == "pending"
    assert await harvest(created["id"]) == "ok"
    assert "echo" in await tools(owner, created["id"])

    tokens = [*oauth_server.provider.access, *oauth_server.provider.refresh]
    assert tokens
    stored = await stored_text(app)
    assert not [token for token in tokens if token in stored], "tokens are stored sealed"

    # The access token has expired: the next call refreshes it first.
    await asyncio.sleep(ACCESS_TTL + 0.5)
    assert await call(app, owner, "crm.echo", {"text": "hi"}) == {"text": "hi"}
    assert oauth_server.provider.refreshes >= 1

    # The same state cannot be used twice.
    replay = await complete(owner, query)
    assert replay.status_code == 404
    assert replay.json()["error"]["code"] == "oauth_state_unknown"

    # A revoked grant: the refresh fails, the call fails clearly, the connection needs authorization.
    oauth_server.provider.revoke_refresh_tokens()
    await asyncio.sleep(ACCESS_TTL + 0.5)
    with pytest.raises(StepError) as failed:
        await call(app, owner, "crm.echo", {"text": "again"})
    assert failed.value.code == "mcp_needs_authorization"
    assert (await connection(owner, created["id"]))["needs_authorization"] is True

    # Authorizing again brings it back.
    query = await authorize(owner, created["id"])
    back = await complete(owner, query)
    assert back.status_code == 200
    assert await call(app, owner, "crm.echo", {"text": "back"}) == {"text": "back"}


async def test_callback_and_completion_bad_input(factory: Factory, oauth_server: OAuthMcpTestServer) -> None:
    owner = await factory.owner()
    missing = await owner.client.get(CALLBACK, params={"code": "x"})
    assert missing.status_code == 400
    assert missing.json()["error"]["code"] == "oauth_state_missing"
    handed = await owner.client.get(CALLBACK, params={"code": "x", "state": "made-up", "junk": "y"})
    assert handed.status_code == 303
    assert handed.headers["location"] == "/connections/mcp-oauth?state=made-up&code=x"
    unknown = await owner.request("POST", COMPLETE, json={"code": "x", "state": "made-up"})
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "oauth_state_unknown"
    for body, pointer in (
        ({"code": "x"}, "/state"),
        ({"state": ""}, "/state"),
        ({"state": "s" * 600}, "/state"),
    ):
        refused = await owner.request("POST", COMPLETE, json=body)
        assert refused.status_code == 422, body
        assert refused.json()["error"]["details"][0]["path"] == pointer
    created = await connect(owner, oauth_server.url, auth={"type": "oauth"})
    query = await authorize(owner, created["id"])
    denied = await owner.request(
        "POST", COMPLETE, json={"state": query["state"][0], "error": "access_denied"}
    )
    assert denied.status_code == 200
    assert denied.json()["authorized"] is False
    assert "access_denied" in (await connection(owner, created["id"]))["harvest_error"]


async def test_a_starter_no_longer_admin_cannot_complete(
    factory: Factory, oauth_server: OAuthMcpTestServer
) -> None:
    owner = await factory.owner()
    admin = await factory.member(owner, role="admin")
    created = await connect(owner, oauth_server.url, auth={"type": "oauth"})
    query = await authorize(admin, created["id"])
    demoted = await owner.request(
        "PATCH", owner.space_path(f"/members/{admin.user_id}"), json={"role": "member"}
    )
    assert demoted.status_code == 200, demoted.text
    refused = await complete(admin, query)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "role_insufficient"
    assert not oauth_server.provider.access


async def test_authorize_needs_an_oauth_connection_and_an_admin(
    factory: Factory, oauth_server: OAuthMcpTestServer
) -> None:
    owner = await factory.owner()
    plain = await connect(owner, oauth_server.url, tool_prefix="plain", name="Plain")
    refused = await owner.request("POST", owner.space_path(f"/mcp/connections/{plain['id']}/authorize"))
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "not_oauth"
    created = await connect(owner, oauth_server.url, auth={"type": "oauth"})
    member = await factory.member(owner)
    forbidden = await member.request("POST", member.space_path(f"/mcp/connections/{created['id']}/authorize"))
    assert forbidden.status_code == 403
    other = await factory.owner("Other")
    hidden = await other.request("POST", other.space_path(f"/mcp/connections/{created['id']}/authorize"))
    assert hidden.status_code == 404
    assert uuid.UUID(created["id"])


async def test_key_rotation_reseals_the_tokens(
    app: FastAPI, factory: Factory, oauth_server: OAuthMcpTestServer, harvest
) -> None:  # type: ignore[no-untyped-def]
    owner = await factory.owner()
    created = await connect(owner, oauth_server.url, auth={"type": "oauth"})
    query = await authorize(owner, created["id"])
    back = await complete(owner, query)
    assert back.status_code == 200
    old: Keyring = app.state.runtime.mcp.keyring
    new = Keyring(
        "a-brand-new-secret-key-0123456789abcdef", ["test-secret-key-that-is-long-enough-0123456789"]
    )
    async with app.state.sessionmaker.begin() as session:
        assert await reseal_oauth(session, new) == 1
    async with app.state.sessionmaker.begin() as session:
        assert await reseal_oauth(session, new) == 0, "already under the current key"
    rotated = dataclasses.replace(
        app.state.runtime.mcp, keyring=Keyring("a-brand-new-secret-key-0123456789abcdef")
    )
    assert await harvest(created["id"], rotated) == "ok", "the new key alone opens the tokens"
    assert old.current_key_id != new.current_key_id


async def test_a_victim_following_the_starters_link_stores_no_tokens_in_the_starters_space(
    factory: Factory, oauth_server: OAuthMcpTestServer
) -> None:
    """An admin sends the authorization URL they started to someone else: the other person's grant must
    not end up in the admin's connection, whoever they are (even an admin of the same space)."""
    starter = await factory.owner()
    created = await connect(starter, oauth_server.url, auth={"type": "oauth"})
    colleague = await factory.member(starter, role="admin")
    stranger = await factory.owner("Elsewhere")
    for victim in (colleague, stranger):
        query = await authorize(starter, created["id"])  # the victim consents at the authorization server
        params = await land(victim, query)
        assert not oauth_server.provider.access, "landing on the callback exchanges no code"
        refused = await victim.request("POST", COMPLETE, json=params)
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["code"] == "oauth_started_by_another_user"
        assert not oauth_server.provider.access, "no code was exchanged for tokens"
        shown = await connection(starter, created["id"])
        assert shown["needs_authorization"] is True
        # The refused attempt ends the flow: the starter cannot be tricked into finishing it later.
        late = await starter.request("POST", COMPLETE, json=params)
        assert late.status_code == 404, late.text
        assert late.json()["error"]["code"] == "oauth_state_unknown"
    assert not oauth_server.provider.access


async def test_completing_needs_the_starters_signed_in_session(
    factory: Factory, oauth_server: OAuthMcpTestServer
) -> None:
    starter = await factory.owner()
    created = await connect(starter, oauth_server.url, auth={"type": "oauth"})
    params = await land(starter, await authorize(starter, created["id"]))
    anonymous = await starter.client.post(COMPLETE, json=params)
    assert anonymous.status_code == 401
    done = await starter.request("POST", COMPLETE, json=params)
    assert done.status_code == 200, done.text
    assert done.json() == {"connection_id": created["id"], "space_id": starter.space_id, "authorized": True}
    assert oauth_server.provider.access
    assert (await connection(starter, created["id"]))["needs_authorization"] is False


async def test_an_expired_state_is_refused_and_stores_nothing(
    app: FastAPI, factory: Factory, oauth_server: OAuthMcpTestServer
) -> None:
    starter = await factory.owner()
    created = await connect(starter, oauth_server.url, auth={"type": "oauth"})
    params = await land(starter, await authorize(starter, created["id"]))
    async with app.state.sessionmaker.begin() as session:
        await session.execute(
            text(
                "UPDATE mcp_connections SET oauth_started_at = now() - interval '10 minutes 1 second'"
                " WHERE id = :id"
            ),
            {"id": created["id"]},
        )
    expired = await starter.request("POST", COMPLETE, json=params)
    assert expired.status_code == 409, expired.text
    assert expired.json()["error"]["code"] == "oauth_state_expired"
    assert not oauth_server.provider.access
    assert (await connection(starter, created["id"]))["needs_authorization"] is True
