"""One clear error per MCP failure, out of the SDK's exception groups and transport errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pydantic import ValidationError

from app.security.egress import EgressDenied, EgressError

if TYPE_CHECKING:
    from mcp.shared.exceptions import MCPError

MAX_MESSAGE = 500


class McpError(Exception):
    """A failure talking to an MCP server; `code` is stable, the message is safe to show and store."""

    code = "mcp_error"
    retryable = True

    def __init__(self, message: str) -> None:
        self.message = message[:MAX_MESSAGE]
        super().__init__(self.message)

    @classmethod
    def timeout(cls, seconds: float) -> McpError:
        return McpUnreachable(f"the MCP server did not answer within {seconds:g} s")


class McpUnreachable(McpError):
    """The server could not be reached, or broke the connection."""

    code = "mcp_unreachable"


class McpUnauthorized(McpError):
    """The server refused our credentials (HTTP 401 or 403)."""

    code = "mcp_unauthorized"
    retryable = False


class McpAuthorizationRequired(McpUnauthorized):
    """An OAuth connection has no usable token: a user must authorize it again."""

    code = "mcp_needs_authorization"


class McpRefused(McpError):
    """The egress guard refused the server's address."""

    code = "egress_denied"
    retryable = False


class McpProtocolError(McpError):
    """The server answered something that is not MCP (garbage, a broken listing)."""

    code = "mcp_protocol_error"
    retryable = False


class McpServerError(McpError):
    """The server answered a JSON-RPC error."""

    code = "mcp_server_error"
    retryable = False


def leaves(exc: BaseException) -> Iterator[BaseException]:
    """Every non-group exception inside `exc`, each followed by the causes it was raised from."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from leaves(inner)
        return
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def classify(exc: BaseException) -> McpError:
    """The most telling error inside `exc`: authorization, then egress, then HTTP status, then transport."""
    # Only a session raises these, and a session has imported the SDK and its HTTP client already (see
    # `client.connect`); the API process, which only names these errors, never loads them.
    import httpx2
    from mcp.client.auth import OAuthFlowError, OAuthTokenError
    from mcp.shared.exceptions import MCPError

    found = list(leaves(exc))
    for item in found:
        if isinstance(item, McpError):
            return item
    for item in found:
        if isinstance(item, EgressDenied):
            return McpRefused(f"refused by the egress guard: {item.reason}")
    for item in found:
        if isinstance(item, OAuthFlowError | OAuthTokenError):
            return McpAuthorizationRequired(f"OAuth authorization failed: {item}")
    for item in found:
        if isinstance(item, httpx2.HTTPStatusError):
            status = item.response.status_code
            if status in (401, 403):
                return McpUnauthorized(f"the MCP server refused the credentials (HTTP {status})")
            return McpUnreachable(f"the MCP server answered HTTP {status}")
    for item in found:
        if isinstance(item, MCPError):
            return _from_mcp_error(item)
    for item in found:
        if isinstance(item, EgressError):
            return McpUnreachable(str(item))
        if isinstance(item, httpx2.TimeoutException):
            return McpUnreachable("the MCP server did not answer in time")
        if isinstance(item, httpx2.TransportError | OSError):
            return McpUnreachable(f"cannot reach the MCP server: {type(item).__name__}: {item}")
    for item in found:
        if isinstance(item, ValidationError | ValueError):
            return McpProtocolError("the MCP server answered something that is not MCP")
    first = found[0] if found else exc
    return McpUnreachable(f"the MCP session failed: {type(first).__name__}: {first}")


def _from_mcp_error(error: MCPError) -> McpError:
    text = str(error)
    lowered = text.lower()
    for status in ("401", "403"):
        if status in lowered and ("unauthor" in lowered or "forbidden" in lowered or "http" in lowered):
            return McpUnauthorized(f"the MCP server refused the credentials (HTTP {status})")
    if "connection closed" in lowered or "timed out" in lowered or "timeout" in lowered:
        return McpUnreachable(f"the MCP server stopped answering: {text}")
    if "parse" in lowered or "invalid json" in lowered or "unexpected content type" in lowered:
        return McpProtocolError(f"the MCP server answered something that is not MCP: {text}")
    return McpServerError(f"the MCP server answered an error: {text}")
