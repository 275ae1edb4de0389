"""Registering pollers, subscriptions and settings: what a plugin may ask for, and what is refused."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from app.registry.plugins import PluginRefused, Registrar
from app.registry.plugins.background import MAX_POLLERS
from app.registry.plugins.rules import namespace_of
from app.registry.registries import native_namespaces


async def poll(ctx: Any) -> None:
    return None


async def heard(ctx: Any, event: dict[str, Any]) -> None:
    return None


def registrar(min_poll_seconds: float = 60) -> Registrar:
    return Registrar("acme", namespace_of("acme", native_namespaces()), min_poll_seconds)


def refused(register: Any) -> str:
    r = registrar()
    with pytest.raises(PluginRefused) as caught:
        register(r)
    with pytest.raises(PluginRefused):
        r.close("1.0")  # a refused registration refuses the whole plugin
    return str(caught.value)


class TestAccepted:
    def test_pollers_subscriptions_and_settings_are_kept(self) -> None:
        r = registrar()
        assert r.register_poller("watch", 60, poll) == "acme.watch"
        assert r.register_poller("slow", timedelta(hours=1), poll) == "acme.slow"
        assert r.register_subscription(["automation.run.failed", "acme.*"], heard) == "acme.heard"
        assert r.register_subscription("automation.run.succeeded", heard, name="wins") == "acme.wins"
        assert r.register_poller("watch", 120, poll) == "acme.watch", "a second registration is skipped"
        r.register_settings({"type": "object", "properties": {"urls": {"type": "array"}}})
        plugin = r.close("1.0")
        assert [(p.name, p.every_seconds) for p in plugin.pollers] == [("watch", 60.0), ("slow", 3600.0)]
        assert [(s.name, s.event_types) for s in plugin.subscriptions] == [
            ("heard", ("automation.run.failed", "acme.*")),
            ("wins", ("automation.run.succeeded",)),
        ]
        subscription = plugin.subscriptions[0]
        assert subscription.hears("automation.run.failed")
        assert subscription.hears("acme.x.y")
        assert not subscription.hears("automation.run.succeeded")
        assert not subscription.hears("acmex")
        assert plugin.settings_schema == {"type": "object", "properties": {"urls": {"type": "array"}}}


class TestRefused:
    @pytest.mark.parametrize("every", [59, 0, -1, 86401, "60", True, None])
    def test_a_period_outside_the_minimum_and_a_day(self, every: Any) -> None:
        assert "every" in refused(lambda r: r.register_poller("watch", every, poll))

    def test_the_minimum_is_the_settings(self) -> None:
        assert registrar(min_poll_seconds=5).register_poller("watch", 5, poll) == "acme.watch"
        assert "AUTOMATIONS_PLUGIN_POLL_MIN_SECONDS" in refused(lambda r: r.register_poller("ww", 5, poll))

    @pytest.mark.parametrize("types", ["*", ["*"], ["automation.*", "#"], " * "])
    def test_a_bare_wildcard(self, types: Any) -> None:
        assert "bare wildcard" in refused(lambda r: r.register_subscription(types, heard))

    @pytest.mark.parametrize("types", [[], "", ["a b"], ["drive.*.x"], [3], ["x" * 201], {"a.b": 1}])
    def test_what_is_not_an_event_type(self, types: Any) -> None:
        refused(lambda r: r.register_subscription(types, heard))

    def test_functions_that_are_not_async(self) -> None:
        def sync_poll(ctx: Any) -> None:
            return None

        assert "async" in refused(lambda r: r.register_poller("watch", 60, sync_poll))
        assert "async" in refused(
            lambda r: r.register_subscription("a.b", lambda ctx, event: None, name="xy")
        )

    def test_a_bad_name_a_bad_schema_and_the_cap(self) -> None:
        refused(lambda r: r.register_poller("Watch!", 60, poll))
        refused(lambda r: r.register_subscription("a.b", heard, name="no way"))
        refused(lambda r: r.register_settings({"type": "object", "$ref": "https://example.com/s.json"}))

        def too_many(r: Registrar) -> None:
            for index in range(MAX_POLLERS + 1):
                r.register_poller(f"p{index}", 60, poll)

        assert "more than" in refused(too_many)

    def test_after_setup(self) -> None:
        r = registrar()
        r.close("1.0")
        with pytest.raises(PluginRefused):
            r.register_poller("late", 60, poll)
        with pytest.raises(PluginRefused):
            r.register_subscription("a.b", heard)
