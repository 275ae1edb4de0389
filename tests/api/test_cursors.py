"""A cursor is user input: anything `next_cursor` could not have been is a 400, never a 500."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.support.factories import Caller, Factory

NIL = "00000000-0000-0000-0000-000000000000"


def _cursor(values: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(values).encode()).decode().rstrip("=")


@pytest.fixture
async def owner(factory: Factory) -> Caller:
    return await factory.owner()


class TestForgedCursors:
    @pytest.mark.parametrize(
        "values",
        [
            ["2024-01-01T00:00:00+00:00", 5],
            [5, NIL],
            [["2024-01-01T00:00:00+00:00"], {"id": NIL}],
            ["2024-01-01T00:00:00", NIL],
            ["9999-12-31T23:59:59-14:00", NIL],
            ["2024-01-01T00:00:00+00:00", "not-a-uuid"],
            [None, None],
            {"created_at": "2024-01-01T00:00:00+00:00"},
        ],
        ids=[
            "int-as-uuid",
            "int-as-time",
            "containers",
            "naive-time",
            "time-past-9999",
            "bad-uuid",
            "nulls",
            "object",
        ],
    )
    async def test_forged_time_and_id_cursor_is_400(self, owner: Caller, values: Any) -> None:
        response = await owner.request("GET", owner.space_path("/runs"), params={"cursor": _cursor(values)})
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["code"] == "invalid_cursor"
        assert error["details"] == [
            {"path": "/query/cursor", "message": "use next_cursor from a previous page"}
        ]

    @pytest.mark.parametrize("version", [10**30, 2**31, -(2**31) - 1, True, 1.5, "1"])
    async def test_version_cursor_out_of_range_or_type_is_400(self, owner: Caller, version: Any) -> None:
        automation = await owner.create_automation()
        response = await owner.request(
            "GET",
            owner.space_path(f"/automations/{automation['id']}/versions"),
            params={"cursor": _cursor([version])},
        )
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "invalid_cursor"

    @pytest.mark.parametrize(
        "name", [5, None, ["a"], "a\u0000b", "\ud800"], ids=["int", "null", "list", "nul", "surrogate"]
    )
    async def test_forged_name_cursor_is_400(self, owner: Caller, name: Any) -> None:
        raw = json.dumps([name]).encode()
        cursor = base64.urlsafe_b64encode(raw).decode().rstrip("=")
        response = await owner.request("GET", owner.space_path("/secrets"), params={"cursor": cursor})
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "invalid_cursor"

    @pytest.mark.parametrize("cursor", ["!!!", "%%%", "a", "bnVsbA", "W10"])
    async def test_cursor_that_is_not_base64_json_list_is_400(self, owner: Caller, cursor: str) -> None:
        response = await owner.request("GET", owner.space_path("/automations"), params={"cursor": cursor})
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "invalid_cursor"

    async def test_cursor_over_512_characters_is_422(self, owner: Caller) -> None:
        response = await owner.request("GET", owner.space_path("/runs"), params={"cursor": "A" * 513})
        assert response.status_code == 422
        assert response.json()["error"]["details"][0]["path"] == "/query/cursor"


class TestGenuineCursors:
    async def test_next_cursor_pages_through_versions(self, owner: Caller) -> None:
        automation = await owner.create_automation()
        path = owner.space_path(f"/automations/{automation['id']}")
        for version in (1, 2):
            saved = await owner.request(
                "PUT", path, json={"definition": automation["definition"], "version": version}
            )
            assert saved.status_code == 200, saved.text
        first = (await owner.request("GET", f"{path}/versions", params={"limit": 2})).json()
        second = (
            await owner.request(
                "GET", f"{path}/versions", params={"limit": 2, "cursor": first["next_cursor"]}
            )
        ).json()
        assert [v["version"] for v in first["items"] + second["items"]] == [3, 2, 1]
        assert second["next_cursor"] is None
