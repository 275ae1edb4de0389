"""Plugin handlers as capability handlers: their context built, their results and failures checked.

A plugin's code never sees the engine's context. Its handler gets a `PluginContext`; its result must be
JSON data of at most 256 KB; an exception it raises reaches the run (and a model calling it as a tool)
only as a short message naming the plugin, while the traceback goes to the service log.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from app.definitions.signals import StepError
from app.registry.models import Handler
from app.registry.plugins.context import DeclaredEvent, PluginContext, PluginEvents, PluginHttp
from app.registry.plugins.rules import MAX_RESULT_BYTES
from app.registry.ports import HandlerContext

logger = logging.getLogger("app.plugins")

PluginHandler = Callable[[PluginContext, dict[str, Any]], Awaitable[Any]]
"""`async handler(ctx, args) -> JSON data`, as a plugin writes it."""


def capability_handler(
    plugin_id: str, name: str, handler: PluginHandler, events: Mapping[str, DeclaredEvent]
) -> Handler:
    """The capability handler that runs `handler` for the plugin, inside the pipeline's `execute`."""

    async def run_plugin_handler(ctx: HandlerContext, args: dict[str, Any]) -> Any:
        plugin_ctx = PluginContext(
            plugin_id=plugin_id,
            space_id=ctx.space_id,
            http=PluginHttp(ctx.ports.http, ctx.timeout_seconds),
            events=PluginEvents(plugin_id, events, ctx.ports.events),
        )
        try:
            result = await handler(plugin_ctx, copy.deepcopy(args))
        except StepError:
            raise  # the service's own errors (egress refusals, HTTP timeouts, undeclared events)
        except Exception as exc:
            logger.exception("plugin %r: %s raised %s", plugin_id, name, type(exc).__name__)
            raise StepError(
                "plugin_error",
                f"{name} failed inside plugin {plugin_id!r} ({type(exc).__name__}); details are in the log",
            ) from None
        return checked_result(plugin_id, name, result)

    run_plugin_handler.__qualname__ = run_plugin_handler.__name__ = f"plugin_{name.replace('.', '_')}"
    return run_plugin_handler


def checked_result(plugin_id: str, name: str, result: Any) -> Any:
    """The result if it is JSON data within `MAX_RESULT_BYTES`; a `StepError` otherwise."""
    try:
        encoded = json.dumps(result, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError):
        raise StepError(
            "invalid_plugin_result",
            f"{name} (plugin {plugin_id!r}) returned {type(result).__name__} data that is not JSON",
            retryable=False,
        ) from None
    if len(encoded) > MAX_RESULT_BYTES:
        raise StepError(
            "result_too_large",
            f"{name} (plugin {plugin_id!r}) returned {len(encoded)} bytes, over {MAX_RESULT_BYTES}",
            retryable=False,
            details={"truncated": True, "size_bytes": len(encoded), "limit_bytes": MAX_RESULT_BYTES},
        )
    return result
