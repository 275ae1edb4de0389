"""The permission mode a capability call would get, as a preview answers it.

One function, on purpose: the preview asks only `call_mode`, so the permission cascade (per-space and
per-automation modes, grants) replaces this one place. Until then it answers the inferred default: a
call the definition names (a tight step) is allowed, because a person saved it; a call an agent
chooses is allowed when it reads and needs approval when it writes; a drifted tool is never a plain
allow.
"""

from __future__ import annotations

from typing import Any, Literal

from app.registry import Capability

ChosenBy = Literal["definition", "agent"]
INFERRED = "inferred_default"


def call_mode(capability: Capability, chosen_by: ChosenBy) -> dict[str, Any]:
    """`{"mode": allow | deny | require_approval, "mode_source": …}` for one call."""
    if capability.drifted:
        return {"mode": "require_approval", "mode_source": "drift"}
    if chosen_by == "definition" or capability.risk == "read":
        return {"mode": "allow", "mode_source": INFERRED}
    return {"mode": "require_approval", "mode_source": INFERRED}
