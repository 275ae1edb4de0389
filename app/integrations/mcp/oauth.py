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

import secrets
import time
from typing import Any
from urllib.parse import urlencode, urljoin

from mcp.client.auth import OAuthClientProvider, PKCEParameters
from mcp.client.auth.utils import validate_authorization_response_iss
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from pydantic import AnyUrl, BaseModel

from app.integrations.mcp.client import HttpEndpoint, connect
from app.integrations.mcp.errors import McpAuthorizationRequired, McpError, classify
from app.security.egress import EgressAllowList, Resolver
from app.security.egress.httpx2_bridge import egress_client_httpx2

CLIENT_NAME = "Automations"
REFRESH_MARGIN_SECONDS = 60.0


class OAuthState(BaseModel):
    """Everything one connection's OAuth needs between requests (sealed at rest by the caller)."""

    client_info: dict[str, Any] | None = None
    tokens: dict[str, Any] | None = None
    token_expires_at: float | None = None
    oauth_metadata: dict[str, Any] | None = None
    protected_resource_metadata: dict[str, Any] | None = None
    auth_server_url: str | None = None
    protocol_version: str | None = None
    pending_state: str | None = None
    pending_verifier: str | None = None

    def secret_values(self) -> tuple[str, ...]:
        """The token values, to scrub from anything a server echoes back."""
        tokens = self.tokens or {}
        return tuple(str(tokens[key]) for key in ("access_token", "refresh_token") if tokens.get(key))


class AuthorizationStarted(McpError):
    """Discovery and registration are done; the user must now visit `url`."""

    code = "authorization_started"
    retryable = False

    def __init__(self, url: str) -> None:
        super().__init__("the user must authorize the connection")
        self.url = url


class StoredOAuth:
    """The SDK's `TokenStorage` over an `OAuthState`; `changed` tells the caller to seal it again."""

    def __init__(self, state: OAuthState) -> None:
        self.state = state
        self.changed = False

    async def get_tokens(self) -> OAuthToken | None:
        return OAuthToken.model_validate(self.state.tokens) if self.state.tokens else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.state.tokens = tokens.model_dump(mode="json", exclude_none=True)
        # Treated as expired a little early (a tenth of its life, at most a minute), so a token is
        # refreshed before the server's clock says it is gone rather than refused mid-call.
        if tokens.expires_in:
            margin = min(REFRESH_MARGIN_SECONDS, tokens.expires_in / 10)
            self.state.token_expires_at = time.time() + tokens.expires_in - margin
        else:
            self.state.token_expires_at = None
        self.changed = True

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return (
            OAuthClientInformationFull.model_validate(self.state.client_info)
            if self.state.client_info
            else None
        )

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.state.client_info = client_info.model_dump(mode="json", exclude_none=True)
        self.changed = True


class ConnectionOAuth(OAuthClientProvider):
    """The SDK's provider, resumable across requests and never waiting for a person inside a call.

    `starting` is True only for `start_authorization`; in a call, needing the user is an error.
    """

    def __init__(self, server_url: str, redirect_uri: str, store: StoredOAuth, *, starting: bool) -> None:
        metadata = OAuthClientMetadata(
            redirect_uris=[AnyUrl(redirect_uri)],
            client_name=CLIENT_NAME,
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",  # noqa: S106 (a public client: PKCE, no client secret)
        )
        super().__init__(server_url, metadata, store)
        self.store = store
        self.starting = starting

    async def _initialize(self) -> None:
        await super()._initialize()
        state = self.store.state
        # What discovery found last time, so a refresh knows the token endpoint after a restart.
        if state.oauth_metadata:
            self.context.oauth_metadata = OAuthMetadata.model_validate(state.oauth_metadata)
        if state.protected_resource_metadata:
            self.context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(
                state.protected_resource_metadata
            )
        self.context.auth_server_url = state.auth_server_url
        self.context.token_expiry_time = state.token_expires_at if self.context.current_tokens else None

    async def _perform_authorization_code_grant(self) -> tuple[str, str]:
        if not self.starting:
            raise McpAuthorizationRequired("the connection's OAuth authorization is no longer valid")
        if self.context.client_info is None:
            raise McpAuthorizationRequired("the authorization server registered no client")
        metadata = self.context.oauth_metadata
        if metadata is not None and metadata.authorization_endpoint:
            endpoint = str(metadata.authorization_endpoint)
        else:
            endpoint = urljoin(self.context.get_authorization_base_url(self.context.server_url), "/authorize")
        pkce = PKCEParameters.generate()
        state = secrets.token_urlsafe(32)
        params = {
            "response_type": "code",
            "client_id": self.context.client_info.client_id,
            "redirect_uri": str(self.context.client_metadata.redirect_uris[0]),  # type: ignore[index]
            "state": state,
            "code_challenge": pkce.code_challenge,
            "code_challenge_method": "S256",
        }
        if self.context.should_include_resource_param(self.context.protocol_version):
            params["resource"] = self.context.get_resource_url()
        if self.context.client_metadata.scope:
            params["scope"] = self.context.client_metadata.scope
        kept = self.store.state
        kept.pending_state = state
        kept.pending_verifier = pkce.code_verifier
        kept.protocol_version = self.context.protocol_version
        kept.oauth_metadata = metadata.model_dump(mode="json", exclude_none=True) if metadata else None
        resource = self.context.protected_resource_metadata
        kept.protected_resource_metadata = (
            resource.model_dump(mode="json", exclude_none=True) if resource else None
        )
        kept.auth_server_url = self.context.auth_server_url
        self.store.changed = True
        raise AuthorizationStarted(f"{endpoint}?{urlencode(params)}")


def _json(model: BaseModel | None) -> dict[str, Any] | None:
    return model.model_dump(mode="json", exclude_none=True) if model is not None else None


def provider_endpoint(url: str, redirect_uri: str, store: StoredOAuth) -> HttpEndpoint:
    """The endpoint of an authorized connection: the provider adds, refreshes and checks its tokens."""
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
