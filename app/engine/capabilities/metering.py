"""Run-level LLM rules: the model allow-list, the automation's daily cap, the run's budget and token
caps, and the ledger.

They act only on metered capabilities (`Capability.metered`: `llm.complete` and an agent's model
turn) and let every other call through untouched. Caps are checked against the worst case of the
call (prompt tokens plus the whole output cap) before anything is spent; the ledger records what the
call actually used once it returns. The daily cap is the one place a running run learns that its
automation's day is spent: checked before every model call, it stops the run at its next call.

Calls of one claim may run at once (the iterations of a `for_each` with `concurrency` > 1). Each call
that passes the budget and token caps reserves its worst case until it has been recorded, and the next
call is checked against what was spent plus what is reserved: concurrent calls of a claim never take the
run past its caps together, however they interleave. (A run has one claim at a time, so the claim's
ledger is where reservations live.)
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from app.definitions.signals import StepError
from app.engine.capabilities.call import CapabilityCall, Proceed
from app.registry.builtin_llm import MeteredRequest, metered_request, reply_from_result

_SPENT = "llm_spent"
_PROMPT_TOKENS = "llm_prompt_tokens"


@dataclass
class _Reserved:
    """The worst case of the calls of one claim that passed the caps and are not recorded yet."""

    cost: float = 0.0
    tokens: int = 0


# One entry per claim's ledger, gone with the claim.
_RESERVED: weakref.WeakKeyDictionary[Any, _Reserved] = weakref.WeakKeyDictionary()


def _reserved(call: CapabilityCall) -> _Reserved:
    ledger = call.ctx.ports.ledger
    reserved = _RESERVED.get(ledger)
    if reserved is None:
        reserved = _RESERVED[ledger] = _Reserved()
    return reserved


@contextmanager
def _reserving(call: CapabilityCall, *, cost: float = 0.0, tokens: int = 0) -> Iterator[None]:
    """Hold `cost` and `tokens` against the run's caps while the call runs (and is recorded)."""
    reserved = _reserved(call)
    reserved.cost += cost
    reserved.tokens += tokens
    try:
        yield
    finally:
        reserved.cost -= cost
        reserved.tokens -= tokens


def _request(call: CapabilityCall) -> MeteredRequest | None:
    return metered_request(call.args) if call.resolved().metered else None


async def _spent(call: CapabilityCall) -> tuple[float, int]:
    """The run's spending so far, read once per call however many rules ask."""
    if _SPENT not in call.notes:
        call.notes[_SPENT] = await call.ctx.ports.ledger.spent()
    spent: tuple[float, int] = call.notes[_SPENT]
    return spent


def _prompt_tokens(call: CapabilityCall, request: MeteredRequest) -> int:
    if _PROMPT_TOKENS not in call.notes:
        call.notes[_PROMPT_TOKENS] = call.ctx.ports.llm.count_tokens(request.model, request.messages)
    tokens: int = call.notes[_PROMPT_TOKENS]
    return tokens


async def model_allowed(call: CapabilityCall, proceed: Proceed) -> Any:
    """Only the models the deployment allows (AUTOMATIONS_LLM_ALLOWED_MODELS) are called."""
    request = _request(call)
    if request is not None and not call.ctx.ports.llm.allows(request.model):
        raise StepError("model_not_allowed", f"model {request.model!r} is not allowed here", retryable=False)
    return await proceed()


async def llm_daily_cap(call: CapabilityCall, proceed: Proceed) -> Any:
    """Refuse a model call once the automation has spent its daily cap (UTC day), across all its runs."""
    request = _request(call)
    cap = call.ctx.limits.daily_cost_cap_usd
    if request is not None and cap is not None:
        spent = await call.ctx.ports.ledger.spent_today()
        if spent >= cap:
            raise StepError(
                "daily_budget_exceeded",
                f"the automation has spent ${spent:.4f} today (UTC), its daily cap is ${cap:.4f}",
                retryable=False,
            )
    return await proceed()


async def llm_budget(call: CapabilityCall, proceed: Proceed) -> Any:
    """Refuse a call whose worst-case cost would take the run past `execution.budget_cap_usd`."""
    request = _request(call)
    cap = call.ctx.limits.budget_cap_usd
    if request is not None and cap is not None:
        spent, _ = await _spent(call)
        worst = call.ctx.ports.llm.worst_case_cost(
            request.model, _prompt_tokens(call, request), request.max_tokens
        )
        # Read after the last await: the check and the reservation are one step for the event loop.
        cost = spent + _reserved(call).cost
        if cost + worst > cap:
            raise StepError(
                "budget_exceeded",
                f"this call could cost ${worst:.4f}; with ${cost:.4f} spent or reserved by calls under "
                f"way the run would pass its ${cap:.4f} cap",
                retryable=False,
            )
        with _reserving(call, cost=worst):
            return await proceed()
    return await proceed()


async def llm_token_cap(call: CapabilityCall, proceed: Proceed) -> Any:
    """Refuse a call whose prompt plus output cap would take the run past `execution.max_llm_tokens`."""
    request = _request(call)
    cap = call.ctx.limits.max_llm_tokens
    if request is not None and cap is not None:
        _, used = await _spent(call)
        prompt_tokens = _prompt_tokens(call, request)
        tokens = used + _reserved(call).tokens
        worst = prompt_tokens + request.max_tokens
        if tokens + worst > cap:
            raise StepError(
                "budget_exceeded",
                f"this call could use {worst} tokens; with {tokens} used or reserved by calls under "
                f"way the run would pass its {cap}-token cap",
                retryable=False,
            )
        with _reserving(call, tokens=worst):
            return await proceed()
    return await proceed()


async def llm_ledger(call: CapabilityCall, proceed: Proceed) -> Any:
    """Record what a metered call used, before its output is checked: an invalid answer was paid for."""
    result = await proceed()
    if call.resolved().metered:
        await call.ctx.ports.ledger.record(step_id=call.ctx.step_id, reply=reply_from_result(result))
    return result
