"""Resource limits of the template engine, and the checks that apply them to source and output.

The checks here are shared by the parent (which refuses over-long sources before sending anything)
and the sandbox process (which checks every rendered string before it leaves).
"""

from __future__ import annotations

from app.engine.templating.errors import (
    OUTPUT_TOO_LARGE,
    TOO_LONG,
    UNSAFE_OUTPUT,
    TemplateLimitError,
    TemplateSecurityError,
    TemplateSyntaxError,
)

MAX_SOURCE_BYTES = 8 * 1024
MAX_OUTPUT_BYTES = 1024 * 1024
# One render_value call renders many fields; their outputs together stay below this.
MAX_TOTAL_OUTPUT_BYTES = 8 * MAX_OUTPUT_BYTES
# The context crosses a pipe as JSON; refuse absurd contexts instead of shipping them.
MAX_CONTEXT_BYTES = 16 * 1024 * 1024
RENDER_CPU_SECONDS = 0.1
# Compiling happens once per distinct source (the sandbox process caches compiled templates).
COMPILE_CPU_SECONDS = 0.5
# Integers past this many bits cannot be produced by template arithmetic (4096 bits ~ 1233 digits).
MAX_INT_BITS = 4096
SANDBOX_MEMORY_BYTES = 512 * 1024 * 1024
TEMPLATE_DELIMITERS = ("{{", "{%", "{#")


def check_source(source: object) -> str:
    """Return `source` if it is a string within the size limit; refuse it otherwise (before parsing)."""
    if not isinstance(source, str):
        raise TemplateSyntaxError(f"a template must be a string, not {type(source).__name__}")
    # Cheap pre-check on characters: a string never has more characters than UTF-8 bytes.
    if len(source) > MAX_SOURCE_BYTES or len(source.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
        raise TemplateLimitError(f"template source is longer than {MAX_SOURCE_BYTES} bytes", code=TOO_LONG)
    return source


def is_literal(source: str) -> bool:
    """True when a string holds no template syntax at all, so rendering it would return it unchanged."""
    return not any(delimiter in source for delimiter in TEMPLATE_DELIMITERS)


def check_text(text: str, *, limit: int = MAX_OUTPUT_BYTES) -> int:
    """Refuse rendered text that is too large or holds a NUL byte or a lone surrogate.

    NUL bytes and lone surrogates cannot be stored in PostgreSQL text or JSON and break most
    consumers, so output that carries them is refused as unsafe. Returns the UTF-8 size.
    """
    if len(text) > limit:
        raise TemplateLimitError(f"template output is larger than {limit} bytes", code=OUTPUT_TOO_LARGE)
    if "\x00" in text:
        raise TemplateSecurityError("template output contains a NUL character", code=UNSAFE_OUTPUT)
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise TemplateSecurityError(
            "template output contains a lone surrogate (invalid Unicode)", code=UNSAFE_OUTPUT
        ) from None
    if size > limit:
        raise TemplateLimitError(f"template output is larger than {limit} bytes", code=OUTPUT_TOO_LARGE)
    return size
