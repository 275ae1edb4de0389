"""Validation over the API: refused saves, warnings, the validate endpoint, the catalog and schemas."""

from __future__ import annotations

from httpx import AsyncClient
from jsonschema import Draft202012Validator

from tests.support.factories import Factory, minimal_definition


class TestSave:
    async def test_unsafe_template_is_refused_with_its_pointer(self, factory: Factory) -> None:
        owner = await factory.owner()
        definition = minimal_definition(
            plan=[
                {
                    "step_id": "a",
                    "action": "transform_data",
                    "config": {"output": "{{ run.__class__.__mro__ }}"},
                }
            ]
        )
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": definition}
        )
        assert response.status_code == 422
        details = response.json()["error"]["details"]
        assert {(d["path"], d["code"]) for d in details} == {
            ("/definition/plan/0/config/output", "unsafe_access")
        }
        assert (await owner.request("GET", owner.space_path("/automations"))).json()["items"] == []

    async def test_unknown_action_is_refused_on_update_and_nothing_changes(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.create_automation()
        path = owner.space_path(f"/automations/{created['id']}")
        broken = minimal_definition(plan=[{"step_id": "a", "action": "teleport"}])
        response = await owner.request("PUT", path, json={"definition": broken, "version": 1})
        assert response.status_code == 422
        assert response.json()["error"]["details"][0]["code"] == "unknown_action"
        assert (await owner.request("GET", path)).json()["version"] == 1

    async def test_warnings_do_not_block_and_are_answered(self, factory: Factory) -> None:
        owner = await factory.owner()
        definition = minimal_definition(triggers=[{"type": "schedule", "config": {"cron": "*/5 * * * *"}}])
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": definition}
        )
        assert response.status_code == 201
        assert [(w["path"], w["code"]) for w in response.json()["warnings"]] == [
            ("/triggers/0/config/cron", "schedule_frequent")
        ]


class TestValidateEndpoint:
    async def test_reports_errors_and_warnings_without_saving(self, factory: Factory) -> None:
        owner = await factory.owner()
        definition = minimal_definition(
            triggers=[{"type": "schedule", "config": {"cron": "* * * * *", "timezone": "Nowhere/Land"}}],
            plan=[{"step_id": "a", "action": "transform_data", "config": {"output": "{{ ghost }}"}}],
        )
        response = await owner.request(
            "POST", owner.space_path("/automations/validate"), json={"definition": definition}
        )
        assert response.status_code == 200
        body = response.json()
        assert body["valid"] is False
        assert {(e["path"], e["code"]) for e in body["errors"]} == {
            ("/triggers/0/config/timezone", "invalid_timezone"),
            ("/plan/0/config/output", "unknown_reference"),
        }
        assert [(w["path"], w["code"]) for w in body["warnings"]] == [
            ("/triggers/0/config/cron", "schedule_frequent")
        ]
        assert (await owner.request("GET", owner.space_path("/automations"))).json()["items"] == []

    async def test_valid_definition(self, factory: Factory) -> None:
        owner = await factory.owner()
        response = await owner.request(
            "POST", owner.space_path("/automations/validate"), json={"definition": minimal_definition()}
        )
        assert response.json() == {"valid": True, "errors": [], "warnings": []}

    async def test_other_space_is_404(self, factory: Factory) -> None:
        alice = await factory.owner()
        bob = await factory.owner()
        response = await bob.request(
            "POST", alice.space_path("/automations/validate"), json={"definition": minimal_definition()}
        )
        assert response.status_code == 404


class TestCatalogAndSchemas:
    async def test_catalog_lists_triggers_and_actions_with_schemas(self, factory: Factory) -> None:
        owner = await factory.owner()
        catalog = (await owner.request("GET", "/api/v1/catalog")).json()
        assert {t["type"] for t in catalog["triggers"]} == {"schedule", "webhook", "event"}
        assert "transform_data" in {a["type"] for a in catalog["actions"]}
        for entry in catalog["actions"] + catalog["triggers"]:
            assert entry["tier"] == "native"
            Draft202012Validator.check_schema(entry["config_schema"])
        assert "handler" not in str(catalog)

    async def test_catalog_needs_a_token(self, client: AsyncClient) -> None:
        assert (await client.get("/api/v1/catalog")).status_code == 401

    async def test_filter_schema_is_valid_json_schema(self, client: AsyncClient) -> None:
        schema = (await client.get("/api/v1/schemas/filter")).json()
        Draft202012Validator.check_schema(schema)
        validator = Draft202012Validator(schema)
        assert list(validator.iter_errors({"status": {"equals": "open"}})) == []
        assert list(validator.iter_errors({"status": {"resembles": "open"}}))
