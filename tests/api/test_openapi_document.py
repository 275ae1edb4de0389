"""The OpenAPI document states what the server enforces: NUL-free request text everywhere, the cursor's
and If-Match's forms, the operator's page size maximum, no acknowledgement on a plain status change,
the names, URLs, events and password lengths the services check; and each operation has a short id.
These read the document only; tests/contract runs it against the live API."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi import APIRouter, FastAPI

from app.api.deps import CURSOR_PATTERN, IF_MATCH_PATTERN, parse_if_match
from app.api.fields import HTTP_URL_PATTERN, PRINTABLE_TEXT_PATTERN
from app.api.openapi import complete_openapi, operation_id
from app.api.openapi_text import NUL_FREE_PATTERN, STORABLE_JSON, _nul_free
from app.config import Settings
from app.errors import BadRequest
from app.main import create_app
from app.persistence.pagination import _encode
from app.security.passwords import MIN_PASSWORD_LENGTH, password_problem
from app.services.governance.slack_settings import CHANNEL_PATTERN
from app.services.outbound.endpoints import EVENT_TYPES
from app.services.resources.databases import NAME_PATTERN as DATABASE_NAME_PATTERN
from app.services.resources.secrets import NAME_PATTERN as SECRET_NAME_PATTERN

AUTOMATION = "/api/v1/spaces/{space_id}/automations/{automation_id}"


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return create_app(Settings(page_size_max=7)).openapi()


def _request_strings(document: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every string schema reachable from a JSON request body, with where it was found."""
    components = document["components"]["schemas"]
    found: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()

    def walk(schema: Any, where: str) -> None:
        if isinstance(schema, list):
            for index, item in enumerate(schema):
                walk(item, f"{where}/{index}")
            return
        if not isinstance(schema, dict):
            return
        ref = schema.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            if name not in seen:
                seen.add(name)
                walk(components[name], name)
            return
        if schema.get("type") == "string":
            found.append((where, schema))
        for key, value in schema.items():
            if key in ("properties", "$defs", "patternProperties"):
                for name, child in value.items():
                    walk(child, f"{where}/{name}")
            elif isinstance(value, dict | list) and key not in ("enum", "const", "examples", "default"):
                walk(value, f"{where}/{key}")

    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is not None:
                walk(body["schema"], f"{method} {path}")
    return found


def test_every_request_string_is_nul_free(document: dict[str, Any]) -> None:
    strings = _request_strings(document)
    assert len(strings) > 100
    nul_free_formats = {"uuid", "date-time", "date", "time", "duration", "binary"}
    open_text = [
        where
        for where, schema in strings
        if "pattern" not in schema
        and "enum" not in schema
        and "const" not in schema
        and schema.get("format") not in nul_free_formats
    ]
    assert open_text == []
    admits_nul = [
        where for where, schema in strings if "pattern" in schema and re.search(schema["pattern"], "a\x00b")
    ]
    assert admits_nul == []
    email = document["components"]["schemas"]["MemberCreate"]["properties"]["email"]
    assert not re.search(email["pattern"], "a\x00@example.com")
    assert re.search(email["pattern"], "a@example.com")


