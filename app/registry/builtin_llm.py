"""LLM calls as capabilities: `llm.complete` (registered) and the agent's model turn (internal).

Both are metered: the pipeline checks the run's caps before the call and records the spending in the
ledger after it, whoever makes the call (an `llm_complete` step, an agent's turn). Their arguments
share one shape (`model`, `messages`, optional `system`, `max_tokens`), read by `metered_request`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.registry.factories import capability_action
from app.registry.llm_ports import LlmReply, LlmToolCall
from app.registry.models import Capability
from app.registry.ports import HandlerContext

DEFAULT_MAX_TOKENS = 1024


@dataclass(frozen=True)
class MeteredRequest:
    """What the caps are checked against: the model, the full prompt and the output cap."""

    model: str
    messages: list[dict[str, Any]]
    max_tokens: int


def metered_request(args: dict[str, Any]) -> MeteredRequest:
    """The model request a metered capability's arguments describe (the system prompt first)."""
    messages = list(args["messages"])
    if args.get("system"):
        messages.insert(0, {"role": "system", "content": args["system"]})
    return MeteredRequest(args["model"], messages, int(args.get("max_tokens", DEFAULT_MAX_TOKENS)))


def _usage(reply: LlmReply) -> dict[str, Any]:
    return {
        "input_tokens": reply.input_tokens,
        "output_tokens": reply.output_tokens,
        "cost_usd": reply.cost_usd,
    }


def reply_from_result(result: dict[str, Any]) -> LlmReply:
    """A metered capability's result read back as a reply (what the ledger records and agents read)."""
    usage = result["usage"]
    return LlmReply(
        content=result.get("content", result.get("text")),
        tool_calls=tuple(
            LlmToolCall(call["id"], call["name"], call["arguments"]) for call in result.get("tool_calls", [])
        ),
        input_tokens=int(usage["input_tokens"]),
        output_tokens=int(usage["output_tokens"]),
        cost_usd=float(usage["cost_usd"]),
        model=str(result["model"]),
    )


async def _complete(ctx: HandlerContext, args: dict[str, Any]) -> LlmReply:
    request = metered_request(args)
    return await ctx.ports.llm.complete(
        model=request.model,
        messages=request.messages,
        tools=args.get("tools"),
        response_schema=args.get("response_schema"),
        max_tokens=request.max_tokens,
        temperature=args.get("temperature"),
        timeout_seconds=ctx.timeout_seconds,
    )


async def _llm_complete(ctx: HandlerContext, args: dict[str, Any]) -> dict[str, Any]:
    reply = await _complete(ctx, args)
    return {"text": reply.content or "", "model": reply.model, "usage": _usage(reply)}


async def _model_turn(ctx: HandlerContext, args: dict[str, Any]) -> dict[str, Any]:
    reply = await _complete(ctx, args)
    return {
        "content": reply.content,
        "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls],
        "model": reply.model,
        "usage": _usage(reply),
    }


_MESSAGES = {
    "type": "array",
    "minItems": 1,
    "maxItems": 200,
    "items": {
        "type": "object",
        "required": ["role", "content"],
        "properties": {"role": {"enum": ["user", "assistant", "system"]}, "content": {"type": "string"}},
        "additionalProperties": False,
    },
}
_USAGE = {
    "type": "object",
    "required": ["input_tokens", "output_tokens", "cost_usd"],
    "properties": {
        "input_tokens": {"type": "integer"},
        "output_tokens": {"type": "integer"},
        "cost_usd": {"type": "number"},
    },
}

LLM_COMPLETE = Capability(
    id="llm.complete",
    description="One LLM completion without tools: messages (and an optional system prompt) in, text out.",
    input_schema={
        "type": "object",
        "required": ["model", "messages"],
        "properties": {
            "model": {"type": "string", "minLength": 1, "maxLength": 200},
            "messages": _MESSAGES,
            "system": {"type": "string", "maxLength": 100_000},
            "max_tokens": {"type": "integer", "minimum": 1, "maximum": 200_000},
            "temperature": {"type": "number", "minimum": 0, "maximum": 2},
        },
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "required": ["text", "model", "usage"],
        "properties": {"text": {"type": "string"}, "model": {"type": "string"}, "usage": {"type": "object"}},
    },
    handler=_llm_complete,
    risk="read",
    metered=True,
)

MODEL_TURN = Capability(
    id="llm.agent_turn",
    description=(
        "One turn of an agent's conversation with its model: messages and tools in, text or tool calls out."
    ),
    input_schema={
        "type": "object",
        "required": ["model", "messages", "max_tokens"],
        "properties": {
            "model": {"type": "string", "minLength": 1, "maxLength": 200},
            "messages": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["role"]}},
            "tools": {"type": ["array", "null"], "items": {"type": "object"}},
            "response_schema": {"type": ["object", "null"]},
            "max_tokens": {"type": "integer", "minimum": 1, "maximum": 200_000},
            "temperature": {"type": ["number", "null"], "minimum": 0, "maximum": 2},
        },
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "required": ["content", "tool_calls", "model", "usage"],
        "properties": {
            "content": {"type": ["string", "null"]},
            "tool_calls": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id", "name", "arguments"],
                    "properties": {
                        "id": {"type": "string"},
                        "name": {"type": "string"},
                        "arguments": {"type": "string"},
                    },
                },
            },
            "model": {"type": "string"},
            "usage": _USAGE,
        },
    },
    handler=_model_turn,
    risk="read",
    metered=True,
)
"""Not registered: the engine calls it for `ActionContext.llm_complete`, so it never shows in the
catalog or in an agent's tool list, yet each turn takes the same metered path as `llm.complete`."""

LLM_COMPLETE_ACTION = capability_action(
    LLM_COMPLETE,
    type="llm_complete",
    name="LLM completion",
    description="One completion without tools (the `llm.complete` capability); its cost lands in the ledger.",
    duration_class="medium",
    example_output={"text": "", "model": "", "usage": {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0}},
)
