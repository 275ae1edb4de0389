"""Run statistics for charts: runs per UTC day by status, spend per day, duration percentiles, for a
space and for one automation; bounded ranges, and walls between spaces."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import update

from app.persistence.models import Run
from app.persistence.transaction import transaction
from tests.support.factories import Caller, Factory


async def _runs(caller: Caller, automation_id: str, count: int) -> list[str]:
    """`count` runs started through the API, left pending. A worker of the session may still take one
    (beat's recovery wakes pending runs), so tests move them into the scene they need at once (`_set`)."""
    ids = []
    for _ in range(count):
        response = await caller.request("POST", caller.space_path(f"/automations/{automation_id}/runs"))
        assert response.status_code == 202, response.text
        ids.append(response.json()["id"])
    return ids


async def _set(app: Any, run_id: str, **values: Any) -> None:
    """Move a run into the scene the test needs: its status, times and spend."""
    async with transaction(app.state.sessionmaker, app.state.send_job) as session:
        await session.execute(update(Run).where(Run.id == uuid.UUID(run_id)).values(**values))


def _finished(days_ago: int, status: str, seconds: float, cost: str) -> dict[str, Any]:
    created = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(hours=1)
    created -= timedelta(days=days_ago)
    return {
        "status": status,
        "created_at": created,
        "started_at": created,
        "finished_at": created + timedelta(seconds=seconds),
        "cost_usd": Decimal(cost),
    }


class TestStats:
    async def test_runs_per_day_by_status_spend_and_percentiles(self, app: Any, factory: Factory) -> None:
        alice = await factory.owner()
        automation = await alice.create_automation()
        other = await alice.create_automation()
        ids = await _runs(alice, automation["id"], 4)
        [others] = await _runs(alice, other["id"], 1)
        await _set(app, ids[0], **_finished(2, "succeeded", 1, "0.25"))
        await _set(app, ids[1], **_finished(2, "failed", 3, "0.5"))
        await _set(app, ids[2], **_finished(0, "succeeded", 2, "0"))
        # Older than the range asked for: left out.
        await _set(app, ids[3], **_finished(10, "succeeded", 100, "9"))
        await _set(app, others, **_finished(1, "failed", 4, "1"))

        answer = await alice.request(
            "GET", alice.space_path(f"/automations/{automation['id']}/stats"), params={"days": 7}
        )
        assert answer.status_code == 200, answer.text
        stats = answer.json()
        assert stats["automation_id"] == automation["id"]
        assert stats["days"] == 7
        days = stats["per_day"]
        assert len(days) == 7, "every day of the range, zeros included"
        assert days[-1]["day"] == datetime.now(UTC).date().isoformat() == stats["last_day"]
        assert days[0]["day"] == stats["first_day"]
        assert days[-3]["by_status"] == {"succeeded": 1, "failed": 1}
        assert days[-3]["total"] == 2
        assert days[-3]["cost_usd"] == 0.75
        assert days[-1]["by_status"] == {"succeeded": 1}
        assert days[-2] == {"day": days[-2]["day"], "total": 0, "by_status": {}, "cost_usd": 0.0}
        assert stats["totals"] == {"runs": 3, "by_status": {"succeeded": 2, "failed": 1}, "cost_usd": 0.75}
        assert stats["duration_ms"] == {"finished": 3, "p50": 2000.0, "p95": 2900.0}
        assert "awaiting_approval" in stats["statuses"]

        space = (
            await alice.request("GET", alice.space_path("/automations/stats"), params={"days": 7})
        ).json()
        assert space["automation_id"] is None
        assert space["totals"]["runs"] == 4, "both automations, the old run left out"
        assert space["per_day"][-2]["by_status"] == {"failed": 1}
        assert space["totals"]["cost_usd"] == 1.75
        assert space["by_automation"] == [
            {"automation_id": other["id"], "runs": 1, "failed": 1, "cost_usd": 1.0},
            {"automation_id": automation["id"], "runs": 3, "failed": 1, "cost_usd": 0.75},
        ]
        assert stats["by_automation"] is None

        wide = (
            await alice.request("GET", alice.space_path("/automations/stats"), params={"days": 90})
        ).json()
        assert wide["totals"]["runs"] == 5
        assert len(wide["per_day"]) == 90

    async def test_no_runs_and_a_single_day(self, factory: Factory) -> None:
        alice = await factory.owner()
        automation = await alice.create_automation()
        stats = (
            await alice.request(
                "GET", alice.space_path(f"/automations/{automation['id']}/stats"), params={"days": 1}
            )
        ).json()
        assert [day["total"] for day in stats["per_day"]] == [0]
        assert stats["totals"] == {"runs": 0, "by_status": {}, "cost_usd": 0.0}
        assert stats["duration_ms"] == {"finished": 0, "p50": None, "p95": None}
        default = (await alice.request("GET", alice.space_path("/automations/stats"))).json()
        assert default["days"] == 14
        assert len(default["per_day"]) == 14

    async def test_bad_ranges_are_422_with_a_pointer(self, factory: Factory) -> None:
        alice = await factory.owner()
        automation = await alice.create_automation()
        for path in ("/automations/stats", f"/automations/{automation['id']}/stats"):
            for days in ("0", "-3", "91", "100000", "two", "1.5"):
                response = await alice.request("GET", alice.space_path(path), params={"days": days})
                assert response.status_code == 422, (path, days, response.text)
                error = response.json()["error"]
                assert error["code"] == "validation_failed"
                assert "days" in error["details"][0]["path"]

    async def test_another_spaces_automation_is_404_and_its_runs_never_count(self, factory: Factory) -> None:
        alice = await factory.owner()
        bob = await factory.owner()
        theirs = await alice.create_automation()
        await _runs(alice, theirs["id"], 2)
        through_own = await bob.request("GET", bob.space_path(f"/automations/{theirs['id']}/stats"))
        assert through_own.status_code == 404
        assert through_own.json()["error"]["code"] == "automation_not_found"
        through_theirs = await bob.request(
            "GET", bob.space_path(f"/automations/{theirs['id']}/stats", space_id=alice.space_id)
        )
        assert through_theirs.status_code == 404
        assert through_theirs.json()["error"]["code"] == "space_not_found"
        own = (await bob.request("GET", bob.space_path("/automations/stats"))).json()
        assert own["totals"]["runs"] == 0
        unknown = await alice.request("GET", alice.space_path(f"/automations/{uuid.uuid4()}/stats"))
        assert unknown.status_code == 404
