"""The egress guard: every outbound HTTP request of the service is checked, pinned and capped here.

`check_url` validates a URL up front (at save time, say); `egress_client()` is the only client factory
for sending, and it checks again at connection time. See docs/egress.md for the user-facing rules.

The client (and httpx with it) loads on first use: processes that only check URLs or name the errors,
like the API, never import it.
"""

from typing import TYPE_CHECKING, Any

from app.security.egress.allowlist import EgressAllowList
from app.security.egress.carried import (
    MAX_HOSTS,
    CarriedSecret,
    carrying,
    host_allowed,
    host_pattern_problem,
    normalised_pattern,
)
from app.security.egress.errors import (
    EgressDenied,
    EgressError,
    RedirectLimitExceeded,
    RedirectRefused,
    ResponseTooLarge,
    SecretHostRefused,
    SecretRedirectRefused,
    display_url,
)
from app.security.egress.targets import Resolver, check_url, system_resolver

if TYPE_CHECKING:
    from app.security.egress.client import EgressClient, EgressResponse, egress_client

_CLIENT_NAMES = frozenset({"EgressClient", "EgressResponse", "egress_client"})

__all__ = [
    "MAX_HOSTS",
    "CarriedSecret",
    "EgressAllowList",
    "EgressClient",
    "EgressDenied",
    "EgressError",
    "EgressResponse",
    "RedirectLimitExceeded",
    "RedirectRefused",
    "Resolver",
    "ResponseTooLarge",
    "SecretHostRefused",
    "SecretRedirectRefused",
    "carrying",
    "check_url",
    "display_url",
    "egress_client",
    "host_allowed",
    "host_pattern_problem",
    "normalised_pattern",
    "system_resolver",
]


def __getattr__(name: str) -> Any:
    if name in _CLIENT_NAMES:
        from app.security.egress import client

        return getattr(client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
