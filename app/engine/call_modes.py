"""The permission mode a capability call would get, as a preview answers it.

The same cascade the pipeline enforces (`app.engine.permissions.resolve_mode`: the automation's
override, the space default, the inferred default, the write policy, the drift guard) with the
automation's standing approvals (`app.engine.standing_grants`), followed by the run's tool grants
(`app.engine.grants`). A call whose arguments are not known before the run (an agent's tool call) is
checked against the grants by capability alone, and no standing approval is assumed to cover it.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.engine.grants import granted
from app.engine.mode_rules import conditional, rules_of
from app.engine.permissions import ChosenBy, ModeDecision, WritePolicy, resolve_mode
from app.engine.standing_grants import StandingGrant, match_grants
from app.registry import Capability

__all__ = ["CallPolicy", "ChosenBy", "call_mode"]


@dataclass(frozen=True)
class CallPolicy:
    """What decides a call's mode: both levels of overrides, the write policy, the grant list and the
    automation's live standing approvals."""

    automation_modes: Mapping[str, Any] = field(default_factory=dict)
    space_modes: Mapping[str, Any] = field(default_factory=dict)
    write_policy: WritePolicy = "auto_confirm_safe"
    grants: Sequence[Mapping[str, Any]] | None = None
    approval_grants: Sequence[StandingGrant] = ()


def _grant(policy: CallPolicy, capability_id: str, args: Mapping[str, Any] | None) -> str:
    if policy.grants is None:
        return "no_grant_list"
    if args is None:
        named = any(fnmatch.fnmatchcase(capability_id, str(g.get("capability", ""))) for g in policy.grants)
        return "depends_on_arguments" if named else "refused"
    return "granted" if granted(policy.grants, capability_id, args) else "refused"


def _standing(
    decision: ModeDecision,
    capability: Capability,
    args: Mapping[str, Any] | None,
    policy: CallPolicy,
    step_id: str | None,
) -> ModeDecision:
    # As the pipeline's `approval_grant` rule: only a known call, never a destructive or drifted one.
    if (
        decision.mode != "require_approval"
        or decision.approvals > 1
        or args is None
        or step_id is None
        or capability.destructive
        or capability.drifted
    ):
        return decision
    target = capability.target_of(dict(args))
    covering = match_grants(policy.approval_grants, capability.id, step_id, target).covering
    return ModeDecision("allow", "approval_grant", covering.id) if covering is not None else decision


def call_mode(
    capability: Capability,
    chosen_by: ChosenBy,
    args: Mapping[str, Any] | None,
    policy: CallPolicy,
    *,
    step_id: str | None = None,
) -> dict[str, Any]:
    """`{"mode", "mode_source", "grant"}` for one call (of `step_id`, whose standing approvals apply);
    a call no grant fits is `deny` (`grant`). `mode_rule` names the rule that decided, if one did;
    `required_approvals` when it asks for more than one approver; `depends_on_arguments` when the
    arguments are unknown and a rule with a condition names the capability."""
    decision = resolve_mode(
        capability,
        chosen_by,
        automation_modes=policy.automation_modes,
        space_modes=policy.space_modes,
        write_policy=policy.write_policy,
        args=args,
    )
    decision = _standing(decision, capability, args, policy, step_id)
    grant = _grant(policy, capability.id, args)
    if grant == "refused":
        return {"mode": "deny", "mode_source": decision.source, "denied_reason": "grant", "grant": grant}
    answer: dict[str, Any] = {"mode": decision.mode, "mode_source": decision.source, "grant": grant}
    if decision.rule is not None:
        answer["mode_rule"] = decision.rule.ref()
    if decision.approvals > 1:
        answer["required_approvals"] = decision.approvals
    if args is None and any(
        conditional(rules_of(modes), capability.id) for modes in (policy.automation_modes, policy.space_modes)
    ):
        # An agent's arguments are only known when it calls: a rule with a condition may decide then.
        answer["depends_on_arguments"] = True
    return answer
