"""Alembic: every revision applies to an empty database and rolls back to nothing."""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from app.cli import ROOT
from app.persistence.db import create_engine
from tests.support.servers import Servers, admin_sql, new_database_name, with_database


def _alembic(url: str, *args: str) -> None:
    from alembic.config import Config

    from alembic import command

    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["configure_logger"] = False
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    getattr(command, args[0])(config, *args[1:])


async def _tables_and_types(url: str) -> tuple[set[str], set[str]]:
    engine = create_engine(url, pool_size=1)
    try:
        async with engine.connect() as connection:
            tables = {
                r[0]
                for r in await connection.execute(
                    text("SELECT tablename FROM pg_tables WHERE schemaname='public'")
                )
            }
            types = {
                r[0]
                for r in await connection.execute(
                    text(
                        "SELECT typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace "
                        "WHERE n.nspname = 'public' AND t.typtype = 'e'"
                    )
                )
            }
    finally:
        await engine.dispose()
    return tables, types


def test_upgrade_head_then_downgrade_base_on_an_empty_database(servers: Servers) -> None:
    name = new_database_name()
    asyncio.run(admin_sql(servers.admin_database_url, f'CREATE DATABASE "{name}"'))
    url = with_database(servers.admin_database_url, name)
    try:
        _alembic(url, "upgrade", "head")
        tables, types = asyncio.run(_tables_and_types(url))
        assert {
            "spaces",
            "users",
            "memberships",
            "api_tokens",
            "automations",
            "automation_versions",
            "secrets",
        } <= tables
        assert {"membership_role", "automation_status"} <= types
        _alembic(url, "downgrade", "base")
        tables, types = asyncio.run(_tables_and_types(url))
        assert tables == {"alembic_version"}
        assert types == set()
        _alembic(url, "upgrade", "head")  # and it can come back
    finally:
        asyncio.run(admin_sql(servers.admin_database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def test_the_revisions_form_one_line() -> None:
    """Two branches that each add a revision on the same parent leave two heads, and `upgrade head`
    refuses to run: the later one must name the other as its parent."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    heads = ScriptDirectory.from_config(Config(str(ROOT / "alembic.ini"))).get_heads()
    assert len(heads) == 1, f"several heads {heads}: point the newest revision's down_revision at the other"
