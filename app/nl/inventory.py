"""What the generator may ask about the space while drafting, as a tool call: names, never values.

The generator is offered one tool, `space_inventory`, whose answer lists the space's MCP connections and
databases (name and tool prefix), its MCP tools (capability ids), the Slack channels its automations
already post to, and its secrets' names. A secret's value, a connection's URL or credential, a
database's DSN and anything of another space never enter the answer.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from app.engine.validation import Vocabulary
from app.engine.validation.templates import is_template
from app.nl.context import SpaceNames
from app.nl.usage import steps
from app.registry.llm_ports import LlmReply

TOOL_NAME = "space_inventory"
KINDS = ("connections", "databases", "mcp_tools", "slack_channels", "secrets")
MAX_ITEMS = 200
MAX_LOOKUPS = 2
"""Inventory rounds per generation turn: a model that keeps asking gets no further answers."""

INVENTORY_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": (
            "What this space has, by name: MCP connections and databases (with the tool prefix their"
            " capabilities start with), MCP tools (capability ids), Slack channels its automations post to,"
            " and the names of its secrets (never values). Ask before referring to any of them."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "kinds": {
                    "type": "array",
                    "items": {"type": "string", "enum": list(KINDS)},
                    "description": "What to list; all kinds when omitted.",
                }
            },
            "additionalProperties": False,
        },
    },
}

Lookup = Callable[[list[str]], Awaitable[dict[str, Any]]]


def inventory(
    kinds: list[str], names: SpaceNames, vocabulary: Vocabulary, definitions: list[dict[str, Any]]
) -> dict[str, Any]:
    """The answer to one inventory call, for the kinds asked (each list cut at MAX_ITEMS)."""
    answer: dict[str, Any] = {}
    for kind in kinds or KINDS:
        if kind == "connections" or kind == "databases":
            wanted = kind[:-1]
            answer[kind] = [
                {"name": name, "tool_prefix": prefix}
                for what, name, prefix in names.prefixes
                if what == wanted
            ][:MAX_ITEMS]
        elif kind == "mcp_tools":
            answer[kind] = [c.id for c in vocabulary.capabilities if c.tier == "mcp"][:MAX_ITEMS]
        elif kind == "slack_channels":
            answer[kind] = slack_channels(definitions)[:MAX_ITEMS]
        elif kind == "secrets":
            answer[kind] = list(names.secrets)[:MAX_ITEMS]
    return answer


def slack_channels(definitions: list[dict[str, Any]]) -> list[str]:
    """Channels the space's saved automations name literally in a step's `channel`, sorted."""
    seen: set[str] = set()
    for document in definitions:
        for _, step in steps(document) if isinstance(document, dict) else ():
            config = step.get("config")
            channel = config.get("channel") if isinstance(config, dict) else None
            if isinstance(channel, str) and channel.strip() and not is_template(channel):
                seen.add(channel.strip()[:200])
    return sorted(seen)


async def lookup_messages(reply: LlmReply, lookup: Lookup) -> list[dict[str, Any]]:
    """The assistant's tool-call turn and one tool answer per call; a call of another tool, or with
    arguments that do not parse, is answered with an error the model can read."""
    messages: list[dict[str, Any]] = [
        {
            "role": "assistant",
            "content": reply.content,
            "tool_calls": [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in reply.tool_calls
            ],
        }
    ]
    for call in reply.tool_calls:
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call.id,
                "content": json.dumps(await _answer(call.name, call.arguments, lookup)),
            }
        )
    return messages


async def _answer(name: str, arguments: str, lookup: Lookup) -> dict[str, Any]:
    if name != TOOL_NAME:
        return {"error": f"there is no tool {name[:100]!r}; the only tool is {TOOL_NAME}"}
    try:
        parsed = json.loads(arguments or "{}")
    except (ValueError, RecursionError):
        return {"error": "the arguments were not a JSON object"}
    kinds = parsed.get("kinds") if isinstance(parsed, dict) else None
    if kinds is None:
        return await lookup(list(KINDS))
    if not isinstance(kinds, list) or not all(isinstance(k, str) and k in KINDS for k in kinds):
        return {"error": f"kinds must be a list of: {', '.join(KINDS)}"}
    return await lookup(list(dict.fromkeys(kinds)))
