"""What one MCP connection's OAuth keeps between requests, and the SDK's token storage over it.

No `mcp` SDK import at module level: the API and the workers load these at start, and the SDK (tens of
MiB) only when a session or an authorization actually runs (see `oauth_provider`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from app.integrations.mcp.errors import McpError

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

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
        from mcp.shared.auth import OAuthToken

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
        from mcp.shared.auth import OAuthClientInformationFull

        return (
            OAuthClientInformationFull.model_validate(self.state.client_info)
            if self.state.client_info
            else None
        )

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.state.client_info = client_info.model_dump(mode="json", exclude_none=True)
        self.changed = True
