"""Which permission mode a capability call will resolve to, as far as a draft can tell.

Until automations and spaces can set modes, the inferred default applies: a call the definition names
(a tight step) is allowed because a human saves it; a call an agent chooses is allowed for `read`
capabilities and needs approval for `write` ones. Per-automation and per-space modes replace
`inferred_mode` with a resolver of the same shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from app.registry import Capability

Mode = Literal["allow", "deny", "require_approval"]
ChosenBy = Literal["definition", "agent"]
ModeResolver = Callable[[Capability, ChosenBy], Mode]


def inferred_mode(capability: Capability, chosen_by: ChosenBy) -> Mode:
    """The default mode of a call when nothing overrides it."""
    if chosen_by == "definition" or capability.risk == "read":
        return "allow"
    return "require_approval"
