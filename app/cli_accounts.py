"""`automations create-admin`, `set-password` and `rotate-key`: the operator's account and key commands.

They reach the database directly (the first owner exists before anyone can call the API) and never
queue a job.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from datetime import timedelta
from typing import Any

import click

from app.cli_common import fail_on_configuration, load_settings, refuse_jobs
from app.config import Settings


async def _create_admin(settings: Settings, space: str, email: str) -> dict[str, str]:
    from app.persistence.db import create_engine, create_sessionmaker
    from app.persistence.transaction import transaction
    from app.services.identity.spaces import space_service

    engine = create_engine(
        settings.resolved_direct_database_url(), pool_size=1, application_name="automations-cli"
    )
    try:
        async with transaction(create_sessionmaker(engine), refuse_jobs) as session:
            made = await space_service.bootstrap(
                session,
                space_name=space,
                email=email,
                token_lifetime=timedelta(days=settings.token_ttl_days),
            )
    finally:
        await engine.dispose()
    return {"space_id": str(made.space.id), "user_id": str(made.user.id), "token": made.token}


@click.command("create-admin")
@click.option("--space", "space", required=True, help="Name of the space to create.")
@click.option("--email", required=True, help="Email of the owner (created if new).")
@fail_on_configuration
def create_admin(space: str, email: str) -> None:
    """Create a space and its owner; print {space_id, user_id, token} (the token is shown once and
    expires after AUTOMATIONS_TOKEN_TTL_DAYS)."""
    if "@" not in email or len(email.lower()) > 320:
        raise click.BadParameter("not an email address", param_hint="--email")
    if not space.strip() or len(space) > 200:
        raise click.BadParameter("1 to 200 characters", param_hint="--space")
    settings = load_settings()
    click.echo(json.dumps(asyncio.run(_create_admin(settings, space, email))))
    # On stderr: stdout stays one JSON document for scripts.
    click.echo(
        f"First sign-in: open http://{settings.api_host}:{settings.api_port}/ and paste the token above,"
        f" or give {email} a password with `automations set-password --email {email}`.",
        err=True,
    )


async def _set_password(settings: Settings, email: str, password: str) -> None:
    from app.persistence.db import create_engine, create_sessionmaker
    from app.persistence.transaction import transaction
    from app.security.passwords import HashCost
    from app.services.identity.signin import sign_in_service

    engine = create_engine(
        settings.resolved_direct_database_url(), pool_size=1, application_name="automations-cli"
    )
    try:
        async with transaction(create_sessionmaker(engine), refuse_jobs) as session:
            await sign_in_service.set_password_by_email(
                session, email, password, cost=HashCost.from_settings(settings)
            )
    finally:
        await engine.dispose()


@click.command("set-password")
@click.option("--email", required=True, help="Email of an existing user.")
@click.option(
    "--password-stdin",
    is_flag=True,
    help="Read the password from the first line of standard input instead of prompting.",
)
@fail_on_configuration
def set_password(email: str, password_stdin: bool) -> None:
    """Set a user's password for signing in to the web UI (prompted twice, never an argument).

    This is the operator's reset: every API token and sign-in of the user is revoked."""
    from app.errors import AppError

    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    try:
        asyncio.run(_set_password(load_settings(), email, password))
    except AppError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(f"password set for {email.lower()}; their tokens and sign-ins are revoked")


async def _rotate_key(settings: Settings, old_secret: str) -> dict[str, Any]:
    from app.persistence.db import create_engine, create_sessionmaker
    from app.persistence.transaction import transaction
    from app.services.mcp.endpoints import reseal_oauth
    from app.services.resources.vault import keyring_for, reseal_batch, secrets_by_key

    keyring = keyring_for(settings, old_secret)
    engine = create_engine(
        settings.resolved_direct_database_url(), pool_size=1, application_name="automations-cli"
    )
    sessionmaker = create_sessionmaker(engine)
    resealed = 0
    try:
        # One transaction per batch: rows are locked briefly and progress survives an interruption.
        while True:
            async with transaction(sessionmaker, refuse_jobs) as session:
                batch = await reseal_batch(session, keyring)
            resealed += batch.resealed
            if batch.resealed == 0:
                break
        async with transaction(sessionmaker, refuse_jobs) as session:
            oauth = await reseal_oauth(session, keyring)
        async with transaction(sessionmaker, refuse_jobs) as session:
            census = await secrets_by_key(session)
    finally:
        await engine.dispose()
    return {
        "current_key_id": keyring.current_key_id,
        "resealed": resealed,
        "mcp_oauth_resealed": oauth,
        "secrets_by_key": census,
    }


@click.command("rotate-key")
@click.option(
    "--old-key-env",
    required=True,
    metavar="VAR",
    help="Name of the environment variable that holds the previous secret key.",
)
@fail_on_configuration
def rotate_key(old_key_env: str) -> None:
    """Re-encrypt every stored secret under AUTOMATIONS_SECRET_KEY, opening old ones with $VAR.

    Safe while the service runs: processes that know both keys read either, and each batch is
    its own transaction; MCP connections' OAuth tokens are resealed too. Prints {current_key_id,
    resealed, mcp_oauth_resealed, secrets_by_key}; exits 1 when secrets sealed under some other key
    remain.
    """
    from app.errors import AppError
    from app.security.crypto import derive_key_id

    old_secret = os.environ.get(old_key_env, "")
    if not old_secret:
        raise click.BadParameter(
            f"the variable {old_key_env} is not set or empty", param_hint="--old-key-env"
        )
    settings = load_settings()
    if derive_key_id(old_secret) == derive_key_id(settings.resolved_secret_key()):
        raise click.ClickException(
            f"{old_key_env} holds the current AUTOMATIONS_SECRET_KEY; set the new key there first"
        )
    try:
        report = asyncio.run(_rotate_key(settings, old_secret))
    except AppError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(json.dumps(report, indent=2))
    left = {key: count for key, count in report["secrets_by_key"].items() if key != report["current_key_id"]}
    if left:
        raise click.ClickException(
            f"secrets sealed under keys neither given key opens remain: {left}; rotate them with that key"
        )
