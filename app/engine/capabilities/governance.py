"""The governed path: grants, the permission cascade, the drift guard, decisions, rate limit and the audit.

Each is a named rule of the pipeline, between `validate_arguments` and anything that spends or reads a
secret:

    invocation_record → grants → permission_mode → approval_grant → drift_guard → enforce_mode → rate_limit

`permission_mode`, `approval_grant` (a standing `always` approval of this step's call, see
`app.engine.standing_grants`) and `drift_guard` only decide (the decision is left in `call.notes`);
`enforce_mode` acts on it: `deny` fails the call (`action_denied`, not retried), `require_approval`
pauses the run (`Suspend`), and a call that paused on an earlier claim meets the human's decision
instead. The record rule wraps them all, so every outcome, refusals included, is one
`action_invocations` row written with one database round trip. The agent's own model turns are
engine-internal and not governed here.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.definitions.invocation_states import InvocationStatus
from app.definitions.signals import StepError, Suppressed, Suspend
from app.engine.capabilities.binding import arguments_hash
from app.engine.capabilities.call import CapabilityCall, Proceed
from app.engine.capabilities.run_mode import held_back
from app.engine.grants import granted
from app.engine.permissions import ModeDecision, WritePolicy, cascade, drift_guarded
from app.engine.standing_grants import StandingGrant, match_grants
from app.registry.builtin_llm import MODEL_TURN
from app.registry.ports import InvocationRecord
from app.security.redaction import redact
from app.security.truncation import truncate_json

RECORD_BYTES = 10 * 1024
MODE = "permission_mode"
DENIED = "denied_reason"
EXISTING = "decided_invocation"
APPROVED = "approved_invocation"
LAPSED = "lapsed_grants"


@dataclass(frozen=True)
class CallDecision:
    """What the database holds for a call that paused on an earlier claim: its row and status."""

    invocation_id: str
    status: str
    reason: str | None = None
    params_hash: str | None = None
    """`arguments_hash` of the call's full arguments when it paused: an approval covers exactly these
    (None, a row stored before calls were bound: covers nothing)."""


@dataclass(frozen=True)
class Governance:
    """The run's permission inputs, read once per claim: modes, write policy, grants and decisions."""

    automation_modes: Mapping[str, Any] = field(default_factory=dict)
    """The automation's map of modes, its rules under `$rules` (`app.engine.mode_rules`)."""
    space_modes: Mapping[str, Any] = field(default_factory=dict)
    write_policy: WritePolicy = "auto_confirm_safe"
    grants: Sequence[Mapping[str, Any]] | None = None
    """From the run's snapshot; None: no grant list, every capability may be called."""
    decisions: Mapping[str, CallDecision] = field(default_factory=dict)
    """Call key → the decided (or still pending) invocation of a call that paused."""
    approval_grants: Sequence[StandingGrant] = ()
    """The automation's live standing approvals (`scope: always`)."""


def for_storage(value: Any) -> Any:
    """Params and results as the audit keeps them: secrets redacted, at most 10 KB, cut structurally."""
    return truncate_json(redact(value), RECORD_BYTES)


def _governed(call: CapabilityCall) -> bool:
    return call.resolved().id != MODEL_TURN.id


def _cascade(call: CapabilityCall) -> ModeDecision:
    governance = call.ctx.governance
    return cascade(
        call.resolved(),
        call.chosen_by,
        automation_modes=governance.automation_modes,
        space_modes=governance.space_modes,
        write_policy=governance.write_policy,
        args=call.args,
    )


def _decision(call: CapabilityCall) -> ModeDecision:
    decision = call.notes.get(MODE)
    if isinstance(decision, ModeDecision):
        return decision
    # A call refused before the mode rules ran (a grant) is still recorded with its mode.
    return drift_guarded(call.resolved(), _cascade(call))


def _record(call: CapabilityCall, status: str, **values: Any) -> InvocationRecord:
    capability = call.resolved()
    decision = _decision(call)
    return InvocationRecord(
        call_key=call.id.key,
        step_id=call.ctx.step_id,
        capability=capability.id,
        tier=capability.tier,
        risk=capability.risk,
        destructive=capability.destructive,
        chosen_by=call.chosen_by,
        mode=decision.mode,
        mode_source=decision.source,
        mode_rule=decision.rule.ref() if decision.rule is not None else None,
        required_approvals=decision.approvals,
        params=for_storage(call.args),
        status=status,
        **values,
    )


def _pending(call: CapabilityCall) -> InvocationRecord:
    """The request a human answers: bound to the full arguments, with the target `always` would grant."""
    return _record(
        call,
        InvocationStatus.pending,
        params_hash=arguments_hash(call.args),
        target=call.resolved().target_of(call.args),
        lapsed_grants=tuple(grant.id for grant in call.notes.get(LAPSED, ())),
    )


async def _store(call: CapabilityCall, record: InvocationRecord) -> None:
    log = call.ctx.ports.invocations
    assert log is not None
    approved = call.notes.get(APPROVED)
    if approved is not None:
        await log.finish_approved(approved, record)
    elif call.notes.get(EXISTING) is None:
        await log.record(record)
    # Otherwise the call met a human's denial or an expiry: its row already says so.


