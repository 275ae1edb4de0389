"""The plugin routes, the space's catalog and validation as plugins are switched on and off."""

from __future__ import annotations

from typing import Any

from tests.support.factories import Caller, Factory
from tests.support.round_trips import counted

NOOP_STEP = {"step_id": "noop", "action": "transform_data", "config": {"output": "x"}}
CHECK_STEP = {"step_id": "check", "action": "uptime.check", "config": {"url": "https://example.com"}}


def document(*, steps: list[dict[str, Any]] | None = None, event_type: str | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema_version": "1.0",
        "name": "Uptime",
        "plan": steps if steps is not None else [CHECK_STEP],
    }
    if event_type is not None:
        doc["triggers"] = [{"type": "event", "config": {"event_type": event_type}}]
    return doc


async def switch(caller: Caller, plugin_id: str, enabled: Any) -> Any:
    return await caller.request("PUT", caller.space_path(f"/plugins/{plugin_id}"), json={"enabled": enabled})


async def plugins(caller: Caller) -> dict[str, dict[str, Any]]:
    response = await caller.request("GET", caller.space_path("/plugins"))
    assert response.status_code == 200, response.text
    return {item["id"]: item for item in response.json()}


async def space_catalog(caller: Caller) -> dict[str, Any]:
    response = await caller.request("GET", caller.space_path("/catalog"))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def problem_codes(caller: Caller, doc: dict[str, Any]) -> list[str]:
    response = await caller.request(
        "POST", caller.space_path("/automations/validate"), json={"definition": doc}
    )
    assert response.status_code == 200, response.text
    return [problem["code"] for problem in response.json()["errors"]]


class TestListing:
    async def test_installed_plugins_start_disabled_with_their_registrations(self, factory: Factory) -> None:
        owner = await factory.owner()
        uptime = (await plugins(owner))["uptime"]
        assert uptime["state"] == "disabled"
        assert uptime["enabled"] is False
        assert uptime["version"] == "0.1.0"
        assert uptime["namespace"] == "uptime"
        assert uptime["packages"] == ["automations-uptime 0.1.0"]
        assert uptime["error"] is None
        registrations = uptime["registrations"]
        assert [t["type"] for t in registrations["triggers"]] == ["uptime.site_down"]
        assert [(a["id"], a["risk"]) for a in registrations["actions"]] == [("uptime.check", "read")]
        assert [(t["id"], t["risk"]) for t in registrations["tools"]] == [("uptime.page_status", "read")]

    async def test_a_broken_and_an_unlisted_plugin_show_their_state(self, factory: Factory) -> None:
        owner = await factory.owner()
        listed = await plugins(owner)
        assert listed["broken"]["state"] == "error"
        assert "a dependency of this plugin is missing" in listed["broken"]["error"]
        assert listed["broken"]["registrations"] == {
            "triggers": [],
            "actions": [],
            "tools": [],
            "pollers": [],
            "subscriptions": [],
            "settings_schema": None,
        }
        assert listed["unlisted"]["state"] == "not_allowed"
        assert listed["uptime"]["state"] == "disabled"  # the others started
        for plugin_id in ("broken", "unlisted"):
            response = await switch(owner, plugin_id, True)
            assert response.status_code == 409, response.text
            assert response.json()["error"]["code"] == "plugin_unavailable"
            response = await switch(owner, plugin_id, False)
            assert response.status_code == 200, response.text

    async def test_a_member_reads_but_cannot_switch(self, factory: Factory) -> None:
        owner = await factory.owner()
        member = await factory.member(owner)
        assert "uptime" in await plugins(member)
        response = await switch(member, "uptime", True)
        assert response.status_code == 403, response.text
        assert response.json()["error"]["code"] == "role_insufficient"

    async def test_another_space_is_404(self, factory: Factory) -> None:
        owner, stranger = await factory.owner(), await factory.owner("Other")
        response = await stranger.request("GET", stranger.space_path("/plugins", owner.space_id))
        assert response.status_code == 404
        response = await stranger.request(
            "PUT", stranger.space_path("/plugins/uptime", owner.space_id), json={"enabled": True}
        )
        assert response.status_code == 404


class TestSwitching:
    async def test_admin_enables_and_disables(self, factory: Factory) -> None:
        owner = await factory.owner()
        admin = await factory.member(owner, "admin")
        response = await switch(admin, "uptime", True)
        assert response.status_code == 200, response.text
        assert response.json()["state"] == "enabled"
        assert (await plugins(owner))["uptime"]["enabled"] is True
        response = await switch(admin, "uptime", False)
        assert response.json()["state"] == "disabled"
        assert (await plugins(owner))["uptime"]["enabled"] is False

    async def test_unknown_plugin_is_404_and_a_bad_id_is_refused(self, factory: Factory) -> None:
        owner = await factory.owner()
        response = await switch(owner, "not-installed", True)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "plugin_not_found"
        response = await switch(owner, "Bad_ID!", True)
        assert 400 <= response.status_code < 500

    async def test_one_plugin_reads_like_its_list_entry(self, factory: Factory) -> None:
        owner = await factory.owner()
        response = await owner.request("GET", owner.space_path("/plugins/uptime"))
        assert response.status_code == 200, response.text
        assert response.json() == (await plugins(owner))["uptime"]
        response = await owner.request("GET", owner.space_path("/plugins/not-installed"))
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "plugin_not_found"

    async def test_bad_bodies_are_4xx(self, factory: Factory) -> None:
        owner = await factory.owner()
        for body in ({"enabled": "yes"}, {}, {"enabled": True, "extra": 1}, [], {"enabled": 1}):
            response = await owner.request("PUT", owner.space_path("/plugins/uptime"), json=body)
            assert response.status_code == 422, (body, response.text)

    async def test_switching_one_space_leaves_the_other_alone(self, factory: Factory) -> None:
        first, second = await factory.owner(), await factory.owner("Second")
        await switch(first, "uptime", True)
        assert (await plugins(second))["uptime"]["enabled"] is False
        assert "uptime.check" not in {c["id"] for c in (await space_catalog(second))["capabilities"]}


