"""Value rules the OpenAPI document states for values that a service checks itself.

A service refuses a bad tool prefix, input name, title or tag with its own stable code
(`invalid_tool_prefix`, ...), so the request models do not enforce these rules a second time (pydantic
would answer a generic `validation_failed` first); they state them, from the same constants, so a client
knows them before it asks. `stated(...)` gives the keywords for `json_schema_extra`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path
from pydantic import Field

from app.registry.models import RESERVED_FIRST_SEGMENTS
from app.services.automations.input_defaults import NAME_PATTERN as INPUT_NAME_PATTERN
from app.services.knowledge.limits import MAX_TAG_CHARS, MAX_TITLE_CHARS
from app.services.mcp.tools import PREFIX_PATTERN


def stated(**keywords: Any) -> dict[str, Any]:
    """JSON Schema keywords, given by their Python names (`max_length`), as the document spells them."""
    names = {"max_length": "maxLength", "min_length": "minLength", "min_items": "minItems"}
    return {names.get(name, name): value for name, value in keywords.items()}


# At least one character that is not blank, none a control character: said without a lookahead, which
# generators of matching text handle poorly; the length goes in minLength and maxLength.
_PRINTABLE = r"[^\x00-\x1f\x7f-\x9f]"
PRINTABLE_TEXT_PATTERN = rf"^{_PRINTABLE}*[^\s\x00-\x1f\x7f-\x9f]{_PRINTABLE}*$"


# The tiers are a capability id's first segment: a prefix naming one is refused as well.
_RESERVED = "|".join(sorted(RESERVED_FIRST_SEGMENTS))
TOOL_PREFIX_PATTERN = f"^(?!(?:{_RESERVED})$){PREFIX_PATTERN.removeprefix('^')}"
# An http(s) URL with a host, of printable characters (the scheme in any case, as urlsplit reads it).
HTTP_URL_PATTERN = r"^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@\[\]\s\x00-\x1f\x7f-\x9f]+([/?#][^\x00-\x1f\x7f-\x9f]*)?$"

ToolPrefix = Annotated[
    str,
    Field(
        description="First segment of the tools' ids: a lowercase letter, then up to 39 of a-z, 0-9, _.",
        json_schema_extra=stated(pattern=TOOL_PREFIX_PATTERN),
    ),
]
Title = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_TITLE_CHARS,
        json_schema_extra=stated(pattern=PRINTABLE_TEXT_PATTERN),
    ),
]
Tag = Annotated[
    str,
    Field(json_schema_extra=stated(pattern=PRINTABLE_TEXT_PATTERN, min_length=1, max_length=MAX_TAG_CHARS)),
]
InputName = Annotated[
    str,
    Path(
        min_length=1,
        max_length=200,
        description="The input name: a letter or _, then up to 63 letters, digits, _ or -.",
        json_schema_extra=stated(pattern=INPUT_NAME_PATTERN.pattern),
    ),
]
