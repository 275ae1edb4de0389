"""API tokens: shown once, listed without secret, revocable, expiring; every failure is a 401."""

from __future__ import annotations

import uuid
from datetime import timedelta

from sqlalchemy import event, update

from app.persistence.base import utcnow
from app.persistence.models import ApiToken
from tests.support.factories import Caller, Factory


class TestTokens:
    async def test_missing_and_malformed_tokens_are_401(self, factory: Factory) -> None:
        owner = await factory.owner()
        path = owner.space_path("/automations")
        no_token = await owner.client.get(path)
        assert no_token.status_code == 401
        assert no_token.headers["www-authenticate"] == "Bearer"
        assert no_token.json()["error"]["code"] == "unauthorized"
        wrong = await owner.client.get(path, headers={"Authorization": "Bearer aut_not-a-real-token"})
        assert wrong.status_code == 401
        assert wrong.json()["error"]["code"] == "invalid_token"
        basic = await owner.client.get(path, headers={"Authorization": "Basic Zm9vOmJhcg=="})
        assert basic.status_code == 401

    async def test_created_token_works_and_is_listed_without_secret(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.request("POST", "/api/v1/tokens", json={"name": "ci"})
        assert created.status_code == 201
        token = created.json()["token"]
        second = Caller(owner.client, token, owner.space_id, owner.user_id)
        assert (await second.request("GET", second.space_path("/automations"))).status_code == 200
        listing = (await owner.request("GET", "/api/v1/tokens")).json()
        assert {t["name"] for t in listing["items"]} == {"ci", "create-admin"}
        assert token not in str(listing)
        assert all("token" not in item for item in listing["items"])
        assert created.json()["display_prefix"] == token[:12]

    async def test_revoked_token_is_401_at_once(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = (await owner.request("POST", "/api/v1/tokens", json={"name": "short-lived"})).json()
        second = Caller(owner.client, created["token"], owner.space_id, owner.user_id)
        revoke = await owner.request("POST", f"/api/v1/tokens/{created['id']}/revoke")
        assert revoke.status_code == 200
        assert revoke.json()["revoked_at"] is not None
        response = await second.request("GET", second.space_path("/automations"))
        assert response.status_code == 401
        # the other token still works
        assert (await owner.request("GET", owner.space_path("/automations"))).status_code == 200

    async def test_cannot_revoke_someone_elses_token(self, factory: Factory) -> None:
        alice = await factory.owner()
        bob = await factory.owner()
        bobs = (await bob.request("GET", "/api/v1/tokens")).json()["items"][0]
        response = await alice.request("POST", f"/api/v1/tokens/{bobs['id']}/revoke")
        assert response.status_code == 404
        assert (await bob.request("GET", "/api/v1/spaces")).status_code == 200

    async def test_expired_token_is_401(self, app, factory: Factory) -> None:
        owner = await factory.owner()
        created = (
            await owner.request("POST", "/api/v1/tokens", json={"name": "old", "expires_in_days": 1})
        ).json()
        async with app.state.sessionmaker() as session:
            await session.execute(
                update(ApiToken)
                .where(ApiToken.name == "old")
                .values(expires_at=utcnow() - timedelta(seconds=1))
            )
            await session.commit()
        expired = Caller(owner.client, created["token"], owner.space_id, owner.user_id)
        assert (await expired.request("GET", "/api/v1/spaces")).status_code == 401

    async def test_tokens_are_stored_hashed(self, app, factory: Factory) -> None:
        owner = await factory.owner()
        async with app.state.sessionmaker() as session:
            rows = (await session.execute(ApiToken.__table__.select())).all()
        assert rows
        assert all(owner.token not in str(tuple(row)) for row in rows)


class TestCost:
    async def test_a_token_of_the_wrong_shape_costs_no_query(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        statements: list[str] = []

        def record(_conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
            statements.append(statement)

        engine = app.state.engine.sync_engine
        event.listen(engine, "before_cursor_execute", record)
        try:
            fire = f"/api/v1/automations/{uuid.uuid4()}/fire"
            for token in ("awh_guess", "aut_" + "A" * 43, "awh_" + "A" * 5000):
                fired = await owner.client.post(fire, json={}, headers={"Authorization": f"Bearer {token}"})
                assert fired.status_code == 401
            for token in ("aut_guess", "aut_" + "x" * 5000, "awh_" + "A" * 43):
                response = await owner.client.get(
                    owner.space_path(), headers={"Authorization": f"Bearer {token}"}
                )
                assert response.status_code == 401
                assert response.json()["error"]["code"] == "invalid_token"
            assert statements == []
            well_formed = await owner.client.get(
                owner.space_path(), headers={"Authorization": "Bearer aut_" + "A" * 43}
            )
            assert well_formed.status_code == 401
            assert len(statements) == 1, "a token of the right shape is looked up once"
        finally:
            event.remove(engine, "before_cursor_execute", record)
