"""`agent_task`: an LLM step with a bounded tool loop and a validated answer.

The tool set is fixed when the step starts (the space's capabilities matching `tools`); each tool call
goes through `invoke_capability`, like any side effect, and each model turn through the pipeline's
metered path (`ctx.llm_complete`). A final answer that does not match `output_schema` is sent back to
the model with the problems; those repairs use up the step's retries.

A tool call the pipeline suspends (`Suspend`, a `BaseException`) is not a tool failure: it leaves the
loop, and the executor pauses the run. A tool call a dry or verify run holds back (`Suppressed`) answers
the model with what would have been sent, and the loop goes on. On its way out of a pause the loop saves
a checkpoint (the transcript, the tool calls of the turn still to make, the turns and repairs left) with
the suspension; when the run resumes after the decision, the loop continues from that checkpoint, so no
model call is repeated and no spending is counted twice. Tool calls are made with `chosen_by="agent"`:
the permission cascade infers `require_approval` for the writes a model chooses.
"""

from __future__ import annotations

import json
import re
from typing import Any

from app.definitions.json_schema import schema_problems
from app.definitions.signals import StepError, Suppressed, Suspend
from app.registry.builtin_llm import DEFAULT_MAX_TOKENS
from app.registry.models import DYNAMIC_OUTPUT, ActionDefinition, Capability
from app.registry.ports import HandlerContext

DEFAULT_MAX_ITERATIONS = 10
MAX_TOOL_RESULT_BYTES = 256 * 1024
MAX_TOOL_ERROR_CHARS = 300
SYSTEM_PROMPT = (
    "You are one step of an automation. Use the tools offered when they help. "
    "When you are done, answer with the final result only."
)
_SCHEMA_HINT = "Answer with JSON only, matching this JSON Schema:\n"
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def provider_names(capabilities: list[Capability]) -> dict[str, Capability]:
    """Provider-safe tool names (letters, digits, _ and -) for capability ids, unique."""
    names: dict[str, Capability] = {}
    for capability in capabilities:
        base = capability.id.replace(".", "__")[:60]
        name, suffix = base, 2
        while name in names:
            name, suffix = f"{base}_{suffix}", suffix + 1
        names[name] = capability
    return names


def _tool_specs(names: dict[str, Capability]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": name, "description": cap.description[:1024], "parameters": cap.input_schema},
        }
        for name, cap in names.items()
    ]


def _short(error: BaseException) -> dict[str, str]:
    """What the model may learn of a tool failure: a code and a short message, never a traceback."""
    message = getattr(error, "message", None) or str(error) or type(error).__name__
    return {
        "code": getattr(error, "code", "tool_failed"),
        "message": message.splitlines()[0][:MAX_TOOL_ERROR_CHARS],
    }


async def _run_tool(
    ctx: HandlerContext, names: dict[str, Capability], name: str, arguments: str
) -> dict[str, Any]:
    capability = names.get(name)
    if capability is None:
        return {"error": {"code": "tool_not_allowed", "message": f"{name!r} is not one of your tools"}}
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return {"error": {"code": "invalid_arguments", "message": "the arguments are not valid JSON"}}
    if not isinstance(args, dict):
        return {"error": {"code": "invalid_arguments", "message": "the arguments must be a JSON object"}}
    try:
        result = await ctx.invoke_capability(capability.id, args, chosen_by="agent")
    except Suppressed as held:
        # A dry or verify run held the call back: the model hears what would have been sent.
        return {"result": held.as_output()}
    except Exception as exc:  # reported to the model; the step goes on (Suspend is no Exception)
        return {"error": _short(exc)}
    if len(json.dumps(result, default=str).encode()) > MAX_TOOL_RESULT_BYTES:
        return {
            "error": {"code": "tool_result_too_large", "message": "the result is over 256 KB; ask for less"}
        }
    return {"result": result}


def _parse_answer(text: str, schema: dict[str, Any]) -> tuple[Any, list[str]]:
    fenced = _FENCE.match(text.strip())
    try:
        value = json.loads(fenced.group(1) if fenced else text)
    except ValueError:
        return None, ["the answer is not valid JSON"]
    return value, schema_problems(schema, value)


