"""`automations set-password` and create-admin's first-run notice, run as an operator runs them."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest

from tests.support.browser import cli

pytestmark = pytest.mark.timeout(300)


def test_set_password_refuses_unknown_users_and_short_passwords_without_echoing_them(
    service_env: dict[str, str], ui_base: str
) -> None:
    unknown = cli(
        service_env, "set-password", "--email", "nobody@example.test", "--password-stdin", stdin="x" * 20
    )
    assert unknown.returncode != 0
    assert "No user has this email" in unknown.stderr
    email = f"cli-{uuid.uuid4().hex[:8]}@example.test"
    made = cli(service_env, "create-admin", "--space", "CLI", "--email", email)
    assert made.returncode == 0, made.stderr
    assert f"set-password --email {email}" in made.stderr
    short = cli(service_env, "set-password", "--email", email, "--password-stdin", stdin="tiny-secret\n")
    assert short.returncode != 0
    assert "at least 12 characters" in short.stderr
    assert "tiny-secret" not in short.stderr + short.stdout
    done = cli(
        service_env,
        "set-password",
        "--email",
        email.upper(),
        "--password-stdin",
        stdin="long enough passphrase\n",
    )
    assert done.returncode == 0, done.stderr
    assert f"password set for {email}" in done.stdout
    # The operator's reset revoked the token create-admin printed; the password signs in.
    bootstrap = {"Authorization": f"Bearer {json.loads(made.stdout)['token']}"}
    assert httpx.get(f"{ui_base}/api/v1/me", headers=bootstrap).status_code == 401
    signed = httpx.post(
        f"{ui_base}/api/v1/auth/sessions", json={"email": email, "password": "long enough passphrase"}
    )
    assert signed.status_code == 201, signed.text
