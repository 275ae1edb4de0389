"""Overlap between automations of one space: what each touches, and where two meet.

Deterministic and pure: an automation's `Footprint` is read from its definition (schedules, event types,
the targets of its external writes, the words of its goal), and two footprints are compared rule by rule.
Reasons:

- `schedule`: both have a schedule, and the two fire at the same instant within the next week;
- `event`: both listen to an event type one of them matches (`drive.*` and `drive.file_added`);
- `write`: both write through the same capability to the same target, as far as the target is written
  literally (a templated one is unknown, and never matches): an HTTP write by method, scheme, host and
  path (the query is ignored: `/b?x=1` and `/b?x=2` are one endpoint, `/b` and `/c` are two); a Slack
  post by channel; a mail by recipient; a tool called with `call_tool` (an MCP or plugin tool) by its
  capability id, narrowed by its literal arguments (see `WriteTarget.collides`);
- `goal`: the token sets of their goals are similar (Jaccard index at least `GOAL_SIMILARITY`).

A shared write target is a **strict** overlap: the two could duplicate each other's writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from app.engine.schedule import ScheduleError, next_fire_after
from app.engine.validation.plan_scope import walk_document

SCHEDULE_WINDOW = timedelta(days=7)
MAX_FIRES_COMPARED = 500
GOAL_SIMILARITY = 0.5
MIN_GOAL_TOKENS = 3
_READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CALL_TOOL = "call_tool"
_WORD = re.compile(r"[a-z0-9]+")
_STOPWORD_TEXT = (
    "a an and are as at be by every each for from in into is it its of on or our the their them then this "
    "to when with new all any via per"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True)
class Reason:
    kind: str
    message: str
    strict: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "strict": self.strict}


@dataclass(frozen=True)
class WriteTarget:
    """One external write: the capability and its literal target; for a tool, its literal arguments."""

    capability: str
    target: str
    arguments: tuple[tuple[str, str], ...] = ()
    """(name, canonical JSON) of each top-level argument written literally; templated ones are left out."""

    def collides(self, other: WriteTarget) -> bool:
        """Whether the two writes could be the same write.

        Same capability and target, and no argument that both give literally with different values. A
        templated argument is unknown: it cannot show that two calls differ, so it narrows nothing (two
        calls of one tool are kept apart only by literal values that differ).
        """
        if (self.capability, self.target) != (other.capability, other.target):
            return False
        theirs = dict(other.arguments)
        return all(theirs.get(name, value) == value for name, value in self.arguments)

    def describe(self) -> str:
        if not self.arguments:
            return self.target
        shown = ", ".join(f"{name}={value}" for name, value in self.arguments)
        return f"{self.target} ({shown})"


@dataclass(frozen=True)
class Footprint:
    """What an automation touches, as far as its definition says."""

    schedules: tuple[tuple[str, str], ...]
    event_types: tuple[str, ...]
    writes: frozenset[WriteTarget]
    """Each external write with a literal target."""
    goal_tokens: frozenset[str]


def _literal(value: Any) -> str | None:
    return value if isinstance(value, str) and value and "{" not in value else None


def _literal_data(value: Any) -> bool:
    """JSON data with no template and no secret reference anywhere inside."""
    if isinstance(value, str):
        return "{{" not in value and "{%" not in value
    if isinstance(value, Mapping):
        return "$secret" not in value and all(_literal_data(item) for item in value.values())
    if isinstance(value, list):
        return all(_literal_data(item) for item in value)
    return value is None or isinstance(value, (bool, int, float))


def http_target(method: Any, url: Any) -> str | None:
    """`METHOD scheme://host[:port]/path` of a literal HTTP write (None for a read or an unknown URL)."""
    url = _literal(url)
    if not isinstance(method, str) or method.upper() in _READ_METHODS or url is None:
        return None
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower() + (f":{port}" if port is not None else "")
    return f"{method.upper()} {parts.scheme.lower()}://{host}{parts.path or '/'}"


def tool_arguments(args: Any) -> tuple[tuple[str, str], ...]:
    """The literal top-level arguments of a tool call, as (name, canonical JSON), in name order."""
    if not isinstance(args, Mapping):
        return ()
    return tuple(
        sorted(
            (str(name), json.dumps(value, sort_keys=True, ensure_ascii=False))
            for name, value in args.items()
            if _literal_data(value)
        )
    )


def _write_targets(capability_id: str, config: Mapping[str, Any]) -> list[WriteTarget]:
    """The identifying targets of one step's call, when written literally."""
    if capability_id == "http.request":
        target = http_target(config.get("method", "GET"), config.get("url"))
        return [WriteTarget(capability_id, target)] if target else []
    if capability_id == "slack.post_message":
        channel = _literal(config.get("channel"))
        return [WriteTarget(capability_id, f"channel {channel}")] if channel else []
    if capability_id == "email.send":
        recipients = config.get("to")
        found = [_literal(item) for item in recipients] if isinstance(recipients, list) else []
        return [WriteTarget(capability_id, f"to {address.lower()}") for address in found if address]
    return []


