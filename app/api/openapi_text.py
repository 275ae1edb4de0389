"""What the JSON body check refuses, said in the OpenAPI document: no request string or key may hold a
NUL character.

`app.api.body` refuses a NUL anywhere in a JSON body (PostgreSQL stores neither a NUL in text nor a
`\\u0000` in JSON), whatever the route. So the document says it once for every request body: each
string schema reachable from a request body gets the NUL-free pattern unless it already has a
pattern, a NUL-free format (uuid, date-time, ...) or a fixed set of values; each object names its keys
NUL-free; and each open value (`{}`, or the extra properties of an open object) becomes the component
`StorableJson`, any JSON value whose strings and keys are NUL-free. A route added later is covered
by construction.
"""

from __future__ import annotations

from typing import Any

NUL_FREE_PATTERN = r"^[^\x00]*$"
_NO_NUL_AHEAD = r"^(?![\s\S]*\x00)"
STORABLE_JSON = "StorableJson"
_REF = "#/components/schemas/"
_STORABLE_REF = {"$ref": f"{_REF}{STORABLE_JSON}"}
# Keywords whose value is a schema, or a list or a map of schemas.
_ONE = ("items", "not", "additionalProperties", "propertyNames", "contains", "if", "then", "else")
_MANY = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs")
# Formats whose every value is NUL-free; others (email, uri, ...) are checked by the server only after
# the body check, so a client generating one from the format alone may still produce a NUL.
_NUL_FREE_FORMATS = ("uuid", "date-time", "date", "time", "duration", "binary")


def storable_json_schema() -> dict[str, Any]:
    """Any JSON value PostgreSQL can store: its strings and object keys hold no NUL character."""
    text = {"type": "string", "pattern": NUL_FREE_PATTERN}
    return {
        "description": "Any JSON value whose strings and keys hold no NUL character.",
        "anyOf": [
            text,
            {"type": "number"},
            {"type": "boolean"},
            {"type": "null"},
            {"type": "array", "items": dict(_STORABLE_REF)},
            {"type": "object", "propertyNames": dict(text), "additionalProperties": dict(_STORABLE_REF)},
        ],
    }


def _nul_free(pattern: str | None) -> str:
    """`pattern` that also refuses a NUL: unchanged when it names NUL already or has no construct that
    could match one; each negated class made to exclude NUL as well; behind a lookahead only when a
    `.`, `\\S`, `\\D` or `\\W` could match one (a lookahead makes generating matching text slow)."""
    if pattern is None:
        return NUL_FREE_PATTERN
    if "\\x00" in pattern:
        return pattern
    out: list[str] = []
    in_class = negated = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            escape = pattern[index : index + 2]
            if escape in ("\\S", "\\D", "\\W") and not (in_class and negated):
                return _behind_lookahead(pattern)
            out.append(escape)
            index += 2
            continue
        if in_class and char == "]" and out[-1] not in ("[", "[^"):
            if negated:
                out.append("\\x00")
            in_class = False
        elif not in_class and char == "[":
            in_class, negated = True, pattern.startswith("[^", index)
            if negated:
                out.append("[^")
                index += 2
                continue
        elif not in_class and char == ".":
            return _behind_lookahead(pattern)
        out.append(char)
        index += 1
    return "".join(out)


def _behind_lookahead(pattern: str) -> str:
    """`pattern` behind a lookahead that refuses any NUL in the whole text."""
    if pattern.startswith("^"):
        return _NO_NUL_AHEAD + pattern.removeprefix("^")
    return rf"{_NO_NUL_AHEAD}[\s\S]*?(?:{pattern})"


def _is_open(schema: dict[str, Any]) -> bool:
    """`{}` or a schema that says nothing about its value but a description or title."""
    return not (set(schema) - {"description", "title", "default", "examples"})


def _storable(schema: dict[str, Any], components: dict[str, Any], seen: set[str]) -> None:
    """Make `schema` (in place) and every schema under it refuse the text a body check refuses."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.removeprefix(_REF)
        if ref.startswith(_REF) and name not in seen and name in components:
            seen.add(name)
            _storable(components[name], components, seen)
        return
    if (
        schema.get("type") == "string"
        and not ({"enum", "const"} & set(schema))
        and schema.get("format") not in _NUL_FREE_FORMATS
    ):
        schema["pattern"] = _nul_free(schema.get("pattern"))
    is_object = schema.get("type") == "object" or "properties" in schema
    if is_object and schema.get("additionalProperties", True) is not False:
        schema.setdefault("propertyNames", {"type": "string", "pattern": NUL_FREE_PATTERN})
        if schema.get("additionalProperties", True) is True:
            schema["additionalProperties"] = dict(_STORABLE_REF)
    for key in _ONE:
        child = schema.get(key)
        if isinstance(child, dict):
            _storable_child(schema, key, child, components, seen)
    for key in _MANY:
        for index, child in enumerate(schema.get(key, [])):
            if isinstance(child, dict):
                _storable_child(schema[key], index, child, components, seen)
    for key in _MAP:
        for name, child in schema.get(key, {}).items():
            if isinstance(child, dict):
                _storable_child(schema[key], name, child, components, seen)


def _storable_child(
    parent: Any, key: str | int, child: dict[str, Any], components: dict[str, Any], seen: set[str]
) -> None:
    if _is_open(child) and key != "not":
        parent[key] = {**child, **_STORABLE_REF}
    else:
        _storable(child, components, seen)


def declare_storable_text(document: dict[str, Any]) -> None:
    """Give every request body of `document` (in place) the NUL-free rule the body check enforces."""
    components = document.setdefault("components", {}).setdefault("schemas", {})
    components[STORABLE_JSON] = storable_json_schema()
    seen = {STORABLE_JSON}
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is None:
                continue
            if _is_open(body.get("schema", {})):
                body["schema"] = {**body.get("schema", {}), **_STORABLE_REF}
            else:
                _storable(body["schema"], components, seen)
