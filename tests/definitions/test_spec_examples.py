"""The definition format's own example shapes, end to end against the loopback Slack: an input that
defaults to the space's value, a `slack_post` step naming its channel by `channel_id`."""

from __future__ import annotations

import copy
from typing import Any

from tests.support.factories import Caller, Factory, example
from tests.support.fake_slack import FakeSlack
from tests.support.runs import wait_for

EXAMPLE = "digest_to_space_channel.json"


async def _space_with_slack(factory: Factory, channel: str | None) -> Caller:
    owner = await factory.owner()
    stored = await owner.request(
        "PUT", owner.space_path("/secrets/slack_bot_token"), json={"value": "xoxb-good"}
    )
    assert stored.status_code == 201, stored.text
    if channel is not None:
        made = await owner.request(
            "PUT", owner.space_path("/input-defaults/channel"), json={"value": channel}
        )
        assert made.status_code == 201, made.text
    return owner


async def _save(owner: Caller, document: dict[str, Any]) -> dict[str, Any]:
    response = await owner.request("POST", owner.space_path("/automations"), json={"definition": document})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def _run_now(owner: Caller, automation_id: str) -> Any:
    return await owner.request(
        "POST", owner.space_path(f"/automations/{automation_id}/runs"), json={"inputs": {"tags": ["rivals"]}}
    )


class TestSlackToTheSpaceChannel:
    async def test_the_example_saves_clean_and_posts_to_the_space_s_channel(
        self, factory: Factory, fake_slack: FakeSlack, stack: Any
    ) -> None:
        owner = await _space_with_slack(factory, "C0123")
        saved = await _save(owner, example(EXAMPLE))
        # Only the note that the bot token is bound to no host (the fake Slack is on loopback).
        assert [w["code"] for w in saved["warnings"]] == ["secret_unbound"], saved["warnings"]
        started = await _run_now(owner, saved["id"])
        assert started.status_code == 202, started.text
        assert started.json()["inputs"]["channel"] == "C0123"
        done = await wait_for(owner, started.json()["id"])
        assert done["status"] == "succeeded", done
        deliver = next(step for step in done["steps"] if step["step_id"] == "deliver")
        assert deliver["output"]["channel"] == "C0123"
        assert deliver["config"]["channel_id"] == "C0123", "the record keeps the name the step used"
        assert deliver["config"]["token"] == {"$secret": "slack_bot_token"}
        expected = "*Digest*\n\n• Tags: rivals\n• Since: the beginning\n"
        assert {"channel": "C0123", "text": expected} in fake_slack.posts
        assert "xoxb-good" not in str(done)

    async def test_without_the_space_s_channel_it_warns_at_save_and_refuses_the_fire(
        self, factory: Factory, fake_slack: FakeSlack
    ) -> None:
        owner = await _space_with_slack(factory, None)
        saved = await _save(owner, example(EXAMPLE))
        flagged = [(w["path"], w["code"]) for w in saved["warnings"] if w["code"] != "secret_unbound"]
        assert flagged == [("/inputs/schema/properties/channel/default", "space_default_missing")]
        posts = len(fake_slack.posts)
        refused = await _run_now(owner, saved["id"])
        assert refused.status_code == 422, refused.text
        assert refused.json()["error"]["code"] == "space_default_missing"
        assert len(fake_slack.posts) == posts

    async def test_channel_and_channel_id_post_alike(
        self, factory: Factory, fake_slack: FakeSlack, stack: Any
    ) -> None:
        owner = await _space_with_slack(factory, "C0777")
        document = example(EXAMPLE)
        by_old_name = copy.deepcopy(document)
        config = by_old_name["plan"][1]["config"]
        config["channel"] = config.pop("channel_id")
        by_old_name["name"] = "Digest by channel"
        outputs = []
        for variant in (document, by_old_name):
            saved = await _save(owner, variant)
            started = await _run_now(owner, saved["id"])
            done = await wait_for(owner, started.json()["id"])
            assert done["status"] == "succeeded", done
            outputs.append(done["steps"][-1]["output"]["channel"])
        assert outputs == ["C0777", "C0777"]

    async def test_both_channel_names_at_once_are_refused_at_save(self, factory: Factory) -> None:
        owner = await _space_with_slack(factory, "C0123")
        document = example(EXAMPLE)
        document["plan"][1]["config"]["channel"] = "#eng"
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": document}
        )
        assert response.status_code == 422, response.text
        details = response.json()["error"]["details"]
        assert [(d["path"], d["code"]) for d in details] == [("/definition/plan/1/config", "invalid_config")]
        assert "channel" in details[0]["message"]

    async def test_a_channel_slack_does_not_know_fails_the_step_after_its_own_retries(
        self, factory: Factory, fake_slack: FakeSlack, stack: Any
    ) -> None:
        owner = await _space_with_slack(factory, "C404")
        document = example(EXAMPLE)
        document["plan"][1]["retry_backoff"] = "none"
        saved = await _save(owner, document)
        started = await _run_now(owner, saved["id"])
        done = await wait_for(owner, started.json()["id"])
        assert done["status"] == "failed", done
        attempts = [step for step in done["steps"] if step["step_id"] == "deliver"]
        assert {step["error"]["code"] for step in attempts} == {"channel_not_found"}
