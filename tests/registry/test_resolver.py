"""The capability resolver: sources in order, per-space answers, and the snapshot callers iterate."""

from __future__ import annotations

from typing import Any

from app.registry import Capability, CapabilityResolver, CapabilitySet, Registry, RegistrySource

OBJECT = {"type": "object"}


async def handler(ctx: Any, args: dict[str, Any]) -> Any:
    return args


def cap(capability_id: str, description: str = "Does a thing.") -> Capability:
    return Capability(capability_id, description, OBJECT, OBJECT, handler)


def registry(*items: Capability) -> Registry[Capability]:
    built: Registry[Capability] = Registry("capability", Capability, lambda item: item.id)
    for item in items:
        built.register(item)
    return built


class PerSpace:
    """A source whose capabilities belong to one space each (as harvested tools will)."""

    def __init__(self, owned: dict[str, list[Capability]]) -> None:
        self.owned = owned
        self.asked: list[str | None] = []

    async def capabilities(self, space_id: str | None) -> list[Capability]:
        self.asked.append(space_id)
        return self.owned.get(space_id or "", [])

    async def get(self, space_id: str | None, capability_id: str) -> Capability | None:
        return next((c for c in self.owned.get(space_id or "", []) if c.id == capability_id), None)


async def test_a_space_sees_the_shared_capabilities_and_its_own_only() -> None:
    crm = PerSpace({"s1": [cap("crm.note")], "s2": [cap("crm.deal")]})
    resolver = CapabilityResolver([RegistrySource(registry(cap("http.request"))), crm])
    assert [c.id for c in await resolver.for_space("s1")] == ["http.request", "crm.note"]
    assert [c.id for c in await resolver.for_space("s2")] == ["http.request", "crm.deal"]
    assert [c.id for c in await resolver.for_space(None)] == ["http.request"]
    assert await resolver.resolve("s1", "crm.deal") is None
    found = await resolver.resolve("s2", "crm.deal")
    assert found is not None
    assert found.id == "crm.deal"


async def test_the_first_source_that_knows_an_id_answers_for_it() -> None:
    native = cap("http.request", "Native.")
    shadow = PerSpace({"s1": [cap("http.request", "Shadow.")]})
    resolver = CapabilityResolver([RegistrySource(registry(native)), shadow])
    assert await resolver.resolve("s1", "http.request") is native
    answer = await resolver.for_space("s1")
    assert len(answer) == 1
    assert answer.get("http.request") is native


async def test_no_source_means_nothing_resolves() -> None:
    resolver = CapabilityResolver([])
    assert await resolver.resolve("s1", "http.request") is None
    assert len(await resolver.for_space("s1")) == 0


def test_a_set_matches_glob_patterns_in_its_order() -> None:
    found = CapabilitySet([cap("slack.post"), cap("http.request"), cap("slack.list")])
    assert [c.id for c in found.matching(["slack.*"])] == ["slack.post", "slack.list"]
    assert [c.id for c in found.matching(["http.request", "nope.*"])] == ["http.request"]
    assert found.matching([]) == []
    assert "slack.post" in found
    assert "slack" not in found
