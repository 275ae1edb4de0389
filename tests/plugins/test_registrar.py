"""The registrar: namespacing, naming rules, caps, duplicates, truncation, declared risk."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from app.registry.plugins import MAX_ACTIONS, MAX_TOOLS, MAX_TRIGGERS, PluginRefused, Registrar
from app.registry.plugins.rules import namespace_of
from app.registry.registries import native_namespaces

OPEN = {"type": "object"}


async def answer(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True}


async def other(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
    return {"other": True}


def registrar(plugin_id: str = "acme") -> Registrar:
    return Registrar(plugin_id, namespace_of(plugin_id, native_namespaces()))


class TestNamespaces:
    def test_every_name_is_prefixed_with_the_plugin_namespace(self) -> None:
        r = registrar()
        assert (
            r.register_trigger("device_offline", "Fired when a device stops answering.")
            == "acme.device_offline"
        )
        assert r.register_action("send", answer, "Sends.", OPEN, OPEN, "write") == "acme.send"
        assert r.register_tool("lookup", answer, "Looks up.", OPEN, OPEN, "read") == "acme.lookup"
        plugin = r.close("1.0")
        assert [c.id for c in plugin.capabilities] == ["acme.send", "acme.lookup"]
        assert {c.tier for c in plugin.capabilities} == {"plugin"}
        assert {c.plugin for c in plugin.capabilities} == {"acme"}
        action = plugin.actions[0]
        assert (action.type, action.tier, action.plugin, action.uses_capabilities) == (
            "acme.send",
            "plugin",
            "acme",
            ("acme.send",),
        )

    def test_hyphens_in_the_id_become_underscores_in_the_namespace(self) -> None:
        assert (
            registrar("site-watch").register_tool("probe", answer, "x", OPEN, OPEN, "read")
            == "site_watch.probe"
        )

    @pytest.mark.parametrize(
        "plugin_id", ["http", "slack", "llm", "plugin", "native", "mcp", "automation", "approval"]
    )
    def test_a_namespace_the_core_uses_is_refused(self, plugin_id: str) -> None:
        with pytest.raises(PluginRefused, match="namespace the service itself uses"):
            namespace_of(plugin_id, native_namespaces())

    def test_an_id_starting_with_a_digit_has_no_namespace(self) -> None:
        with pytest.raises(PluginRefused, match="must start with a letter"):
            namespace_of("1password")

    @pytest.mark.parametrize(
        "name", ["Bad", "has-hyphen", "has.dot", "_lead", "trail_", "x", "", "ünï", 7, None]
    )
    def test_names_breaking_the_rule_are_refused(self, name: Any) -> None:
        r = registrar()
        with pytest.raises(PluginRefused, match="must match"):
            r.register_tool(name, answer, "d", OPEN, OPEN, "read")
        with pytest.raises(PluginRefused):
            r.close("1.0")

    def test_a_name_too_long_for_an_id_is_refused(self) -> None:
        with pytest.raises(PluginRefused, match="longer than 100"):
            registrar().register_action("a" * 100, answer, "d", OPEN, OPEN, "read")


class TestCaps:
    def test_the_51st_action_refuses_the_plugin(self) -> None:
        r = registrar()
        for index in range(MAX_ACTIONS):
            r.register_action(f"a{index}", answer, "d", OPEN, OPEN, "read")
        with pytest.raises(PluginRefused, match="more than 50 actions"):
            r.register_action("one_too_many", answer, "d", OPEN, OPEN, "read")

    def test_the_51st_trigger_and_the_21st_tool_are_refused(self) -> None:
        r = registrar()
        for index in range(MAX_TRIGGERS):
            r.register_trigger(f"t{index}", "d")
        with pytest.raises(PluginRefused, match="more than 50 triggers"):
            r.register_trigger("t_extra", "d")
        r = registrar()
        for index in range(MAX_TOOLS):
            r.register_tool(f"t{index}", answer, "d", OPEN, OPEN, "read")
        with pytest.raises(PluginRefused, match="more than 20 tools"):
            r.register_tool("t_extra", answer, "d", OPEN, OPEN, "read")

    def test_a_refusal_swallowed_by_setup_still_refuses_the_plugin(self) -> None:
        r = registrar()
        with contextlib.suppress(PluginRefused):
            r.register_tool("Bad Name", answer, "d", OPEN, OPEN, "read")
        r.register_tool("fine", answer, "d", OPEN, OPEN, "read")
        with pytest.raises(PluginRefused, match="Bad Name"):
            r.close("1.0")

    def test_registering_after_setup_returned_is_refused(self) -> None:
        r = registrar()
        r.close("1.0")
        with pytest.raises(PluginRefused, match="after its setup returned"):
            r.register_tool("late", answer, "d", OPEN, OPEN, "read")


class TestRegistrations:
    def test_a_duplicate_is_skipped_without_error_or_overwrite(self) -> None:
        r = registrar()
        r.register_tool("lookup", answer, "First.", OPEN, OPEN, "read")
        r.register_tool("lookup", other, "Second.", OPEN, OPEN, "write")
        r.register_trigger("fired", "First.")
        r.register_trigger("fired", "Second.")
        plugin = r.close("1.0")
        assert [(c.id, c.description, c.risk) for c in plugin.capabilities] == [
            ("acme.lookup", "First.", "read")
        ]
        assert [e.description for e in plugin.events] == ["First."]

    def test_descriptions_are_cut_to_500_characters(self) -> None:
        r = registrar()
        r.register_tool("lookup", answer, "y" * 2000, OPEN, OPEN, "read")
        r.register_trigger("fired", "z" * 501)
        plugin = r.close("1.0")
        assert len(plugin.capabilities[0].description) == 500
        assert len(plugin.events[0].description) == 500

    @pytest.mark.parametrize("risk", [None, "", "dangerous", 1])
    def test_a_registration_without_a_declared_risk_is_refused(self, risk: Any) -> None:
        with pytest.raises(PluginRefused, match="risk must be declared"):
            registrar().register_action("send", answer, "d", OPEN, OPEN, risk)
        with pytest.raises(PluginRefused, match="risk must be declared"):
            registrar().register_tool("send", answer, "d", OPEN, OPEN, risk)

    def test_a_plain_function_handler_is_refused(self) -> None:
        def sync_handler(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
            return {}

        with pytest.raises(PluginRefused, match="async function"):
            registrar().register_tool("lookup", sync_handler, "d", OPEN, OPEN, "read")

    @pytest.mark.parametrize(
        "schema", [{"type": "nonsense"}, {"$ref": "https://example.com/schema.json"}, [], "object"]
    )
    def test_an_invalid_schema_is_refused(self, schema: Any) -> None:
        with pytest.raises(PluginRefused):
            registrar().register_tool("lookup", answer, "d", schema, OPEN, "read")
        with pytest.raises(PluginRefused):
            registrar().register_trigger("fired", "d", schema)

    def test_a_tool_and_an_action_cannot_share_a_name(self) -> None:
        r = registrar()
        r.register_action("send", answer, "d", OPEN, OPEN, "write")
        with pytest.raises(PluginRefused, match="both as an action and as a tool"):
            r.register_tool("send", answer, "d", OPEN, OPEN, "write")

    def test_an_empty_description_is_refused(self) -> None:
        with pytest.raises(PluginRefused, match="description"):
            registrar().register_tool("lookup", answer, "  ", OPEN, OPEN, "read")
