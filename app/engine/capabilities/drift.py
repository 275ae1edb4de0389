"""The drift check: before a governed call, the capability's source may find it changed since harvest.

It sits just before `drift_guard`, after the permission cascade has decided: a call the cascade denies
never causes a listing, nor does a call that paused earlier and now meets its human's decision (the
decision binds the call as it was approved). A capability found drifted reaches `drift_guard` marked,
so this very call needs approval.
"""

from __future__ import annotations

from typing import Any

from app.engine.capabilities.call import CapabilityCall, Proceed, Rule
from app.engine.capabilities.governance import MODE
from app.engine.permissions import ModeDecision
from app.registry import CapabilityRecheck
from app.registry.builtin_llm import MODEL_TURN


def drift_check_rule(recheck: CapabilityRecheck) -> Rule:
    """The rule asking `recheck` about the call's capability (it answers at once when nothing is due)."""

    async def drift_check(call: CapabilityCall, proceed: Proceed) -> Any:
        capability = call.resolved()
        decision = call.notes.get(MODE)
        if (
            capability.id != MODEL_TURN.id
            and not capability.drifted
            and call.id.key not in call.ctx.governance.decisions
            and not (isinstance(decision, ModeDecision) and decision.mode == "deny")
        ):
            call.capability = await recheck.rechecked(call.ctx.space_id, capability)
        return await proceed()

    return drift_check
