"""slack_post and send_email as steps of real runs: a worker, a real SMTP server, checks at save time."""

from __future__ import annotations

from typing import Any

from tests.support.factories import Factory
from tests.support.fake_slack import FakeSlack
from tests.support.runs import definition, start, wait_for
from tests.support.smtp_server import SmtpServer


def email_step(**config: Any) -> dict[str, Any]:
    return {"step_id": "mail", "action": "send_email", "config": config}


class TestSendEmail:
    async def test_a_run_sends_the_rendered_email(
        self, factory: Factory, smtp_server: SmtpServer, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        document = definition(
            email_step(
                to=["ops@example.com"],
                subject="Run {{ run.automation_name }} finished",
                text="Hello {{ inputs.who }}",
            ),
            inputs={"schema": {"type": "object", "properties": {"who": {"type": "string"}}}},
        )
        _, run = await start(owner, document, {"who": "team"})
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        sent = [a for a in smtp_server.accepted if a.message["Subject"] == "Run Pipeline test finished"]
        assert len(sent) == 1
        assert sent[0].recipients == ["ops@example.com"]
        assert sent[0].message.get_content().strip() == "Hello team"
        (step,) = done["steps"]
        assert step["output"]["message_id"] == sent[0].message["Message-ID"]
        assert step["output"]["accepted"] == ["ops@example.com"]

    async def test_runs_one_after_another_each_send_through_the_workers_one_relay(
        self, factory: Factory, smtp_server: SmtpServer, stack
    ) -> None:  # type: ignore[no-untyped-def]
        # A worker process builds its SMTP relay (and its TLS context) once; every run's mail uses it.
        owner = await factory.owner()
        document = definition(email_step(to=["ops@example.com"], subject="Round {{ inputs.n }}", text="x"))
        for n in range(3):
            _, run = await start(owner, document, {"n": n})
            assert (await wait_for(owner, run["id"]))["status"] == "succeeded"
        subjects = {str(a.message["Subject"]) for a in smtp_server.accepted}
        assert {"Round 0", "Round 1", "Round 2"} <= subjects

    async def test_a_header_injection_from_inputs_fails_the_step_and_sends_nothing(
        self, factory: Factory, smtp_server: SmtpServer, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        before = len(smtp_server.accepted)
        document = definition(
            email_step(to=["ops@example.com"], subject="{{ inputs.subject }}", text="x"),
            inputs={"schema": {"type": "object", "properties": {"subject": {"type": "string"}}}},
        )
        _, run = await start(owner, document, {"subject": "Hi\r\nBcc: victim@example.com"})
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed"
        (step,) = done["steps"]
        assert step["error"]["code"] == "header_injection"
        assert len(smtp_server.accepted) == before


class TestRefusedAtSave:
    async def test_slack_post_without_token_or_channel_is_a_problem_with_its_pointer(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        for missing, config in (
            ("token", {"channel": "#eng", "text": "hi"}),
            ("channel", {"text": "hi", "token": {"$secret": "slack_bot_token"}}),
        ):
            response = await owner.request(
                "POST",
                owner.space_path("/automations"),
                json={
                    "definition": definition({"step_id": "post", "action": "slack_post", "config": config})
                },
            )
            assert response.status_code == 422, response.text
            details = response.json()["error"]["details"]
            assert any(
                d["path"] == "/definition/plan/0/config" and missing in d["message"] for d in details
            ), details

    async def test_send_email_with_too_many_recipients_is_refused(self, factory: Factory) -> None:
        owner = await factory.owner()
        step = email_step(to=[f"u{i}@example.com" for i in range(101)], subject="s", text="t")
        response = await owner.request(
            "POST", owner.space_path("/automations"), json={"definition": definition(step)}
        )
        assert response.status_code == 422
        assert any(
            d["path"].startswith("/definition/plan/0/config/to") for d in response.json()["error"]["details"]
        )


class TestSlackPost:
    async def test_a_run_posts_with_the_token_from_the_space_secret(
        self, factory: Factory, fake_slack: FakeSlack, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        stored = await owner.request(
            "PUT", owner.space_path("/secrets/slack_bot_token"), json={"value": "xoxb-good"}
        )
        assert stored.status_code == 201, stored.text
        step = {
            "step_id": "post",
            "action": "slack_post",
            "config": {
                "channel": "#eng",
                "message_template": "{{ run.automation_name }} finished",
                "token": {"$secret": "slack_bot_token"},
            },
        }
        _, run = await start(owner, definition(step))
        done = await wait_for(owner, run["id"])
        assert done["status"] == "succeeded", done
        (record,) = done["steps"]
        assert record["output"]["channel"] == "C0ENG"
        assert record["config"]["token"] == {"$secret": "slack_bot_token"}
        assert "xoxb-good" not in str(done)
        assert {"channel": "#eng", "text": "Pipeline test finished"} in fake_slack.posts

    async def test_a_token_bound_to_slack_com_never_reaches_another_slack_api(
        self, factory: Factory, fake_slack: FakeSlack, stack
    ) -> None:  # type: ignore[no-untyped-def]
        # The capability cannot tell where its token goes; the egress transport sees the request and
        # refuses it before connecting, because the deployment's Slack URL (here a loopback fake) is
        # not a host the token is bound to.
        owner = await factory.owner()
        body = {"value": "xoxb-bound", "hosts": ["slack.com"]}
        stored = await owner.request("PUT", owner.space_path("/secrets/slack_bot_token"), json=body)
        assert stored.status_code == 201, stored.text
        posts = len(fake_slack.posts)
        step = {
            "step_id": "post",
            "action": "slack_post",
            "config": {"channel": "C1", "text": "hi", "token": {"$secret": "slack_bot_token"}},
        }
        _, run = await start(owner, definition(step))
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed"
        (record,) = done["steps"]
        assert record["error"]["code"] == "secret_host_refused"
        assert "xoxb-bound" not in str(done)
        assert len(fake_slack.posts) == posts

    async def test_slack_errors_fail_the_step_with_their_code(
        self, factory: Factory, fake_slack: FakeSlack, stack
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        await owner.request(
            "PUT", owner.space_path("/secrets/slack_bot_token"), json={"value": "xoxb-revoked"}
        )
        step = {
            "step_id": "post",
            "action": "slack_post",
            "config": {"channel": "C1", "text": "hi", "token": {"$secret": "slack_bot_token"}},
        }
        _, run = await start(owner, definition(step))
        done = await wait_for(owner, run["id"])
        assert done["status"] == "failed"
        (record,) = done["steps"]
        assert record["error"]["code"] == "invalid_auth"
        assert "xoxb-revoked" not in str(done)
