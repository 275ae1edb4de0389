"""The invocations list and the approvals inbox take the same filters (run, status, capability, page),
narrow the same way, and refuse the same bad values with a 4xx."""

from __future__ import annotations

from typing import Any

import pytest

from tests.governed.helpers import name, waiting_run
from tests.support.factories import Caller, Factory
from tests.support.loopback import Loopback

LISTINGS = ("/invocations", "/approvals")


async def _ids(caller: Caller, listing: str, **params: Any) -> list[str]:
    response = await caller.request("GET", caller.space_path(listing), params=params)
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()["items"]]


async def test_both_listings_narrow_by_run_status_capability_and_page(
    factory: Factory, loopback: Loopback, stack: Any
) -> None:
    owner = await factory.owner()
    _, first = await waiting_run(owner, loopback, name("filter"))
    _, second = await waiting_run(owner, loopback, name("filter"))
    calls = {}
    for run in (first, second):
        [invocation] = run["invocations"]
        calls[run["id"]] = invocation["id"]
    newest_first = [calls[second["id"]], calls[first["id"]]]

    for listing in LISTINGS:
        assert await _ids(owner, listing) == newest_first, listing
        assert await _ids(owner, listing, run_id=first["id"]) == [calls[first["id"]]]
        assert await _ids(owner, listing, status=["pending", "denied"]) == newest_first
        assert await _ids(owner, listing, status="executed") == []
        assert await _ids(owner, listing, capability="http.request") == newest_first
        assert await _ids(owner, listing, capability="notify.send") == []

        response = await owner.request("GET", owner.space_path(listing), params={"limit": 1})
        page = response.json()
        assert [item["id"] for item in page["items"]] == newest_first[:1]
        rest = await _ids(owner, listing, limit=1, cursor=page["next_cursor"])
        assert rest == newest_first[1:], listing


@pytest.mark.parametrize("listing", LISTINGS)
@pytest.mark.parametrize(
    ("params", "status", "code"),
    [
        ({"run_id": "not-a-run"}, 422, "validation_failed"),
        ({"status": "paused"}, 422, "validation_failed"),
        ({"status": ["pending", "maybe"]}, 422, "validation_failed"),
        ({"capability": ""}, 422, "validation_failed"),
        ({"capability": "x" * 101}, 422, "validation_failed"),
        ({"limit": 0}, 422, "validation_failed"),
        ({"limit": "ten"}, 422, "validation_failed"),
        ({"limit": 100_000}, 400, "limit_too_large"),
        ({"cursor": "not a cursor"}, 400, "invalid_cursor"),
        ({"cursor": "x" * 513}, 422, "validation_failed"),
    ],
)
async def test_bad_filter_values_are_refused_clearly(
    factory: Factory, listing: str, params: dict[str, Any], status: int, code: str
) -> None:
    owner = await factory.owner()
    response = await owner.request("GET", owner.space_path(listing), params=params)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert error["details"], "the answer names the parameter it refuses"
