"""Building a `send_email` message: addresses validated, headers free of CR/LF, sizes bounded.

Every refusal is a non-retryable StepError with a JSON pointer into the step's config, raised before
anything is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

from email_validator import EmailNotValidError, validate_email

from app.definitions.signals import StepError

MAX_RECIPIENTS = 100
MAX_MESSAGE_BYTES = 1024 * 1024
ADDRESS_FIELDS = ("to", "cc", "bcc")


@dataclass(frozen=True)
class Mail:
    """A message ready for SMTP: the RFC 5322 text and the envelope recipients (Bcc not in the headers)."""

    message: EmailMessage
    recipients: tuple[str, ...]
    message_id: str


def _refuse(code: str, pointer: str, message: str) -> StepError:
    return StepError(code, message, retryable=False, details=[{"path": pointer, "message": message}])


def _no_line_breaks(value: str, pointer: str) -> str:
    if "\r" in value or "\n" in value:
        raise _refuse("header_injection", pointer, "must not contain line breaks (CR or LF)")
    return value


def _address(value: Any, pointer: str) -> str:
    if not isinstance(value, str):
        raise _refuse("invalid_email", pointer, "must be an email address")
    _no_line_breaks(value, pointer)
    try:
        return validate_email(value, check_deliverability=False).normalized
    except EmailNotValidError as exc:
        raise _refuse("invalid_email", pointer, f"is not a valid email address ({exc})") from None


def build_mail(args: dict[str, Any], sender: str) -> Mail:
    """The message `args` describe (to, cc, bcc, subject, text, html, reply_to) from `sender`."""
    lists: dict[str, list[str]] = {}
    for field in ADDRESS_FIELDS:
        raw = args.get(field) or []
        if isinstance(raw, str):
            raw = [raw]
        lists[field] = [_address(item, f"/{field}/{index}") for index, item in enumerate(raw)]
    recipients = tuple(dict.fromkeys(a for field in ADDRESS_FIELDS for a in lists[field]))
    if not lists["to"]:
        raise _refuse("invalid_email", "/to", "at least one recipient is required")
    if len(recipients) > MAX_RECIPIENTS:
        raise _refuse("too_many_recipients", "/to", f"at most {MAX_RECIPIENTS} recipients in to, cc and bcc")
    subject = args.get("subject")
    if not isinstance(subject, str) or not subject.strip():
        raise _refuse("invalid_email", "/subject", "a subject is required")
    text, html = args.get("text"), args.get("html")
    if not text and not html:
        raise _refuse("invalid_email", "/text", "a text or an html body is required")

    message = EmailMessage()
    message["From"] = _address(sender, "/from")
    message["To"] = ", ".join(lists["to"])
    if lists["cc"]:
        message["Cc"] = ", ".join(lists["cc"])
    message["Subject"] = _no_line_breaks(subject, "/subject")
    if args.get("reply_to"):
        message["Reply-To"] = _address(args["reply_to"], "/reply_to")
    domain = message["From"].rpartition("@")[2]
    message_id = make_msgid(domain=domain)
    message["Message-ID"] = message_id
    message.set_content(text or "")
    if html:
        message.add_alternative(html, subtype="html")
    size = len(message.as_bytes())
    if size > MAX_MESSAGE_BYTES:
        raise _refuse(
            "message_too_large", "/text", f"the message is {size} bytes; at most {MAX_MESSAGE_BYTES}"
        )
    return Mail(message, recipients, message_id)
