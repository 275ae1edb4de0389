"""The `secrets` rule: bound `{"$secret": name}` references become values right before `execute`.

A reference is resolved only where the capability declares a secret field (`Capability.secret_fields`):
anywhere else it is refused (`secret_not_allowed_here`, with its pointer), so no secret is written to
state, a notification or a prompt that a member can read back. A secret bound to hosts is refused
(`secret_host_refused`) when the capability says, from the arguments, that it sends it elsewhere, or
when it hands it to a local process; and for the length of the call the values with their hosts are
handed to the egress transport (`carrying`), which checks every request and redirect hop before any
socket opens.

Values come from a `SecretResolver` handed to the pipeline at composition (the space's vault), one
lookup per call for all its references, and live only in the arguments the handler receives: the call's own
arguments keep the references, so records and errors show names, never values. Whatever comes back
(result or error message) is scrubbed of the values before any other rule sees it. A call without a
reference costs the one walk over its arguments that finds none.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Protocol

from app.definitions.pointers import join
from app.definitions.signals import StepError
from app.engine.capabilities.call import CapabilityCall, Proceed, Rule
from app.engine.secret_refs import SecretRef, has_references, located, scrub, substitute
from app.registry import Capability
from app.security.egress.carried import CarriedSecret, carrying, host_allowed


class SecretResolver(Protocol):
    """The space's secrets: those of `names` the space has, each with its value and bound hosts.

    Absent names are left out. May raise `StepError` for a secret that exists but cannot be read
    (e.g. `secret_unreadable`).
    """

    async def carried(self, space_id: str, names: Collection[str]) -> Mapping[str, CarriedSecret]: ...


class NoSecrets:
    """The resolver of an installation without a vault: every reference is missing."""

    async def carried(self, space_id: str, names: Collection[str]) -> Mapping[str, CarriedSecret]:
        return {}


def refuse_undeclared(capability: Capability, found: list[tuple[tuple[str | int, ...], SecretRef]]) -> None:
    """`secret_not_allowed_here` for the first reference outside the capability's secret fields."""
    fields = capability.secret_fields
    for where, reference in found:
        if not fields.allows(where):
            pointer = join(*where)
            raise StepError(
                "secret_not_allowed_here",
                f"{capability.id} does not send a secret at {pointer or '(root)'}; "
                f"the secret {reference.name!r} is not resolved there",
                retryable=False,
                details={"pointer": pointer, "secret": reference.name},
            )


def refuse_unbound_destination(
    capability: Capability, args: dict[str, Any], secrets: Collection[CarriedSecret]
) -> None:
    """`secret_host_refused` when a host-bound secret would go to another host, or to a local process."""
    bound = [secret for secret in secrets if secret.hosts]
    if not bound:
        return
    fields = capability.secret_fields
    host = fields.destination(args)
    for secret in bound:
        if not fields.guarded:
            message = f"the secret {secret.name!r} is bound to hosts; {capability.id} runs as a local process"
        elif host is not None and not host_allowed(host, secret.hosts):
            message = f"the secret {secret.name!r} may only be sent to {', '.join(secret.hosts)}, not {host}"
        else:
            continue
        raise StepError("secret_host_refused", message, retryable=False, details={"secret": secret.name})


def secrets_rule(resolver: SecretResolver) -> Rule:
    """Resolve the call's bound references; `secret_missing` (not retried) for an unknown name."""

    async def resolve_secrets(call: CapabilityCall, proceed: Proceed) -> Any:
        if not has_references(call.args):
            return await proceed()
        capability = call.resolved()
        found = located(call.args)
        refuse_undeclared(capability, found)
        names = sorted({reference.name for _, reference in found})
        resolved = dict(await resolver.carried(call.ctx.space_id, names))
        missing = [name for name in names if name not in resolved]
        if missing:
            raise StepError(
                "secret_missing",
                f"no secret named {', '.join(repr(name) for name in missing)} in this space",
                retryable=False,
            )
        written = call.args
        sent = substitute(written, {name: secret.value for name, secret in resolved.items()})
        refuse_unbound_destination(capability, sent, resolved.values())
        call.args = sent
        secrets = [secret.value for secret in resolved.values()]
        try:
            with carrying(resolved.values()):
                return scrub(await proceed(), secrets)
        except StepError as exc:
            raise StepError(
                exc.code,
                scrub(exc.message, secrets),
                retryable=exc.retryable,
                details=scrub(exc.details, secrets),
            ) from None
        except Exception as exc:
            text = str(exc)
            if any(secret in text for secret in secrets):
                # The exception's message (and its chain) may carry a value: keep neither.
                message = f"{type(exc).__name__}: {scrub(text, secrets)[:500]}"
                raise StepError("action_error", message) from None
            raise
        finally:
            call.args = written

    return resolve_secrets
