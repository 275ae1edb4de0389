"""OAuth 2.1 with PKCE for MCP connections, on the `mcp` SDK's client auth (`OAuthClientProvider`).

The SDK runs the flow inside one request: on a 401 it discovers the protected resource and its
authorization server, registers a client dynamically when offered, and then needs the user. A web
service cannot hold a request open while a person signs in, so the flow is cut in two there:

1. `start_authorization` lets the SDK discover and register, then stops where the user is needed:
   the authorization URL is answered and the PKCE verifier and state are kept (sealed by the caller).
2. `complete_authorization` (the callback route) exchanges the code with the verifier through the
   SDK's own token request and response handling.

Calls afterwards use the same provider: it adds the access token, refreshes it when it expired, and
when refreshing fails (a revoked refresh token) raises `McpAuthorizationRequired` instead of starting
a flow nobody can finish. Everything the provider learns lives in `OAuthState`, which the service
seals for the connection; every request goes through the egress-guarded client.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from app.integrations.mcp.client import HttpEndpoint, connect
from app.integrations.mcp.errors import McpAuthorizationRequired, McpError, classify
from app.integrations.mcp.oauth_state import AuthorizationStarted, OAuthState, StoredOAuth
from app.security.egress import EgressAllowList, Resolver

__all__ = [
    "AuthorizationStarted",
    "OAuthState",
    "StoredOAuth",
    "complete_authorization",
    "provider_endpoint",
    "start_authorization",
]


def _json(model: BaseModel | None) -> dict[str, Any] | None:
    return model.model_dump(mode="json", exclude_none=True) if model is not None else None


def provider_endpoint(url: str, redirect_uri: str, store: StoredOAuth) -> HttpEndpoint:
    """The endpoint of an authorized connection: the provider adds, refreshes and checks its tokens."""
    # The SDK's provider (and the SDK) load with the first connection that needs them.
    from app.integrations.mcp.oauth_provider import ConnectionOAuth

    provider = ConnectionOAuth(url, redirect_uri, store, starting=False)
    return HttpEndpoint(url, auth=provider, credentials=store.state.secret_values())


async def start_authorization(
    url: str,
    redirect_uri: str,
    store: StoredOAuth,
    *,
    allow: EgressAllowList | None,
    timeout_seconds: float,
    resolver: Resolver | None = None,
) -> str | None:
    """Discover, register, and answer the URL to send the user to (None: the server asked for no auth)."""
    from app.integrations.mcp.oauth_provider import ConnectionOAuth

    store.state.tokens = None
    store.state.token_expires_at = None
    provider = ConnectionOAuth(url, redirect_uri, store, starting=True)
    try:
        async with connect(
            HttpEndpoint(url, auth=provider), allow=allow, timeout_seconds=timeout_seconds, resolver=resolver
        ):
            return None
    except AuthorizationStarted as started:
        return started.url


async def complete_authorization(
    url: str,
    redirect_uri: str,
    store: StoredOAuth,
    *,
    code: str,
    iss: str | None,
    allow: EgressAllowList | None,
    timeout_seconds: float,
    resolver: Resolver | None = None,
) -> None:
    """Exchange the authorization code for tokens (stored in `store`); raises `McpError` on failure."""
    from mcp.client.auth.utils import validate_authorization_response_iss

    from app.integrations.mcp.oauth_provider import ConnectionOAuth
    from app.security.egress.httpx2_bridge import egress_client_httpx2

    verifier = store.state.pending_verifier
    if verifier is None:
        raise McpAuthorizationRequired("no authorization is in progress for this connection")
    provider = ConnectionOAuth(url, redirect_uri, store, starting=False)
    try:
        await provider._initialize()
        provider.context.protocol_version = store.state.protocol_version
        validate_authorization_response_iss(iss, provider.context.oauth_metadata)
        request = await provider._exchange_token_authorization_code(code, verifier)
        async with egress_client_httpx2(allow=allow, timeout=timeout_seconds, resolver=resolver) as http:
            response = await http.send(request)
            await response.aread()
        await provider._handle_token_response(response)
    except McpError:
        raise
    except Exception as exc:
        raise classify(exc) from None
    finally:
        store.state.pending_state = None
        store.state.pending_verifier = None
        store.changed = True
