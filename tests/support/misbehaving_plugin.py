"""A plugin that breaks every rule a handler can break at run time, for the service to contain.

Installed for test sessions beside the example plugin (entry point `misbehave`), it is imported by the
API and the worker like any allowed plugin and stays off in every space until a test enables it.
"""

from __future__ import annotations

import asyncio
from typing import Any

LEAKED = "sk-live-do-not-show-0123456789"
OPEN = {"type": "object"}


async def explode(ctx: Any, args: dict[str, Any]) -> Any:
    raise RuntimeError(f"database password is {LEAKED}")


async def not_json(ctx: Any, args: dict[str, Any]) -> Any:
    return {"when": object()}


async def huge(ctx: Any, args: dict[str, Any]) -> Any:
    return {"blob": "x" * (300 * 1024)}


async def hang(ctx: Any, args: dict[str, Any]) -> Any:
    await asyncio.sleep(3600)


async def fetch(ctx: Any, args: dict[str, Any]) -> Any:
    response = await ctx.http.get(args["url"])
    return {"status_code": response.status_code}


async def emit_undeclared(ctx: Any, args: dict[str, Any]) -> Any:
    await ctx.events.emit("not_registered", {})
    return {}


async def token_length(ctx: Any, args: dict[str, Any]) -> Any:
    return {"length": len(args["token"]), "space_id": ctx.space_id}


class Misbehave:
    id = "misbehave"
    version = "1.0.0"

    def setup(self, registrar: Any) -> None:
        for name, handler in [
            ("explode", explode),
            ("not_json", not_json),
            ("huge", huge),
            ("hang", hang),
            ("fetch", fetch),
            ("emit_undeclared", emit_undeclared),
        ]:
            registrar.register_action(name, handler, f"Misbehaves: {name}.", OPEN, OPEN, "read")
        registrar.register_action(
            "token_length",
            token_length,
            "Answers the length of the token it was handed.",
            {"type": "object", "required": ["token"], "properties": {"token": {"type": "string"}}},
            OPEN,
            "write",
            secret_fields=("/token",),
        )
        registrar.register_tool("blow_up", explode, "Raises.", OPEN, OPEN, "read")


plugin = Misbehave()
