"""Standing approvals (`approve … scope: always`): which later calls one covers, and which it no longer can.

A grant is bound to the call a human approved: the automation (the claim reads only its own grants), the
step that made it, the capability and the call's target (`Capability.target_of`: for `http.request`
the method and URL without query, for an MCP tool or another capability without a target function
the capability itself). A call of the same step and capability covers only with the same target.
One with another target means the step now does something else (an edit, or a template that renders
elsewhere): the grant lapses and the call asks again. A grant never relaxes `deny`, never applies to a
destructive capability, and the drift guard still applies after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class StandingGrant:
    """One live grant, as a claim reads it."""

    id: str
    capability: str
    step_id: str
    target: str


@dataclass(frozen=True)
class GrantMatch:
    """The grant that covers a call, or the grants of its step that it proves lapsed."""

    covering: StandingGrant | None
    lapsed: tuple[StandingGrant, ...] = ()


def match_grants(
    grants: Sequence[StandingGrant], capability_id: str, step_id: str, target: str
) -> GrantMatch:
    """The grant of this step, capability and target; otherwise those of the step and capability."""
    same_call = [g for g in grants if g.capability == capability_id and g.step_id == step_id]
    for grant in same_call:
        if grant.target == target:
            return GrantMatch(grant)
    return GrantMatch(None, tuple(same_call))
