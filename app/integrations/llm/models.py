"""What the operator says about each model (AUTOMATIONS_LLM_MODELS), and the prices a call is charged at."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from app.definitions.signals import StepError
from app.integrations.llm import _litellm

_NUMBER_KEYS = ("input_cost_per_token", "output_cost_per_token")
_KNOWN_KEYS = {
    "api_base",
    "api_key_env",
    "api_version",
    *_NUMBER_KEYS,
    "max_tokens",
    "supports_response_schema",
}
# Providers whose model facts litellm would ask the model's server for (Ollama's /api/show) when its
# packaged map lacks the name: a blocking request at pricing time. Their prices come from settings.
_ASKS_ITS_SERVER = frozenset({"ollama", "ollama_chat"})


@dataclass(frozen=True)
class Prices:
    """US dollars per input (prompt) token and per output (completion) token."""

    input_per_token: float
    output_per_token: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """Tokens times prices: the exact figure the cost ledger records for configured models."""
        return input_tokens * self.input_per_token + output_tokens * self.output_per_token


@dataclass(frozen=True)
class ModelSettings:
    """One entry of AUTOMATIONS_LLM_MODELS; every field is optional.

    `api_base` is the model's endpoint: a trusted destination, since only the operator sets it.
    `api_key_env` names the environment variable holding the key: keys never appear in settings.
    `api_version` is the API version Azure OpenAI is asked for (else AZURE_API_VERSION, else litellm's).
    `max_tokens` caps the output a call may ask for. `supports_response_schema` overrides litellm's
    answer for names it does not know (say, a model served by vLLM or Ollama).
    """

    api_base: str | None = None
    api_key_env: str | None = None
    api_version: str | None = None
    prices: Prices | None = None
    max_tokens: int | None = None
    supports_response_schema: bool | None = None

    @classmethod
    def parse(cls, name: str, raw: Mapping[str, Any]) -> ModelSettings:
        """Read one entry; raise ValueError naming the model and the field when it is wrong."""
        unknown = sorted(set(raw) - _KNOWN_KEYS)
        if unknown:
            hint = (
                " (keys come from the environment: name the variable in api_key_env)"
                if any("key" in key for key in unknown)
                else ""
            )
            raise ValueError(f"LLM model {name!r}: unknown field(s) {', '.join(unknown)}{hint}")
        api_base = _optional_str(name, raw, "api_base")
        if api_base is not None:
            _check_endpoint(name, api_base)
        api_key_env = _optional_str(name, raw, "api_key_env")
        api_version = _optional_str(name, raw, "api_version")
        given = [key for key in _NUMBER_KEYS if raw.get(key) is not None]
        prices = None
        if len(given) == 1:
            raise ValueError(f"LLM model {name!r}: give both input_cost_per_token and output_cost_per_token")
        if given:
            values = [raw[key] for key in _NUMBER_KEYS]
            if any(isinstance(v, bool) or not isinstance(v, int | float) or v < 0 for v in values):
                raise ValueError(f"LLM model {name!r}: prices must be numbers >= 0 (US dollars per token)")
            prices = Prices(float(values[0]), float(values[1]))
        max_tokens = raw.get("max_tokens")
        if max_tokens is not None and (
            isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
        ):
            raise ValueError(f"LLM model {name!r}: max_tokens must be a whole number >= 1")
        schema = raw.get("supports_response_schema")
        if schema is not None and not isinstance(schema, bool):
            raise ValueError(f"LLM model {name!r}: supports_response_schema must be true or false")
        return cls(api_base, api_key_env, api_version, prices, max_tokens, schema)

    def api_key(self, model: str) -> str | None:
        """The key from the variable named by `api_key_env`, or None when no variable is named."""
        if self.api_key_env is None:
            return None
        value = os.environ.get(self.api_key_env)
        if not value:
            message = f"model {model}: environment variable {self.api_key_env} (api_key_env) is not set"
            raise StepError("llm_misconfigured", message, retryable=False)
        return value


def _optional_str(name: str, raw: Mapping[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ValueError(f"LLM model {name!r}: {key} must be a non-empty string")
    return value


def _check_endpoint(name: str, api_base: str) -> None:
    """An endpoint must name where it is: http(s), a host, no credentials (keys live in variables)."""
    parts = urlsplit(api_base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"LLM model {name!r}: api_base must be an http(s) URL with a host")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"LLM model {name!r}: api_base must not carry credentials (use api_key_env)")


def asks_its_server(model: str) -> bool:
    """Whether litellm would ask the model's server about it (so its facts must come from settings)."""
    return model.split("/", 1)[0] in _ASKS_ITS_SERVER


def known_info(model: str) -> Mapping[str, Any]:
    """litellm's packaged facts about a model (prices, output limit), or {} when it does not know it."""
    if asks_its_server(model):
        return {}
    try:
        info: Mapping[str, Any] = _litellm.litellm.get_model_info(model)
        return info
    except Exception:
        # get_model_info raises a bare Exception for names missing from its price map.
        return {}


def prices_for(model: str, settings: ModelSettings) -> Prices:
    """Configured prices first, then litellm's map; a model with neither cannot be budgeted, so is refused."""
    if settings.prices is not None:
        return settings.prices
    info = known_info(model)
    prompt, completion = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if isinstance(prompt, int | float) and isinstance(completion, int | float):
        return Prices(float(prompt), float(completion))
    message = (
        f"no price known for model {model}: set input_cost_per_token and output_cost_per_token"
        " for it in AUTOMATIONS_LLM_MODELS"
    )
    raise StepError("unknown_model_price", message, retryable=False)


def output_cap(model: str, settings: ModelSettings) -> int | None:
    """The most output tokens one call may ask for: configured, else litellm's figure, else no cap."""
    if settings.max_tokens is not None:
        return settings.max_tokens
    cap = known_info(model).get("max_output_tokens")
    return cap if isinstance(cap, int) and cap > 0 else None
