"""The permission mode a capability call would get, as a preview answers it.

The same cascade the pipeline enforces (`app.engine.permissions.resolve_mode`: the automation's
override, the space default, the inferred default, the write policy, the drift guard), followed by the
run's tool grants (`app.engine.grants`). A call whose arguments are not known before the run (an
agent's tool call) is checked against the grants by capability alone.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.engine.grants import granted
from app.engine.permissions import ChosenBy, WritePolicy, resolve_mode
from app.registry import Capability

__all__ = ["CallPolicy", "ChosenBy", "call_mode"]


@dataclass(frozen=True)
class CallPolicy:
    """What decides a call's mode: both levels of overrides, the write policy and the grant list."""

    automation_modes: Mapping[str, str] = field(default_factory=dict)
    space_modes: Mapping[str, str] = field(default_factory=dict)
    write_policy: WritePolicy = "auto_confirm_safe"
    grants: Sequence[Mapping[str, Any]] | None = None


def _grant(policy: CallPolicy, capability_id: str, args: Mapping[str, Any] | None) -> str:
    if policy.grants is None:
        return "no_grant_list"
    if args is None:
        named = any(fnmatch.fnmatchcase(capability_id, str(g.get("capability", ""))) for g in policy.grants)
        return "depends_on_arguments" if named else "refused"
    return "granted" if granted(policy.grants, capability_id, args) else "refused"


def call_mode(
    capability: Capability, chosen_by: ChosenBy, args: Mapping[str, Any] | None, policy: CallPolicy
) -> dict[str, Any]:
    """`{"mode", "mode_source", "grant"}` for one call; a call no grant fits is `deny` (`grant`)."""
    decision = resolve_mode(
        capability,
        chosen_by,
        automation_modes=policy.automation_modes,
        space_modes=policy.space_modes,
        write_policy=policy.write_policy,
    )
    grant = _grant(policy, capability.id, args)
    if grant == "refused":
        return {"mode": "deny", "mode_source": decision.source, "denied_reason": "grant", "grant": grant}
    return {"mode": decision.mode, "mode_source": decision.source, "grant": grant}
