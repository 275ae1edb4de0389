"""Which PostgreSQL and Redis the suite (and the benchmarks) use: from the environment, on the default
ports, or embedded; throwaway databases on them; and a look at this session's keys in Redis."""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import socket
import uuid
from dataclasses import dataclass
from pathlib import Path

import redis
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from app.devstack import start_postgres, start_redis
from app.persistence.db import create_engine

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Servers:
    admin_database_url: str  # a database on the server we may CREATE DATABASE from
    redis_url: str
    origin: str


def _answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def resolve_servers(
    home: Path = ROOT / ".automations" / "test-stack", force_variable: str = "AUTOMATIONS_TEST_SERVERS"
) -> Servers:
    """DATABASE_URL / REDIS_URL when set; else local default ports when both answer; else embedded.

    `<force_variable>=embedded` forces the embedded servers (what a clean machine gets); they keep their
    data under `home` and stop when the process exits. The benchmarks call this with their own folder.
    """
    if os.environ.get(force_variable) == "embedded":
        return _embedded(home, None, None)
    database_url = os.environ.get("DATABASE_URL")
    redis_url = os.environ.get("REDIS_URL")
    if database_url and redis_url:
        return Servers(_asyncpg(database_url), redis_url, "environment")
    database_url = database_url or _local_database()
    if not redis_url and _answers("127.0.0.1", 6379):
        redis_url = "redis://127.0.0.1:6379/0"
    if database_url and redis_url:
        return Servers(_asyncpg(database_url), redis_url, "local")
    return _embedded(home, database_url, redis_url)


def _local_database() -> str | None:
    """PostgreSQL on its default local port, when it answers."""
    return "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres" if _answers("127.0.0.1", 5432) else None


# Connections one parallel session may hold at once at its busiest: its api, worker and beat, and the
# stacks some modules start of their own (three sessions peaked at 93 together on a 2-core machine).
CONNECTIONS_PER_SESSION = 40


