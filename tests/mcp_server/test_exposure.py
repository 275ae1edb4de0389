"""Exposing an automation as an MCP tool: off by default, a checked name, unique in its space."""

from __future__ import annotations

from httpx import AsyncClient

from tests.mcp_server.conftest import exposed
from tests.support.factories import Factory, minimal_definition


class TestToolNames:
    async def test_a_second_automation_cannot_take_a_tool_name_in_the_same_space(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        first = await owner.create_automation(exposed("greet"))
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": exposed("greet")}
        )
        assert response.status_code == 409, response.text
        error = response.json()["error"]
        assert error["code"] == "mcp_tool_name_taken"
        assert error["details"][0]["path"] == "/definition/expose/mcp/tool_name"
        assert first["name"] in error["message"]
        names = [
            a["id"] for a in (await owner.request("GET", owner.space_path("/automations"))).json()["items"]
        ]
        assert names == [first["id"]], "nothing was saved"

    async def test_an_edit_that_takes_a_name_in_use_is_refused_and_changes_nothing(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        await owner.create_automation(exposed("greet"))
        second = await owner.create_automation(exposed("other"))
        response = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{second['id']}"),
            json={"definition": exposed("greet"), "version": second["version"]},
        )
        assert response.status_code == 409, response.text
        assert response.json()["error"]["code"] == "mcp_tool_name_taken"
        kept = (await owner.request("GET", owner.space_path(f"/automations/{second['id']}"))).json()
        assert kept["version"] == second["version"]
        assert kept["definition"]["expose"]["mcp"]["tool_name"] == "other"

    async def test_an_automation_keeps_its_own_name_across_edits_and_frees_it_when_unexposed(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        first = await owner.create_automation(exposed("greet"))
        edited = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{first['id']}"),
            json={"definition": exposed("greet", description="Greets warmly."), "version": 1},
        )
        assert edited.status_code == 200, edited.text
        unexposed = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{first['id']}"),
            json={"definition": minimal_definition(), "version": 2},
        )
        assert unexposed.status_code == 200, unexposed.text
        assert "expose" not in unexposed.json()["definition"]
        await owner.create_automation(exposed("greet"))  # the name is free again

    async def test_two_spaces_may_use_the_same_tool_name(self, factory: Factory) -> None:
        alice = await factory.owner("Alice's")
        bob = await factory.owner("Bob's")
        await alice.create_automation(exposed("greet"))
        await bob.create_automation(exposed("greet"))

    async def test_a_malformed_tool_name_is_refused_with_its_pointer(self, factory: Factory) -> None:
        owner = await factory.owner()
        for bad in ("", "1st", "has space", "x" * 65, "dots.not.allowed"):
            response = await owner.request(
                "POST", owner.space_path("/automations"), json={"definition": exposed(bad)}
            )
            assert response.status_code == 422, (bad, response.text)
            paths = [detail["path"] for detail in response.json()["error"]["details"]]
            assert any(path.endswith("/expose/mcp/tool_name") for path in paths), (bad, paths)

    async def test_exposure_is_off_by_default(self, factory: Factory) -> None:
        owner = await factory.owner()
        plain = await owner.create_automation()
        assert "expose" not in plain["definition"]


async def test_the_published_definition_schema_documents_expose(client: AsyncClient) -> None:
    schema = (await client.get("/api/v1/schemas/definition")).json()
    assert "expose" in schema["properties"]
    mcp = schema["$defs"]["McpExposure"]
    assert mcp["required"] == ["tool_name"]
    assert mcp["properties"]["tool_name"]["pattern"] == "^[A-Za-z][A-Za-z0-9_-]{0,63}$"
