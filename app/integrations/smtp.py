"""Sending mail over SMTP from the operator's relay (AUTOMATIONS_SMTP_URL), through the egress guard.

The relay's host is resolved and checked like any outbound address, and the connection goes to the
address that was checked (TLS still verifies the host name). STARTTLS is used whenever the server
offers it. The relay's user and password are only ever sent over TLS (smtps://, or smtp:// after
STARTTLS); a relay that offers no STARTTLS gets no login and the send fails with `smtp_tls_required`,
unless the operator opts in with `?insecure=true` for a relay on a trusted local network.
5xx answers are permanent failures; 4xx answers and lost connections are worth a retry.
"""

from __future__ import annotations

import asyncio
import functools
import smtplib
import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from app.definitions.signals import StepError
from app.integrations.email_message import Mail, build_mail
from app.security.egress import EgressAllowList, EgressDenied, system_resolver
from app.security.egress.targets import resolve_checked

DEFAULT_PORTS = {"smtp": 25, "smtps": 465}
_URL_FORM = (
    "AUTOMATIONS_SMTP_URL must be smtp://[user:password@]host[:port][?insecure=true] or "
    "smtps://[user:password@]host[:port]"
)


@dataclass(frozen=True)
class SmtpRelay:
    """Where and how to connect; parsed once from the setting, the password never printed."""

    scheme: str
    host: str
    port: int
    username: str | None
    password: str | None
    insecure: bool = False
    """Log in even when the connection is not encrypted: for a relay on a trusted local network only."""

    @classmethod
    def parse(cls, url: str) -> SmtpRelay:
        parts = urlsplit(url)
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
            raise ValueError(_URL_FORM)
        options = dict(parse_qsl(parts.query, keep_blank_values=True))
        # The one option is spelled exactly, so a typo never silently leaves a password unprotected.
        if set(options) - {"insecure"} or options.get("insecure", "false") not in ("true", "false"):
            raise ValueError(_URL_FORM)
        insecure = options.get("insecure") == "true"
        if insecure and parts.scheme == "smtps":
            raise ValueError(_URL_FORM + " (insecure applies to smtp:// only: smtps:// is always TLS)")
        return cls(
            scheme=parts.scheme,
            host=parts.hostname,
            port=parts.port or DEFAULT_PORTS[parts.scheme],
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
            insecure=insecure,
        )

    def __repr__(self) -> str:
        flag = "?insecure=true" if self.insecure else ""
        return f"SmtpRelay({self.scheme}://{self.host}:{self.port}{flag})"


class _PinnedSMTP(smtplib.SMTP):
    """Connects to the checked address while keeping the host name for TLS (smtplib uses `_host`)."""

    pinned: str = ""
    _host: str

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        return socket.create_connection((self.pinned, port), timeout)


class _PinnedSMTPSSL(smtplib.SMTP_SSL):
    pinned: str = ""
    _host: str

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        raw = socket.create_connection((self.pinned, port), timeout)
        return self.context.wrap_socket(raw, server_hostname=host)


@functools.cache
def system_tls_context() -> ssl.SSLContext:
    """The process's one context for verifying relays against the system's CA store: loading the store
    costs about 50 ms of CPU, so it is loaded once, not once per mailer. Sends in several threads may
    share it (a connection only reads it)."""
    return ssl.create_default_context()


class SmtpMailer:
    """Sends built messages through one relay from one sender address."""

    def __init__(
        self, relay: SmtpRelay, sender: str, allow: EgressAllowList, tls: ssl.SSLContext | None = None
    ) -> None:
        self.relay = relay
        self.sender = sender
        self.allow = allow
        self.tls = tls or system_tls_context()

    async def send(self, mail: Mail, *, timeout_seconds: float) -> dict[str, Any]:
        """Send `mail`; answer `{message_id, accepted, refused}`."""
        return await asyncio.to_thread(self._send, mail, timeout_seconds)

    def _send(self, mail: Mail, timeout_seconds: float) -> dict[str, Any]:
        relay = self.relay
        label = f"{relay.scheme}://{relay.host}:{relay.port}"
        try:
            addresses = resolve_checked(
                relay.host, relay.port, allow=self.allow, resolver=system_resolver, url=label
            )
        except EgressDenied as exc:
            raise StepError(
                "egress_denied", f"the SMTP relay is refused: {exc.reason}", retryable=False
            ) from None
        except OSError:
            raise StepError("smtp_unreachable", f"{label} does not resolve") from None
        client: smtplib.SMTP
        if relay.scheme == "smtps":
            client = _PinnedSMTPSSL(timeout=timeout_seconds, context=self.tls)
        else:
            client = _PinnedSMTP(timeout=timeout_seconds)
        client.pinned = str(addresses[0])
        # STARTTLS verifies the certificate against `_host`, which smtplib only sets in its constructor.
        client._host = relay.host
        try:
            client.connect(relay.host, relay.port)
            client.ehlo()
            encrypted = relay.scheme == "smtps"
            if not encrypted and client.has_extn("starttls"):
                client.starttls(context=self.tls)
                client.ehlo()
                encrypted = True
            if relay.username and relay.password:
                if not encrypted and not relay.insecure:
                    raise _tls_required(label)
                client.login(relay.username, relay.password)
            refused = client.send_message(mail.message, from_addr=self.sender, to_addrs=list(mail.recipients))
        except smtplib.SMTPRecipientsRefused as exc:
            codes = [code for code, _ in exc.recipients.values()]
            raise StepError(
                "smtp_recipients_refused",
                f"the relay refused every recipient (codes {sorted(set(codes))})",
                retryable=any(400 <= code < 500 for code in codes),
            ) from None
        except smtplib.SMTPResponseException as exc:
            raise StepError(
                "smtp_rejected",
                f"the relay answered {exc.smtp_code}",
                retryable=400 <= exc.smtp_code < 500,
            ) from None
        except (smtplib.SMTPException, OSError) as exc:
            raise StepError("smtp_unreachable", f"{label}: {type(exc).__name__}") from None
        finally:
            try:
                client.quit()
            except (smtplib.SMTPException, OSError):
                client.close()
        accepted = [r for r in mail.recipients if r not in refused]
        return {"message_id": mail.message_id, "accepted": accepted, "refused": sorted(refused)}


def _tls_required(label: str) -> StepError:
    return StepError(
        "smtp_tls_required",
        f"{label} offers no STARTTLS, so its login was not sent: the password would cross the network "
        "in the clear. Use a relay with STARTTLS or smtps://, or, for a relay on a trusted local network "
        "only, add ?insecure=true to AUTOMATIONS_SMTP_URL.",
        retryable=False,
    )


class RelayMail:
    """The `MailPort` of a run: builds each message from the step's arguments, then sends it."""

    def __init__(self, mailer: SmtpMailer) -> None:
        self.mailer = mailer

    async def send(self, args: dict[str, Any], *, timeout_seconds: float) -> dict[str, Any]:
        """Refuse bad addresses and header injection before connecting; then send."""
        return await self.mailer.send(build_mail(args, self.mailer.sender), timeout_seconds=timeout_seconds)
