"""What an outgoing request may carry: secrets only to their hosts, credentials never across origins.

Two checks, both made by the transport before it opens a connection:

- `check_request`: a request holding the value of a secret the call carries (`carried`) goes only to a
  host that secret is bound to.
- `redirect_checked` (on the request a redirect would send next): to another origin (scheme, host or
  port differ), Authorization, Proxy-Authorization and Cookie headers are dropped; a request that held
  a carried secret anywhere (URL, header, body) is not followed at all, because dropping the parts that
  held it would send a different request than the one written; and a 307/308, which repeats method and
  body, is not followed with a body. A refusal is recorded on the next request and raised by the
  transport if that request is actually sent, so a caller that does not follow redirects (webhook
  deliveries) still sees the 3xx answer.
"""

from __future__ import annotations

import contextlib

import httpx

from app.security.egress.carried import CarriedSecret, carried, found_in
from app.security.egress.errors import RedirectRefused, SecretHostRefused, SecretRedirectRefused

CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "cookie")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_REFUSAL = "egress_redirect_refusal"


def check_request(request: httpx.Request) -> None:
    """Raise if the request is a refused redirect, or carries a secret to a host it is not bound to."""
    refusal = request.extensions.get(_REFUSAL)
    if refusal is not None:
        kind, reason = refusal
        error = SecretRedirectRefused if kind == "secret" else RedirectRefused
        raise error(reason, str(request.url))
    secrets = carried()
    if not secrets:
        return
    host = request.url.host
    for secret in found_in(_parts(request), secrets):
        if not secret.allows(host):
            raise SecretHostRefused(secret.name, secret.hosts, str(request.url))


def redirect_checked(request: httpx.Request, following: httpx.Request) -> httpx.Request:
    """`following` (httpx's next request after a redirect of `request`) made safe for another origin."""
    if _origin(request.url) == _origin(following.url):
        return following
    for name in CREDENTIAL_HEADERS:
        following.headers.pop(name, None)
    held = _held(request)
    if held:
        names = ", ".join(sorted({repr(secret.name) for secret in held}))
        reason = (
            f"the request carries the secret {names}, and a secret never follows a redirect to another origin"
        )
        following.extensions = {**following.extensions, _REFUSAL: ("secret", reason)}
    elif following.method == request.method and _has_body(request):
        reason = f"a {request.method} with a body is never resent to another origin"
        following.extensions = {**following.extensions, _REFUSAL: ("body", reason)}
    return following


def _held(request: httpx.Request) -> list[CarriedSecret]:
    secrets = carried()
    return found_in(_parts(request), secrets) if secrets else []


def _parts(request: httpx.Request) -> list[bytes]:
    parts = [str(request.url).encode("utf-8"), *(value for _, value in request.headers.raw)]
    # A streamed body cannot be read here; every body this service sends is built in memory.
    with contextlib.suppress(httpx.RequestNotRead):
        parts.append(request.content)
    return parts


def _has_body(request: httpx.Request) -> bool:
    length = request.headers.get("content-length")
    return "transfer-encoding" in request.headers or (length is not None and length.strip() != "0")


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)
