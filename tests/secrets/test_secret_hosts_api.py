"""A secret's hosts: set with the value or alone (admin), shown with its metadata, checked with pointers."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.factories import Caller, Factory


async def put(owner: Caller, body: dict[str, Any], name: str = "api_key") -> Any:
    return await owner.request("PUT", owner.space_path(f"/secrets/{name}"), json=body)


async def test_hosts_are_set_with_the_value_normalised_and_shown_never_the_value(factory: Factory) -> None:
    owner = await factory.owner()
    response = await put(
        owner, {"value": "v-123456", "hosts": ["API.Example.com.", "*.example.org", "api.example.com"]}
    )
    assert response.status_code == 201, response.text
    assert response.json()["hosts"] == ["api.example.com", "*.example.org"]
    listed = await owner.request("GET", owner.space_path("/secrets"))
    [item] = listed.json()["items"]
    assert item["hosts"] == ["api.example.com", "*.example.org"]
    assert "v-123456" not in listed.text


async def test_a_new_secret_has_no_hosts_and_a_replaced_value_keeps_them(factory: Factory) -> None:
    owner = await factory.owner()
    assert (await put(owner, {"value": "v-1"})).json()["hosts"] == []
    bound = await owner.request(
        "PUT", owner.space_path("/secrets/api_key/hosts"), json={"hosts": ["api.example.com"]}
    )
    assert bound.status_code == 200, bound.text
    replaced = await put(owner, {"value": "v-2"})
    assert replaced.status_code == 200
    assert replaced.json()["hosts"] == ["api.example.com"]
    cleared = await put(owner, {"value": "v-3", "hosts": []})
    assert cleared.json()["hosts"] == []


@pytest.mark.parametrize(
    ("hosts", "pointer"),
    [
        (["api.example.com", "https://evil.test/"], "/hosts/1"),
        (["api.example.com:8443"], "/hosts/0"),
        (["*"], "/hosts/0"),
        (["*.com"], "/hosts/0"),
        ([""], "/hosts/0"),
        (["ok.example.com", "no spaces.example.com"], "/hosts/1"),
        ([f"h{i}.example.com" for i in range(21)], "/hosts"),
    ],
)
async def test_bad_hosts_are_refused_with_a_pointer_and_change_nothing(
    factory: Factory, hosts: list[str], pointer: str
) -> None:
    owner = await factory.owner()
    response = await put(owner, {"value": "v-1", "hosts": hosts})
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_secret_hosts"
    assert error["details"][0]["path"] == pointer
    assert (await owner.request("GET", owner.space_path("/secrets/api_key"))).status_code == 404
    await put(owner, {"value": "v-1"})
    alone = await owner.request("PUT", owner.space_path("/secrets/api_key/hosts"), json={"hosts": hosts})
    assert alone.status_code == 422
    assert alone.json()["error"]["details"][0]["path"] == pointer


@pytest.mark.parametrize("body", [{"hosts": "api.example.com"}, {"hosts": [1]}, {}, {"hosts": None}])
async def test_a_malformed_hosts_body_is_a_422(factory: Factory, body: dict[str, Any]) -> None:
    owner = await factory.owner()
    await put(owner, {"value": "v-1"})
    response = await owner.request("PUT", owner.space_path("/secrets/api_key/hosts"), json=body)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["details"][0]["path"].startswith("/hosts")


async def test_only_an_admin_binds_and_an_unknown_secret_is_404(factory: Factory) -> None:
    owner = await factory.owner()
    await put(owner, {"value": "v-1"})
    member = await factory.member(owner)
    refused = await member.request(
        "PUT", member.space_path("/secrets/api_key/hosts"), json={"hosts": ["evil.test"]}
    )
    assert refused.status_code == 403
    assert (await member.request("GET", member.space_path("/secrets/api_key"))).json()["hosts"] == []
    missing = await owner.request("PUT", owner.space_path("/secrets/nope/hosts"), json={"hosts": []})
    assert missing.status_code == 404
    other = await factory.owner(space="Other")
    elsewhere = await other.request(
        "PUT", other.space_path("/secrets/api_key/hosts", owner.space_id), json={"hosts": []}
    )
    assert elsewhere.status_code in (403, 404)


async def test_saving_a_definition_with_an_unbound_secret_warns(factory: Factory) -> None:
    owner = await factory.owner()
    await put(owner, {"value": "v-1"})
    document = {
        "schema_version": "1.0",
        "name": "Uses a secret",
        "plan": [
            {
                "step_id": "call",
                "action": "http_request",
                "config": {"url": "https://api.example.com/x", "headers": {"X-Key": {"$secret": "api_key"}}},
            }
        ],
    }
    response = await owner.request("POST", owner.space_path("/automations"), json={"definition": document})
    assert response.status_code == 201, response.text
    [warning] = [w for w in response.json()["warnings"] if w["code"] == "secret_unbound"]
    assert warning["path"] == "/plan/0/config/headers/X-Key"
    assert "any public host" in warning["message"]
    assert "api.example.com" in warning["message"]
    # The secrets list suggests that host; nothing is bound until an admin confirms it.
    [listed] = (await owner.request("GET", owner.space_path("/secrets"))).json()["items"]
    assert (listed["hosts"], listed["suggested_hosts"]) == ([], ["api.example.com"])
    one = (await owner.request("GET", owner.space_path("/secrets/api_key"))).json()
    assert one["suggested_hosts"] == ["api.example.com"]
    await owner.request(
        "PUT", owner.space_path("/secrets/api_key/hosts"), json={"hosts": ["api.example.com"]}
    )
    again = await owner.request(
        "POST", owner.space_path("/automations/validate"), json={"definition": document}
    )
    assert [w for w in again.json()["warnings"] if w["code"] == "secret_unbound"] == []
    [listed] = (await owner.request("GET", owner.space_path("/secrets"))).json()["items"]
    assert (listed["hosts"], listed["suggested_hosts"]) == (["api.example.com"], [])


async def test_no_host_is_suggested_for_a_templated_url_or_another_space(factory: Factory) -> None:
    owner = await factory.owner()
    other = await factory.owner(space="Other")
    for caller in (owner, other):
        await put(caller, {"value": "v-1"})
    templated = {
        "schema_version": "1.0",
        "name": "Templated",
        "plan": [
            {
                "step_id": "call",
                "action": "http_request",
                "config": {"url": "{{ inputs.u }}", "headers": {"X-Key": {"$secret": "api_key"}}},
            }
        ],
    }
    await owner.create_automation(templated)
    elsewhere = dict(
        templated,
        plan=[
            {
                **templated["plan"][0],
                "config": {"url": "https://b.example/x", "headers": {"X-Key": {"$secret": "api_key"}}},
            }
        ],
    )
    await other.create_automation(elsewhere)
    [listed] = (await owner.request("GET", owner.space_path("/secrets"))).json()["items"]
    assert listed["suggested_hosts"] == []
