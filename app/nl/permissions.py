"""Which permission mode a capability call will resolve to, as far as a draft can tell.

Authoring shows the answer the run will get: the engine's cascade (`app.engine.permissions`), drift
guard included. A draft has no automation overrides yet and its space defaults are not consulted here,
so the inferred level decides (a draft's `write_policy` is applied by callers that know it).
"""

from __future__ import annotations

from collections.abc import Callable

from app.engine.permissions import ChosenBy, Mode, resolve_mode
from app.registry import Capability

ModeResolver = Callable[[Capability, ChosenBy], Mode]


def inferred_mode(capability: Capability, chosen_by: ChosenBy) -> Mode:
    """The mode of a call when nothing overrides it: the cascade with empty override levels."""
    return resolve_mode(capability, chosen_by).mode


__all__ = ["ChosenBy", "Mode", "ModeResolver", "inferred_mode", "resolve_mode"]