async def invocation_record(call: CapabilityCall, proceed: Proceed) -> Any:
    """One `action_invocations` row per call, whatever happens to it (one insert on the hot path)."""
    log = call.ctx.ports.invocations
    if log is None or not _governed(call):
        return await proceed()
    started = time.monotonic()

    def elapsed() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        result = await proceed()
    except Suspend:
        if call.notes.get(EXISTING) is None:
            # First time this call pauses: the pending row is the request a human answers.
            await log.request_approval(_pending(call))
        raise
    except Suppressed:
        # A dry or verify run held the call back: audited with what would have been sent.
        await _store(call, _record(call, InvocationStatus.suppressed, duration_ms=elapsed()))
        raise
    except StepError as exc:
        reason = call.notes.get(DENIED)
        status = InvocationStatus.denied if reason is not None else InvocationStatus.failed
        error = for_storage({"code": exc.code, "message": exc.message})
        await _store(call, _record(call, status, error=error, denied_reason=reason, duration_ms=elapsed()))
        raise
    except Exception as exc:
        error = {"code": "action_error", "message": f"{type(exc).__name__}: {str(exc)[:500]}"}
        await _store(
            call, _record(call, InvocationStatus.failed, error=for_storage(error), duration_ms=elapsed())
        )
        raise
    await _store(
        call, _record(call, InvocationStatus.executed, result=for_storage(result), duration_ms=elapsed())
    )
    return result


async def grants_rule(call: CapabilityCall, proceed: Proceed) -> Any:
    """With `execution.tool_grants` present, a call that fits no grant is refused (`denied_reason: grant`)."""
    if _governed(call) and not granted(call.ctx.governance.grants, call.capability_id, call.args):
        call.notes[DENIED] = "grant"
        raise StepError(
            "action_denied",
            f"{call.capability_id}: no tool grant of this automation allows this call",
            retryable=False,
        )
    return await proceed()


async def permission_mode(call: CapabilityCall, proceed: Proceed) -> Any:
    """Resolve the cascade (automation override → space default → inferred, write policy) for the call."""
    if _governed(call):
        call.notes[MODE] = _cascade(call)
    return await proceed()


async def approval_grant(call: CapabilityCall, proceed: Proceed) -> Any:
    """A standing `always` approval of this step's call to this target turns `require_approval` into
    `allow` (`mode_source: approval_grant`); a grant of the step for another target lapses."""
    decision = call.notes.get(MODE)
    grants = call.ctx.governance.approval_grants
    capability = call.capability
    if (
        grants
        and capability is not None
        and not capability.destructive
        and isinstance(decision, ModeDecision)
        and decision.mode == "require_approval"
        and decision.approvals == 1  # a rule asking for several approvers is never waved through
    ):
        found = match_grants(grants, capability.id, call.ctx.step_id, capability.target_of(call.args))
        if found.covering is not None:
            call.notes[MODE] = ModeDecision("allow", "approval_grant", found.covering.id)
        elif found.lapsed:
            call.notes[LAPSED] = found.lapsed
    return await proceed()


async def drift_guard(call: CapabilityCall, proceed: Proceed) -> Any:
    """A drifted capability never runs on a plain `allow`: it needs approval (`mode_source: drift_guard`)."""
    decision = call.notes.get(MODE)
    if isinstance(decision, ModeDecision):
        call.notes[MODE] = drift_guarded(call.resolved(), decision)
    return await proceed()


def _suspend(call: CapabilityCall) -> Suspend:
    return Suspend("approval_required", call=call.id, capability_id=call.capability_id)


async def _decided(call: CapabilityCall, decided: CallDecision, proceed: Proceed) -> Any:
    """A call that paused on an earlier claim meets the outcome of its approval."""
    call.notes[EXISTING] = decided
    if decided.status == InvocationStatus.pending:
        raise _suspend(call)
    if decided.status == InvocationStatus.approved:
        if decided.params_hash is None or arguments_hash(call.args) != decided.params_hash:
            # The step rendered different arguments this time (perhaps only where the inbox shows
            # them redacted or cut): the human approved other ones.
            raise StepError(
                "approval_params_changed",
                f"{call.capability_id} was approved with other arguments than it has now",
                retryable=False,
            )
        log = call.ctx.ports.invocations
        if log is not None and not await log.start_approved(decided.invocation_id):
            raise StepError(
                "invocation_interrupted", "the approved call was taken by another claim", retryable=False
            )
        call.notes[APPROVED] = decided.invocation_id
        return await proceed()
    if decided.status == InvocationStatus.denied:
        why = f": {decided.reason}" if decided.reason else ""
        raise StepError(
            "approval_denied", f"{call.capability_id} was denied by a human{why}", retryable=False
        )
    if decided.status == InvocationStatus.expired:
        raise StepError(
            "approval_expired", f"nobody decided on {call.capability_id} in time", retryable=False
        )
    # executing/executed/failed: an earlier claim started the call; running it again could repeat it.
    raise StepError(
        "invocation_interrupted",
        f"{call.capability_id} was started by a claim that stopped; it is not run a second time",
        retryable=False,
    )


async def enforce_mode(call: CapabilityCall, proceed: Proceed) -> Any:
    """`deny` refuses, `require_approval` pauses the run; a paused call meets its decision."""
    if not _governed(call):
        return await proceed()
    decided = call.ctx.governance.decisions.get(call.id.key)
    if decided is not None:
        return await _decided(call, decided, proceed)
    decision = _decision(call)
    if decision.mode == "deny":
        call.notes[DENIED] = "policy"
        raise StepError(
            "action_denied", f"{call.capability_id} is denied by this space's policy", retryable=False
        )
    if decision.mode == "require_approval" and not held_back(call):
        # A call the run's mode holds back is never sent, so nobody needs to approve it.
        raise _suspend(call)
    return await proceed()


async def rate_limit(call: CapabilityCall, proceed: Proceed) -> Any:
    """At most AUTOMATIONS_RUN_CALL_RATE_LIMIT calls per run per minute (`rate_limited`, retried)."""
    limiter = call.ctx.ports.call_limiter
    if limiter is not None and _governed(call) and not await limiter.allow():
        call.notes[DENIED] = "rate_limit"
        raise StepError("rate_limited", "this run makes too many calls per minute; slow down")
    return await proceed()
