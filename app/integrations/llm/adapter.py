"""`LiteLlm`: the worker's `LlmPort`, completions through litellm to the operator's model endpoints."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from app.definitions.signals import StepError
from app.integrations.llm import _litellm
from app.integrations.llm.clients import call_kwargs, check_provider, preflight
from app.integrations.llm.errors import to_step_error
from app.integrations.llm.models import (
    ModelSettings,
    Prices,
    asks_its_server,
    known_info,
    output_cap,
    prices_for,
)
from app.registry.llm_ports import LlmReply, LlmToolCall

SCHEMA_NAME = "output"
_NO_SETTINGS = ModelSettings()


class LiteLlm:
    """LLM completions over `litellm.acompletion`; see docs/llm.md for configuration.

    `allowed_models` are the exact names a definition may use; `models` holds operator settings for
    some of them (AUTOMATIONS_LLM_MODELS, read by `ModelSettings.parse`), among them each model's
    endpoint: a trusted destination, not subject to AUTOMATIONS_EGRESS_ALLOW (see `clients`).
    """

    def __init__(self, allowed_models: list[str], models: Mapping[str, Mapping[str, Any]]) -> None:
        self.allowed_models = frozenset(allowed_models)
        self.models = {name: ModelSettings.parse(name, raw) for name, raw in models.items()}

    def configuration_problems(self) -> dict[str, str]:
        """Each allowed model whose call would be refused before anything is sent (unknown provider,
        missing key or endpoint, no price), with the reason; nothing is sent to check."""
        problems: dict[str, str] = {}
        for model in sorted(self.allowed_models):
            try:
                settings = self._settings(model)
                preflight(model, check_provider(model), settings)
                prices_for(model, settings)
            except StepError as exc:
                problems[model] = f"{exc.code}: {exc.message}"
        return problems

    def allows(self, model: str) -> bool:
        """Whether a definition may use `model` (exact name in the allowed list)."""
        return model in self.allowed_models

    def worst_case_cost(self, model: str, prompt_tokens: int, max_tokens: int) -> float:
        """The most a call could cost: prompt tokens plus `max_tokens` of output at the model's prices."""
        settings = self._settings(model)
        check_provider(model)
        prices = prices_for(model, settings)
        return prices.cost(prompt_tokens, self._max_tokens(model, settings, max_tokens))

    def count_tokens(self, model: str, messages: list[dict[str, Any]]) -> int:
        """Prompt tokens of `messages` by litellm's offline counter (tiktoken; approximate for non-OpenAI)."""
        try:
            return int(_litellm.litellm.token_counter(model=model, messages=messages))
        except Exception:
            # Content shapes the counter does not understand: about four characters per token.
            return max(1, len(json.dumps(messages, default=str)) // 4)

    async def complete(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        response_schema: dict[str, Any] | None,
        max_tokens: int,
        temperature: float | None,
        timeout_seconds: float,
    ) -> LlmReply:
        """One chat completion; raises StepError (codes in docs/llm.md) when it cannot be had."""
        settings = self._settings(model)
        provider = check_provider(model)
        # Refuse before spending anything on a model whose cost could not be recorded.
        prices = prices_for(model, settings)
        request: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "max_tokens": self._max_tokens(model, settings, max_tokens),
            "timeout": timeout_seconds,
            # Ours is the retry policy (the executor's); litellm's and the OpenAI SDK's would hide attempts.
            "num_retries": 0,
            "max_retries": 0,
            # Parameters a model does not take (temperature on reasoning models) are dropped, not fatal.
            "drop_params": True,
        }
        if tools:
            request["tools"] = tools
            # With tools, litellm first checks whether to call MCP servers itself (its proxy's MCP
            # gateway, for tools of type "mcp"). The tools we offer are function specs, MCP tools of a
            # space included: our own pipeline calls the server (egress guard, per-call credentials,
            # invocation record). litellm must never reach a tool server on its own, so its gateway
            # check is switched off, whatever a tool spec looks like. This is a private litellm switch
            # (pinned version); tests/integrations/test_llm.py checks it never reaches the provider.
            request["_skip_mcp_handler"] = True
        if temperature is not None:
            request["temperature"] = temperature
        if response_schema is not None:
            request.update(self._structured_output(model, provider, settings, messages, response_schema))
        try:
            async with asyncio.timeout(timeout_seconds):
                async with call_kwargs(
                    model, provider, settings, timeout_seconds=timeout_seconds
                ) as client_kwargs:
                    response = await _litellm.litellm.acompletion(**request, **client_kwargs)
        except StepError:
            raise
        except TimeoutError:
            message = f"model {model} did not answer within {timeout_seconds:g} s"
            raise StepError("llm_unavailable", message) from None
        except Exception as exc:
            raise to_step_error(exc, model=model, key_env=settings.api_key_env) from None
        return self._reply(model, settings, prices, messages, response)

    def _settings(self, model: str) -> ModelSettings:
        if not self.allows(model):
            message = f"model {model} is not in AUTOMATIONS_LLM_ALLOWED_MODELS"
            raise StepError("model_not_allowed", message, retryable=False)
        return self.models.get(model, _NO_SETTINGS)

    @staticmethod
    def _max_tokens(model: str, settings: ModelSettings, requested: int) -> int:
        cap = output_cap(model, settings)
        return requested if cap is None else min(requested, cap)

    @staticmethod
    def _structured_output(
        model: str,
        provider: str,
        settings: ModelSettings,
        messages: list[dict[str, Any]],
        schema: dict[str, Any],
    ) -> dict[str, Any]:
        """`response_format` (and, without schema support, the schema in the prompt) for JSON output."""
        supported = settings.supports_response_schema
        if supported is None:
            # For Ollama, litellm's answer would come from a request to the server: settings decide.
            supported = not asks_its_server(model) and bool(
                _litellm.litellm.supports_response_schema(model=model)
            )
        if supported:
            json_schema = {"name": SCHEMA_NAME, "schema": schema, "strict": False}
            return {"response_format": {"type": "json_schema", "json_schema": json_schema}}
        # Without schema enforcement the model only knows the shape if it is told; JSON mode also
        # requires the prompt to mention JSON. The caller validates the answer either way.
        instruction = (
            "Answer with one JSON object, and nothing else, that validates against this JSON Schema:\n"
            + json.dumps(schema, separators=(",", ":"))
        )
        extra: dict[str, Any] = {"messages": [{"role": "system", "content": instruction}, *messages]}
        params = _litellm.litellm.get_supported_openai_params(model=model, custom_llm_provider=provider) or []
        if "response_format" in params:
            extra["response_format"] = {"type": "json_object"}
        return extra

    def _reply(
        self,
        model: str,
        settings: ModelSettings,
        prices: Prices,
        messages: list[dict[str, Any]],
        response: Any,
    ) -> LlmReply:
        message = response.choices[0].message
        usage = getattr(response, "usage", None)
        content = message.content if isinstance(message.content, str) else None
        input_tokens = getattr(usage, "prompt_tokens", None)
        output_tokens = getattr(usage, "completion_tokens", None)
        # A provider that reports no usage is charged our own count rather than nothing.
        if not isinstance(input_tokens, int):
            input_tokens = self.count_tokens(model, messages)
        if not isinstance(output_tokens, int):
            output_tokens = (
                int(_litellm.litellm.token_counter(model=model, text=content or "")) if content else 0
            )
        return LlmReply(
            content=content,
            tool_calls=tuple(_tool_calls(message)),
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cost_usd=_cost(model, settings, prices, response, input_tokens, output_tokens),
            model=model,
        )


def _tool_calls(message: Any) -> list[LlmToolCall]:
    calls = []
    for call in getattr(message, "tool_calls", None) or []:
        arguments = call.function.arguments
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)  # some providers hand back parsed objects
        calls.append(LlmToolCall(id=str(call.id), name=str(call.function.name), arguments=arguments))
    return calls


def _cost(
    model: str, settings: ModelSettings, prices: Prices, response: Any, input_tokens: int, output_tokens: int
) -> float:
    """Configured prices: exactly tokens times prices. Otherwise litellm's pricing of the response (cached
    and reasoning tokens, tiers), falling back to tokens times its list prices."""
    if settings.prices is not None or not known_info(model):
        return prices.cost(input_tokens, output_tokens)
    try:
        return float(_litellm.litellm.completion_cost(completion_response=response, model=model))
    except Exception:
        return prices.cost(input_tokens, output_tokens)
