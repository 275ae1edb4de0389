"""Where a model call goes, and the client that takes it there.

A model's endpoint is a trusted destination (DESIGN.md §5, two kinds of destination): only the operator
chooses it, through the model's `api_base` in AUTOMATIONS_LLM_MODELS, the provider's environment
variables, or the provider's public default. A call hands litellm the model name (exactly as allowed),
the conversation, and the keyword arguments built here from those settings, nothing else: no field of a
definition, an agent's tool call or a draft reaches a destination argument. So the endpoint is not held
to AUTOMATIONS_EGRESS_ALLOW, which is about the URLs users control: a local Ollama on loopback works
while an automation's HTTP step still may not reach loopback.

Two ways a request reaches the wire:

- `CLIENT_PROVIDERS` take the HTTP client we hand them (checked per provider in
  tests/integrations/test_llm.py). They get an egress-guarded client that trusts the model's own
  endpoint host and nothing else: the connection is pinned to the checked address, a redirect to any
  other private address is refused, the answer is size-capped. The OpenAI provider goes through the
  OpenAI SDK (`client=AsyncOpenAI(http_client=...)`), the others through litellm's `AsyncHTTPHandler`.
- Every other provider (Azure OpenAI, Vertex AI, Cohere, ...) builds its own SDK or HTTP client inside
  litellm. It is sent to the same operator-chosen endpoint, only without the guard's pinning and caps.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from ipaddress import ip_network
from typing import Any
from urllib.parse import urlsplit

from app.definitions.signals import StepError
from app.integrations.llm import _litellm
from app.integrations.llm.models import ModelSettings, known_info
from app.security.egress import EgressAllowList
from app.security.egress.hosts import normalise_host

OPENAI_SDK_PROVIDERS = frozenset({"openai"})
# Each checked (tests/integrations/test_llm.py) to send through the client it is handed.
HTTP_HANDLER_PROVIDERS = frozenset(
    {
        "anthropic",
        "gemini",
        "mistral",
        "groq",
        "deepseek",
        "xai",
        "openrouter",
        "ollama",
        "ollama_chat",
        "bedrock",
    }
)
CLIENT_PROVIDERS = OPENAI_SDK_PROVIDERS | HTTP_HANDLER_PROVIDERS

OPENAI_DEFAULT_BASE = "https://api.openai.com/v1"
# The OpenAI SDK insists on a key; local OpenAI-compatible servers (Ollama, vLLM) do not check it.
_NO_KEY = "no-key"
# Where litellm sends a provider's requests when the model has no api_base, beyond the generic
# <PROVIDER>_API_BASE / <PROVIDER>_BASE_URL variables (first set wins), and its built-in defaults.
_ENDPOINT_VARIABLES = {
    "openai": ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
    "ollama_chat": ("OLLAMA_API_BASE",),
    "bedrock": ("AWS_BEDROCK_RUNTIME_ENDPOINT",),
}
_DEFAULT_ENDPOINTS = {
    "openai": OPENAI_DEFAULT_BASE,
    "ollama": "http://localhost:11434",
    "ollama_chat": "http://localhost:11434",
}
# Providers with no public default endpoint: each deployment has its own, named in settings or here.
_ENDPOINT_REQUIRED = {"azure": "AZURE_API_BASE"}
# Providers that authenticate with one API key whose variable litellm names (`validate_environment`):
# a missing key is reported before anything is sent. Cloud providers with other credential chains
# (Bedrock's instance roles, Vertex AI's service accounts, Azure's Entra ID) are left to the provider.
_KEYED_PROVIDERS = frozenset(
    {"anthropic", "gemini", "mistral", "groq", "deepseek", "xai", "openrouter", "cohere", "cohere_chat"}
)


def provider_of(model: str) -> str:
    """The litellm provider a model name routes to (`openai/x` → openai, `claude-…` → anthropic)."""
    try:
        return str(_litellm.litellm.get_llm_provider(model)[1])
    except Exception:
        # get_llm_provider raises litellm.BadRequestError (with a help banner) for names it cannot route.
        message = f"model {model} names no provider litellm knows; write it as provider/model"
        raise StepError("llm_unknown_provider", message, retryable=False) from None


def check_provider(model: str) -> str:
    """The model's provider, or StepError when litellm knows no provider for it or cannot serve it."""
    provider = provider_of(model)
    if provider in OPENAI_SDK_PROVIDERS and (
        model.startswith("responses/")
        or "/responses/" in model
        or known_info(model).get("mode") == "responses"
    ):
        # litellm bridges these to OpenAI's Responses API, a path of its own that takes no client from
        # us and that no test here has followed to its endpoint: refused rather than trusted blind.
        message = (
            f"model {model} is served only through OpenAI's Responses API, which this service does not"
            " call; use a chat-completions model"
        )
        raise StepError("llm_provider_unsupported", message, retryable=False)
    return provider


