"""The generic registry: registration, idempotence, conflicts, lookup, order."""

from __future__ import annotations

from typing import Any

import pytest

from app.registry import Capability, Registry, RegistryConflict, TriggerDefinition, UnknownEntry

OBJECT = {"type": "object"}


async def handler(ctx: Any, args: dict[str, Any]) -> Any:
    return args


async def other_handler(ctx: Any, args: dict[str, Any]) -> Any:
    return None


def capability(capability_id: str = "demo.echo", **changes: Any) -> Capability:
    fields: dict[str, Any] = {
        "id": capability_id,
        "description": "Echoes its arguments.",
        "input_schema": OBJECT,
        "output_schema": OBJECT,
        "handler": handler,
    }
    return Capability(**(fields | changes))


@pytest.fixture
def registry() -> Registry[Capability]:
    return Registry("capability", Capability, lambda item: item.id)


class TestRegister:
    def test_register_then_get(self, registry: Registry[Capability]) -> None:
        item = capability()
        assert registry.register(item) is item
        assert registry.get("demo.echo") is item
        assert registry.require("demo.echo") is item
        assert "demo.echo" in registry
        assert len(registry) == 1

    def test_registering_an_equal_definition_again_is_a_no_op(self, registry: Registry[Capability]) -> None:
        first = registry.register(capability())
        registry.register(capability())  # an equal, separately built definition (a module imported twice)
        assert registry.get("demo.echo") is first
        assert len(registry) == 1

    @pytest.mark.parametrize(
        "changes",
        [
            {"description": "Something else."},
            {"handler": other_handler},
            {"input_schema": {"type": "object", "required": ["x"]}},
            {"risk": "read"},
            {"tier": "plugin"},
        ],
    )
    def test_a_different_definition_under_a_taken_key_conflicts(
        self, registry: Registry[Capability], changes: dict[str, Any]
    ) -> None:
        original = registry.register(capability())
        with pytest.raises(RegistryConflict) as caught:
            registry.register(capability(**changes))
        assert caught.value.key == "demo.echo"
        assert "demo.echo" in str(caught.value)
        assert registry.get("demo.echo") is original

    def test_refuses_an_item_of_another_kind(self, registry: Registry[Capability]) -> None:
        trigger = TriggerDefinition(
            type="demo", description="Demo.", config_schema=OBJECT, payload_schema=OBJECT
        )
        with pytest.raises(TypeError):
            registry.register(trigger)  # type: ignore[arg-type]


class TestLookup:
    def test_get_unknown_is_none(self, registry: Registry[Capability]) -> None:
        assert registry.get("nope.nothing") is None
        assert "nope.nothing" not in registry

    def test_require_unknown_raises_naming_the_key(self, registry: Registry[Capability]) -> None:
        with pytest.raises(UnknownEntry) as caught:
            registry.require("nope.nothing")
        assert caught.value.key == "nope.nothing"
        assert str(caught.value) == "unknown capability 'nope.nothing'"
        assert isinstance(caught.value, LookupError)

    def test_iterates_in_registration_order(self, registry: Registry[Capability]) -> None:
        for capability_id in ("zeta.one", "alpha.two", "mid.three"):
            registry.register(capability(capability_id))
        assert [item.id for item in registry] == ["zeta.one", "alpha.two", "mid.three"]
