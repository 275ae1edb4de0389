"""Shared fixtures: a migrated test database on real PostgreSQL, real Redis, the app, a real worker and
beat, and the loopback servers that stand in for the outside world. Every test package uses these; the
helpers behind them live in `tests.support`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from graphlib import TopologicalSorter
from pathlib import Path

import pytest
from httpx import ASGITransport, AsyncClient
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.config import Settings
from app.persistence.db import create_engine
from tests.support.factories import TEST_PASSWORD_COST, Factory
from tests.support.fake_llm import INPUT_PRICE, OUTPUT_PRICE, TEST_MODEL, TEST_MODEL_KEY_ENV, FakeLlm
from tests.support.fake_slack import FakeSlack
from tests.support.loopback import Loopback
from tests.support.mcp_server import MCP_STDIO_SERVERS, McpTestServer
from tests.support.plugins import install_test_plugins
from tests.support.processes import ServiceProcess, start_worker
from tests.support.receivers import Receivers
from tests.support.schedule import longest_files_first
from tests.support.servers import (
    ROOT,
    Servers,
    admin_sql,
    clone_database,
    ensure_template,
    parallel_sessions,
    redis_with_db,
    resolve_servers,
    template_name,
)
from tests.support.smtp_server import SmtpServer

# A Redis database of its own; each session also prefixes its keys (see `settings`).
TEST_REDIS_DB = 11
# Set by the process that starts a run: its id (naming the template database) and a folder of its own.
RUN_VARIABLE = "AUTOMATIONS_TEST_RUN"
RUN_DIR_VARIABLE = "AUTOMATIONS_TEST_RUN_DIR"


@pytest.fixture(scope="session")
def servers() -> Servers:
    """PostgreSQL and Redis; embedded ones (when nothing else answers) in a folder per parallel session
    (pytest-xdist's worker), since two sessions must not start one data folder at once."""
    parallel = os.environ.get("PYTEST_XDIST_WORKER")
    if not parallel:
        return resolve_servers()
    return resolve_servers(home=ROOT / ".automations" / "test-stack" / parallel)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (what `make test` passes unless TEST_SESSIONS says otherwise): see `parallel_sessions`."""
    # The cores this process may use, where the system says (Linux); else every core.
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return parallel_sessions(cores)


def pytest_configure(config: pytest.Config) -> None:
    """The run's id and folder, made once by the process that starts the run (with pytest-xdist, the
    controller, before its workers start and inherit them)."""
    if not hasattr(config, "workerinput"):
        os.environ[RUN_VARIABLE] = uuid.uuid4().hex[:10]
        os.environ[RUN_DIR_VARIABLE] = tempfile.mkdtemp(prefix="automations-test-run-")
        # The files go out in the collected order (`pytest_collection_modifyitems`), not xdist's own.
        if hasattr(config.option, "loadscopereorder"):
            config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first, so that parallel sessions end together (`tests.support.schedule`)."""
    items[:] = longest_files_first(items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """A failed test that had the session's worker shows the end of the worker's log: what the worker
    did is usually why a run never finished, and the log is gone with the machine."""
    report: pytest.TestReport = yield
    worker = getattr(item, "funcargs", {}).get("worker")
    if report.failed and isinstance(worker, ServiceProcess):
        report.sections.append(("worker log (last lines)", worker.log_tail()))
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The run's template database dropped by the process that made the run, once every session ended."""
    if hasattr(session.config, "workerinput"):
        return
    run_dir = Path(os.environ[RUN_DIR_VARIABLE])
    made = run_dir / "template.json"
    if made.is_file():
        template = json.loads(made.read_text())
        with contextlib.suppress(OSError, DBAPIError):
            asyncio.run(admin_sql(template["admin_url"], f'DROP DATABASE IF EXISTS "{template["name"]}"'))
    shutil.rmtree(run_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def template_database(servers: Servers) -> Iterator[str]:
    """The run's database migrated with Alembic (never create_all), once for all its sessions; a session
    and a test that needs a database of its own clone it (`clone_database`)."""
    name = template_name(os.environ[RUN_VARIABLE])
    asyncio.run(ensure_template(servers.admin_database_url, name))
    if servers.origin == "embedded":
        # This session's own server, stopped when it ends: the template goes before it.
        yield name
        asyncio.run(admin_sql(servers.admin_database_url, f'DROP DATABASE IF EXISTS "{name}"'))
        return
    record = Path(os.environ[RUN_DIR_VARIABLE]) / "template.json"
    record.write_text(json.dumps({"admin_url": servers.admin_database_url, "name": name}))
    yield name


@pytest.fixture(scope="session")
def database_url(servers: Servers, template_database: str) -> Iterator[str]:
    """A fresh database for this session, a copy of the run's migrated template, dropped at the end."""
    name, url = asyncio.run(clone_database(servers.admin_database_url, template_database))
    yield url
    asyncio.run(admin_sql(servers.admin_database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def redis_url(servers: Servers) -> str:
    return redis_with_db(servers.redis_url, TEST_REDIS_DB)


@pytest.fixture(scope="session")
def fake_llm() -> Iterator[FakeLlm]:
    """A loopback server speaking OpenAI chat completions, scripted per test."""
    os.environ[TEST_MODEL_KEY_ENV] = "sk-test-not-a-real-key"
    server = FakeLlm().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def fake_slack() -> Iterator[FakeSlack]:
    """A loopback server speaking Slack's Web API (chat.postMessage)."""
    server = FakeSlack().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def receivers() -> Iterator[Receivers]:
    """Loopback webhook receivers that verify signatures (outbound deliveries, approval notices)."""
    server = Receivers().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def smtp_server() -> Iterator[SmtpServer]:
    """A real SMTP server (aiosmtpd) on loopback: the relay of send_email."""
    server = SmtpServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def example_plugin_path(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The example plugin (examples/plugins/uptime) and test plugins, installed for this session.

    The loadable ones are allowed (AUTOMATIONS_PLUGINS) but, like any plugin, off in every space until a
    test enables them, so other tests never meet their names; `broken` is allowed and fails to import.
    """
    entries = [str(path) for path in install_test_plugins(tmp_path_factory.mktemp("site-packages"))]
    sys.path[:0] = entries
    return entries


@pytest.fixture(scope="session")
def settings(
    example_plugin_path: list[str],
    database_url: str,
    redis_url: str,
    tmp_path_factory: pytest.TempPathFactory,
    fake_llm: FakeLlm,
    fake_slack: FakeSlack,
    smtp_server: SmtpServer,
) -> Settings:
    return Settings(
        environment="test",
        secret_key="test-secret-key-that-is-long-enough-0123456789",
        database_url=database_url,
        redis_url=redis_url,
        home=tmp_path_factory.mktemp("home"),
        # Queues of their own: another test session on the same Redis never takes this one's messages.
        redis_key_prefix=f"test-{uuid.uuid4().hex[:8]}:",
        # Loopback servers stand in for the outside world; short leases make recovery quick to see.
        egress_allow="127.0.0.1/32",
        plugins="uptime,misbehave,broken,pollster",
        # Pollers every second and cut after two, so a poll and a hang are quick to see.
        plugin_poll_min_seconds=1,
        plugin_task_timeout_seconds=2,
        run_lease_seconds=4,
        run_requeue_after_seconds=3,
        beat_tick_seconds=1,
        # Webhook retries a thousand times sooner than in production; a hung receiver gives up quickly.
        webhook_retry_scale=0.001,
        webhook_delivery_timeout_seconds=2,
        password_hash_memory_kib=TEST_PASSWORD_COST.memory_kib,
        password_hash_time_cost=TEST_PASSWORD_COST.time_cost,
        password_hash_parallelism=TEST_PASSWORD_COST.parallelism,
        slack_api_url=fake_slack.base_url,
        smtp_url=smtp_server.url,
        smtp_from="automations@example.com",
        mcp_stdio_servers=MCP_STDIO_SERVERS,
        llm_allowed_models=[TEST_MODEL],
        llm_models={
            TEST_MODEL: {
                "api_base": fake_llm.base_url,
                "api_key_env": TEST_MODEL_KEY_ENV,
                "input_cost_per_token": INPUT_PRICE,
                "output_cost_per_token": OUTPUT_PRICE,
            }
        },
    )


@pytest.fixture(scope="session")
def service_env(settings: Settings, example_plugin_path: list[str]) -> dict[str, str]:
    """Environment for child processes (workers, CLI) that must reach the same test servers."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOMATIONS_")}
    env.update(
        PYTHONPATH=os.pathsep.join([*example_plugin_path, env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        AUTOMATIONS_PLUGINS=settings.plugins,
        AUTOMATIONS_PLUGIN_POLL_MIN_SECONDS=str(settings.plugin_poll_min_seconds),
        AUTOMATIONS_PLUGIN_TASK_TIMEOUT_SECONDS=str(settings.plugin_task_timeout_seconds),
        UPTIME_POLL_SECONDS="1",
        DATABASE_URL=settings.resolved_database_url(),
        REDIS_URL=settings.resolved_redis_url(),
        AUTOMATIONS_ENVIRONMENT="test",
        AUTOMATIONS_SECRET_KEY=settings.resolved_secret_key(),
        AUTOMATIONS_HOME=str(settings.home),
        AUTOMATIONS_EGRESS_ALLOW=settings.egress_allow,
        AUTOMATIONS_RUN_LEASE_SECONDS=str(settings.run_lease_seconds),
        AUTOMATIONS_RUN_REQUEUE_AFTER_SECONDS=str(settings.run_requeue_after_seconds),
        AUTOMATIONS_BEAT_TICK_SECONDS=str(settings.beat_tick_seconds),
        AUTOMATIONS_WEBHOOK_RETRY_SCALE=str(settings.webhook_retry_scale),
        AUTOMATIONS_WEBHOOK_DELIVERY_TIMEOUT_SECONDS=str(settings.webhook_delivery_timeout_seconds),
        AUTOMATIONS_PASSWORD_HASH_MEMORY_KIB=str(settings.password_hash_memory_kib),
        AUTOMATIONS_PASSWORD_HASH_TIME_COST=str(settings.password_hash_time_cost),
        AUTOMATIONS_PASSWORD_HASH_PARALLELISM=str(settings.password_hash_parallelism),
        AUTOMATIONS_SLACK_API_URL=settings.slack_api_url,
        AUTOMATIONS_SMTP_URL=settings.smtp_url.get_secret_value() if settings.smtp_url else "",
        AUTOMATIONS_SMTP_FROM=settings.smtp_from or "",
        AUTOMATIONS_REDIS_KEY_PREFIX=settings.redis_key_prefix,
        AUTOMATIONS_LLM_ALLOWED_MODELS=json.dumps(settings.llm_allowed_models),
        AUTOMATIONS_LLM_MODELS=json.dumps(settings.llm_models),
        AUTOMATIONS_MCP_STDIO_SERVERS=json.dumps(settings.mcp_stdio_servers),
    )
    return env


@pytest.fixture(scope="session")
async def engine(settings: Settings) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(settings.resolved_database_url(), pool_size=5)
    yield engine
    await engine.dispose()


# The public tables, children before the tables they reference: deleting in this order never waits on
# a foreign key. Read once per session.
_TABLES: list[str] = []


@pytest.fixture
async def clean_db(engine: AsyncEngine) -> None:
    """Each test starts from empty tables (deleted, not rolled back: workers in other processes see the
    same data).

    Only the tables holding rows are emptied, with DELETE: TRUNCATE makes new files for every table and
    index, a commit to disk each time, which cost more than most tests. The worker and beat keep working
    between tests (a tick, a late step record), so the deletion can meet their locks, or a row of theirs
    committed meanwhile under a row it deletes; it retries rather than fail the next test.
    """
    for attempt in range(10):
        try:
            await _empty_tables(engine)
            return
        except DBAPIError:
            if attempt == 9:
                raise
            await asyncio.sleep(0.2)


async def _empty_tables(engine: AsyncEngine) -> None:
    async with engine.begin() as connection:
        await connection.execute(text("SET LOCAL lock_timeout = '2s'"))
        # Nothing here needs to survive a crash: no wait for the disk at commit.
        await connection.execute(text("SET LOCAL synchronous_commit = off"))
        if not _TABLES:
            _TABLES.extend(await _tables_children_first(connection))
        probes = " UNION ALL ".join(f"(SELECT '{t}' FROM {t} LIMIT 1)" for t in _TABLES)  # noqa: S608
        filled = {row[0] for row in await connection.execute(text(probes))}
        for table in _TABLES:
            if table in filled:
                await connection.execute(text(f"DELETE FROM {table}"))  # noqa: S608 (our own tables)
        # What TRUNCATE's RESTART IDENTITY did: identity columns count from their start again.
        await connection.execute(
            text(
                "SELECT setval(format('%I.%I', schemaname, sequencename)::regclass, start_value, false)"
                " FROM pg_sequences WHERE schemaname = 'public' AND last_value IS NOT NULL"
            )
        )


async def _tables_children_first(connection: AsyncConnection) -> list[str]:
    rows = await connection.execute(
        text("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'alembic_version'")
    )
    tables = sorted(row[0] for row in rows)
    references = await connection.execute(
        text(
            "SELECT child.relname, parent.relname FROM pg_constraint"
            " JOIN pg_class child ON child.oid = pg_constraint.conrelid"
            " JOIN pg_class parent ON parent.oid = pg_constraint.confrelid"
            " WHERE contype = 'f' AND connamespace = 'public'::regnamespace"
        )
    )
    # A table's predecessors are the tables referencing it: they come out (and are emptied) first.
    referenced_by: dict[str, set[str]] = {table: set() for table in tables}
    for child, parent in references:
        if child != parent:  # a self-reference goes with its own rows in one statement
            referenced_by[parent].add(child)
    return list(TopologicalSorter(referenced_by).static_order())


@pytest.fixture(scope="session")
async def app(settings: Settings):  # type: ignore[no-untyped-def]
    from app.main import create_app

    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def client(app, clean_db: None) -> AsyncIterator[AsyncClient]:  # type: ignore[no-untyped-def]
    async with AsyncClient(transport=ASGITransport(app=app), base_url="http://testserver") as http:
        yield http


@pytest.fixture
def factory(app, client: AsyncClient) -> Factory:  # type: ignore[no-untyped-def]
    return Factory(app, client)


@pytest.fixture(scope="session")
def worker(service_env: dict[str, str], settings: Settings) -> Iterator[ServiceProcess]:
    """A real Celery worker process consuming every queue."""
    process = start_worker(settings, service_env)
    yield process
    process.stop(graceful=False)


@pytest.fixture(scope="session")
def beat(service_env: dict[str, str], settings: Settings) -> Iterator[ServiceProcess]:
    """Celery beat, ticking every second: recovery and promotion happen on its ticks."""
    process = ServiceProcess.cli("beat", ["beat"], service_env, settings.home)
    yield process
    process.stop(graceful=False)


@pytest.fixture
def stack(worker: ServiceProcess, beat: ServiceProcess) -> tuple[ServiceProcess, ServiceProcess]:
    """The service's own processes: a worker on every queue and beat."""
    return worker, beat


@pytest.fixture(scope="session")
def mcp_server_session() -> Iterator[McpTestServer]:
    server = McpTestServer().start()
    yield server
    server.stop()


@pytest.fixture
def mcp_server(mcp_server_session: McpTestServer) -> McpTestServer:
    """A real MCP server (the `mcp` package's) on loopback, its tool list back to the default."""
    mcp_server_session.reset()
    return mcp_server_session


@pytest.fixture(scope="session")
def loopback() -> Iterator[Loopback]:
    """A loopback HTTP server that counts requests, standing in for the internet."""
    server = Loopback().start()
    yield server
    server.stop()
