"""From a connection row to an endpoint the MCP client can open, credentials decrypted for this use only.

Bearer and header auth read their secret from the vault at the moment of the session; OAuth reads the
connection's sealed token state. Nothing here is cached: the endpoint (and the values in it) is dropped
when the session ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from app.integrations.mcp.client import Endpoint, HttpEndpoint, StdioEndpoint
from app.integrations.mcp.errors import McpAuthorizationRequired, McpError
from app.integrations.mcp.oauth import OAuthState, StoredOAuth, provider_endpoint
from app.persistence.models import McpConnection
from app.persistence.repositories.mcp import McpConnectionRepository
from app.persistence.types import AsyncSession
from app.security.crypto import Context, CryptoError, Keyring, key_id_of
from app.security.egress import EgressAllowList, Resolver
from app.services.resources.vault import SecretMissing, SecretUnreadable, SecretVault

OAUTH_PURPOSE = "mcp_oauth"
MAX_TOOLS_PER_CONNECTION = 1000


@dataclass(frozen=True)
class McpSettings:
    """What MCP sessions need from the installation: keys, egress, stdio servers, limits."""

    keyring: Keyring
    allow: EgressAllowList
    stdio_servers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    timeout_seconds: float = 30.0
    max_tools: int = MAX_TOOLS_PER_CONNECTION
    public_url: str = "http://127.0.0.1:8000"
    resolver: Resolver | None = None
    """Replaces `getaddrinfo` in the egress checks (tests)."""

    @property
    def vault(self) -> SecretVault:
        return SecretVault(self.keyring)

    @property
    def redirect_uri(self) -> str:
        """Where the authorization server sends the user back (the OAuth callback route)."""
        return f"{self.public_url.rstrip('/')}/api/v1/mcp/oauth/callback"


def oauth_context(connection: McpConnection) -> Context:
    """What a connection's OAuth state is sealed for: its space and its own id."""
    return Context.of(OAUTH_PURPOSE, str(connection.space_id), str(connection.id))


def read_oauth(connection: McpConnection, keyring: Keyring) -> StoredOAuth:
    """The connection's OAuth state, opened for this use (empty when it never authorized)."""
    if connection.oauth_ciphertext is None:
        return StoredOAuth(OAuthState())
    try:
        plain = keyring.decrypt(connection.oauth_ciphertext, oauth_context(connection))
    except CryptoError as exc:
        raise McpAuthorizationRequired(f"the stored OAuth state cannot be decrypted ({exc})") from None
    return StoredOAuth(OAuthState.model_validate_json(plain))


def seal_oauth(connection: McpConnection, keyring: Keyring, store: StoredOAuth) -> None:
    """Seal the OAuth state (tokens, registered client, discovered metadata) for this connection."""
    plain = store.state.model_dump_json().encode("utf-8")
    connection.oauth_ciphertext = keyring.encrypt(plain, oauth_context(connection))


async def reseal_oauth(session: AsyncSession, keyring: Keyring) -> int:
    """Seal every connection's OAuth state under the keyring's current key (key rotation); answers how
    many were resealed. Rows are locked until the caller commits."""
    resealed = 0
    for connection in await McpConnectionRepository(session).with_oauth_state():
        assert connection.oauth_ciphertext is not None
        try:
            if key_id_of(connection.oauth_ciphertext) == keyring.current_key_id:
                continue
            connection.oauth_ciphertext = keyring.reencrypt(
                connection.oauth_ciphertext, oauth_context(connection)
            )
        except CryptoError:
            # Neither key opens it: the connection will ask for a new authorization, nothing is lost.
            connection.oauth_ciphertext = None
            connection.needs_authorization = True
        resealed += 1
    await session.flush()
    return resealed


async def endpoint_for(
    session: AsyncSession, connection: McpConnection, settings: McpSettings, oauth: StoredOAuth | None = None
) -> Endpoint:
    """The endpoint of a connection with its credentials, read for this session only.

    For OAuth, `oauth` is the opened state (the caller seals it again when a refresh changed it)."""
    if connection.transport == "stdio":
        server = settings.stdio_servers.get(connection.stdio_server or "")
        if server is None:
            raise McpError(f"the stdio server {connection.stdio_server!r} is no longer configured")
        return StdioEndpoint(
            command=str(server["command"]),
            args=tuple(str(arg) for arg in server.get("args", [])),
            env={str(k): str(v) for k, v in dict(server.get("env", {})).items()},
        )
    assert connection.url is not None
    if connection.auth_type in ("bearer", "header"):
        name = connection.auth_secret or ""
        try:
            found = await settings.vault.carried(session, connection.space_id, [name])
        except SecretMissing:
            raise McpUnauthorizedSecret(name) from None
        except SecretUnreadable as exc:
            raise McpError(exc.message) from None
        secret = found[name]
        host = urlsplit(connection.url).hostname or ""
        if not secret.allows(host):
            raise McpSecretHostRefused(name, secret.hosts)
        value = secret.value
        if connection.auth_type == "bearer":
            return HttpEndpoint(connection.url, {"Authorization": f"Bearer {value}"}, credentials=(value,))
        return HttpEndpoint(
            connection.url, {connection.auth_header or "X-Api-Key": value}, credentials=(value,)
        )
    if connection.auth_type == "oauth":
        store = oauth or read_oauth(connection, settings.keyring)
        if store.state.tokens is None:
            raise McpAuthorizationRequired("this connection needs authorization (POST …/authorize)")
        return provider_endpoint(connection.url, settings.redirect_uri, store)
    return HttpEndpoint(connection.url)


class McpSecretHostRefused(McpError):
    """The secret a connection authenticates with is bound to hosts its server is not among."""

    code = "secret_host_refused"
    retryable = False

    def __init__(self, name: str, hosts: tuple[str, ...]) -> None:
        super().__init__(
            f"the secret {name!r} may only be sent to {', '.join(hosts)}; this connection's server is not one"
        )


class McpUnauthorizedSecret(McpError):
    """The secret a connection authenticates with was deleted."""

    code = "secret_missing"
    retryable = False

    def __init__(self, name: str) -> None:
        super().__init__(f"no secret named {name!r} in this space (the connection authenticates with it)")
