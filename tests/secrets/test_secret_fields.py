"""A secret goes only where a capability declares it may: never into state or notifications a member reads.

The attack: an admin stores a credential; a member writes `{"$secret": …}` into a `kv_set` value or a
notification body, runs the automation on a real worker, and reads the value back through the API.
Saving is refused with a pointer; a definition stored before the rule existed is refused at call time.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from sqlalchemy import text

from tests.support.factories import Caller, Factory
from tests.support.runs import attempts, definition, fire, wait_for

VALUE = "sk-live-" + uuid.uuid4().hex

KV_LEAK: dict[str, Any] = {
    "step_id": "leak",
    "action": "kv_set",
    "config": {"key": "leak", "value": {"$secret": "s1"}},
}
NOTIFICATION_LEAK: dict[str, Any] = {
    "step_id": "leak",
    "action": "notification",
    "config": {"title": "hello", "body": {"$secret": "s1"}},
}
HARMLESS: dict[str, Any] = {"step_id": "leak", "action": "transform_data", "config": {"output": 1}}


async def admin_and_member(factory: Factory) -> tuple[Caller, Caller]:
    owner = await factory.owner()
    stored = await owner.request("PUT", owner.space_path("/secrets/s1"), json={"value": VALUE})
    assert stored.status_code == 201, stored.text
    return owner, await factory.member(owner)


async def test_saving_a_secret_into_kv_state_is_refused_with_its_pointer(factory: Factory) -> None:
    _, member = await admin_and_member(factory)
    response = await member.request(
        "POST", member.space_path("/automations"), json={"definition": definition(KV_LEAK)}
    )
    assert response.status_code == 422, response.text
    details = response.json()["error"]["details"]
    assert [(d["path"], d["code"]) for d in details] == [
        ("/definition/plan/0/config/value", "secret_not_allowed_here")
    ]


async def test_saving_a_secret_into_a_notification_is_refused(factory: Factory) -> None:
    _, member = await admin_and_member(factory)
    checked = await member.request(
        "POST", member.space_path("/automations/validate"), json={"definition": definition(NOTIFICATION_LEAK)}
    )
    assert checked.status_code == 200
    assert [(e["path"], e["code"]) for e in checked.json()["errors"]] == [
        ("/plan/0/config/body", "secret_not_allowed_here")
    ]


async def stored_before_the_rule(app: Any, member: Caller, step: dict[str, Any]) -> str:
    """An automation whose definition holds `step`, written the way an older release stored it."""
    automation = await member.create_automation(definition(HARMLESS))
    document = json.dumps(definition(step))
    async with app.state.engine.begin() as connection:
        for table, column in (("automations", "id"), ("automation_versions", "automation_id")):
            # Table and column names are the literals above, not input.
            statement = text(f"UPDATE {table} SET definition = CAST(:d AS jsonb) WHERE {column} = :i")  # noqa: S608
            await connection.execute(statement, {"d": document, "i": uuid.UUID(automation["id"])})
    activated = await member.request("POST", member.space_path(f"/automations/{automation['id']}/activate"))
    assert activated.status_code == 200, activated.text
    return str(automation["id"])


async def test_a_stored_kv_leak_is_refused_at_call_time_and_nothing_reads_the_value(
    app: Any, factory: Factory, worker: Any
) -> None:
    _, member = await admin_and_member(factory)
    automation_id = await stored_before_the_rule(app, member, KV_LEAK)
    done = await wait_for(member, (await fire(member, automation_id))["id"])
    assert done["status"] == "failed", done
    (step,) = attempts(done, "leak")
    assert step["error"]["code"] == "secret_not_allowed_here"
    assert step["error"]["details"]["pointer"] == "/value"
    read = await member.request("GET", member.space_path(f"/automations/{automation_id}/kv/leak"))
    assert read.status_code == 404, read.text
    assert VALUE not in read.text


async def test_a_stored_notification_leak_is_refused_at_call_time(
    app: Any, factory: Factory, worker: Any
) -> None:
    _, member = await admin_and_member(factory)
    automation_id = await stored_before_the_rule(app, member, NOTIFICATION_LEAK)
    done = await wait_for(member, (await fire(member, automation_id))["id"])
    assert done["status"] == "failed", done
    (step,) = attempts(done, "leak")
    assert step["error"]["code"] == "secret_not_allowed_here"
    inbox = await member.request("GET", member.space_path("/notifications"))
    assert inbox.status_code == 200
    assert VALUE not in inbox.text
