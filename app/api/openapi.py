"""The OpenAPI document, completed: short operation ids, the error schema on every API route, and request
bodies that carry a definition pointing at the published definition schema instead of an open object.

An operation's id is `<tag>_<action>` (`automations_create`, `runs_list`): the route's first tag, then its
name without the words of that tag. It depends on neither the path nor the method, so a generated client's
function names survive a path's reshaping; two routes that would share an id stop the document's build.

FastAPI documents a 422 with its own validation-error shape; every error this API answers has the one
shape of `app.errors` (`{"error": {code, message, details}}`), so each `/api/v1` operation documents
the error statuses it can answer with that schema. The definition schema (`GET /api/v1/schemas/
definition`) becomes the component `AutomationDefinition`; its `$defs` are lifted into components
(prefixed `Definition`) because `#/$defs/…` would otherwise resolve against the OpenAPI document.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field

from app.api.body import BODY_METHODS
from app.api.deps import PAGE_SIZE_MARK
from app.api.openapi_text import declare_storable_text
from app.config import Settings
from app.definitions.export import definition_json_schema

DEFINITION = "AutomationDefinition"
DEFS_PREFIX = "Definition"
# Request bodies whose `definition` is a whole automation definition.
# A draft's edit stays an open object: a draft holds work in progress and reports its problems.
DEFINITION_BODIES = ("AutomationCreate", "AutomationUpdate")
# Routes a person's browser lands on: every error may also come as a small HTML page.
HTML_PAGES = ("/api/v1/mcp/oauth/callback",)
HTML = {"text/html": {"schema": {"type": "string"}}}
ERROR_STATUSES: dict[str, str] = {
    "400": "Bad request: a malformed value, header or precondition.",
    "401": "Missing, unknown, revoked or expired bearer token.",
    "403": "Your role in the space does not allow this.",
    "404": "Not found (or in a space you are not a member of).",
    "409": "Conflict with the current state (e.g. a newer version exists).",
    "413": "The body is too large.",
    "415": "The body is not JSON.",
    "422": "The request failed validation; details point at each problem.",
    "428": "The expected version (If-Match or `version`) is required.",
    "429": "Too many requests; Retry-After says when to try again.",
    "503": "A backing service (database, broker, model provider) is unavailable.",
}
# Statuses only some operations can answer: the body check's (of POST, PUT and PATCH only) and the
# missing expected version's (of an operation that reads If-Match only).
BODY_STATUSES = frozenset({"413", "415"})
PRECONDITION_STATUS = "428"


class ErrorDetailOut(BaseModel):
    path: str = Field(description="JSON pointer to the problem (body, or /query, /header, /path).")
    message: str
    code: str | None = None


class ErrorBodyOut(BaseModel):
    code: str = Field(description="Stable, machine-readable code.")
    message: str
    details: list[ErrorDetailOut]


class ErrorOut(BaseModel):
    """Every error answer of the API."""

    error: ErrorBodyOut


def operation_id(route: APIRoute) -> str:
    """The route's short, stable operation id: `<tag>_<action>` (the app's `generate_unique_id_function`)."""
    tag = re.sub(r"[^a-z0-9]+", "_", str(route.tags[0]).lower()).strip("_") if route.tags else "api"
    # The tag's words, singular or plural, say nothing more in the action: `create_automation` under
    # `automations` is `automations_create`.
    nouns = {form for word in tag.split("_") for form in (word, word.removesuffix("s"), f"{word}s")}
    action = "_".join(part for part in route.name.split("_") if part not in nouns)
    return f"{tag}_{action}" if action else tag


def error_statuses(method: str, operation: dict[str, Any]) -> list[str]:
    """The error statuses an operation can answer, from what it takes: every one of ERROR_STATUSES,
    but the body check's only with a body method and 428 only with an If-Match parameter."""
    statuses = set(ERROR_STATUSES)
    if method.upper() not in BODY_METHODS:
        statuses -= BODY_STATUSES
    reads_if_match = any(
        parameter.get("in") == "header" and str(parameter.get("name", "")).lower() == "if-match"
        for parameter in operation.get("parameters", [])
    )
    if not reads_if_match:
        statuses.discard(PRECONDITION_STATUS)
    return sorted(statuses)


