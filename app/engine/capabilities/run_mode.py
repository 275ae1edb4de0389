"""The `run_mode` rule: a dry or verify run holds back the calls its mode does not make.

Placed right before `secrets`: a held-back call has been resolved, validated and checked like a real
one (so a dry run finds bad arguments), but no secret is read and nothing is sent. What would have
been sent (the rendered arguments, secret references by name) is raised as `Suppressed`: a tight
step takes it as its output, an agent hands it to the model as the tool's answer, and the attempt's
record lists it (`ActionContext.suppressed`).
"""

from __future__ import annotations

from typing import Any

from app.definitions.run_modes import suppresses
from app.definitions.signals import Suppressed
from app.engine.capabilities.call import CapabilityCall, NamedRule, Proceed

RULE_NAME = "run_mode"


def held_back(call: CapabilityCall) -> bool:
    """Whether the run's mode holds this (resolved) call back. Rules placed earlier that would pause
    or refuse a call (an approval) can ask it first: a held-back call is never sent anyway."""
    capability = call.resolved()
    return suppresses(
        call.ctx.mode, capability.effect_of(call.args), metered=capability.metered, llm=call.ctx.llm
    )


async def run_mode(call: CapabilityCall, proceed: Proceed) -> Any:
    """Let the call through unless the run's mode holds back calls with its effect."""
    if not held_back(call):
        return await proceed()
    ctx = call.ctx
    capability = call.resolved()
    effect = capability.effect_of(call.args)
    reason = "model calls skipped" if capability.metered else effect.replace("_", " ")
    signal = Suppressed(call.capability_id, call.args, mode=ctx.mode, reason=reason)
    ctx.suppressed.append({**signal.as_record(), "call": call.id.as_dict()})
    raise signal


RUN_MODE_RULE = NamedRule(RULE_NAME, run_mode)
