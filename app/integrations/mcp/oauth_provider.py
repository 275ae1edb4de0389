"""The `mcp` SDK's OAuth client provider, resumable across requests (see `oauth`).

Imported only when a session or an authorization needs it, so a process that never talks to an MCP
server never loads the SDK.
"""

from __future__ import annotations

import secrets
from urllib.parse import urlencode, urljoin

from mcp.client.auth import OAuthClientProvider, PKCEParameters
from mcp.shared.auth import OAuthClientMetadata, OAuthMetadata, ProtectedResourceMetadata
from pydantic import AnyUrl

from app.integrations.mcp.errors import McpAuthorizationRequired
from app.integrations.mcp.oauth_state import CLIENT_NAME, AuthorizationStarted, StoredOAuth


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