def test_open_values_are_storable_json(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    storable = schemas[STORABLE_JSON]
    kinds = {branch.get("type") for branch in storable["anyOf"]}
    assert kinds == {"string", "number", "boolean", "null", "array", "object"}
    inputs = schemas["RunCreate"]["properties"]["inputs"]
    assert inputs["additionalProperties"] == {"$ref": f"#/components/schemas/{STORABLE_JSON}"}
    assert inputs["propertyNames"]["pattern"] == NUL_FREE_PATTERN
    assert re.fullmatch(NUL_FREE_PATTERN, "any text")
    assert not re.fullmatch(NUL_FREE_PATTERN, "a\x00b")


def _parameter(document: dict[str, Any], path: str, method: str, name: str) -> dict[str, Any]:
    (found,) = [p for p in document["paths"][path][method]["parameters"] if p["name"] == name]
    return found


def test_the_cursor_pattern_admits_every_issued_cursor_and_states_the_alphabet(
    document: dict[str, Any],
) -> None:
    cursor = _parameter(document, "/api/v1/spaces/{space_id}/runs", "get", "cursor")
    (text,) = [branch for branch in cursor["schema"]["anyOf"] if branch.get("type") == "string"]
    assert text["pattern"] == CURSOR_PATTERN
    issued = [_encode([datetime.now(UTC), uuid.uuid4()]), _encode(["a name"]), _encode([3])]
    assert all(re.fullmatch(CURSOR_PATTERN, each) for each in issued)
    assert not re.fullmatch(CURSOR_PATTERN, "garbage!")


def test_the_page_size_maximum_is_the_apps_setting(document: dict[str, Any]) -> None:
    limit = _parameter(document, "/api/v1/spaces/{space_id}/runs", "get", "limit")
    (number,) = [branch for branch in limit["schema"]["anyOf"] if branch.get("type") == "integer"]
    assert number["maximum"] == 7
    assert number["minimum"] == 1
    assert "x-page-size-max" not in str(limit)


@pytest.mark.parametrize(
    "value", ['"3"', 'W/"3"', "3", "*", " 3 ", '""3""', "\t3", "banana", '"3', "W/ 3", "3.0", "", '"-1"']
)
def test_the_if_match_pattern_admits_what_the_server_reads(document: dict[str, Any], value: str) -> None:
    header = _parameter(document, AUTOMATION, "put", "If-Match")
    assert header["schema"]["type"] == "string", "an optional header is absent, never null"
    try:
        parse_if_match(value)
        accepted = True
    except BadRequest:
        accepted = False
    assert bool(re.fullmatch(IF_MATCH_PATTERN, value)) == accepted
    assert header["schema"]["pattern"] == IF_MATCH_PATTERN


def test_only_activation_takes_an_overlap_acknowledgement(document: dict[str, Any]) -> None:
    def body(action: str) -> dict[str, Any]:
        schema = document["paths"][f"{AUTOMATION}/{action}"]["post"]["requestBody"]["content"]
        reference = next(
            branch["$ref"] for branch in schema["application/json"]["schema"]["anyOf"] if "$ref" in branch
        )
        return dict(document["components"]["schemas"][reference.rsplit("/", 1)[-1]])

    assert "acknowledged_overlap" in body("activate")["properties"]
    for action in ("pause", "archive", "unarchive"):
        plain = body(action)
        assert set(plain["properties"]) == {"version"}, action
        assert plain["additionalProperties"] is False


def test_operation_ids_are_short_tag_and_action(document: dict[str, Any]) -> None:
    operations = {
        (method, path): operation
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    }
    ids = [operation["operationId"] for operation in operations.values()]
    assert len(ids) == len(set(ids))
    for operation in operations.values():
        tag = re.sub(r"[^a-z0-9]+", "_", operation["tags"][0].lower())
        assert re.fullmatch(r"[a-z][a-z0-9_]{2,44}", operation["operationId"])
        assert operation["operationId"].startswith(tag)
    assert operations[("post", AUTOMATION.rsplit("/", 1)[0])]["operationId"] == "automations_create"
    assert operations[("get", "/api/v1/spaces/{space_id}/runs")]["operationId"] == "runs_list"
    assert operations[("post", f"{AUTOMATION}/pause")]["operationId"] == "automations_pause"


@pytest.mark.filterwarnings("ignore:Duplicate Operation ID")
def test_two_routes_with_one_operation_id_stop_the_document() -> None:
    app = FastAPI(generate_unique_id_function=operation_id)
    first, second = APIRouter(tags=["things"]), APIRouter(prefix="/other", tags=["things"])

    @first.get("/things")
    async def list_things() -> None:
        """One listing."""

    @second.get("/things")
    async def things_list() -> None:
        """Another listing: the same action once the tag's words are dropped."""

    app.include_router(first)
    app.include_router(second)
    with pytest.raises(RuntimeError, match="things_list"):
        complete_openapi(app)


@pytest.mark.parametrize(
    ("pattern", "stated"),
    [
        (r"^[^@\s]+@[^@\s]+$", r"^[^@\s\x00]+@[^@\s\x00]+$"),
        (r"^[a-z0-9_.*?]+$", r"^[a-z0-9_.*?]+$"),
        (r"^[A-Za-z]+(\.[A-Za-z]+)*$", r"^[A-Za-z]+(\.[A-Za-z]+)*$"),
        (r"^[]a]+$", r"^[]a]+$"),
        (r"^[^]a]+$", r"^[^]a\x00]+$"),
        (r"^a.b$", r"^(?![\s\S]*\x00)a.b$"),
        (r"^[\S]+$", r"^(?![\s\S]*\x00)[\S]+$"),
    ],
)
def test_nul_free_patterns_need_a_lookahead_only_for_a_wildcard(pattern: str, stated: str) -> None:
    """A lookahead makes generating matching text slow: a negated class refuses NUL itself instead."""
    assert _nul_free(pattern) == stated
    for text in ("a@b", "ab", "a.b", "axb", "]a", "zz"):
        assert bool(re.fullmatch(stated, text)) == bool(re.fullmatch(pattern, text))
        assert not re.fullmatch(stated, text.replace("a", "\x00", 1)) or "a" not in text


@pytest.mark.parametrize("text", ["a", " a ", "é  x", "", " ", "\xa0", "\u2003", "x\x01", "a\x85"])
def test_printable_text_pattern_is_the_lookahead_rule(text: str) -> None:
    old = r"^(?=.*\S)[^\x00-\x1f\x7f-\x9f]*$"
    assert bool(re.fullmatch(PRINTABLE_TEXT_PATTERN, text)) == bool(re.fullmatch(old, text))


def test_bodies_state_the_rules_their_services_check(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    for body in ("DatabaseCreate", "DatabasePatch"):
        properties = schemas[body]["properties"]
        assert properties["name"]["pattern"] == DATABASE_NAME_PATTERN
        assert properties["dsn_secret"]["pattern"] == SECRET_NAME_PATTERN
    slack = schemas["SlackApprovalsBody"]["properties"]
    assert slack["channel"]["pattern"] == CHANNEL_PATTERN.pattern
    assert (
        slack["bot_token_secret"]["pattern"]
        == slack["signing_secret_secret"]["pattern"]
        == SECRET_NAME_PATTERN
    )
    events = schemas["WebhookEndpointCreate"]["properties"]["events"]
    assert events["minItems"] == 1
    assert events["items"]["enum"] == sorted(EVENT_TYPES)
    for body in ("WebhookEndpointCreate", "ConnectionCreate", "ConnectionPatch"):
        assert schemas[body]["properties"]["url"]["pattern"] == HTTP_URL_PATTERN
    for body in ("PasswordChange", "InvitationAccept"):
        assert schemas[body]["properties"]["password"]["minLength"] == MIN_PASSWORD_LENGTH
    assert password_problem("x" * (MIN_PASSWORD_LENGTH - 1))
    assert not password_problem("x" * MIN_PASSWORD_LENGTH)


def test_each_operation_declares_the_error_statuses_it_can_answer(document: dict[str, Any]) -> None:
    for path, methods in document["paths"].items():
        if path in ("/healthz", "/readyz"):
            continue
        for method, operation in methods.items():
            declared = {status for status in operation["responses"] if status[0] in "45"}
            assert {"400", "401", "403", "404", "409", "422", "429", "503"} <= declared
            assert ({"413", "415"} <= declared) == (method in ("post", "put", "patch"))
            headers = {p["name"].lower() for p in operation.get("parameters", []) if p["in"] == "header"}
            assert ("428" in declared) == ("if-match" in headers)
            error = operation["responses"]["404"]["content"]["application/json"]["schema"]
            assert error == {"$ref": "#/components/schemas/ErrorOut"}
    assert "428" in document["paths"][AUTOMATION]["put"]["responses"]
    assert "415" not in document["paths"][AUTOMATION]["get"]["responses"]
