"""`kv.get`, `kv.set`, `kv.delete`, `kv.list`: the running automation's own key/value state.

Handlers reach the state only through `ctx.ports.kv`, a port bound to the run's automation, so no
argument can name another automation's keys. `kv.set` and `kv.delete` are internal writes: a verify
run makes them for real, a dry run holds them back. Tight steps use the `kv_*` actions.
"""

from __future__ import annotations

from typing import Any

from app.definitions.signals import StepError
from app.registry.factories import capability_action
from app.registry.models import ActionDefinition, Capability
from app.registry.ports import HandlerContext, KvEntry, KvPort

MAX_KEY_CHARS = 256
MAX_LIST_LIMIT = 200
_KEY = {"type": "string", "minLength": 1, "maxLength": MAX_KEY_CHARS}
_EXPIRES = {"type": ["string", "null"], "description": "When the key expires (ISO 8601), null for never."}
_ENTRY = {
    "type": "object",
    "required": ["key", "value", "expires_at"],
    "properties": {"key": {"type": "string"}, "value": {}, "expires_at": _EXPIRES},
}


def _port(ctx: HandlerContext) -> KvPort:
    if ctx.ports.kv is None:
        raise StepError(
            "kv_unavailable", "key/value state exists only in runs of a saved automation", retryable=False
        )
    return ctx.ports.kv


def _entry(entry: KvEntry) -> dict[str, Any]:
    return {"key": entry.key, "value": entry.value, "expires_at": entry.expires_at}


async def _get(ctx: HandlerContext, args: dict[str, Any]) -> dict[str, Any]:
    entry = await _port(ctx).get(args["key"])
    if entry is None:
        return {"found": False, "value": args.get("default"), "expires_at": None}
    return {"found": True, "value": entry.value, "expires_at": entry.expires_at}


async def _set(ctx: HandlerContext, args: dict[str, Any]) -> dict[str, Any]:
    entry = await _port(ctx).set(args["key"], args["value"], ttl_seconds=args.get("ttl_seconds"))
    return {"key": entry.key, "expires_at": entry.expires_at}


async def _delete(ctx: HandlerContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"deleted": await _port(ctx).delete(args["key"])}


async def _list(ctx: HandlerContext, args: dict[str, Any]) -> dict[str, Any]:
    entries, next_cursor = await _port(ctx).list(
        prefix=args.get("prefix", ""), limit=int(args.get("limit", 50)), cursor=args.get("cursor")
    )
    return {"items": [_entry(entry) for entry in entries], "next_cursor": next_cursor}


KV_GET = Capability(
    id="kv.get",
    description="Read one key of this automation's own key/value state (found: false if absent or expired).",
    input_schema={
        "type": "object",
        "required": ["key"],
        "properties": {"key": _KEY, "default": {"description": "The value answered when the key is absent."}},
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "required": ["found", "value", "expires_at"],
        "properties": {"found": {"type": "boolean"}, "value": {}, "expires_at": _EXPIRES},
    },
    handler=_get,
    risk="read",
)

KV_SET = Capability(
    id="kv.set",
    description=(
        "Write one key of this automation's own key/value state: any JSON value up to 64 KB, optionally "
        "expiring after ttl_seconds; at most 10,000 keys per automation (kv_quota_exceeded)."
    ),
    input_schema={
        "type": "object",
        "required": ["key", "value"],
        "properties": {
            "key": _KEY,
            "value": {"description": "Any JSON value, at most 64 KB written compactly."},
            "ttl_seconds": {"type": "integer", "minimum": 1, "maximum": 366 * 24 * 3600},
        },
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "required": ["key", "expires_at"],
        "properties": {"key": {"type": "string"}, "expires_at": _EXPIRES},
    },
    handler=_set,
    risk="write",
    internal=True,
)

KV_DELETE = Capability(
    id="kv.delete",
    description="Delete one key of this automation's own key/value state (deleted: false if it was absent).",
    input_schema={
        "type": "object",
        "required": ["key"],
        "properties": {"key": _KEY},
        "additionalProperties": False,
    },
    output_schema={"type": "object", "required": ["deleted"], "properties": {"deleted": {"type": "boolean"}}},
    handler=_delete,
    risk="write",
    internal=True,
)

KV_LIST = Capability(
    id="kv.list",
    description=(
        "List this automation's keys starting with prefix, in key order, a page at a time "
        "(pass next_cursor back as cursor for the next page)."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "prefix": {"type": "string", "maxLength": MAX_KEY_CHARS, "default": ""},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIST_LIMIT, "default": 50},
            "cursor": {"type": ["string", "null"], "maxLength": 2048},
        },
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "required": ["items", "next_cursor"],
        "properties": {
            "items": {"type": "array", "items": _ENTRY},
            "next_cursor": {"type": ["string", "null"]},
        },
    },
    handler=_list,
    risk="read",
)

KV_CAPABILITIES: tuple[Capability, ...] = (KV_GET, KV_SET, KV_DELETE, KV_LIST)

KV_ACTIONS: tuple[ActionDefinition, ...] = (
    capability_action(
        KV_GET,
        type="kv_get",
        name="Read state",
        description="Read one key of this automation's key/value state; `default` when it is absent.",
        duration_class="fast",
    ),
    capability_action(
        KV_SET,
        type="kv_set",
        name="Write state",
        description="Write one key of this automation's key/value state (optional ttl_seconds).",
        duration_class="fast",
        example_output={"key": "", "expires_at": None},
    ),
    capability_action(
        KV_DELETE,
        type="kv_delete",
        name="Delete state",
        description="Delete one key of this automation's key/value state.",
        duration_class="fast",
        example_output={"deleted": False},
    ),
    capability_action(
        KV_LIST,
        type="kv_list",
        name="List state",
        description="List keys of this automation's key/value state by prefix, a page at a time.",
        duration_class="fast",
    ),
)