def _check_unique_ids(document: dict[str, Any]) -> None:
    """Every operation id names one operation, or the document is not built."""
    ids = Counter(
        operation.get("operationId")
        for operations in document.get("paths", {}).values()
        for operation in operations.values()
    )
    shared = sorted(str(name) for name, count in ids.items() if count > 1)
    if shared:
        raise RuntimeError(f"operation ids shared by more than one route: {', '.join(shared)}")


def _lift_defs(schema: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The definition schema with its `$defs` moved to components and every reference rewritten."""
    document = copy.deepcopy(schema)
    defs = document.pop("$defs", {})
    document.pop("$schema", None)
    document.pop("$id", None)
    text = json.dumps({"root": document, "defs": defs}).replace(
        '"#/$defs/', f'"#/components/schemas/{DEFS_PREFIX}'
    )
    lifted = json.loads(text)
    return lifted["root"], {f"{DEFS_PREFIX}{name}": value for name, value in lifted["defs"].items()}


def complete_openapi(app: FastAPI) -> dict[str, Any]:
    """Build (once) the completed OpenAPI document of `app`."""
    if app.openapi_schema:
        return app.openapi_schema
    document = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    components = document.setdefault("components", {}).setdefault("schemas", {})
    components["ErrorOut"] = ErrorOut.model_json_schema(ref_template="#/components/schemas/{model}")
    for name, schema in ErrorOut.model_json_schema(ref_template="#/components/schemas/{model}")[
        "$defs"
    ].items():
        components[name] = schema
    components["ErrorOut"].pop("$defs", None)
    definition, lifted = _lift_defs(definition_json_schema())
    components[DEFINITION] = definition
    components.update(lifted)
    for body in DEFINITION_BODIES:
        properties = components.get(body, {}).get("properties", {})
        if "definition" in properties:
            description = properties["definition"].get("description")
            properties["definition"] = {"$ref": f"#/components/schemas/{DEFINITION}"}
            if description:
                properties["definition"]["description"] = description
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    error = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}}
    for path, operations in document.get("paths", {}).items():
        # Health probes answer their own shapes; everything else (the API, artifact links) uses ErrorOut.
        if path in ("/healthz", "/readyz"):
            continue
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            for status in error_statuses(method, operation):
                responses[status] = {"description": ERROR_STATUSES[status], **copy.deepcopy(error)}
                if path in HTML_PAGES:
                    responses[status]["content"].update(copy.deepcopy(HTML))
    _check_unique_ids(document)
    declare_storable_text(document)
    _tidy_parameters(document, app)
    app.openapi_schema = document
    return document


# Keywords a parameter declares for its value (`json_schema_extra`), and the type each applies to.
_VALUE_KEYWORDS = {"pattern": "string", "maximum": "integer"}


def _tidy_parameters(document: dict[str, Any], app: FastAPI) -> None:
    """Page size parameters get this application's AUTOMATIONS_PAGE_SIZE_MAX as their maximum; the
    value keywords a parameter states move into the branch of an optional's `anyOf` they describe; and
    an optional header is absent or a string, never null (a client would send the text `null`)."""
    settings = getattr(app.state, "settings", None)
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                if parameter.get("in") == "header" and "anyOf" in schema:
                    (value,) = [branch for branch in schema.pop("anyOf") if branch.get("type") != "null"]
                    schema.update(value)
                if schema.pop(PAGE_SIZE_MARK, None) and isinstance(settings, Settings):
                    schema["maximum"] = settings.page_size_max
                for keyword, kind in _VALUE_KEYWORDS.items():
                    if keyword in schema and "anyOf" in schema:
                        value = schema.pop(keyword)
                        for branch in schema["anyOf"]:
                            if branch.get("type") == kind:
                                branch[keyword] = value
