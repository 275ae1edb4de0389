"""Slack's chat.postMessage against a loopback fake of the Web API, through the egress guard."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.definitions.signals import StepError
from app.integrations.slack import SlackApi
from app.security.egress import EgressAllowList
from tests.support.fake_slack import FakeSlack

LOOPBACK = EgressAllowList.parse("127.0.0.1/32")


@pytest.fixture(scope="module")
def slack() -> Iterator[FakeSlack]:
    server = FakeSlack().start()
    yield server
    server.stop()


async def test_posts_with_the_bot_token_and_answers_channel_and_ts(slack: FakeSlack) -> None:
    api = SlackApi(slack.base_url, LOOPBACK)
    answer = await api.post_message(
        "xoxb-good", {"channel": "#eng", "text": "deploy done", "thread_ts": "1.2"}, timeout_seconds=5
    )
    assert answer["channel"] == "C0ENG"
    assert answer["ts"].startswith("1700000000.")
    assert slack.posts[-1] == {"channel": "#eng", "text": "deploy done", "thread_ts": "1.2"}


@pytest.mark.parametrize(
    ("token", "channel", "code"),
    [("xoxb-revoked", "C1", "invalid_auth"), ("xoxb-good", "C404", "channel_not_found")],
)
async def test_ok_false_errors_surface_and_are_not_retried(
    slack: FakeSlack, token: str, channel: str, code: str
) -> None:
    api = SlackApi(slack.base_url, LOOPBACK)
    with pytest.raises(StepError) as caught:
        await api.post_message(token, {"channel": channel, "text": "x"}, timeout_seconds=5)
    assert caught.value.code == code
    assert caught.value.retryable is False
    assert token not in caught.value.message


async def test_429_is_waited_out_when_retry_after_fits_the_step(slack: FakeSlack) -> None:
    slack.calls.clear()
    slack.busy_times, slack.retry_after = 1, "0"
    api = SlackApi(slack.base_url, LOOPBACK)
    answer = await api.post_message("xoxb-busy", {"channel": "C1", "text": "x"}, timeout_seconds=5)
    assert answer["channel"] == "C1"
    assert slack.calls["xoxb-busy"] == 2


async def test_429_beyond_the_step_time_is_a_retryable_ratelimited_error(slack: FakeSlack) -> None:
    slack.calls.clear()
    slack.busy_times, slack.retry_after = 5, "120"
    api = SlackApi(slack.base_url, LOOPBACK)
    with pytest.raises(StepError) as caught:
        await api.post_message("xoxb-busy", {"channel": "C1", "text": "x"}, timeout_seconds=5)
    assert caught.value.code == "ratelimited"
    assert caught.value.retryable is True
    assert caught.value.details == {"retry_after_seconds": 120.0}
    assert slack.calls["xoxb-busy"] == 1


async def test_a_private_api_url_is_refused_by_the_egress_guard(slack: FakeSlack) -> None:
    api = SlackApi(slack.base_url, EgressAllowList())
    with pytest.raises(StepError) as caught:
        await api.post_message("xoxb-good", {"channel": "C1", "text": "x"}, timeout_seconds=5)
    assert caught.value.code == "egress_denied"
    assert caught.value.retryable is False
