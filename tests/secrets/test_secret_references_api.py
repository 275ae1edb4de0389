"""Saving a definition whose step names a secret: the space must have it, as the validator says where."""

from __future__ import annotations

from typing import Any

from tests.support.factories import Caller, Factory


def with_reference(name: str) -> dict[str, Any]:
    return {
        "schema_version": "1.0",
        "name": "Uses a secret",
        "plan": [
            {
                "step_id": "call",
                "action": "http_request",
                "config": {
                    "url": "https://api.example.com/x",
                    "headers": {"Authorization": {"$secret": name}},
                },
            }
        ],
    }


async def store(owner: Caller, name: str) -> None:
    response = await owner.request("PUT", owner.space_path(f"/secrets/{name}"), json={"value": "v-123456"})
    assert response.status_code == 201, response.text


async def test_a_reference_to_a_missing_secret_is_refused_with_its_pointer(factory: Factory) -> None:
    owner = await factory.owner()
    other = await factory.owner(space="Other")
    await store(other, "crm_token")  # another space's secret does not count
    response = await owner.request(
        "POST", owner.space_path("/automations"), json={"definition": with_reference("crm_token")}
    )
    assert response.status_code == 422
    [detail] = response.json()["error"]["details"]
    assert detail["path"] == "/definition/plan/0/config/headers/Authorization"
    assert detail["code"] == "unknown_secret"

    checked = await owner.request(
        "POST", owner.space_path("/automations/validate"), json={"definition": with_reference("crm_token")}
    )
    assert checked.status_code == 200
    assert [(e["path"], e["code"]) for e in checked.json()["errors"]] == [
        ("/plan/0/config/headers/Authorization", "unknown_secret")
    ]


async def test_once_stored_the_reference_saves_and_records_only_the_reference(factory: Factory) -> None:
    owner = await factory.owner()
    await store(owner, "crm_token")
    saved = await owner.create_automation(with_reference("crm_token"))
    headers = saved["definition"]["plan"][0]["config"]["headers"]
    assert headers == {"Authorization": {"$secret": "crm_token"}}