class TestCatalog:
    async def test_enabled_plugin_entries_carry_tier_and_plugin_id(self, factory: Factory) -> None:
        owner = await factory.owner()
        await switch(owner, "uptime", True)
        catalog = await space_catalog(owner)
        capabilities = {c["id"]: c for c in catalog["capabilities"]}
        assert capabilities["uptime.page_status"]["tier"] == "plugin"
        assert capabilities["uptime.page_status"]["plugin"] == "uptime"
        assert capabilities["uptime.check"]["risk"] == "read"
        actions = {a["type"]: a for a in catalog["actions"]}
        assert (actions["uptime.check"]["tier"], actions["uptime.check"]["plugin"]) == ("plugin", "uptime")
        assert [(e["type"], e["tier"], e["plugin"]) for e in catalog["events"] if e["tier"] == "plugin"] == [
            ("uptime.site_down", "plugin", "uptime")
        ]
        assert "plugin" not in capabilities["http.request"]

    async def test_the_space_catalog_is_read_in_the_requests_transaction_and_the_plugins_once(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        await switch(owner, "uptime", True)
        with counted(factory.app) as sent:
            catalog = await space_catalog(owner)
        assert "uptime.check" in {a["type"] for a in catalog["actions"]}
        assert sum("space_plugins" in statement for statement in sent) == 1, sent
        assert sent.count("BEGIN") == 1, sent

    async def test_disabling_removes_the_names_from_the_catalog(self, factory: Factory) -> None:
        owner = await factory.owner()
        await switch(owner, "uptime", True)
        await switch(owner, "uptime", False)
        catalog = await space_catalog(owner)
        assert not [c for c in catalog["capabilities"] if c["tier"] == "plugin"]
        assert not [a for a in catalog["actions"] if a["tier"] == "plugin"]
        assert [e for e in catalog["events"] if e["tier"] == "plugin"] == []

    async def test_the_shared_catalog_has_no_plugin_entries(self, factory: Factory, client: Any) -> None:
        owner = await factory.owner()
        await switch(owner, "uptime", True)
        response = await owner.request("GET", "/api/v1/catalog")
        assert response.status_code == 200
        assert not [c for c in response.json()["capabilities"] if c["tier"] == "plugin"]


class TestValidation:
    async def test_a_disabled_plugin_action_is_unknown_on_save(self, factory: Factory) -> None:
        owner = await factory.owner()
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": document()}
        )
        assert response.status_code == 422, response.text
        problems = response.json()["error"]["details"]
        codes = {problem["path"]: problem["code"] for problem in problems}
        assert codes.get("/definition/plan/0/action") == "unknown_action", problems

    async def test_an_enabled_plugin_action_saves_and_its_config_is_checked(self, factory: Factory) -> None:
        owner = await factory.owner()
        await switch(owner, "uptime", True)
        await owner.create_automation(document())
        bad = document(steps=[{**CHECK_STEP, "config": {"url": "https://example.com", "nope": 1}}])
        response = await owner.request("POST", owner.space_path("/automations"), json={"definition": bad})
        assert response.status_code == 422, response.text

    async def test_an_event_trigger_on_a_plugin_event_needs_the_plugin_enabled(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        for event_type in ("uptime.site_down", "uptime.*", "uptime.not_declared"):
            doc = document(event_type=event_type, steps=[NOOP_STEP])
            codes = await problem_codes(owner, doc)
            assert "unknown_event_type" in codes, (event_type, codes)
        await switch(owner, "uptime", True)
        for event_type, known in (
            ("uptime.site_down", True),
            ("uptime.*", True),
            ("uptime.not_declared", False),
        ):
            doc = document(event_type=event_type, steps=[NOOP_STEP])
            codes = await problem_codes(owner, doc)
            assert ("unknown_event_type" not in codes) is known, (event_type, codes)

    async def test_a_check_reads_the_vocabulary_in_the_requests_transaction_and_the_plugins_once(
        self, factory: Factory
    ) -> None:
        """Actions, capabilities and event types each ask which plugins the space enabled, and the
        plugin, database and MCP sources each read: one transaction, one read of the plugins."""
        owner = await factory.owner()
        await switch(owner, "uptime", True)
        doc = document(event_type="uptime.site_down")
        with counted(factory.app) as sent:
            assert await problem_codes(owner, doc) == []
        assert sum("space_plugins" in statement for statement in sent) == 1, sent
        assert sent.count("BEGIN") == 1, sent
        assert any("mcp_tools" in statement for statement in sent), sent
        assert any("FROM databases" in statement for statement in sent), sent
        # Outside a check nothing is kept: switched off, the next check reads it again and refuses.
        await switch(owner, "uptime", False)
        assert "unknown_action" in await problem_codes(owner, doc)
