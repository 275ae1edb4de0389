"""API tokens: shown once, listed without secret, revocable, expiring; every failure is a 401."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from httpx import AsyncClient
from sqlalchemy import event, update

from app.persistence.base import utcnow
from app.persistence.models import ApiToken
from app.persistence.transaction import transaction
from app.services.identity.signin import sign_in_service
from tests.support.factories import TEST_PASSWORD_COST, Caller, Factory
from tests.support.round_trips import counted

PASSWORD = "correct horse battery staple"


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


class TestLifetimes:
    async def test_a_token_asked_without_a_lifetime_expires_after_the_default(self, factory: Factory) -> None:
        owner = await factory.owner()
        created = await owner.request("POST", "/api/v1/tokens", json={"name": "ci"})
        assert created.status_code == 201
        assert created.json()["kind"] == "personal"
        assert created.json()["expires_at"] is not None, "a token that never expires was minted"
        lifetime = datetime.fromisoformat(created.json()["expires_at"]) - utcnow()
        assert timedelta(days=89, hours=23) < lifetime <= timedelta(days=90)

    async def test_a_lifetime_past_the_maximum_is_refused_with_a_pointer(self, factory: Factory) -> None:
        owner = await factory.owner()
        refused = await owner.request("POST", "/api/v1/tokens", json={"name": "ci", "expires_in_days": 366})
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == "token_lifetime_too_long"
        assert refused.json()["error"]["details"][0]["path"] == "/expires_in_days"
        for bad in (0, -1, "forever", 1.5, True):
            response = await owner.request(
                "POST", "/api/v1/tokens", json={"name": "ci", "expires_in_days": bad}
            )
            assert response.status_code == 422, bad
        longest = await owner.request("POST", "/api/v1/tokens", json={"name": "ci", "expires_in_days": 365})
        assert longest.status_code == 201
        names = {t["name"] for t in (await owner.request("GET", "/api/v1/tokens")).json()["items"]}
        assert names == {"create-admin", "ci"}

    async def test_only_an_admin_makes_a_never_expiring_service_token_for_themselves(
        self, factory: Factory
    ) -> None:
        owner = await factory.owner()
        member = await factory.member(owner, "member")
        refused = await member.request(
            "POST", "/api/v1/tokens", json={"name": "forever", "expires_in_days": "never"}
        )
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "service_token_needs_admin"
        made = await owner.request(
            "POST", "/api/v1/tokens", json={"name": "backup job", "expires_in_days": "never"}
        )
        assert made.status_code == 201, made.text
        assert made.json()["expires_at"] is None
        assert made.json()["kind"] == "service"
        listed = {
            t["name"]: t["kind"] for t in (await owner.request("GET", "/api/v1/tokens")).json()["items"]
        }
        assert listed == {"create-admin": "personal", "backup job": "service"}

    async def test_the_bootstrap_token_expires_after_the_default_too(self, factory: Factory) -> None:
        owner = await factory.owner()
        (bootstrap,) = (await owner.request("GET", "/api/v1/tokens")).json()["items"]
        lifetime = datetime.fromisoformat(bootstrap["expires_at"]) - utcnow()
        assert timedelta(days=89, hours=23) < lifetime <= timedelta(days=90)


class TestPasswordChangesEndOtherSessions:
    async def test_a_password_change_revokes_every_other_token_of_the_user(
        self, factory: Factory, client: AsyncClient
    ) -> None:
        owner = await factory.owner(email="rotator@example.test")
        other = (await owner.request("POST", "/api/v1/tokens", json={"name": "laptop"})).json()["token"]
        first = await owner.request("PUT", "/api/v1/me/password", json={"password": PASSWORD})
        assert first.status_code == 204
        laptop = Caller(client, other, owner.space_id, owner.user_id)
        assert (await laptop.request("GET", "/api/v1/me")).status_code == 401
        assert (await owner.request("GET", "/api/v1/me")).status_code == 200, "the caller's own stays"

        signed = await client.post(
            "/api/v1/auth/sessions", json={"email": "rotator@example.test", "password": PASSWORD}
        )
        web = Caller(client, signed.json()["token"], owner.space_id, owner.user_id)
        changed = await web.request(
            "PUT",
            "/api/v1/me/password",
            json={"password": "a brand new passphrase", "current_password": PASSWORD},
        )
        assert changed.status_code == 204
        assert (await owner.request("GET", "/api/v1/me")).status_code == 401
        assert (await web.request("GET", "/api/v1/me")).status_code == 200

    async def test_a_wrong_current_password_changes_and_revokes_nothing(
        self, factory: Factory, client: AsyncClient
    ) -> None:
        owner = await factory.owner(email="careful@example.test")
        await owner.request("PUT", "/api/v1/me/password", json={"password": PASSWORD})
        other = (await owner.request("POST", "/api/v1/tokens", json={"name": "laptop"})).json()["token"]
        refused = await owner.request(
            "PUT",
            "/api/v1/me/password",
            json={"password": "a brand new passphrase", "current_password": "not the password"},
        )
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == "wrong_current_password"
        laptop = Caller(client, other, owner.space_id, owner.user_id)
        assert (await laptop.request("GET", "/api/v1/me")).status_code == 200

    async def test_the_operators_reset_revokes_every_token_of_the_user(self, app, factory: Factory) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner(email="forgetful@example.test")
        async with transaction(app.state.sessionmaker, app.state.send_job) as session:
            await sign_in_service.set_password_by_email(
                session, "forgetful@example.test", PASSWORD, cost=TEST_PASSWORD_COST
            )
        assert (await owner.request("GET", "/api/v1/me")).status_code == 401


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

    async def test_a_space_route_reads_the_token_and_the_membership_in_one_round_trip(
        self, app, factory: Factory
    ) -> None:  # type: ignore[no-untyped-def]
        owner = await factory.owner()
        stranger = await factory.owner()
        with counted(app) as sent:
            mine = await owner.request("GET", owner.space_path())
        assert mine.status_code == 200, mine.text
        lookups = [s for s in sent if s.startswith("SELECT") and ("api_tokens" in s or "memberships" in s)]
        assert len(lookups) == 1, lookups
        assert "api_tokens" in lookups[0]
        assert "LEFT OUTER JOIN memberships" in lookups[0]
        # A live token of someone who is not a member: the same single lookup answers 404, not 401.
        with counted(app) as sent:
            theirs = await stranger.request("GET", owner.space_path())
        assert (theirs.status_code, theirs.json()["error"]["code"]) == (404, "space_not_found")
        assert len([s for s in sent if s.startswith("SELECT") and "api_tokens" in s]) == 1
        assert not [s for s in sent if "FROM memberships" in s]
