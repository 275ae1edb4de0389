"""A real SMTP server (aiosmtpd) on loopback that keeps what it accepts.

Recipients at `reject.example.net` are refused with 550 (permanent), those at `later.example.net`
with 451 (try again).
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller


@dataclass(frozen=True)
class Accepted:
    sender: str
    recipients: list[str]
    message: EmailMessage


class _Handler:
    def __init__(self) -> None:
        self.accepted: list[Accepted] = []

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if address.endswith("@reject.example.net"):
            return "550 5.1.1 no such user"
        if address.endswith("@later.example.net"):
            return "451 4.3.0 try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.accepted.append(
            Accepted(
                envelope.mail_from,
                list(envelope.rcpt_tos),
                message_from_bytes(envelope.content, policy=policy.default),  # type: ignore[arg-type]
            )
        )
        return "250 Message accepted"


class SmtpServer:
    """`options` go to aiosmtpd's SMTP (tls_context, require_starttls, auth_required, authenticator…)."""

    def __init__(self, **options: Any) -> None:
        self.handler = _Handler()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port, **options)

    @property
    def accepted(self) -> list[Accepted]:
        return self.handler.accepted

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def start(self) -> SmtpServer:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()
