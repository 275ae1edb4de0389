"""Which providers litellm may talk to, and the egress-guarded client each one is handed per call.

litellm builds its own HTTP clients unless it is given one. Two shapes of client reach the wire:

- the OpenAI provider goes through the OpenAI SDK: we pass `client=AsyncOpenAI(http_client=<egress>)`,
  whose base URL and key then decide where the request goes (litellm's `api_base` is ignored);
- the providers below that litellm serves with its own HTTP handler take `client=AsyncHTTPHandler`,
  whose httpx client we replace with the egress client.

Providers outside both sets are refused rather than sent unguarded: their paths either build clients we
cannot replace (Azure, Bedrock, Vertex, Cohere, ...) or make side requests of their own (Ollama's native
API asks the server for model info). Ollama, vLLM and LM Studio work through `openai/<model>` with their
OpenAI-compatible base URL instead.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from app.definitions.signals import StepError
from app.integrations.llm import _litellm
from app.integrations.llm.models import ModelSettings, known_info
from app.security.egress import EgressAllowList

OPENAI_SDK_PROVIDERS = frozenset({"openai"})
# Each checked (tests/integrations/test_llm.py) to send through the client it is handed.
HTTP_HANDLER_PROVIDERS = frozenset(
    {"anthropic", "gemini", "mistral", "groq", "deepseek", "xai", "openrouter"}
)
GUARDED_PROVIDERS = OPENAI_SDK_PROVIDERS | HTTP_HANDLER_PROVIDERS

OPENAI_DEFAULT_BASE = "https://api.openai.com/v1"
# The OpenAI SDK insists on a key; local OpenAI-compatible servers (Ollama, vLLM) do not check it.
_NO_KEY = "no-key"


def provider_of(model: str) -> str:
    """The litellm provider a model name routes to (`openai/x` → openai, `claude-…` → anthropic)."""
    try:
        return str(_litellm.litellm.get_llm_provider(model)[1])
    except Exception:
        # get_llm_provider raises litellm.BadRequestError (with a help banner) for names it cannot route.
        message = f"model {model} names no provider litellm knows; write it as provider/model"
        raise StepError("llm_unknown_provider", message, retryable=False) from None


def check_provider(model: str) -> str:
    """The model's provider, or StepError when its traffic cannot go through the egress guard."""
    provider = provider_of(model)
    if provider not in GUARDED_PROVIDERS:
        supported = ", ".join(sorted(GUARDED_PROVIDERS))
        message = (
            f"model {model}: provider {provider} is not supported, because its requests cannot be routed"
            f" through the egress guard (supported: {supported}; OpenAI-compatible servers: openai/<model>"
            " with api_base)"
        )
        raise StepError("llm_provider_unsupported", message, retryable=False)
    if (
        model.startswith("responses/")
        or "/responses/" in model
        or known_info(model).get("mode") == "responses"
    ):
        # litellm bridges these to the Responses API, whose handler ignores the client we pass and
        # builds its own: such a request would bypass the egress guard.
        message = (
            f"model {model} is served only through the Responses API, for which litellm builds its own"
            " client that the egress guard cannot cover"
        )
        raise StepError("llm_provider_unsupported", message, retryable=False)
    return provider


def openai_base_url(settings: ModelSettings) -> str:
    """Where an openai/… request goes: the model's api_base, else litellm's variables, else OpenAI."""
    return (
        settings.api_base
        or os.environ.get("OPENAI_BASE_URL")
        or os.environ.get("OPENAI_API_BASE")
        or OPENAI_DEFAULT_BASE
    )


@asynccontextmanager
async def guarded_call_kwargs(
    model: str,
    provider: str,
    settings: ModelSettings,
    *,
    allow: EgressAllowList,
    timeout_seconds: float,
) -> AsyncIterator[dict[str, Any]]:
    """The `client` (and `api_base`/`api_key`) arguments for one `acompletion` call, closed afterwards."""
    from app.security.egress import egress_client

    api_key = settings.api_key(model)
    async with egress_client(allow=allow, timeout=timeout_seconds) as http:
        if provider in OPENAI_SDK_PROVIDERS:
            base_url = openai_base_url(settings)
            api_key = api_key or os.environ.get("OPENAI_API_KEY")
            if api_key is None and base_url == OPENAI_DEFAULT_BASE:
                message = f"model {model}: OPENAI_API_KEY is not set"
                raise StepError("llm_misconfigured", message, retryable=False)
            import openai  # heavy (~2 s, tens of MiB): only where a model is called

            # max_retries=0: the executor's retry policy is the one that retries, visibly.
            client = openai.AsyncOpenAI(
                api_key=api_key or _NO_KEY, base_url=base_url, http_client=http, max_retries=0
            )
            yield {"client": client}
            return
        handler = _litellm.AsyncHTTPHandler(timeout=timeout_seconds)
        # The handler builds an httpx client of its own on creation; close it before swapping ours in.
        await handler.client.aclose()
        handler.client = http
        kwargs: dict[str, Any] = {"client": handler}
        if settings.api_base is not None:
            kwargs["api_base"] = settings.api_base
        if api_key is not None:
            kwargs["api_key"] = api_key
        yield kwargs
