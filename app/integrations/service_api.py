"""A small client of the service's own REST API (`/api/v1`), for the commands that work through it.

`automations export` and `automations apply` are clients of the public API, as the web UI is: they
reach a running server at the URL its operator gives, with a token from the environment. The server is
the operator's own, named by them (never by a definition or a user of the service), so it is a trusted
destination and not sent through the egress guard, which would refuse the private addresses such a
server usually has.

Every answer that is not a success becomes `ApiRefused` carrying the API's error body: its stable
`code`, its `message` and the JSON pointers of its `details`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

PAGE = 100
TIMEOUT_SECONDS = 60.0


@dataclass(frozen=True)
class Detail:
    """One located problem of an error answer."""

    path: str
    message: str


@dataclass
class ApiRefused(Exception):
    """An error answer of the API (or no answer at all: `status` 0, code `unreachable`)."""

    status: int
    code: str
    message: str
    details: list[Detail] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.message} [{self.code}]"


class ServiceApi:
    """The calls `automations export` and `apply` make, as one API token."""

    def __init__(self, base_url: str, token: str, transport: httpx.BaseTransport | None = None) -> None:
        # The operator's own server, not user input: see the module docstring.
        self._client = httpx.Client(  # noqa: TID251
            base_url=base_url.rstrip("/") + "/api/v1",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=TIMEOUT_SECONDS,
            transport=transport,
            follow_redirects=False,
        )

    def __enter__(self) -> ServiceApi:
        return self

    def __exit__(self, *_: object) -> None:
        self._client.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self._client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ApiRefused(0, "unreachable", f"cannot reach {self._client.base_url}: {exc}") from None
        if response.is_success:
            return response.json() if response.content else None
        raise _refusal(response)

    def _pages(self, path: str, **params: Any) -> Iterator[dict[str, Any]]:
        cursor: str | None = None
        while True:
            page = self._call("GET", path, params={**params, "limit": PAGE, "cursor": cursor})
            yield from page["items"]
            cursor = page.get("next_cursor")
            if not cursor:
                return

    def space(self, space: str) -> dict[str, Any]:
        """A space the token's user belongs to, by id or by name (a name needs a full-access token:
        a scoped token names its space by id)."""
        try:
            uuid.UUID(space)
        except ValueError:
            try:
                named = [found for found in self._pages("/spaces") if found["name"] == space]
            except ApiRefused as exc:
                if exc.code == "token_scope_insufficient":
                    exc.message = f"a scoped token names its space by id, not by name ({space!r})"
                raise
            if len(named) != 1:
                raise ApiRefused(
                    404,
                    "space_not_found" if not named else "space_ambiguous",
                    f"you are a member of {len(named)} spaces named {space!r}; give the space's id",
                ) from None
            space = named[0]["id"]
        found: dict[str, Any] = self._call("GET", f"/spaces/{space}")
        return found

    def automations(self, space_id: str) -> list[dict[str, Any]]:
        """The space's active and paused automations."""
        return list(self._pages(f"/spaces/{space_id}/automations"))

    def action_modes(self, space_id: str, automation_id: str) -> dict[str, Any]:
        """An automation's mode overrides and rules: `{"modes": {...}, "rules": [...]}`."""
        modes: dict[str, Any] = self._call(
            "GET", f"/spaces/{space_id}/automations/{automation_id}/action-modes"
        )
        return modes

    def approval_grants(self, space_id: str, automation_id: str) -> list[dict[str, Any]]:
        """An automation's standing approvals, live and lapsed."""
        return list(self._pages(f"/spaces/{space_id}/automations/{automation_id}/approval-grants"))

    def validate(self, space_id: str, definition: dict[str, Any]) -> dict[str, Any]:
        """The space validator's verdict: `{"valid", "errors", "warnings"}`, pointers in the definition."""
        verdict: dict[str, Any] = self._call(
            "POST", f"/spaces/{space_id}/automations/validate", json={"definition": definition}
        )
        return verdict

    def create(self, space_id: str, definition: dict[str, Any]) -> dict[str, Any]:
        """A new automation (saved paused)."""
        saved: dict[str, Any] = self._call(
            "POST", f"/spaces/{space_id}/automations", json={"definition": definition}
        )
        return saved

    def update(
        self, space_id: str, automation_id: str, definition: dict[str, Any], expected_version: int | None
    ) -> dict[str, Any]:
        """Replace the definition if the automation is still at `expected_version` (None: any version)."""
        if_match = "*" if expected_version is None else f'"{expected_version}"'
        saved: dict[str, Any] = self._call(
            "PUT",
            f"/spaces/{space_id}/automations/{automation_id}",
            json={"definition": definition},
            headers={"If-Match": if_match},
        )
        return saved

    def set_action_modes(
        self, space_id: str, automation_id: str, modes: dict[str, Any], rules: list[Any]
    ) -> None:
        self._call(
            "PUT",
            f"/spaces/{space_id}/automations/{automation_id}/action-modes",
            json={"modes": modes, "rules": rules},
        )

    def activate(self, space_id: str, automation_id: str, coexistence_note: str | None) -> None:
        """Activate; a coexistence note acknowledges the overlaps it explains."""
        body = (
            {"acknowledged_overlap": True, "coexistence_note": coexistence_note}
            if coexistence_note is not None
            else None
        )
        self._call("POST", f"/spaces/{space_id}/automations/{automation_id}/activate", json=body)

    def pause(self, space_id: str, automation_id: str) -> None:
        self._call("POST", f"/spaces/{space_id}/automations/{automation_id}/pause")


def _refusal(response: httpx.Response) -> ApiRefused:
    try:
        error = response.json()["error"]
        details = [
            Detail(str(detail.get("path") or ""), str(detail.get("message") or ""))
            for detail in error.get("details") or []
        ]
        return ApiRefused(response.status_code, str(error["code"]), str(error["message"]), details)
    except (ValueError, KeyError, TypeError, AttributeError):
        # Not the API's error body: a proxy's page, or not this service at all.
        return ApiRefused(
            response.status_code,
            "unexpected_answer",
            f"HTTP {response.status_code} from {response.request.url} is not an answer of this service",
        )
