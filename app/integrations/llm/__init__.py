"""LLM completions through litellm: the `LlmPort` the worker hands to runs (see docs/llm.md)."""

from app.integrations.llm._litellm import load_off_loop
from app.integrations.llm.adapter import LiteLlm
from app.integrations.llm.models import ModelSettings, Prices

__all__ = ["LiteLlm", "ModelSettings", "Prices", "load_off_loop"]
