"""The one place that imports litellm, so its import-time settings apply wherever it is used."""

from __future__ import annotations

import os

# litellm fetches its model price map over the network at import time and, with no network, retries for
# several seconds before falling back; the map packaged with the wheel is the one we want anyway.
# setdefault: an operator who really wants the live map can still set the variable to False.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# Every litellm import of this package is here, after the setting above: importing any litellm module
# runs litellm/__init__.py, and with it the price map fetch.
import litellm
from litellm import exceptions
from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler

# token_counter would download HuggingFace tokenizers (Llama, Cohere, ...) at run time; the bundled
# tiktoken encoding works offline and is close enough for budget estimates.
litellm.disable_hf_tokenizer_download = True
# Its error messages otherwise carry "Give Feedback / Get Help" banners and debugging hints.
litellm.suppress_debug_info = True
# Keep prompt text out of the exceptions it raises: run records store error messages.
litellm.redact_messages_in_exceptions = True

__all__ = ["AsyncHTTPHandler", "exceptions", "litellm"]
