"""Typed failures of outbound requests, each with a stable `code` for API answers and run records."""

from __future__ import annotations

from urllib.parse import urlsplit

_MAX_DISPLAY = 200


def display_url(url: str) -> str:
    """The part of a URL that is safe to put in a message: scheme and host, never path or query.

    Paths and queries often carry credentials (Slack webhook paths, `?token=`), and userinfo always does.
    """
    try:
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
    except ValueError:
        return "<unparseable URL>"
    shown = f"{parts.scheme}://{host}" if parts.scheme else host or "<no host>"
    if parts.path not in ("", "/") or parts.query:
        shown += "/…"
    # Refused URLs may hold control characters; keep them out of log lines.
    return "".join(char if char.isprintable() else "?" for char in shown[:_MAX_DISPLAY])


class EgressError(Exception):
    """Base class: an outbound request was refused or stopped by the egress guard."""

    code = "egress_error"

    @property
    def url(self) -> str:
        """The URL of the request that failed (may hold credentials: show `display_url(url)` instead)."""
        return str(self.args[1])


class EgressDenied(EgressError):
    """The target is not allowed: bad URL syntax, a refused scheme, or a non-public address."""

    code = "egress_denied"

    def __init__(self, reason: str, url: str) -> None:
        # Both values go to args so the exception survives pickling (Celery sends errors between processes).
        super().__init__(reason, url)

    @property
    def reason(self) -> str:
        """Why the request was refused, in words a user can act on."""
        return str(self.args[0])

    def __str__(self) -> str:
        return f"request to {display_url(self.url)} refused: {self.reason}"


class ResponseTooLarge(EgressError):
    """The response body (after decompression) is larger than the client's limit."""

    code = "egress_response_too_large"

    def __init__(self, url: str, limit: int) -> None:
        super().__init__(limit, url)

    @property
    def limit(self) -> int:
        """The limit in bytes that the body went past."""
        return int(self.args[0])

    def __str__(self) -> str:
        return f"response from {display_url(self.url)} is larger than {self.limit} bytes"


class RedirectLimitExceeded(EgressError):
    """A request was redirected more often than the client allows (often a redirect loop)."""

    code = "egress_too_many_redirects"

    def __init__(self, url: str, limit: int) -> None:
        super().__init__(limit, url)

    @property
    def limit(self) -> int:
        """The number of redirects the client follows."""
        return int(self.args[0])

    def __str__(self) -> str:
        return f"request to {display_url(self.url)} was redirected more than {self.limit} times"


class SecretHostRefused(EgressError):
    """A request would carry a secret to a host the secret is not bound to."""

    code = "secret_host_refused"

    def __init__(self, name: str, hosts: tuple[str, ...], url: str) -> None:
        super().__init__((name, hosts), url)

    def __str__(self) -> str:
        name, hosts = self.args[0]
        return (
            f"the secret {name!r} may only be sent to {', '.join(hosts)}; "
            f"the request to {display_url(self.url)} was not sent"
        )


class RedirectRefused(EgressError):
    """A redirect to another origin that would resend the body (a 307 or 308) is not followed."""

    code = "egress_redirect_refused"

    def __init__(self, reason: str, url: str) -> None:
        super().__init__(reason, url)

    def __str__(self) -> str:
        return f"the redirect to {display_url(self.url)} was not followed: {self.args[0]}"


class SecretRedirectRefused(RedirectRefused):
    """A request that carries a secret is never redirected to another origin."""

    code = "secret_redirect_refused"