def endpoint_of(provider: str, settings: ModelSettings) -> str | None:
    """The endpoint the operator chose for a model: its api_base, else the provider's variables, else
    litellm's built-in default; None means the provider's public endpoint."""
    if settings.api_base is not None:
        return settings.api_base
    upper = provider.upper()
    names = (*_ENDPOINT_VARIABLES.get(provider, ()), f"{upper}_API_BASE", f"{upper}_BASE_URL")
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return _DEFAULT_ENDPOINTS.get(provider)


def trusted(endpoint: str | None) -> EgressAllowList:
    """The allow list of one model call: its endpoint's host, nothing else (public hosts need none)."""
    host_text = urlsplit(endpoint).hostname if endpoint else None
    if not host_text:
        return EgressAllowList()
    try:
        host = normalise_host(host_text)
    except ValueError:
        return EgressAllowList()  # the guard refuses the same host with its own, clearer reason
    if isinstance(host, str):
        return EgressAllowList(hosts=frozenset({host}))
    return EgressAllowList(networks=(ip_network(host),))


def check_credentials(model: str, provider: str, api_key: str | None) -> None:
    """Refuse a call whose provider key is not set anywhere, before anything is sent."""
    if api_key is not None or provider not in _KEYED_PROVIDERS:
        return
    try:
        report = _litellm.litellm.validate_environment(model=model)
    except Exception:
        return  # litellm cannot tell: the provider's own answer will
    missing = [name for name in report.get("missing_keys") or [] if name.endswith("_API_KEY")]
    if missing and not report.get("keys_in_environment"):
        names = " or ".join(missing)
        message = f"model {model}: {names} is not set (or name another variable in api_key_env)"
        raise StepError("llm_misconfigured", message, retryable=False)


def preflight(model: str, provider: str, settings: ModelSettings) -> str | None:
    """What can be known about a model's configuration without sending anything: its key (from
    `api_key_env`, None when unnamed), and StepError `llm_misconfigured` when a key or an endpoint the
    provider needs is missing."""
    api_key = settings.api_key(model)
    check_credentials(model, provider, api_key)
    if endpoint_of(provider, settings) is None and provider in _ENDPOINT_REQUIRED:
        message = (
            f"model {model}: no endpoint; set its api_base in AUTOMATIONS_LLM_MODELS"
            f" or {_ENDPOINT_REQUIRED[provider]}"
        )
        raise StepError("llm_misconfigured", message, retryable=False)
    return api_key


@asynccontextmanager
async def call_kwargs(
    model: str, provider: str, settings: ModelSettings, *, timeout_seconds: float
) -> AsyncIterator[dict[str, Any]]:
    """The destination, key and client arguments of one litellm call, from operator settings only;
    the client is closed afterwards."""
    from app.security.egress import egress_client

    api_key = preflight(model, provider, settings)
    endpoint = endpoint_of(provider, settings)
    kwargs: dict[str, Any] = {}
    if settings.api_base is not None:
        kwargs["api_base"] = settings.api_base
    if settings.api_version is not None:
        kwargs["api_version"] = settings.api_version
    if provider not in CLIENT_PROVIDERS:
        if api_key is not None:
            kwargs["api_key"] = api_key
        yield kwargs
        return
    async with egress_client(allow=trusted(endpoint), timeout=timeout_seconds) as http:
        if provider in OPENAI_SDK_PROVIDERS:
            base_url = endpoint or OPENAI_DEFAULT_BASE
            api_key = api_key or os.environ.get("OPENAI_API_KEY")
            if api_key is None and base_url == OPENAI_DEFAULT_BASE:
                message = f"model {model}: OPENAI_API_KEY is not set"
                raise StepError("llm_misconfigured", message, retryable=False)
            import openai  # heavy (~2 s, tens of MiB): only where a model is called

            # The SDK client's base URL decides where the request goes (litellm's api_base is ignored
            # next to a client). max_retries=0: the executor's retry policy is the one that retries.
            client = openai.AsyncOpenAI(
                api_key=api_key or _NO_KEY, base_url=base_url, http_client=http, max_retries=0
            )
            yield {"client": client}
            return
        handler = _litellm.AsyncHTTPHandler(timeout=timeout_seconds)
        # The handler builds an httpx client of its own on creation; close it before swapping ours in.
        await handler.client.aclose()
        handler.client = http
        kwargs["client"] = handler
        if api_key is not None:
            kwargs["api_key"] = api_key
        yield kwargs
