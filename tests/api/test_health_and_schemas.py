"""Health probes and the published definition schema."""

from __future__ import annotations

from httpx import ASGITransport, AsyncClient
from jsonschema import Draft202012Validator

from app.config import Settings
from app.main import create_app
from tests.support.factories import EXAMPLES, example


class TestHealth:
    async def test_healthz_needs_no_token(self, client: AsyncClient) -> None:
        response = await client.get("/healthz")
        assert response.status_code == 200
        assert response.json() == {"status": "ok"}

    async def test_readyz_reports_both_services(self, client: AsyncClient) -> None:
        response = await client.get("/readyz")
        assert response.status_code == 200
        assert response.json()["checks"] == {"database": "ok", "broker": "ok"}

    async def test_readyz_is_503_when_the_broker_is_unreachable(self, settings: Settings) -> None:
        # Port 1 on loopback refuses connections: a broker that is down, without touching the real one.
        broken = settings.model_copy(update={"redis_url": "redis://127.0.0.1:1/0"})
        app = create_app(broken)
        async with (
            app.router.lifespan_context(app),
            AsyncClient(transport=ASGITransport(app=app), base_url="http://testserver") as http,
        ):
            response = await http.get("/readyz")
        assert response.status_code == 503
        assert response.json()["checks"] == {"database": "ok", "broker": "unreachable"}

    async def test_readyz_is_503_when_the_database_is_unreachable(self, settings: Settings) -> None:
        broken = settings.model_copy(
            update={"database_url": "postgresql+asyncpg://postgres@127.0.0.1:1/nothing"}
        )
        app = create_app(broken)
        async with (
            app.router.lifespan_context(app),
            AsyncClient(transport=ASGITransport(app=app), base_url="http://testserver") as http,
        ):
            response = await http.get("/readyz")
            # A token of the right shape, so answering it needs the database.
            api = await http.get("/api/v1/spaces", headers={"Authorization": "Bearer aut_" + "x" * 43})
        assert response.status_code == 503
        assert response.json()["checks"]["database"] == "unreachable"
        assert api.status_code == 503
        assert api.json()["error"]["code"] == "service_unavailable"
        assert api.headers["retry-after"] == "5"


class TestSchemas:
    async def test_definition_schema_is_draft_2020_12_and_accepts_the_examples(
        self, client: AsyncClient
    ) -> None:
        response = await client.get("/api/v1/schemas/definition")
        assert response.status_code == 200
        schema = response.json()
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)
        validator = Draft202012Validator(schema)
        for name in sorted(path.name for path in EXAMPLES.glob("*.json")):
            assert list(validator.iter_errors(example(name))) == []
        assert list(validator.iter_errors({"name": "x", "plan": [], "surprise": 1}))

    async def test_openapi_docs_are_served(self, client: AsyncClient) -> None:
        assert (await client.get("/docs")).status_code == 200
        spec = (await client.get("/openapi.json")).json()
        assert "/api/v1/spaces/{space_id}/automations" in spec["paths"]

    async def test_saved_definitions_are_typed_and_a_drafts_edit_stays_open(
        self, client: AsyncClient
    ) -> None:
        schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
        for body in ("AutomationCreate", "AutomationUpdate"):
            assert (
                schemas[body]["properties"]["definition"]["$ref"]
                == "#/components/schemas/AutomationDefinition"
            )
        # A draft keeps any object and reports its problems, so its edit must not promise the schema.
        assert schemas["DraftEdit"]["properties"]["definition"]["type"] == "object"
        assert "$ref" not in schemas["DraftEdit"]["properties"]["definition"]
