"""The cost of a password hash comes from the settings, never below OWASP's minimum, and a password
hashed at another cost is hashed again at the configured one when its user next signs in."""

from __future__ import annotations

import pytest
from argon2 import extract_parameters
from httpx import AsyncClient
from pydantic import ValidationError
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.security.passwords import HashCost, hash_password, needs_rehash, verify_password
from tests.support.factories import TEST_PASSWORD_COST, Factory

PASSWORD = "a passphrase long enough"
SECRET_KEY = "test-secret-key-that-is-long-enough-0123456789"


async def _stored_hash(engine: AsyncEngine, user_id: str) -> str:
    async with engine.connect() as connection:
        stored = await connection.scalar(
            text("SELECT password_hash FROM users WHERE id = CAST(:id AS uuid)"), {"id": user_id}
        )
    assert isinstance(stored, str)
    return stored


def _cost_of(stored: str) -> HashCost:
    parameters = extract_parameters(stored)
    return HashCost(parameters.memory_cost, parameters.time_cost, parameters.parallelism)


class TestSettings:
    def test_the_default_is_rfc_9106s_low_memory_choice(self) -> None:
        settings = Settings(environment="test", secret_key=SECRET_KEY)
        assert HashCost.from_settings(settings) == HashCost(memory_kib=65_536, time_cost=3, parallelism=4)
        assert HashCost() == HashCost.from_settings(settings), "the class's default is the settings' default"

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("password_hash_memory_kib", 19_455),
            ("password_hash_memory_kib", 1_024),
            ("password_hash_time_cost", 1),
            ("password_hash_parallelism", 0),
        ],
    )
    def test_a_cost_below_owasps_minimum_is_refused(self, field: str, value: int) -> None:
        with pytest.raises(ValidationError) as refused:
            Settings(environment="test", secret_key=SECRET_KEY, **{field: value})
        assert field in str(refused.value)

    def test_the_minimum_is_accepted_from_the_environment(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("AUTOMATIONS_PASSWORD_HASH_MEMORY_KIB", "19456")
        monkeypatch.setenv("AUTOMATIONS_PASSWORD_HASH_TIME_COST", "2")
        monkeypatch.setenv("AUTOMATIONS_PASSWORD_HASH_PARALLELISM", "1")
        assert HashCost.from_settings(Settings(environment="test", secret_key=SECRET_KEY)) == HashCost(
            19_456, 2, 1
        )


class TestHashes:
    def test_a_hash_carries_its_cost_and_verifies_under_any_configured_cost(self) -> None:
        default = HashCost()
        stored = hash_password(PASSWORD, default)
        assert _cost_of(stored) == default
        # A stored hash is checked at the cost it was made with, whatever is configured now.
        assert verify_password(stored, PASSWORD, TEST_PASSWORD_COST)
        assert not verify_password(stored, "another passphrase", TEST_PASSWORD_COST)
        assert needs_rehash(stored, TEST_PASSWORD_COST)
        assert not needs_rehash(stored, default)

    def test_no_stored_hash_never_matches(self) -> None:
        assert not verify_password(None, PASSWORD, TEST_PASSWORD_COST)
        assert not verify_password("not a hash", PASSWORD, TEST_PASSWORD_COST)


class TestThroughTheApi:
    async def test_a_password_set_through_the_api_is_hashed_at_the_configured_cost(
        self, factory: Factory, engine: AsyncEngine, settings: Settings
    ) -> None:
        owner = await factory.owner()
        answer = await owner.request("PUT", "/api/v1/me/password", json={"password": PASSWORD})
        assert answer.status_code == 204, answer.text
        assert _cost_of(await _stored_hash(engine, owner.user_id)) == HashCost.from_settings(settings)

    @pytest.mark.parametrize("made_at", [HashCost(), HashCost(memory_kib=24_576, time_cost=2, parallelism=2)])
    async def test_a_hash_of_another_cost_is_made_again_at_sign_in(
        self,
        factory: Factory,
        client: AsyncClient,
        engine: AsyncEngine,
        settings: Settings,
        made_at: HashCost,
    ) -> None:
        owner = await factory.owner(email="rehash@example.test")
        async with engine.begin() as connection:
            await connection.execute(
                text("UPDATE users SET password_hash = :h WHERE id = CAST(:id AS uuid)"),
                {"h": hash_password(PASSWORD, made_at), "id": owner.user_id},
            )
        wrong = await client.post(
            "/api/v1/auth/sessions", json={"email": "rehash@example.test", "password": "x" * 12}
        )
        assert wrong.status_code == 401
        assert _cost_of(await _stored_hash(engine, owner.user_id)) == made_at, (
            "a failed sign-in changes nothing"
        )

        signed = await client.post(
            "/api/v1/auth/sessions", json={"email": "rehash@example.test", "password": PASSWORD}
        )
        assert signed.status_code == 201, signed.text
        stored = await _stored_hash(engine, owner.user_id)
        assert _cost_of(stored) == HashCost.from_settings(settings)
        again = await client.post(
            "/api/v1/auth/sessions", json={"email": "rehash@example.test", "password": PASSWORD}
        )
        assert again.status_code == 201, again.text
        assert await _stored_hash(engine, owner.user_id) == stored, "a hash at the configured cost stays"
