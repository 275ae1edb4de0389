"""The vault: values decrypted per call for their own space only; what is missing is named."""

from __future__ import annotations

import logging
import uuid

import pytest
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.security.crypto import Keyring
from app.services.resources.vault import SecretMissing, SecretUnreadable, SecretVault, keyring_for
from tests.secrets.support import app_session, dump_database
from tests.support.factories import Caller, Factory

VALUE = "xoxb-PlaintextThatMustNeverBeStored-42"


async def put(caller: Caller, name: str, value: str = VALUE) -> None:
    response = await caller.request("PUT", caller.space_path(f"/secrets/{name}"), json={"value": value})
    assert response.status_code in (200, 201), response.text


@pytest.fixture
def vault(settings: Settings) -> SecretVault:
    return SecretVault(keyring_for(settings))


class TestResolve:
    async def test_answers_the_current_values_of_the_named_secrets(
        self, app: FastAPI, factory: Factory, vault: SecretVault
    ) -> None:
        owner = await factory.owner()
        await put(owner, "slack_token")
        await put(owner, "crm_key", "crm value")
        await put(owner, "unused", "not asked for")
        async with app_session(app) as session:
            values = await vault.resolve(session, uuid.UUID(owner.space_id), ["slack_token", "crm_key"])
        assert values == {"slack_token": VALUE, "crm_key": "crm value"}
        await put(owner, "crm_key", "replaced value")
        async with app_session(app) as session:
            again = await vault.resolve(session, uuid.UUID(owner.space_id), ["crm_key"])
        assert again == {"crm_key": "replaced value"}

    async def test_no_names_is_no_values(self, app: FastAPI, factory: Factory, vault: SecretVault) -> None:
        owner = await factory.owner()
        async with app_session(app) as session:
            assert await vault.resolve(session, uuid.UUID(owner.space_id), []) == {}

    async def test_missing_names_are_all_named_and_no_value_is_shown(
        self, app: FastAPI, factory: Factory, vault: SecretVault
    ) -> None:
        owner = await factory.owner()
        await put(owner, "present")
        async with app_session(app) as session:
            with pytest.raises(SecretMissing) as caught:
                await vault.resolve(session, uuid.UUID(owner.space_id), ["present", "gone", "absent"])
        assert caught.value.code == "secret_missing"
        assert caught.value.names == ["absent", "gone"]
        assert "absent, gone" in caught.value.message
        assert VALUE not in str(caught.value)

    async def test_another_spaces_secret_is_missing(
        self, app: FastAPI, factory: Factory, vault: SecretVault
    ) -> None:
        owner = await factory.owner()
        other = await factory.owner(space="Other")
        await put(other, "their_token")
        async with app_session(app) as session:
            with pytest.raises(SecretMissing):
                await vault.resolve(session, uuid.UUID(owner.space_id), ["their_token"])
            assert await vault.missing(session, uuid.UUID(owner.space_id), ["their_token"]) == {"their_token"}

    async def test_missing_answers_the_absent_subset(
        self, app: FastAPI, factory: Factory, vault: SecretVault
    ) -> None:
        owner = await factory.owner()
        await put(owner, "one")
        await put(owner, "two")
        space_id = uuid.UUID(owner.space_id)
        async with app_session(app) as session:
            assert await vault.missing(session, space_id, ["one", "two", "three"]) == {"three"}
            assert await vault.missing(session, space_id, ["one"]) == set()
            assert await vault.missing(session, space_id, []) == set()

    async def test_values_never_show_in_reprs(
        self, app: FastAPI, factory: Factory, vault: SecretVault
    ) -> None:
        owner = await factory.owner()
        await put(owner, "slack_token")
        async with app_session(app) as session:
            values = await vault.resolve(session, uuid.UUID(owner.space_id), ["slack_token"])
        for shown in (repr(values), str(values), f"{values}", repr(vault)):
            assert VALUE not in shown
        assert "slack_token" in repr(values)