def parallel_sessions(cores: int, force_variable: str = "AUTOMATIONS_TEST_SERVERS") -> int:
    """How many parallel sessions a run with `-n auto` gets: one more than the cores (the sessions wait on
    browsers, servers and subprocesses a good part of the time), as many as the PostgreSQL they share
    admits connections for. Embedded servers are one per session, so only cores count for them."""
    wanted = cores + 1
    # The PostgreSQL `resolve_servers` takes when it is not an embedded one.
    url = (
        None
        if os.environ.get(force_variable) == "embedded"
        else os.environ.get("DATABASE_URL") or _local_database()
    )
    if url is None:
        return wanted
    try:
        ceiling = asyncio.run(max_connections(_asyncpg(url)))
    except (OSError, DBAPIError, TimeoutError):
        # Unreadable here: the sessions will say why when they connect; two is what the suite long ran.
        return min(wanted, 2)
    return max(1, min(wanted, ceiling // CONNECTIONS_PER_SESSION))


async def max_connections(url: str) -> int:
    """The server's `max_connections`."""
    engine = create_engine(url, pool_size=1)
    try:
        async with asyncio.timeout(5), engine.connect() as connection:
            return int((await connection.execute(text("SHOW max_connections"))).scalar_one())
    finally:
        await engine.dispose()


def _embedded(home: Path, database_url: str | None, redis_url: str | None) -> Servers:
    """Start whichever of the two servers is missing from the wheels, for this process only."""
    home.mkdir(parents=True, exist_ok=True)
    if not database_url:
        postgres, database_url = start_postgres(home, database="postgres")
        atexit.register(getattr(postgres, "_cleanup", lambda: None))
    if not redis_url:
        process, redis_url = start_redis(home)
        atexit.register(process.terminate)
    return Servers(_asyncpg(database_url), redis_url, "embedded")


def _asyncpg(url: str) -> str:
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+asyncpg://" + url[len(prefix) :]
    return url


def asyncpg_dsn(url: str) -> str:
    """The DSN asyncpg itself takes for a SQLAlchemy `postgresql+asyncpg://` URL."""
    return url.replace("postgresql+asyncpg://", "postgresql://", 1)


def with_database(url: str, name: str) -> str:
    return make_url(url).set(database=name).render_as_string(hide_password=False)


def new_database_name() -> str:
    return f"automations_test_{uuid.uuid4().hex[:10]}"


def redis_with_db(url: str, db: int) -> str:
    base = url.split("?", 1)[0]
    scheme, rest = base.split("://", 1)
    host = rest.split("/", 1)[0]
    return f"{scheme}://{host}/{db}"


def flush_prefix(url: str, prefix: str) -> int:
    """Delete this session's Redis keys only: what a broker flush does, without touching anyone else."""
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        return int(client.delete(*keys)) if keys else 0
    finally:
        client.close()


def template_name(run: str) -> str:
    """The database one test run migrates once and every session of the run clones."""
    return f"automations_template_{run}"


async def ensure_template(admin_url: str, name: str) -> None:
    """`name` migrated with Alembic, made by the first session of the run that asks.

    The sessions of one run (pytest-xdist workers) ask at once: an advisory lock on the server lets one
    migrate while the others wait, and the migration happens under another name, renamed when complete,
    so a session that died half-way leaves nothing another would clone.
    """
    from app.cli import run_migrations

    engine = create_engine(admin_url, pool_size=1)
    try:
        async with engine.connect() as connection:
            await connection.execution_options(isolation_level="AUTOCOMMIT")
            await connection.execute(text("SELECT pg_advisory_lock(hashtext(:name))"), {"name": name})
            try:
                if await _exists(connection, name):
                    return
                building = f"{name}_building"
                await connection.execute(text(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)'))
                await connection.execute(text(f'CREATE DATABASE "{building}"'))
                await asyncio.to_thread(run_migrations, with_database(admin_url, building))
                await connection.execute(text(f'ALTER DATABASE "{building}" RENAME TO "{name}"'))
                # Nobody works in the template itself: a connection to it would stop every clone.
                await connection.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'))
            finally:
                await connection.execute(text("SELECT pg_advisory_unlock(hashtext(:name))"), {"name": name})
    finally:
        await engine.dispose()


async def _exists(connection: AsyncConnection, name: str) -> bool:
    found = await connection.execute(text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": name})
    return found.first() is not None


async def clone_database(admin_url: str, template: str) -> tuple[str, str]:
    """A new database copied from the migrated `template`: its name and URL (a copy takes a fraction of
    a second; migrating takes seconds)."""
    name = new_database_name()
    for attempt in range(20):
        try:
            await admin_sql(admin_url, f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
            break
        except DBAPIError as error:
            # Another session's copy (or autovacuum) can hold the template for a moment.
            if "is being accessed by other users" not in str(error) or attempt == 19:
                raise
            await asyncio.sleep(0.25)
    return name, with_database(admin_url, name)


async def admin_sql(url: str, statement: str) -> None:
    """One statement outside a transaction (CREATE / DROP DATABASE) on the server's admin database."""
    engine = create_engine(url, pool_size=1)
    try:
        async with engine.connect() as connection:
            await connection.execution_options(isolation_level="AUTOCOMMIT")
            await connection.execute(text(statement))
    finally:
        await engine.dispose()


def queued_task_ids(url: str, prefix: str, queue: str) -> dict[str, str]:
    """Messages waiting in a Celery queue on Redis: the first argument of each task -> its task id."""
    client = redis.Redis.from_url(url)
    try:
        messages = [json.loads(raw) for raw in client.lrange(f"{prefix}{queue}", 0, -1)]
    finally:
        client.close()
    found: dict[str, str] = {}
    for message in messages:
        headers = message.get("headers", {})
        argsrepr = headers.get("argsrepr", "")  # "('<first argument>',)"
        first = argsrepr.strip("(),").strip("'\"")
        found[first] = headers["id"]
    return found
