"""The footprint of a candidate described by its write targets, for the stand-alone overlap check.

`GET …/automations/overlaps?http=POST https://api.example.com/b&slack_channel=%23ops` asks which
automations of the space would write where this candidate would, before any definition exists. Each
parameter becomes a `WriteTarget` read by the same rules as a definition's steps; a value those rules
cannot read (a read method, a non-HTTP URL, a template) is refused with its position, never ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from app.engine.overlap import Footprint, WriteTarget, http_target, tool_arguments
from app.errors import ErrorDetail, ValidationFailed

MAX_TARGETS = 50
_TOOL_ID = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_][a-z0-9_-]*)+$")
_TRIGGER_KINDS = ("schedule", "event", "webhook")


@dataclass(frozen=True)
class TargetQuery:
    """A candidate's write targets, as the query string gives them (each list repeatable)."""

    http: Sequence[str] = field(default_factory=tuple)
    """`METHOD URL`, e.g. `POST https://api.example.com/b` (the query of the URL is ignored)."""
    slack_channel: Sequence[str] = field(default_factory=tuple)
    email_to: Sequence[str] = field(default_factory=tuple)
    tool: Sequence[str] = field(default_factory=tuple)
    """A capability id, optionally followed by a space and a JSON object of its literal key arguments."""

    @property
    def empty(self) -> bool:
        return not (self.http or self.slack_channel or self.email_to or self.tool)


def _refused(path: str, message: str) -> ValidationFailed:
    return ValidationFailed(
        f"{path[1:].split('/')[0]}: {message}",
        code="invalid_overlap_target",
        details=[ErrorDetail(path=path, message=message)],
    )


def _literal_text(path: str, value: str) -> str:
    text = value.strip()
    if not text or "{" in text or len(text) > 2000:
        raise _refused(path, "must be a literal value of 1 to 2,000 characters (no template)")
    return text


def _http(index: int, value: str) -> WriteTarget:
    path = f"/http/{index}"
    method, _, url = _literal_text(path, value).partition(" ")
    if not method.isalpha():
        raise _refused(path, "write it as 'METHOD URL', e.g. 'POST https://api.example.com/items'")
    target = http_target(method, url.strip())
    if target is None:
        raise _refused(path, "needs a writing method (not GET, HEAD, OPTIONS) and an http(s) URL with a host")
    return WriteTarget("http.request", target)


def _tool(index: int, value: str) -> WriteTarget:
    path = f"/tool/{index}"
    capability, _, raw = value.strip().partition(" ")
    if not _TOOL_ID.fullmatch(capability) or len(capability) > 100:
        raise _refused(path, "must start with a capability id such as 'crm.create_note'")
    arguments: object = {}
    if raw.strip():
        try:
            arguments = json.loads(raw)
        except ValueError:
            raise _refused(path, "the arguments after the id must be a JSON object") from None
        if not isinstance(arguments, dict):
            raise _refused(path, "the arguments after the id must be a JSON object")
    return WriteTarget(capability, f"tool {capability}", tool_arguments(arguments))


def candidate_footprint(query: TargetQuery) -> Footprint:
    """The footprint of a candidate that writes to these targets (and has no trigger or goal)."""
    if sum(map(len, (query.http, query.slack_channel, query.email_to, query.tool))) > MAX_TARGETS:
        raise ValidationFailed(
            f"At most {MAX_TARGETS} write targets per check.",
            code="invalid_overlap_target",
            details=[ErrorDetail(path="/", message=f"at most {MAX_TARGETS} targets")],
        )
    writes = {_http(index, value) for index, value in enumerate(query.http)}
    writes |= {
        WriteTarget("slack.post_message", f"channel {_literal_text(f'/slack_channel/{index}', value)}")
        for index, value in enumerate(query.slack_channel)
    }
    writes |= {
        WriteTarget("email.send", f"to {_literal_text(f'/email_to/{index}', value).lower()}")
        for index, value in enumerate(query.email_to)
    }
    writes |= {_tool(index, value) for index, value in enumerate(query.tool)}
    return Footprint(schedules=(), event_types=(), writes=frozenset(writes), goal_tokens=frozenset())


def check_trigger_kind(kind: str | None) -> str | None:
    """The trigger kind to narrow matches to, or a 422 naming the kinds."""
    if kind is not None and kind not in _TRIGGER_KINDS:
        raise ValidationFailed(
            f"trigger_kind must be one of {', '.join(_TRIGGER_KINDS)}.",
            code="invalid_trigger_kind",
            details=[ErrorDetail(path="/trigger_kind", message=f"one of {', '.join(_TRIGGER_KINDS)}")],
        )
    return kind
