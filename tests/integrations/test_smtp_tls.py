"""send_email over STARTTLS with a login, against aiosmtpd requiring both (a self-signed certificate)."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from app.definitions.signals import StepError
from app.integrations.email_message import build_mail
from app.integrations.smtp import SmtpMailer, SmtpRelay, system_tls_context
from app.security.egress import EgressAllowList
from tests.support.smtp_server import SmtpServer

LOOPBACK = EgressAllowList.parse("127.0.0.1/32")
SENDER = "automations@example.com"


def _certificate(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


def _authenticate(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
    ok = isinstance(data, LoginPassword) and (data.login, data.password) == (b"mailer", b"s3cret!")
    return AuthResult(success=ok, handled=False)


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SmtpServer, ssl.SSLContext]]:
    cert, key = _certificate(tmp_path_factory.mktemp("tls"))
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(cert, key)
    server = SmtpServer(
        tls_context=server_context, require_starttls=True, auth_required=True, authenticator=_authenticate
    ).start()
    yield server, ssl.create_default_context(cafile=str(cert))
    server.stop()


@pytest.fixture(scope="module")
def implicit_tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SmtpServer, ssl.SSLContext]]:
    cert, key = _certificate(tmp_path_factory.mktemp("smtps"))
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(cert, key)
    server = SmtpServer(ssl_context=server_context).start()
    yield server, ssl.create_default_context(cafile=str(cert))
    server.stop()


def mail() -> Any:
    return build_mail({"to": ["ops@example.com"], "subject": "Over TLS", "text": "hello"}, SENDER)


async def test_starttls_then_login_with_the_url_credentials(tls: tuple[SmtpServer, ssl.SSLContext]) -> None:
    server, trust = tls
    relay = SmtpRelay.parse(f"smtp://mailer:s3cret%21@127.0.0.1:{server.port}")
    answer = await SmtpMailer(relay, SENDER, LOOPBACK, tls=trust).send(mail(), timeout_seconds=10)
    assert answer["accepted"] == ["ops@example.com"]
    assert server.accepted[-1].message["Subject"] == "Over TLS"


async def test_a_wrong_password_is_a_permanent_failure(tls: tuple[SmtpServer, ssl.SSLContext]) -> None:
    server, trust = tls
    relay = SmtpRelay.parse(f"smtp://mailer:wrong@127.0.0.1:{server.port}")
    with pytest.raises(StepError) as caught:
        await SmtpMailer(relay, SENDER, LOOPBACK, tls=trust).send(mail(), timeout_seconds=10)
    assert caught.value.retryable is False
    assert "wrong" not in caught.value.message


async def test_an_untrusted_certificate_is_refused(tls: tuple[SmtpServer, ssl.SSLContext]) -> None:
    server, _ = tls
    before = len(server.accepted)
    relay = SmtpRelay.parse(f"smtp://mailer:s3cret%21@127.0.0.1:{server.port}")
    mailers = [SmtpMailer(relay, SENDER, LOOPBACK) for _ in range(2)]
    for mailer in mailers:
        with pytest.raises(StepError) as caught:
            await mailer.send(mail(), timeout_seconds=10)
        assert caught.value.code == "smtp_unreachable"
    assert len(server.accepted) == before
    # Mailers without a context of their own share the system store's, loaded once per process.
    assert mailers[0].tls is mailers[1].tls is system_tls_context()


async def test_smtps_speaks_tls_from_the_first_byte(implicit_tls: tuple[SmtpServer, ssl.SSLContext]) -> None:
    server, trust = implicit_tls
    relay = SmtpRelay.parse(f"smtps://127.0.0.1:{server.port}")
    answer = await SmtpMailer(relay, SENDER, LOOPBACK, tls=trust).send(mail(), timeout_seconds=10)
    assert answer["accepted"] == ["ops@example.com"]
    assert server.accepted[-1].message["Subject"] == "Over TLS"
