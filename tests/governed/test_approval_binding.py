"""An approval covers the exact arguments of the call, not what the audit shows of them.

The inbox shows params redacted (values under sensitive keys) and cut to 10 KB. The approval is bound
to a hash of the full arguments as the pipeline had them (secret references as written), so a resumed
call whose arguments differ where the inbox cannot show it is refused, not run. Real API, worker and
loopback server; the arguments change between the pause and the resume through `run.attempt`, which
the claim that resumes the run increments.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.governed.helpers import name
from tests.support.approvals import decide, set_modes, the_approval
from tests.support.factories import Factory
from tests.support.loopback import Loopback
from tests.support.runs import definition, fire, wait_for

# Each config renders differently on the claim that resumes the run, but identically once redacted and
# cut to 10 KB: under a sensitive header, and past 10 KB of a raw body.
SENSITIVE = {"headers": {"X-Api-Key": "key-{{ run.attempt }}"}}
LONG_BODY = {"body": "{{ 'x' * 11000 }}-{{ run.attempt }}"}
# The same shapes with nothing that changes: the approval covers them.
SENSITIVE_FIXED = {"headers": {"X-Api-Key": "key-fixed"}}
LONG_BODY_FIXED = {"body": "{{ 'x' * 11000 }}-fixed"}


async def _waiting(owner: Any, loopback: Loopback, hits: str, extra: dict[str, Any]) -> dict[str, Any]:
    step = {
        "step_id": "call",
        "action": "http_request",
        "config": {"method": "POST", "url": f"{loopback.url}/count/{hits}", **extra},
    }
    automation = await owner.create_automation(definition(step))
    await set_modes(owner, {"http.request": "require_approval"}, automation["id"])
    await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/activate"))
    run = await fire(owner, automation["id"])
    return await wait_for(owner, run["id"], {"awaiting_approval"}, timeout=60)


@pytest.mark.parametrize("extra", [SENSITIVE, LONG_BODY], ids=["sensitive_key", "past_10_kb"])
async def test_a_call_that_differs_only_where_the_inbox_hides_it_is_not_covered(
    factory: Factory, loopback: Loopback, stack: Any, extra: dict[str, Any]
) -> None:
    owner = await factory.owner()
    hits = name("bound")
    run = await _waiting(owner, loopback, hits, extra)
    approval = await the_approval(owner, run["id"])
    assert (await decide(owner, approval["id"], "approve")).status_code == 200

    done = await wait_for(owner, run["id"])
    assert loopback.hits[hits] == 0, "the call the human did not see was sent"
    assert done["status"] == "failed"
    assert done["error"]["code"] == "approval_params_changed"
    [invocation] = done["invocations"]
    assert len(invocation["params_hash"]) == 64, "the approval shows what it is bound to"


@pytest.mark.parametrize("extra", [SENSITIVE_FIXED, LONG_BODY_FIXED], ids=["sensitive_key", "past_10_kb"])
async def test_the_same_call_is_covered_however_much_the_inbox_hides(
    factory: Factory, loopback: Loopback, stack: Any, extra: dict[str, Any]
) -> None:
    owner = await factory.owner()
    hits = name("same")
    run = await _waiting(owner, loopback, hits, extra)
    approval = await the_approval(owner, run["id"])
    assert (await decide(owner, approval["id"], "approve")).status_code == 200
    done = await wait_for(owner, run["id"])
    assert done["status"] == "succeeded", done
    assert loopback.hits[hits] == 1
