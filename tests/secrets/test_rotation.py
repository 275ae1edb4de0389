"""`automations rotate-key`: everything moves to the new key, both keys read while it runs."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from fastapi import FastAPI
from pydantic import SecretStr
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.security.crypto import Context, Keyring, derive_key_id
from app.services.resources.secrets import secret_context
from app.services.resources.vault import SecretUnreadable, SecretVault, keyring_for, reseal_batch
from tests.secrets.support import app_session
from tests.support.factories import Caller, Factory

KEY_B = "the-new-key-after-rotation-0123456789abcdef"
OLD_VAR = "AUTOMATIONS_ROTATION_OLD_KEY"


def rotate(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "rotate-key", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def put(caller: Caller, name: str, value: str) -> None:
    response = await caller.request("PUT", caller.space_path(f"/secrets/{name}"), json={"value": value})
    assert response.status_code == 201, response.text


async def key_ids(engine: AsyncEngine) -> dict[str, int]:
    async with engine.connect() as connection:
        rows = await connection.execute(text("SELECT key_id, count(*) FROM secrets GROUP BY key_id"))
        return {row[0]: row[1] for row in rows}


async def read_all(
    app: FastAPI, keyring: Keyring, spaces: dict[str, dict[str, str]]
) -> dict[str, dict[str, str]]:
    vault = SecretVault(keyring)
    async with app_session(app) as session:
        return {
            space: await vault.resolve(session, uuid.UUID(space), list(values))
            for space, values in spaces.items()
        }


@pytest.fixture
async def stored(factory: Factory) -> dict[str, dict[str, str]]:
    """Five secrets in two spaces, written through the API under the service's key (key A)."""
    first = await factory.owner()
    second = await factory.owner(space="Second")
    spaces = {
        first.space_id: {"alpha": "value alpha", "bravo": "value bravo", "charlie": "value charlie"},
        second.space_id: {"alpha": "second alpha", "delta": "value delta"},
    }
    for caller in (first, second):
        for name, value in spaces[caller.space_id].items():
            await put(caller, name, value)
    return spaces


class TestRotateKey:
    async def test_rotates_everything_and_both_keys_read_midway(
        self,
        app: FastAPI,
        settings: Settings,
        service_env: dict[str, str],
        engine: AsyncEngine,
        stored: dict[str, dict[str, str]],
    ) -> None:
        key_a = settings.resolved_secret_key()
        id_a, id_b = derive_key_id(key_a), derive_key_id(KEY_B)
        assert await key_ids(engine) == {id_a: 5}
        async with engine.connect() as connection:
            before = dict((await connection.execute(text("SELECT id, updated_at FROM secrets"))).all())

        # Midway: a service restarted with B as its key and A as the previous one, two rows resealed.
        both = settings.model_copy(
            update={"secret_key": SecretStr(KEY_B), "previous_secret_key": SecretStr(key_a)}
        )
        async with app_session(app) as session:
            assert (await reseal_batch(session, keyring_for(both), limit=2)).resealed == 2
        assert await key_ids(engine) == {id_a: 3, id_b: 2}
        assert await read_all(app, keyring_for(both), stored) == stored
        with pytest.raises(SecretUnreadable):
            await read_all(app, Keyring(KEY_B), stored)

        env = {**service_env, "AUTOMATIONS_SECRET_KEY": KEY_B, OLD_VAR: key_a}
        result = rotate(env, "--old-key-env", OLD_VAR)
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert report == {
            "current_key_id": id_b,
            "resealed": 3,
            "mcp_oauth_resealed": 0,
            "secrets_by_key": {id_b: 5},
        }
        assert key_a not in result.stdout + result.stderr
        assert KEY_B not in result.stdout + result.stderr

        # Afterwards the new key alone reads everything; the old one alone reads nothing.
        assert await key_ids(engine) == {id_b: 5}
        assert await read_all(app, Keyring(KEY_B), stored) == stored
        with pytest.raises(SecretUnreadable):
            await read_all(app, Keyring(key_a), stored)
        async with engine.connect() as connection:
            after = dict((await connection.execute(text("SELECT id, updated_at FROM secrets"))).all())
        assert after == before, "rotation changes no value, so it does not count as an update"

        again = rotate(env, "--old-key-env", OLD_VAR)
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["resealed"] == 0

    def test_an_unset_variable_is_a_usage_error(self, service_env: dict[str, str]) -> None:
        env = {key: value for key, value in service_env.items() if key != OLD_VAR}
        result = rotate(env, "--old-key-env", OLD_VAR)
        assert result.returncode == 2
        assert f"{OLD_VAR} is not set" in result.stderr
        assert "Traceback" not in result.stderr

    def test_the_current_key_as_old_key_is_refused(self, service_env: dict[str, str]) -> None:
        env = {**service_env, OLD_VAR: service_env["AUTOMATIONS_SECRET_KEY"]}
        result = rotate(env, "--old-key-env", OLD_VAR)
        assert result.returncode == 1
        assert "holds the current AUTOMATIONS_SECRET_KEY" in result.stderr

    async def test_secrets_under_a_third_key_are_reported_and_fail_the_command(
        self,
        settings: Settings,
        service_env: dict[str, str],
        engine: AsyncEngine,
        stored: dict[str, dict[str, str]],
    ) -> None:
        key_a = settings.resolved_secret_key()
        # B is current, C is given as the old key: A's rows are opened by neither.
        env = {**service_env, "AUTOMATIONS_SECRET_KEY": KEY_B, OLD_VAR: "a-third-key-0123456789-0123456789"}
        result = rotate(env, "--old-key-env", OLD_VAR)
        assert result.returncode == 1
        assert json.loads(result.stdout)["secrets_by_key"] == {derive_key_id(key_a): 5}
        assert "remain" in result.stderr
        assert await key_ids(engine) == {derive_key_id(key_a): 5}


class TestServiceKeys:
    def test_the_previous_key_setting_opens_old_values_and_never_seals(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        key_a = "the-old-key-before-rotation-0123456789abcdef"
        sealed_by_a = Keyring(key_a).encrypt(b"old value", _context())
        monkeypatch.setenv("AUTOMATIONS_SECRET_KEY", KEY_B)
        monkeypatch.setenv("AUTOMATIONS_PREVIOUS_SECRET_KEY", key_a)
        keyring = keyring_for(Settings(environment="test", home=tmp_path))
        assert keyring.current_key_id == derive_key_id(KEY_B)
        assert keyring.key_ids == {derive_key_id(KEY_B), derive_key_id(key_a)}
        assert keyring.decrypt(sealed_by_a, _context()) == b"old value"
        monkeypatch.delenv("AUTOMATIONS_PREVIOUS_SECRET_KEY")
        assert keyring_for(Settings(environment="test", home=tmp_path)).key_ids == {derive_key_id(KEY_B)}


def _context() -> Context:
    return secret_context(uuid.UUID(int=1), "token")
