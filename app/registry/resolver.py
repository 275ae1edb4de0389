"""The capability resolver: what one space can call, answered from an ordered list of sources.

Capabilities are per space. The native registry is one source; the space's harvested MCP tools and
the plugins it enabled are others, added to the list at composition without touching any caller.
The validator, the catalog, agent tool lists and the capability pipeline all ask the resolver;
nothing else iterates the static registry. Ids never name where the code comes from, so the first
source that knows an id answers for it (sources refuse clashes with earlier ones when they load).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from app.registry.base import Registry
from app.registry.models import Capability


class Capabilities(Protocol):
    """Capabilities to iterate and look up by id: a `CapabilitySet`, or a registry."""

    def get(self, capability_id: str, /) -> Capability | None: ...

    def __iter__(self) -> Iterator[Capability]: ...


class CapabilitySource(Protocol):
    """One place capabilities come from. `space_id` None asks for what every space shares."""

    async def capabilities(self, space_id: str | None) -> Sequence[Capability]:
        """Every capability this source offers the space, in a stable order."""
        ...

    async def get(self, space_id: str | None, capability_id: str) -> Capability | None:
        """One capability by id, or None when this source does not offer it to the space."""
        ...


class CapabilityRecheck(Protocol):
    """Right before a call, asks the capability's source whether what was resolved still holds (an MCP
    server may have changed a tool since it was harvested)."""

    async def rechecked(self, space_id: str, capability: Capability) -> Capability:
        """The capability to call: the one given, or a copy marked `drifted` when its source changed."""
        ...


class NoRecheck:
    """Every capability stays as resolved (a process without sources that change under it)."""

    async def rechecked(self, space_id: str, capability: Capability) -> Capability:
        return capability


class RegistrySource:
    """A static registry as a source: the same capabilities for every space (the native tier)."""

    def __init__(self, registry: Registry[Capability]) -> None:
        self.registry = registry

    async def capabilities(self, space_id: str | None) -> Sequence[Capability]:
        return list(self.registry)

    async def get(self, space_id: str | None, capability_id: str) -> Capability | None:
        return self.registry.get(capability_id)


class CapabilitySet:
    """What one space can call, as resolved at one moment: iterable in source order, looked up by id."""

    def __init__(self, capabilities: Iterable[Capability]) -> None:
        self._by_id: dict[str, Capability] = {}
        for capability in capabilities:
            self._by_id.setdefault(capability.id, capability)

    def get(self, capability_id: str) -> Capability | None:
        return self._by_id.get(capability_id)

    def matching(self, patterns: Sequence[str]) -> list[Capability]:
        """The capabilities whose ids match any of the glob patterns (`http.*`), in set order."""
        return [c for c in self._by_id.values() if any(fnmatch.fnmatchcase(c.id, p) for p in patterns)]

    def __contains__(self, capability_id: object) -> bool:
        return capability_id in self._by_id

    def __iter__(self) -> Iterator[Capability]:
        return iter(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)


class CapabilityResolver:
    """Asks its sources in order; the first that knows an id answers for it."""

    def __init__(self, sources: Sequence[CapabilitySource]) -> None:
        self.sources = tuple(sources)

    async def for_space(self, space_id: str | None) -> CapabilitySet:
        """Everything the space can call (`None`: only what every space shares, e.g. the native tier)."""
        found: list[Capability] = []
        for source in self.sources:
            found.extend(await source.capabilities(space_id))
        return CapabilitySet(found)

    async def resolve(self, space_id: str | None, capability_id: str) -> Capability | None:
        """The capability the space reaches under this id, or None."""
        for source in self.sources:
            capability = await source.get(space_id, capability_id)
            if capability is not None:
                return capability
        return None
