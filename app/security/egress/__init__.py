"""The egress guard: every outbound HTTP request of the service is checked, pinned and capped here.

`check_url` validates a URL up front (at save time, say); `egress_client()` is the only client factory
for sending, and it checks again at connection time. See docs/egress.md for the user-facing rules.
"""

from app.security.egress.allowlist import EgressAllowList
from app.security.egress.client import EgressClient, EgressResponse, egress_client
from app.security.egress.errors import (
    EgressDenied,
    EgressError,
    RedirectLimitExceeded,
    ResponseTooLarge,
    display_url,
)
from app.security.egress.targets import Resolver, check_url, system_resolver

__all__ = [
    "EgressAllowList",
    "EgressClient",
    "EgressDenied",
    "EgressError",
    "EgressResponse",
    "RedirectLimitExceeded",
    "Resolver",
    "ResponseTooLarge",
    "check_url",
    "display_url",
    "egress_client",
    "system_resolver",
]
