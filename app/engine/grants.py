"""Tool grants (`execution.tool_grants`): the allow-list a run's calls must fit, when the list is present.

A call fits a grant when the grant names its capability (an id or a pattern), every key of the grant's
`params` is in the call's arguments with a deep-equal value (the call may add keys, never broaden
these), and, for `http.request`, the URL's host is one of the grant's `hosts` (`*.example.com` matches
subdomains only). `"hosts": ["*"]` is the explicit "any host": it restricts nothing, like no `hosts`
(which a definition with an agent step may no longer save; see `validation.spending`). The list is
read from the run's snapshot, so editing the automation mid-run changes nothing for that run.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

HTTP_REQUEST = "http.request"
ANY_HOST = "*"


def _covers(expected: Any, actual: Any) -> bool:
    # Deep equality, strict about types: True is not 1, 1 is not "1".
    return type(expected) is type(actual) and expected == actual


def _host_allowed(url: Any, hosts: Sequence[str]) -> bool:
    if not isinstance(url, str):
        return False
    try:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return False
    if not host:
        return False
    for pattern in hosts:
        pattern = pattern.lower()
        if pattern.startswith("*."):
            if host.endswith(pattern[1:]) and host != pattern[2:]:
                return True
        elif host == pattern:
            return True
    return False


def grant_fits(grant: Mapping[str, Any], capability_id: str, args: Mapping[str, Any]) -> bool:
    """Whether one grant lets this call through."""
    if not fnmatch.fnmatchcase(capability_id, str(grant.get("capability", ""))):
        return False
    for key, value in (grant.get("params") or {}).items():
        if key not in args or not _covers(value, args[key]):
            return False
    hosts = grant.get("hosts")
    if hosts is None or ANY_HOST in hosts:
        return True
    return capability_id == HTTP_REQUEST and _host_allowed(args.get("url"), hosts)


def granted(grants: Sequence[Mapping[str, Any]] | None, capability_id: str, args: Mapping[str, Any]) -> bool:
    """No list: everything is granted. A list: some grant must fit the call."""
    if grants is None:
        return True
    return any(grant_fits(grant, capability_id, args) for grant in grants)
