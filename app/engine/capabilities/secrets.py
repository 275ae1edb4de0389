"""The `secrets` rule: bound `{"$secret": name}` references become values right before `execute`.

Values come from a `SecretResolver` handed to the pipeline at composition (the space's vault), one
lookup per call for all its references, and live only in the arguments the handler receives: the call's own
arguments keep the references, so records and errors show names, never values. Whatever comes back
(result or error message) is scrubbed of the values before any other rule sees it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Protocol

from app.definitions.signals import StepError
from app.engine.capabilities.call import CapabilityCall, Proceed, Rule
from app.engine.secret_refs import references, scrub, substitute


class SecretResolver(Protocol):
    """The space's secrets: the values of those `names` the space has (absent names are left out).

    May raise `StepError` for a secret that exists but cannot be read (e.g. `secret_unreadable`).
    """

    async def resolve(self, space_id: str, names: Collection[str]) -> Mapping[str, str]: ...


class NoSecrets:
    """The resolver of an installation without a vault: every reference is missing."""

    async def resolve(self, space_id: str, names: Collection[str]) -> Mapping[str, str]:
        return {}


def secrets_rule(resolver: SecretResolver) -> Rule:
    """Resolve the call's bound references; `secret_missing` (not retried) for an unknown name."""

    async def resolve_secrets(call: CapabilityCall, proceed: Proceed) -> Any:
        found = references(call.args)
        if not found:
            return await proceed()
        if call.resolved().metered:
            raise StepError(
                "secret_not_allowed", "secret references are never sent to a model", retryable=False
            )
        names = sorted({reference.name for reference in found})
        values = dict(await resolver.resolve(call.ctx.space_id, names))
        missing = [name for name in names if name not in values]
        if missing:
            raise StepError(
                "secret_missing",
                f"no secret named {', '.join(repr(name) for name in missing)} in this space",
                retryable=False,
            )
        written = call.args
        call.args = substitute(written, values)
        secrets = list(values.values())
        try:
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
