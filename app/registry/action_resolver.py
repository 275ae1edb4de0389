"""The action resolver: which action types one space's steps may name, from an ordered list of sources.

Like capabilities, actions are per space: the native registry is shared by every space, and a plugin's
actions exist only in the spaces that enabled it. The executor, the validator and the catalog ask
for the space's `ActionSet`; the first source that knows a type answers for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from app.registry.base import Registry
from app.registry.models import ActionDefinition


class Actions(Protocol):
    """Actions to look up by type and iterate: an `ActionSet`, or a registry."""

    def get(self, action_type: str, /) -> ActionDefinition | None: ...

    def __iter__(self) -> Iterator[ActionDefinition]: ...


class ActionSource(Protocol):
    """One place actions come from. `space_id` None asks for what every space shares."""

    async def actions(self, space_id: str | None) -> Sequence[ActionDefinition]: ...


class ActionSet:
    """The actions of one space at one moment, in source order."""

    def __init__(self, actions: Iterable[ActionDefinition]) -> None:
        self._by_type: dict[str, ActionDefinition] = {}
        for action in actions:
            self._by_type.setdefault(action.type, action)

    def get(self, action_type: str) -> ActionDefinition | None:
        return self._by_type.get(action_type)

    def __contains__(self, action_type: object) -> bool:
        return action_type in self._by_type

    def __iter__(self) -> Iterator[ActionDefinition]:
        return iter(self._by_type.values())

    def __len__(self) -> int:
        return len(self._by_type)


class RegistryActions:
    """A static registry as a source (the native actions, the same for every space)."""

    def __init__(self, registry: Registry[ActionDefinition]) -> None:
        self.registry = registry

    async def actions(self, space_id: str | None) -> Sequence[ActionDefinition]:
        return list(self.registry)


class ActionResolver:
    """Asks its sources in order; the first that knows a type answers for it."""

    def __init__(self, sources: Sequence[ActionSource]) -> None:
        self.sources = tuple(sources)

    async def for_space(self, space_id: str | None) -> ActionSet:
        """Every action the space's steps may name (`None`: only what every space shares)."""
        found: list[ActionDefinition] = []
        for source in self.sources:
            found.extend(await source.actions(space_id))
        return ActionSet(found)
