"""Embeddings through litellm for knowledge search: the operator's one model, sent to its endpoint like
completions, priced by its input tokens (so a run's searches count against its budget)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.definitions.signals import StepError
from app.integrations.llm import _litellm
from app.integrations.llm.clients import call_kwargs, check_provider
from app.integrations.llm.errors import to_step_error
from app.integrations.llm.models import ModelSettings, prices_for

EMBED_TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True)
class Embedding:
    """Vectors, one per input text in order, and what the call used."""

    vectors: list[list[float]]
    input_tokens: int
    cost_usd: float


class LiteLlmEmbedder:
    """`litellm.aembedding` for one model; its AUTOMATIONS_LLM_MODELS entry gives api_base, key, prices."""

    def __init__(self, model: str, settings: ModelSettings) -> None:
        self.model = model
        self.settings = settings

    async def embed(self, texts: Sequence[str]) -> Embedding:
        """Embed `texts`; a refusal or failure raises `StepError` (as a completion's would)."""
        provider = check_provider(self.model)
        prices = prices_for(self.model, self.settings)
        try:
            async with asyncio.timeout(EMBED_TIMEOUT_SECONDS):
                async with call_kwargs(
                    self.model, provider, self.settings, timeout_seconds=EMBED_TIMEOUT_SECONDS
                ) as client_kwargs:
                    response: Any = await _litellm.litellm.aembedding(
                        model=self.model,
                        input=list(texts),
                        timeout=EMBED_TIMEOUT_SECONDS,
                        num_retries=0,
                        **client_kwargs,
                    )
        except TimeoutError:
            message = f"model {self.model} did not answer within {EMBED_TIMEOUT_SECONDS:g} s"
            raise StepError("llm_unavailable", message) from None
        except Exception as exc:
            raise to_step_error(exc, model=self.model, key_env=self.settings.api_key_env) from None
        rows = sorted(response.data, key=lambda row: _field(row, "index"))
        vectors = [[float(value) for value in _field(row, "embedding")] for row in rows]
        usage = getattr(response, "usage", None)
        tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        return Embedding(vectors=vectors, input_tokens=tokens, cost_usd=prices.cost(tokens, 0))


def _field(row: Any, name: str) -> Any:
    return row[name] if isinstance(row, dict) else getattr(row, name)
