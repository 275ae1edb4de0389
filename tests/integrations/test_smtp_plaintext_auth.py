"""Relay credentials never cross a connection that did not negotiate TLS, unless the operator says
`insecure=true` for a local relay. The relay here is a real aiosmtpd server that offers AUTH in the
clear and no STARTTLS: a client willing to log in there hands the password to anyone on the path."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from aiosmtpd.smtp import AuthResult, LoginPassword

from app.definitions.signals import StepError
from app.integrations.email_message import build_mail
from app.integrations.smtp import SmtpMailer, SmtpRelay
from app.security.egress import EgressAllowList
from tests.support.smtp_server import SmtpServer

LOOPBACK = EgressAllowList.parse("127.0.0.1/32")
SENDER = "automations@example.com"


class _Recorder:
    """The server's authenticator: keeps every login attempt it was shown."""

    def __init__(self) -> None:
        self.seen: list[tuple[bytes, bytes]] = []

    def __call__(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        if isinstance(data, LoginPassword):
            self.seen.append((data.login, data.password))
        return AuthResult(success=True, handled=False)


@pytest.fixture(scope="module")
def cleartext() -> Iterator[tuple[SmtpServer, _Recorder]]:
    recorder = _Recorder()
    server = SmtpServer(authenticator=recorder, auth_require_tls=False).start()
    yield server, recorder
    server.stop()


def _mail() -> Any:
    return build_mail({"to": ["ops@example.com"], "subject": "Plain", "text": "hello"}, SENDER)


async def test_credentials_are_never_sent_without_tls(cleartext: tuple[SmtpServer, _Recorder]) -> None:
    server, recorder = cleartext
    before = len(server.accepted)
    relay = SmtpRelay.parse(f"smtp://mailer:s3cret@127.0.0.1:{server.port}")
    with pytest.raises(StepError) as caught:
        await SmtpMailer(relay, SENDER, LOOPBACK).send(_mail(), timeout_seconds=10)
    assert caught.value.code == "smtp_tls_required"
    assert caught.value.retryable is False
    assert "STARTTLS" in caught.value.message
    assert "insecure=true" in caught.value.message
    assert "s3cret" not in caught.value.message
    assert recorder.seen == [], "the password reached the relay in the clear"
    assert len(server.accepted) == before, "nothing was sent either"


async def test_the_operator_may_allow_a_local_relay_in_the_clear(
    cleartext: tuple[SmtpServer, _Recorder],
) -> None:
    server, recorder = cleartext
    relay = SmtpRelay.parse(f"smtp://mailer:s3cret@127.0.0.1:{server.port}?insecure=true")
    answer = await SmtpMailer(relay, SENDER, LOOPBACK).send(_mail(), timeout_seconds=10)
    assert answer["accepted"] == ["ops@example.com"]
    assert recorder.seen[-1] == (b"mailer", b"s3cret")


async def test_without_credentials_a_cleartext_relay_still_takes_mail(
    cleartext: tuple[SmtpServer, _Recorder],
) -> None:
    server, _ = cleartext
    relay = SmtpRelay.parse(f"smtp://127.0.0.1:{server.port}")
    answer = await SmtpMailer(relay, SENDER, LOOPBACK).send(_mail(), timeout_seconds=10)
    assert answer["accepted"] == ["ops@example.com"]


@pytest.mark.parametrize(
    "url",
    [
        "smtp://127.0.0.1:25?insecure=yes",
        "smtp://127.0.0.1:25?tls=off",
        "smtps://127.0.0.1:465?insecure=true",
    ],
)
def test_a_relay_url_with_an_unknown_option_is_refused(url: str) -> None:
    with pytest.raises(ValueError) as caught:
        SmtpRelay.parse(url)
    assert "insecure" in str(caught.value)


def test_the_flag_shows_in_the_relay_description() -> None:
    relay = SmtpRelay.parse("smtp://mailer:s3cret@relay.local:25?insecure=true")
    assert relay.insecure is True
    assert "s3cret" not in repr(relay)
    assert SmtpRelay.parse("smtp://relay.local").insecure is False
