"""send_email's mail building and SMTP sending, against a real SMTP server (aiosmtpd) on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.definitions.signals import StepError
from app.integrations.email_message import MAX_RECIPIENTS, build_mail
from app.integrations.smtp import SmtpMailer, SmtpRelay
from app.security.egress import EgressAllowList
from tests.support.smtp_server import SmtpServer

LOOPBACK = EgressAllowList.parse("127.0.0.1/32")
SENDER = "automations@example.com"


@pytest.fixture(scope="module")
def smtp() -> Iterator[SmtpServer]:
    server = SmtpServer().start()
    yield server
    server.stop()


def mailer(smtp: SmtpServer, allow: EgressAllowList = LOOPBACK) -> SmtpMailer:
    return SmtpMailer(SmtpRelay.parse(smtp.url), SENDER, allow)


def mail(**changes: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "to": ["ops@example.com"],
        "subject": "Nightly sync failed",
        "text": "See run 42.",
    }
    args.update(changes)
    return args


class TestSending:
    async def test_sends_text_and_html_with_cc_and_a_hidden_bcc(self, smtp: SmtpServer) -> None:
        built = build_mail(
            mail(cc=["lead@example.com"], bcc=["audit@example.com"], html="<p>See run 42.</p>"), SENDER
        )
        answer = await mailer(smtp).send(built, timeout_seconds=10)
        assert answer["accepted"] == ["ops@example.com", "lead@example.com", "audit@example.com"]
        assert answer["refused"] == []
        got = smtp.accepted[-1]
        assert got.sender == SENDER
        assert sorted(got.recipients) == ["audit@example.com", "lead@example.com", "ops@example.com"]
        assert got.message["Subject"] == "Nightly sync failed"
        assert got.message["Cc"] == "lead@example.com"
        assert got.message["Bcc"] is None
        assert got.message["Message-ID"] == answer["message_id"]
        assert got.message.is_multipart()

    async def test_one_refused_recipient_among_accepted_ones_is_reported(self, smtp: SmtpServer) -> None:
        built = build_mail(mail(to=["ops@example.com", "nobody@reject.example.net"]), SENDER)
        answer = await mailer(smtp).send(built, timeout_seconds=10)
        assert answer["accepted"] == ["ops@example.com"]
        assert answer["refused"] == ["nobody@reject.example.net"]

    async def test_a_5xx_for_every_recipient_is_permanent(self, smtp: SmtpServer) -> None:
        with pytest.raises(StepError) as caught:
            await mailer(smtp).send(
                build_mail(mail(to=["nobody@reject.example.net"]), SENDER), timeout_seconds=10
            )
        assert caught.value.code == "smtp_recipients_refused"
        assert caught.value.retryable is False

    async def test_a_4xx_is_retryable(self, smtp: SmtpServer) -> None:
        with pytest.raises(StepError) as caught:
            await mailer(smtp).send(
                build_mail(mail(to=["busy@later.example.net"]), SENDER), timeout_seconds=10
            )
        assert caught.value.retryable is True

    async def test_the_relay_passes_the_egress_guard(self, smtp: SmtpServer) -> None:
        before = len(smtp.accepted)
        with pytest.raises(StepError) as caught:
            await mailer(smtp, EgressAllowList()).send(build_mail(mail(), SENDER), timeout_seconds=10)
        assert caught.value.code == "egress_denied"
        assert len(smtp.accepted) == before

    async def test_a_relay_that_is_not_listening_is_retryable(self) -> None:
        relay = SmtpRelay.parse("smtp://127.0.0.1:1")
        with pytest.raises(StepError) as caught:
            await SmtpMailer(relay, SENDER, LOOPBACK).send(build_mail(mail(), SENDER), timeout_seconds=5)
        assert caught.value.code == "smtp_unreachable"
        assert caught.value.retryable is True

    def test_the_relay_password_never_shows(self) -> None:
        relay = SmtpRelay.parse("smtp://mailer:s3cret%21@mail.example.com:587")
        assert relay.password == "s3cret!"
        assert "s3cret" not in repr(relay)


class TestRefusedBeforeSending:
    @pytest.mark.parametrize(
        ("changes", "code", "pointer"),
        [
            ({"subject": "Hello\r\nBcc: victim@example.com"}, "header_injection", "/subject"),
            ({"reply_to": "a@example.com\nBcc: victim@example.com"}, "header_injection", "/reply_to"),
            ({"to": ["ops@example.com\r\nBcc: x@example.com"]}, "header_injection", "/to/0"),
            ({"to": ["not an address"]}, "invalid_email", "/to/0"),
            ({"cc": ["ok@example.com", "@example.com"]}, "invalid_email", "/cc/1"),
            ({"to": []}, "invalid_email", "/to"),
            ({"subject": ""}, "invalid_email", "/subject"),
            ({"text": None}, "invalid_email", "/text"),
            (
                {"to": [f"user{i}@example.com" for i in range(MAX_RECIPIENTS + 1)]},
                "too_many_recipients",
                "/to",
            ),
            ({"text": "x" * (1024 * 1024 + 1)}, "message_too_large", "/text"),
        ],
    )
    def test_bad_input_is_refused_with_its_pointer(
        self, changes: dict[str, Any], code: str, pointer: str
    ) -> None:
        with pytest.raises(StepError) as caught:
            build_mail(mail(**changes), SENDER)
        assert caught.value.code == code
        assert caught.value.retryable is False
        assert caught.value.details[0]["path"] == pointer
