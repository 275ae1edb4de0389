"""A plugin that starts things itself: a poller and a subscription, steered by the space's settings.

Installed for test sessions beside the example plugin (entry point `pollster`) and off in every space
until a test enables it. `mode` in the space's settings says what its poller does each period: `emit`
an event, `hang` until it is cut, or stay `quiet`. Its subscription hears every successful run and
answers with an event of its own naming the one it heard.
"""

from __future__ import annotations

import asyncio
from typing import Any

SETTINGS = {
    "type": "object",
    "properties": {"mode": {"enum": ["emit", "hang", "quiet"]}},
    "additionalProperties": False,
}
TICK = {"type": "object", "required": ["space_id"], "properties": {"space_id": {"type": "string"}}}
HEARD = {
    "type": "object",
    "required": ["event_id", "event_type", "run_id"],
    "properties": {
        "event_id": {"type": "string"},
        "event_type": {"type": "string"},
        "run_id": {"type": "string"},
    },
}


async def beat(ctx: Any) -> None:
    mode = ctx.settings.get("mode", "quiet")
    if mode == "emit":
        await ctx.events.emit("tick", {"space_id": ctx.space_id})
    elif mode == "hang":
        await asyncio.sleep(3600)


async def on_run_succeeded(ctx: Any, event: dict[str, Any]) -> None:
    await ctx.events.emit(
        "heard", {"event_id": event["id"], "event_type": event["type"], "run_id": event["payload"]["run_id"]}
    )


class Pollster:
    id = "pollster"
    version = "1.0.0"

    def setup(self, registrar: Any) -> None:
        registrar.register_settings(SETTINGS)
        registrar.register_trigger("tick", "The poller ran.", TICK)
        registrar.register_trigger("heard", "The subscription heard a successful run.", HEARD)
        registrar.register_poller("beat", 1, beat)
        registrar.register_subscription(["automation.run.succeeded"], on_run_succeeded)


plugin = Pollster()
