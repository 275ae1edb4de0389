"""The wire formats of the model providers the fake server speaks besides OpenAI's chat completions.

Each dialect is recognised by its request path and renders a scripted `Reply` the way that provider
answers, usage included, so litellm parses it as it would the real provider's:

- `azure`: Azure OpenAI, `POST /openai/deployments/<deployment>/chat/completions?api-version=...`
  (OpenAI's body; the key in an `api-key` header);
- `anthropic`: `POST /v1/messages` (the key in `x-api-key`);
- `ollama`: Ollama's native `POST /api/chat` (`ollama_chat/` models), `ollama_generate` its
  `POST /api/generate` (`ollama/` models);
- `bedrock`: Bedrock's Converse API, `POST /model/<model id>/converse` (SigV4-signed);
- `gemini`: Google AI Studio, `POST .../models/<model>:generateContent`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import unquote

_AZURE = re.compile(r"^/openai/deployments/([^/]+)/chat/completions$")
_BEDROCK = re.compile(r"^/model/([^/]+)/converse$")
_GEMINI = re.compile(r"^.*/models/([^/:]+):generateContent$")


class Answer(Protocol):
    """What the fake's scripted `Reply` offers a dialect."""

    content: str | None
    tool_calls: tuple[Any, ...]
    prompt_tokens: int
    completion_tokens: int


def dialect_of(path: str) -> str | None:
    """The dialect a request path belongs to (None: not one of these)."""
    if _AZURE.match(path):
        return "azure"
    if path == "/v1/messages":
        return "anthropic"
    if path == "/api/chat":
        return "ollama"
    if path == "/api/generate":
        return "ollama_generate"
    if _GEMINI.match(path):
        return "gemini"
    if _BEDROCK.match(path):
        return "bedrock"
    return None


def deployment_of(path: str) -> str | None:
    """The Azure deployment or Bedrock model id a path names."""
    match = _AZURE.match(path) or _BEDROCK.match(path)
    return unquote(match.group(1)) if match else None


def _arguments(call: Any) -> dict[str, Any]:
    return json.loads(call.arguments) if isinstance(call.arguments, str) else dict(call.arguments)


def anthropic(answer: Answer, model: str, next_id: Callable[[], int]) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": answer.content}] if answer.content else []
    content += [
        {
            "type": "tool_use",
            "id": call.id or f"toolu_{next_id()}",
            "name": call.name,
            "input": _arguments(call),
        }
        for call in answer.tool_calls
    ]
    return {
        "id": f"msg_fake_{next_id()}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if answer.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": answer.prompt_tokens, "output_tokens": answer.completion_tokens},
    }


def ollama(answer: Answer, model: str, next_id: Callable[[], int]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer.content or ""}
    if answer.tool_calls:
        message["tool_calls"] = [
            {"function": {"name": call.name, "arguments": _arguments(call)}} for call in answer.tool_calls
        ]
    return {
        "model": model,
        "created_at": "2026-01-01T00:00:00Z",
        "message": message,
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": answer.prompt_tokens,
        "eval_count": answer.completion_tokens,
    }


def ollama_generate(answer: Answer, model: str, next_id: Callable[[], int]) -> dict[str, Any]:
    return {
        "model": model,
        "created_at": "2026-01-01T00:00:00Z",
        "response": answer.content or "",
        "done": True,
        "prompt_eval_count": answer.prompt_tokens,
        "eval_count": answer.completion_tokens,
    }


def gemini(answer: Answer, model: str, next_id: Callable[[], int]) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": answer.content or ""}]}, "finishReason": "STOP"}
        ],
        "usageMetadata": {
            "promptTokenCount": answer.prompt_tokens,
            "candidatesTokenCount": answer.completion_tokens,
            "totalTokenCount": answer.prompt_tokens + answer.completion_tokens,
        },
    }


def bedrock(answer: Answer, model: str, next_id: Callable[[], int]) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"text": answer.content}] if answer.content else []
    content += [
        {
            "toolUse": {
                "toolUseId": call.id or f"tooluse_{next_id()}",
                "name": call.name,
                "input": _arguments(call),
            }
        }
        for call in answer.tool_calls
    ]
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": "tool_use" if answer.tool_calls else "end_turn",
        "usage": {
            "inputTokens": answer.prompt_tokens,
            "outputTokens": answer.completion_tokens,
            "totalTokens": answer.prompt_tokens + answer.completion_tokens,
        },
        "metrics": {"latencyMs": 1},
    }


RENDERERS: dict[str, Callable[[Answer, str, Callable[[], int]], dict[str, Any]]] = {
    "anthropic": anthropic,
    "ollama": ollama,
    "ollama_generate": ollama_generate,
    "gemini": gemini,
    "bedrock": bedrock,
}