def _tool_targets(config: Mapping[str, Any], native: frozenset[str]) -> list[WriteTarget]:
    """A `call_tool` step: a native write by its own rule, any other tool (MCP, plugin) by id and args."""
    capability_id = _literal(config.get("capability"))
    if capability_id is None:
        return []
    args = _fields(config.get("args"))
    if capability_id in native:
        return _write_targets(capability_id, args)
    return [WriteTarget(capability_id, f"tool {capability_id}", tool_arguments(args))]


def goal_tokens(text: object) -> frozenset[str]:
    """The words of a goal that carry meaning: lowercase, three letters or more, no stop words.

    A draft may hold any JSON where the goal belongs; only text has words.
    """
    words = _WORD.findall(text.lower()) if isinstance(text, str) else []
    return frozenset(word for word in words if len(word) >= 3 and word not in _STOPWORDS)


def _items(value: Any) -> list[Any]:
    """A list where the document has one; a draft may hold anything else there."""
    return value if isinstance(value, list) else []


def _fields(value: Any) -> Mapping[str, Any]:
    """An object where the document has one; a draft may hold anything else there."""
    return value if isinstance(value, Mapping) else {}


def footprint(
    document: Mapping[str, Any],
    capabilities_of: Mapping[str, Sequence[str]],
    native: frozenset[str] = frozenset(),
) -> Footprint:
    """Read a definition's footprint; `capabilities_of` maps an action type to the capabilities it uses,
    `native` names the built-in capabilities (a `call_tool` of any other is a tool write)."""
    schedules: list[tuple[str, str]] = []
    events: list[str] = []
    for trigger in _items(document.get("triggers")):
        if not isinstance(trigger, dict) or trigger.get("enabled", True) is False:
            continue
        config = _fields(trigger.get("config"))
        if trigger.get("type") == "schedule" and isinstance(config.get("cron"), str):
            schedules.append((config["cron"], str(config.get("timezone") or "UTC")))
        elif trigger.get("type") == "event" and isinstance(config.get("event_type"), str):
            events.append(config["event_type"])
    writes: set[WriteTarget] = set()
    for step in (located.step for located in walk_document(document)):
        if not isinstance(step.get("config"), dict):
            continue
        if step.get("action") == CALL_TOOL:
            writes.update(_tool_targets(step["config"], native))
        for capability_id in capabilities_of.get(str(step.get("action")), ()):
            writes.update(_write_targets(capability_id, step["config"]))
    return Footprint(tuple(schedules), tuple(events), frozenset(writes), goal_tokens(document.get("goal")))


def _fires(cron: str, timezone: str, now: datetime) -> set[datetime]:
    found: set[datetime] = set()
    try:
        instant = next_fire_after(cron, timezone, now)
        while instant <= now + SCHEDULE_WINDOW and len(found) < MAX_FIRES_COMPARED:
            found.add(instant)
            instant = next_fire_after(cron, timezone, instant)
    except ScheduleError:
        return set()
    return found


def _events_meet(first: str, second: str) -> bool:
    def matches(pattern: str, event_type: str) -> bool:
        if pattern.endswith(".*"):
            return event_type.startswith(pattern[:-1]) or event_type == pattern[:-2]
        return pattern == event_type

    return matches(first, second) or matches(second, first)


def similarity(first: Iterable[str], second: Iterable[str]) -> float:
    """The Jaccard index of two token sets (0 when either is empty)."""
    a, b = set(first), set(second)
    return len(a & b) / len(a | b) if a and b else 0.0


def compare(mine: Footprint, other: Footprint, now: datetime) -> list[Reason]:
    """Every reason the two automations overlap (empty: they do not)."""
    reasons: list[Reason] = []
    for cron, zone in mine.schedules:
        fires = _fires(cron, zone, now)
        for other_cron, other_zone in other.schedules:
            shared = sorted(fires & _fires(other_cron, other_zone, now))
            if shared:
                reasons.append(
                    Reason(
                        "schedule",
                        f"'{cron}' ({zone}) and '{other_cron}' ({other_zone}) both fire at "
                        f"{shared[0].isoformat()} ({len(shared)} times in the next 7 days)",
                    )
                )
    for event_type in mine.event_types:
        for other_type in other.event_types:
            if _events_meet(event_type, other_type):
                reasons.append(Reason("event", f"both hear {event_type!r} / {other_type!r} events"))
    colliding = {write for write in mine.writes for theirs in other.writes if write.collides(theirs)}
    for write in sorted(colliding, key=lambda item: (item.capability, item.target, item.arguments)):
        reasons.append(
            Reason("write", f"both write with {write.capability} to {write.describe()}", strict=True)
        )
    if len(mine.goal_tokens) >= MIN_GOAL_TOKENS and len(other.goal_tokens) >= MIN_GOAL_TOKENS:
        score = similarity(mine.goal_tokens, other.goal_tokens)
        if score >= GOAL_SIMILARITY:
            reasons.append(Reason("goal", f"their goals are {score:.0%} alike"))
    return reasons