def _assistant_turn(reply: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": reply.content,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in reply.tool_calls
        ],
    }


async def _run_tools(
    ctx: HandlerContext,
    names: dict[str, Capability],
    messages: list[dict[str, Any]],
    calls: list[dict[str, Any]],
    state: dict[str, Any],
) -> None:
    """Make the turn's tool calls in order; a pause saves what is left with the transcript."""
    while calls:
        call = calls[0]
        try:
            outcome = await _run_tool(ctx, names, call["name"], call["arguments"])
        except Suspend as signal:
            signal.checkpoint = {**state, "messages": messages, "pending_tool_calls": calls}
            raise
        messages.append(
            {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(outcome, default=str)}
        )
        calls.pop(0)


async def _agent_task(ctx: HandlerContext, config: dict[str, Any]) -> Any:
    names = provider_names(await ctx.capabilities_matching(config.get("tools", [])))
    tools = _tool_specs(names) or None
    schema = config.get("output_schema")
    max_iterations = config.get("max_iterations", DEFAULT_MAX_ITERATIONS)
    checkpoint = ctx.checkpoint if isinstance(ctx.checkpoint, dict) else None
    if checkpoint is not None:
        # Resumed after a decision: the transcript and the turn's remaining tool calls, as saved.
        messages: list[dict[str, Any]] = list(checkpoint["messages"])
        state = {"turns": checkpoint["turns"], "repairs_left": checkpoint["repairs_left"]}
        await _run_tools(ctx, names, messages, list(checkpoint["pending_tool_calls"]), state)
    else:
        system = SYSTEM_PROMPT + (f"\n{_SCHEMA_HINT}{json.dumps(schema)}" if schema else "")
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": config["prompt"]},
        ]
        state = {"turns": 0, "repairs_left": ctx.max_retries}
    while state["turns"] < max_iterations:
        reply = await ctx.llm_complete(
            model=config["model"],
            messages=messages,
            tools=tools,
            response_schema=schema,
            max_tokens=config.get("max_tokens", DEFAULT_MAX_TOKENS),
            temperature=config.get("temperature"),
        )
        state["turns"] += 1
        if reply.tool_calls:
            messages.append(_assistant_turn(reply))
            calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls]
            await _run_tools(ctx, names, messages, calls, state)
            continue
        text = reply.content or ""
        if schema is None:
            return text
        value, problems = _parse_answer(text, schema)
        if not problems:
            return value
        if state["repairs_left"] <= 0:
            # The repairs used up the step's retries: another attempt would only spend more.
            raise StepError(
                "invalid_output",
                "the final answer does not match output_schema: " + "; ".join(problems),
                retryable=False,
            )
        state["repairs_left"] -= 1
        messages.append({"role": "assistant", "content": text})
        messages.append(
            {
                "role": "user",
                "content": "That answer is not valid: "
                + "; ".join(problems)
                + ". "
                + _SCHEMA_HINT
                + json.dumps(schema),
            }
        )
    raise StepError(
        "max_iterations",
        f"no final answer within max_iterations ({max_iterations})",
        retryable=False,
    )


AGENT_TASK = ActionDefinition(
    type="agent_task",
    name="Agent task",
    description=(
        "An LLM works on `prompt` with the tools matching `tools` (capability ids or globs such as "
        "`http.*`) for at most `max_iterations` turns, and answers with a value matching `output_schema`."
    ),
    config_schema={
        "type": "object",
        "required": ["prompt", "model"],
        "properties": {
            "prompt": {"type": "string", "minLength": 1, "maxLength": 100_000, "x-widget": "textarea"},
            "model": {"type": "string", "minLength": 1, "maxLength": 200},
            "tools": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "maxItems": 100,
                "default": [],
            },
            "output_schema": {"type": "object"},
            "max_iterations": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50,
                "default": DEFAULT_MAX_ITERATIONS,
            },
            "max_tokens": {
                "type": "integer",
                "minimum": 1,
                "maximum": 200_000,
                "default": DEFAULT_MAX_TOKENS,
            },
            "temperature": {"type": "number", "minimum": 0, "maximum": 2},
        },
        "additionalProperties": False,
    },
    output_contract=DYNAMIC_OUTPUT,
    handler=_agent_task,
    duration_class="medium",
)
