"""The uptime plugin: one trigger, one action, one tool, and a poller that watches pages by itself.

The service imports this module only when AUTOMATIONS_PLUGINS lists `uptime`, then calls
`plugin.setup(registrar)`. Handlers are `async (ctx, args)`: `ctx.http` is the service's egress-guarded
HTTP client, `ctx.events.emit` publishes this plugin's own triggers into the space, `ctx.space_id` names
the space. They return JSON data. The poller is `async (ctx)`: beat runs it every UPTIME_POLL_SECONDS
(default 60) in each space that enabled the plugin, and it checks the `urls` of that space's settings.
"""

from __future__ import annotations

import os
from typing import Any

PREVIEW_CHARS = 2000
POLL_SECONDS = float(os.environ.get("UPTIME_POLL_SECONDS", "60"))
MAX_WATCHED = 20

URL = {"type": "string", "minLength": 1, "maxLength": 2000}
SITE_DOWN_PAYLOAD = {
    "type": "object",
    "required": ["url", "status_code"],
    "properties": {"url": URL, "status_code": {"type": ["integer", "null"]}, "reason": {"type": "string"}},
}
CHECK_CONFIG = {
    "type": "object",
    "required": ["url"],
    "properties": {"url": URL, "expect_status": {"type": "integer", "minimum": 100, "maximum": 599}},
    "additionalProperties": False,
}
CHECK_OUTPUT = {
    "type": "object",
    "required": ["url", "status_code", "up"],
    "properties": {"url": URL, "status_code": {"type": ["integer", "null"]}, "up": {"type": "boolean"}},
}
SETTINGS = {
    "type": "object",
    "properties": {
        "urls": {"type": "array", "items": URL, "maxItems": MAX_WATCHED, "uniqueItems": True},
        "expect_status": {"type": "integer", "minimum": 100, "maximum": 599},
    },
    "additionalProperties": False,
}
STATUS_INPUT = {
    "type": "object",
    "required": ["url"],
    "properties": {"url": URL},
    "additionalProperties": False,
}
STATUS_OUTPUT = {
    "type": "object",
    "required": ["status_code", "content_type", "preview"],
    "properties": {
        "status_code": {"type": "integer"},
        "content_type": {"type": "string"},
        "preview": {"type": "string"},
    },
}


async def check(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
    """GET the page; when it is not up, emit `site_down` so automations can react."""
    expected = args.get("expect_status", 200)
    response = await ctx.http.get(args["url"], timeout=20)
    up = response.status_code == expected
    if not up:
        await ctx.events.emit(
            "site_down",
            {
                "url": args["url"],
                "status_code": response.status_code,
                "reason": f"expected {expected}, got {response.status_code}",
            },
        )
    return {"url": args["url"], "status_code": response.status_code, "up": up}


async def watch(ctx: Any) -> None:
    """Check every page the space listed in its settings; emit `site_down` for each one that is down.

    A page that cannot be reached at all (refused, timed out, blocked by the egress guard) is down too,
    with no status code. It is reported on every poll while it stays down.
    """
    expected = ctx.settings.get("expect_status", 200)
    for url in ctx.settings.get("urls", []):
        try:
            status: int | None = (await ctx.http.get(url, timeout=20)).status_code
            reason = f"expected {expected}, got {status}"
        except Exception as exc:  # the service's HTTP errors: the page is not up, say why
            status, reason = None, f"unreachable ({type(exc).__name__})"
        if status != expected:
            await ctx.events.emit("site_down", {"url": url, "status_code": status, "reason": reason})


async def page_status(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
    """What an agent needs to judge a page: its status, content type and the start of its body."""
    response = await ctx.http.get(args["url"], timeout=20)
    return {
        "status_code": response.status_code,
        "content_type": response.headers.get("content-type", ""),
        "preview": response.text[:PREVIEW_CHARS],
    }


class UptimePlugin:
    id = "uptime"
    version = "0.1.0"

    def setup(self, registrar: Any) -> None:
        registrar.register_settings(SETTINGS)
        registrar.register_poller("watch", POLL_SECONDS, watch)
        registrar.register_trigger(
            "site_down", "A checked page did not answer with the expected status.", SITE_DOWN_PAYLOAD
        )
        registrar.register_action(
            "check",
            check,
            "GET a page and report whether it is up; emits uptime.site_down when it is not.",
            config_schema=CHECK_CONFIG,
            output_schema=CHECK_OUTPUT,
            risk="read",
        )
        registrar.register_tool(
            "page_status",
            page_status,
            "Fetch a page: its HTTP status, content type and first 2000 characters.",
            input_schema=STATUS_INPUT,
            output_schema=STATUS_OUTPUT,
            risk="read",
        )


plugin = UptimePlugin()
