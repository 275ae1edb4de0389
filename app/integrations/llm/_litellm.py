"""The one place that imports litellm, so its import-time settings apply wherever it is used.

litellm (with openai and its tokenizers) costs seconds and ~100 MiB to import, and most processes never
call a model: it is imported on first use. Other modules import this module and read `_litellm.litellm`,
`_litellm.exceptions` or `_litellm.AsyncHTTPHandler`; the first such read imports litellm.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import threading
from typing import Any

# litellm fetches its model price map over the network at import time and, with no network, retries for
# several seconds before falling back; the map packaged with the wheel is the one we want anyway.
# setdefault: an operator who really wants the live map can still set the variable to False.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

_lock = threading.Lock()
_loaded: dict[str, Any] = {}


def _load() -> dict[str, Any]:
    """Import litellm once (any thread), with the settings below applied before anyone uses it."""
    with _lock:
        if not _loaded:
            # Every litellm import of this package is here, after the setting above: importing any
            # litellm module runs litellm/__init__.py, and with it the price map fetch.
            module: Any = importlib.import_module("litellm")
            # token_counter would download HuggingFace tokenizers (Llama, Cohere, ...) at run time; the
            # bundled tiktoken encoding works offline and is close enough for budget estimates.
            module.disable_hf_tokenizer_download = True
            # Its error messages otherwise carry "Give Feedback / Get Help" banners and debugging hints.
            module.suppress_debug_info = True
            # Keep prompt text out of the exceptions it raises: run records store error messages.
            module.redact_messages_in_exceptions = True
            handlers = importlib.import_module("litellm.llms.custom_httpx.http_handler")
            _loaded.update(
                litellm=module,
                exceptions=importlib.import_module("litellm.exceptions"),
                AsyncHTTPHandler=handlers.AsyncHTTPHandler,
            )
        return _loaded


def __getattr__(name: str) -> Any:
    if name in ("litellm", "exceptions", "AsyncHTTPHandler"):
        return _load()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


async def load_off_loop() -> None:
    """Import litellm on a thread, if it is not loaded yet: the import takes seconds, and on the event
    loop it would hold up everything else the process runs meanwhile (a run's lease renewal)."""
    if not _loaded:
        await asyncio.to_thread(_load)


def loaded() -> bool:
    """Whether litellm has been imported by this process yet."""
    return bool(_loaded)
