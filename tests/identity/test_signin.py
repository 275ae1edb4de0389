"""Password sign-in: a short-lived, listed, revocable token; uniform refusals; a per-email lockout."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import pytest
from fastapi import FastAPI
from httpx import AsyncClient
from redis.asyncio import Redis

from app.config import Settings
from app.integrations.lockout import SignInLockout
from app.persistence.base import utcnow
from tests.support.factories import Caller, Factory

PASSWORD = "correct horse battery staple"


async def _with_password(factory: Factory, email: str) -> Caller:
    owner = await factory.owner(email=email)
    response = await owner.request("PUT", "/api/v1/me/password", json={"password": PASSWORD})
    assert response.status_code == 204, response.text
    return owner


async def _sign_in(client: AsyncClient, email: str, password: str):  # type: ignore[no-untyped-def]
    return await client.post("/api/v1/auth/sessions", json={"email": email, "password": password})


class TestSignIn:
    async def test_sign_in_answers_an_eight_hour_token_listed_with_the_users_tokens(
        self, factory: Factory, client: AsyncClient
    ) -> None:
        owner = await _with_password(factory, "Signer@Example.test")
        response = await _sign_in(client, "signer@example.TEST", PASSWORD)
        assert response.status_code == 201, response.text
        body = response.json()
        assert body["user"] == {
            "id": owner.user_id,
            "email": "signer@example.test",
            "name": None,
            "has_password": True,
        }
        lifetime = datetime.fromisoformat(body["expires_at"]) - utcnow()
        assert timedelta(hours=7, minutes=59) < lifetime <= timedelta(hours=8)
        session = Caller(client, body["token"], owner.space_id, owner.user_id)
        assert (await session.request("GET", session.space_path("/automations"))).status_code == 200
        listed = (await owner.request("GET", "/api/v1/tokens")).json()["items"]
        assert {t["id"]: t["name"] for t in listed}[body["token_id"]] == "Web sign-in"
        assert body["token"] not in str(listed)

    async def test_sign_out_revokes_the_token_it_carries_only(
        self, factory: Factory, client: AsyncClient
    ) -> None:
        owner = await _with_password(factory, "leaver@example.test")
        token = (await _sign_in(client, "leaver@example.test", PASSWORD)).json()["token"]
        session = Caller(client, token, owner.space_id, owner.user_id)
        assert (await session.request("DELETE", "/api/v1/auth/sessions/current")).status_code == 204
        assert (await session.request("GET", "/api/v1/me")).status_code == 401
        assert (await owner.request("GET", "/api/v1/me")).status_code == 200

    async def test_wrong_password_unknown_email_and_no_password_answer_the_same_401(
        self, factory: Factory, client: AsyncClient
    ) -> None:
        await _with_password(factory, "known@example.test")
        await factory.owner(email="nopassword@example.test")
        answers = [
            await _sign_in(client, "known@example.test", "not the password at all"),
            await _sign_in(client, "nobody@example.test", PASSWORD),
            await _sign_in(client, "nopassword@example.test", PASSWORD),
        ]
        assert {a.status_code for a in answers} == {401}
        assert {a.json()["error"]["code"] for a in answers} == {"invalid_credentials"}
        assert len({a.json()["error"]["message"] for a in answers}) == 1

    async def test_bad_bodies_are_422_not_500(self, client: AsyncClient) -> None:
        for body in (
            {},
            {"email": "x@y"},
            {"email": "not-an-email", "password": "x"},
            {"email": 3, "password": []},
        ):
            response = await client.post("/api/v1/auth/sessions", json=body)
            assert response.status_code == 422, body
            assert response.json()["error"]["code"] == "validation_failed"
        too_long = await _sign_in(client, "a@b.test", "x" * 1025)
        assert too_long.status_code == 422

    async def test_ten_failures_lock_the_email_even_for_the_right_password(
        self, factory: Factory, client: AsyncClient
    ) -> None:
        await _with_password(factory, "target@example.test")
        await _with_password(factory, "bystander@example.test")
        for _ in range(10):
            assert (await _sign_in(client, "target@example.test", "guess guess guess")).status_code == 401
        locked = await _sign_in(client, "target@example.test", PASSWORD)
        assert locked.status_code == 429
        assert locked.json()["error"]["code"] == "sign_in_locked"
        assert 0 < int(locked.headers["retry-after"]) <= 15 * 60
        # Another email is not affected by the lock.
        assert (await _sign_in(client, "bystander@example.test", PASSWORD)).status_code == 201

    async def test_a_success_clears_earlier_failures(self, factory: Factory, client: AsyncClient) -> None:
        await _with_password(factory, "typo@example.test")
        for _ in range(9):
            await _sign_in(client, "typo@example.test", "wrong wrong wrong")
        assert (await _sign_in(client, "typo@example.test", PASSWORD)).status_code == 201
        for _ in range(9):
            await _sign_in(client, "typo@example.test", "wrong wrong wrong")
        assert (await _sign_in(client, "typo@example.test", PASSWORD)).status_code == 201


@pytest.fixture
async def patient_lockout(app: FastAPI, settings: Settings) -> AsyncIterator[None]:
    """The lockout asks Redis with the production half-second bound, and fails open past it: these
    tests count verifications, so a busy machine must not turn a slow answer into fail-open (failing
    open is tests/identity/test_lockout.py's). The same lockout, on a client that waits longer."""
    redis = Redis.from_url(settings.resolved_redis_url(), socket_timeout=10, socket_connect_timeout=10)
    production = app.state.lockout
    app.state.lockout = SignInLockout(
        redis,
        prefix=production.prefix,
        limit=production.limit,
        window_seconds=production.window_seconds,
        slots=production.slots,
        slot_seconds=production.slot_seconds,
    )
    try:
        yield
    finally:
        app.state.lockout = production
        await redis.aclose()


async def _until_counted(app: FastAPI, email: str, count: int) -> None:
    """Wait until the lockout has counted `count` attempts of this email."""
    lockout = app.state.lockout
    deadline = asyncio.get_running_loop().time() + 30
    while await lockout.attempts(email) < count:
        assert asyncio.get_running_loop().time() < deadline, "the attempts were never counted"
        await asyncio.sleep(0.005)


@pytest.mark.usefixtures("patient_lockout")
class TestLockoutUnderConcurrency:
    async def test_parallel_guesses_past_the_limit_get_no_session_even_with_the_right_password(
        self, factory: Factory, client: AsyncClient, app: FastAPI
    ) -> None:
        await _with_password(factory, "raced@example.test")
        limit = app.state.lockout.limit
        guesses = [
            asyncio.create_task(_sign_in(client, "raced@example.test", f"wrong guess number {index}"))
            for index in range(35)
        ]
        # The right password goes once the limit is used up, while the wrong guesses are still being
        # answered. The order in which parallel requests reach Redis is not the order they were sent in,
        # so it is the count, not the position in the burst, that makes this guess one past the limit.
        await _until_counted(app, "raced@example.test", limit)
        right = await _sign_in(client, "raced@example.test", PASSWORD)
        answers = [*(await asyncio.gather(*guesses)), right]
        codes = [answer.status_code for answer in answers]
        assert 201 not in codes, "a guess past the limit was verified and got a session"
        assert right.status_code == 429
        assert codes.count(401) <= limit, "no more passwords are verified than the limit allows"
        assert set(codes) <= {401, 429}
        assert {a.json()["error"]["code"] for a in answers if a.status_code == 429} <= {
            "sign_in_locked",
            "sign_in_busy",
        }
        locked = await _sign_in(client, "raced@example.test", PASSWORD)
        assert locked.status_code == 429
        assert locked.json()["error"]["code"] == "sign_in_locked"
        assert 0 < int(locked.headers["retry-after"]) <= 15 * 60

    async def test_parallel_attempts_of_one_email_verify_a_few_at_a_time(
        self, factory: Factory, client: AsyncClient
    ) -> None:
        await _with_password(factory, "crowded@example.test")
        answers = await asyncio.gather(
            *(_sign_in(client, "crowded@example.test", f"wrong {index}") for index in range(8))
        )
        busy = [a for a in answers if a.status_code == 429]
        assert busy, "eight verifications of one email did not all run at once"
        assert {a.json()["error"]["code"] for a in busy} == {"sign_in_busy"}
        assert all(int(a.headers["retry-after"]) >= 1 for a in busy)
        # The slots are given back: once the crowd is answered, the right password still signs in.
        assert (await _sign_in(client, "crowded@example.test", PASSWORD)).status_code == 201


class TestPasswords:
    async def test_a_short_password_is_refused_with_a_pointer(self, factory: Factory) -> None:
        owner = await factory.owner()
        response = await owner.request("PUT", "/api/v1/me/password", json={"password": "short"})
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "weak_password"
        assert response.json()["error"]["details"][0]["path"] == "/password"
        assert (await owner.request("GET", "/api/v1/me")).json()["has_password"] is False

    async def test_changing_a_set_password_needs_the_current_one(
        self, factory: Factory, client: AsyncClient
    ) -> None:
        owner = await _with_password(factory, "changer@example.test")
        new = "an entirely different passphrase"
        missing = await owner.request("PUT", "/api/v1/me/password", json={"password": new})
        assert missing.status_code == 400
        assert missing.json()["error"]["code"] == "wrong_current_password"
        changed = await owner.request(
            "PUT", "/api/v1/me/password", json={"password": new, "current_password": PASSWORD}
        )
        assert changed.status_code == 204
        assert (await _sign_in(client, "changer@example.test", PASSWORD)).status_code == 401
        assert (await _sign_in(client, "changer@example.test", new)).status_code == 201


class TestSecurityHeaders:
    async def test_api_and_ui_answers_forbid_framing_and_inline_script(self, client: AsyncClient) -> None:
        for path in ("/api/v1/me", "/", "/automations"):
            response = await client.get(path)
            assert response.headers["x-frame-options"] == "DENY"
            assert response.headers["x-content-type-options"] == "nosniff"
            policy = response.headers["content-security-policy"]
            assert "script-src 'self'" in policy
            assert "unsafe-eval" not in policy
            assert "frame-ancestors 'none'" in policy

    async def test_unknown_api_paths_stay_json_404_and_405_is_kept(self, client: AsyncClient) -> None:
        missing = await client.get("/api/v1/no-such-thing")
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "not_found"
        wrong_method = await client.get("/api/v1/auth/sessions")
        assert wrong_method.status_code == 405
        assert (await client.get("/../../etc/passwd")).status_code in (404, 200)
        assert "root:" not in (await client.get("/..%2f..%2fetc/passwd")).text


class TestRouting:
    async def test_posting_to_versions_is_405_naming_every_allowed_method(self, factory: Factory) -> None:
        owner = await factory.owner()
        automation = await owner.create_automation()
        response = await owner.request("POST", owner.space_path(f"/automations/{automation['id']}/versions"))
        assert response.status_code == 405
        assert response.json()["error"]["code"] == "method_not_allowed"
        assert response.headers["allow"] == "GET"
        listing = await owner.request("DELETE", owner.space_path("/automations"))
        assert listing.status_code == 405
        assert listing.headers["allow"] == "GET, POST"

    async def test_named_sub_paths_are_never_taken_for_an_id(self, factory: Factory) -> None:
        owner = await factory.owner()
        validate = await owner.request("PUT", owner.space_path("/automations/validate"), json={})
        assert validate.status_code == 405
        secret = await owner.request("PATCH", owner.space_path("/webhook-endpoints/callback-secret"))
        assert secret.status_code == 405
        assert secret.headers["allow"] == "POST"
        not_an_id = await owner.request("GET", owner.space_path("/automations/not-an-id"))
        assert not_an_id.status_code == 404