class TestCiphertextBinding:
    async def test_a_ciphertext_copied_to_another_row_does_not_decrypt(
        self, app: FastAPI, factory: Factory, vault: SecretVault, engine: AsyncEngine
    ) -> None:
        owner = await factory.owner()
        await put(owner, "source", "source value")
        await put(owner, "target", "target value")
        await _copy_ciphertext(engine, from_name="source", to_name="target", to_space=owner.space_id)
        async with app_session(app) as session:
            with pytest.raises(SecretUnreadable) as caught:
                await vault.resolve(session, uuid.UUID(owner.space_id), ["target"])
        assert caught.value.code == "secret_unreadable"
        assert "source value" not in str(caught.value)

    async def test_a_ciphertext_copied_to_another_space_does_not_decrypt(
        self, app: FastAPI, factory: Factory, vault: SecretVault, engine: AsyncEngine
    ) -> None:
        owner = await factory.owner()
        other = await factory.owner(space="Other")
        await put(owner, "token", "owner's value")
        await put(other, "token", "other's value")
        await _copy_ciphertext(engine, from_name="token", to_name="token", to_space=other.space_id)
        async with app_session(app) as session:
            with pytest.raises(SecretUnreadable):
                await vault.resolve(session, uuid.UUID(other.space_id), ["token"])
            # the source row itself is intact
            assert await vault.resolve(session, uuid.UUID(owner.space_id), ["token"]) == {
                "token": "owner's value"
            }

    async def test_a_secret_sealed_under_an_unknown_key_names_that_key(
        self, app: FastAPI, factory: Factory
    ) -> None:
        owner = await factory.owner()
        await put(owner, "token")
        stranger = Keyring("a-key-this-deployment-never-had-0123456789")
        async with app_session(app) as session:
            with pytest.raises(SecretUnreadable) as caught:
                await SecretVault(stranger).resolve(session, uuid.UUID(owner.space_id), ["token"])
        assert "no key with id" in caught.value.message


async def _copy_ciphertext(engine: AsyncEngine, *, from_name: str, to_name: str, to_space: str) -> None:
    async with engine.begin() as connection:
        result = await connection.execute(
            text(
                "UPDATE secrets AS target SET ciphertext = source.ciphertext, key_id = source.key_id"
                " FROM secrets AS source"
                " WHERE source.name = :from_name AND target.name = :to_name"
                " AND target.space_id = :to_space AND source.id <> target.id"
            ),
            {"from_name": from_name, "to_name": to_name, "to_space": uuid.UUID(to_space)},
        )
        assert result.rowcount == 1


class TestNothingLeaks:
    async def test_the_plaintext_is_in_no_row_no_answer_and_no_log_line(
        self,
        app: FastAPI,
        factory: Factory,
        vault: SecretVault,
        engine: AsyncEngine,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        owner = await factory.owner()
        member = await factory.member(owner)
        answers: list[str] = []
        # Everything at DEBUG, SQLAlchemy's statement and parameter logging included.
        with caplog.at_level(logging.DEBUG), caplog.at_level(logging.DEBUG, logger="sqlalchemy"):
            for caller, value in ((owner, VALUE), (owner, VALUE + "-v2")):
                response = await caller.request(
                    "PUT", caller.space_path("/secrets/slack_token"), json={"value": value}
                )
                answers.append(response.text)
            answers.append(
                (await member.request("PUT", member.space_path("/secrets/x"), json={"value": VALUE})).text
            )
            answers.append(
                (await owner.request("PUT", owner.space_path("/secrets/Bad"), json={"value": VALUE})).text
            )
            answers.append((await owner.request("GET", owner.space_path("/secrets"))).text)
            answers.append((await member.request("GET", member.space_path("/secrets/slack_token"))).text)
            async with app_session(app) as session:
                values = await vault.resolve(session, uuid.UUID(owner.space_id), ["slack_token"])
                logging.getLogger("tests.secrets").info("resolved %s and %r", values, values)
                with pytest.raises(SecretMissing):
                    await vault.resolve(session, uuid.UUID(owner.space_id), ["slack_token", "nope"])
        assert values == {"slack_token": VALUE + "-v2"}, "the test must have used the value"
        assert any(record.name.startswith("sqlalchemy.engine") for record in caplog.records), (
            "statement logging must have been on for this test to mean anything"
        )
        dump = await dump_database(engine)
        assert "slack_token" in dump
        forms = [VALUE, VALUE.encode().hex(), VALUE.encode().hex().upper()]
        for form in forms:
            assert form not in dump
            assert form not in caplog.text
            assert all(form not in answer for answer in answers)
