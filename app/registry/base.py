"""A registry: the runtime vocabulary that resolves names in a definition to code.

Entries are registered when their module is imported. Importing a module twice, or registering the
same definition from two places, is harmless; claiming a taken name for something else is a start-up
error rather than a silent overwrite.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class RegistryError(Exception):
    """Base of the registry's errors."""


class InvalidEntry(RegistryError, ValueError):
    """A capability, action or trigger definition that breaks a rule (bad id, bad JSON Schema...)."""


class RegistryConflict(RegistryError):
    """A key registered again with a different definition."""

    def __init__(self, kind: str, key: str) -> None:
        self.kind = kind
        self.key = key
        super().__init__(f"{kind} {key!r} is already registered with a different definition")


class UnknownEntry(RegistryError, LookupError):
    """A key that nothing registered."""

    def __init__(self, kind: str, key: str) -> None:
        self.kind = kind
        self.key = key
        super().__init__(f"unknown {kind} {key!r}")

    def __str__(self) -> str:  # LookupError would otherwise print the repr of the args
        return str(self.args[0])


class Registry(Generic[T]):
    """Definitions of one kind, keyed by id (or type), iterated in registration order."""

    def __init__(self, kind: str, item_type: type[T], key: Callable[[T], str]) -> None:
        self.kind = kind
        self._item_type = item_type
        self._key = key
        self._items: dict[str, T] = {}

    def register(self, item: T) -> T:
        """Add `item`; a no-op if an equal definition holds its key, `RegistryConflict` if another does."""
        if not isinstance(item, self._item_type):
            raise TypeError(f"the {self.kind} registry holds {self._item_type.__name__}, not {item!r}")
        key = self._key(item)
        existing = self._items.setdefault(key, item)
        if existing != item:
            raise RegistryConflict(self.kind, key)
        return item

    def get(self, key: str) -> T | None:
        """The definition registered under `key`, or None."""
        return self._items.get(key)

    def require(self, key: str) -> T:
        """The definition registered under `key`; `UnknownEntry` if there is none."""
        try:
            return self._items[key]
        except KeyError:
            raise UnknownEntry(self.kind, key) from None

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[T]:
        return iter(self._items.values())

    def __len__(self) -> int:
        return len(self._items)
