"""The `automations` command: api, worker, beat, dev (embedded stack), migrate, create-admin,
set-password, check, rotate-key, plugins check, models check, export and apply (automations as files)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click

from app.cli_accounts import create_admin, rotate_key, set_password
from app.cli_as_code import apply_automations, export_automations
from app.cli_common import fail_on_configuration, load_settings, refuse_jobs
from app.cli_health import check, worker_alive
from app.config import Settings
from app.config.cores import usable_cores

ROOT = Path(__file__).resolve().parent.parent
# prometheus-client's own variable: set, its metrics live in files there, shared by every process.
METRICS_FOLDER_ENV = "PROMETHEUS_MULTIPROC_DIR"
CHILD_STOP_TIMEOUT_SECONDS = 20.0
# The api's CPU priority under `automations dev`, where it shares the machine's cores with the worker
# (AUTOMATIONS_API_CPU_NICE): under overload the runs it accepted finish before it takes more.
DEV_API_CPU_NICE = 10
# Pool processes of `automations dev`'s worker at most: the production default (two per core) on a
# 2-core machine, where the outside load test measures it, and a bounded footprint on a larger one (each
# pool process holds about 70 MB of its own).
DEV_WORKER_PROCESSES = 4


@click.group()
def main() -> None:
    """Self-hosted automation service."""
    logging.basicConfig(
        level=os.environ.get("AUTOMATIONS_LOG_LEVEL", "INFO"),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


main.add_command(create_admin)
main.add_command(set_password)
main.add_command(rotate_key)
main.add_command(export_automations)
main.add_command(apply_automations)
main.add_command(check)
main.add_command(worker_alive)


@main.command()
@click.option("--host", default=None, help="Bind address (default AUTOMATIONS_API_HOST or 127.0.0.1).")
@click.option("--port", type=int, default=None, help="Port (default PORT or 8000).")
@click.option(
    "--workers",
    type=click.IntRange(1, 256),
    default=None,
    help="API processes sharing the port (default AUTOMATIONS_API_WORKERS, else the CPU count).",
)
@fail_on_configuration
def api(host: str | None, port: int | None, workers: int | None) -> None:
    """Serve the REST API with uvicorn: one process per core unless told otherwise."""
    from app.serving import lower_cpu_priority, serve

    settings = load_settings()
    settings.resolved_database_url()
    count = api_workers(workers, settings)
    prepare_metrics_folder(settings)
    lower_cpu_priority(settings.api_cpu_nice)
    serve(
        app="app.main:create_app",
        factory=True,
        host=host or settings.api_host,
        port=port or settings.api_port,
        workers=count,
        log_level="info",
        proxy_headers=True,
    )


def api_workers(option: int | None, settings: Settings) -> int:
    """How many API processes: the option, else AUTOMATIONS_API_WORKERS, else one per core it may use."""
    return option or settings.api_workers or usable_cores()


def prepare_metrics_folder(settings: Settings) -> Path | None:
    """Point every process started from here on at one metrics folder (`PROMETHEUS_MULTIPROC_DIR`).

    Called before anything imports prometheus-client, which picks its multiprocess mode at import;
    API workers and Celery pool children inherit the variable. Files of processes no longer running
    are removed (their gauges are stale; Prometheus reads their counters going away as a reset).
    Nothing is set when metrics are off.
    """
    if not settings.metrics_enabled:
        return None
    folder = Path(os.environ.get(METRICS_FOLDER_ENV) or settings.home / "metrics").resolve()
    folder.mkdir(parents=True, exist_ok=True)
    for path in folder.glob("*.db"):
        pid = path.stem.rsplit("_", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            path.unlink(missing_ok=True)
    os.environ[METRICS_FOLDER_ENV] = str(folder)
    return folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


@main.command(context_settings={"ignore_unknown_options": True})
@click.option("-Q", "--queues", default="runs.fast,runs.medium,runs.long,system", show_default=True)
@click.option(
    "-c",
    "--concurrency",
    type=int,
    default=None,
    help="Worker processes (default: AUTOMATIONS_WORKER_CONCURRENCY, else twice the CPU count).",
)
@click.option("-n", "--hostname", default=None, help="Node name, e.g. fast1@%h.")
@click.argument("celery_args", nargs=-1, type=click.UNPROCESSED)
@fail_on_configuration
def worker(queues: str, concurrency: int | None, hostname: str | None, celery_args: tuple[str, ...]) -> None:
    """Run a Celery worker consuming the given queues."""
    prepare_metrics_folder(load_settings())
    from app.worker.celery_app import WORKER_OPTIONS, create_celery

    argv = ["worker", "-Q", queues, "--loglevel=INFO", *WORKER_OPTIONS]
    if concurrency:
        argv += ["-c", str(concurrency)]
    if hostname:
        argv += ["-n", hostname]
    create_celery(load_settings()).worker_main([*argv, *celery_args])


@main.command()
@fail_on_configuration
def beat() -> None:
    """Run Celery beat (the periodic ticks). One is enough; a second is harmless (docs/scaling.md)."""
    from app.worker.celery_app import create_celery

    settings = load_settings()
    settings.home.mkdir(parents=True, exist_ok=True)
    prepare_metrics_folder(settings)
    schedule = settings.home / "celerybeat-schedule"
    create_celery(settings).start(["beat", "--loglevel=INFO", f"--schedule={schedule}"])


def run_migrations(database_url: str | None = None) -> None:
    """Apply every Alembic revision up to head."""
    from alembic.config import Config

    from alembic import command

    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "alembic"))
    config.attributes["configure_logger"] = False
    if database_url:
        config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    command.upgrade(config, "head")


async def _sync_operator_webhook(settings: Settings, database_url: str) -> bool:
    """Create, update or remove the operator-wide webhook endpoint from the settings; True if one is set."""
    from app.persistence.db import create_engine, create_sessionmaker
    from app.persistence.transaction import transaction
    from app.services.outbound.endpoints import sync_operator_endpoint
    from app.services.resources.vault import keyring_for

    secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else None
    engine = create_engine(database_url, pool_size=1, application_name="automations-cli")
    try:
        async with transaction(create_sessionmaker(engine), refuse_jobs) as session:
            endpoint = await sync_operator_endpoint(
                session, keyring_for(settings), settings.webhook_url, secret
            )
    finally:
        await engine.dispose()
    return endpoint is not None


@main.command()
@fail_on_configuration
def migrate() -> None:
    """Apply database migrations (alembic upgrade head), then the operator-wide webhook endpoint."""
    settings = load_settings()
    # Past any pooler: a migration may need the session to itself (DDL, locks held across statements).
    run_migrations(settings.resolved_direct_database_url())
    click.echo("database is at the latest revision")
    try:
        if asyncio.run(_sync_operator_webhook(settings, settings.resolved_direct_database_url())):
            click.echo("operator-wide webhook endpoint set from AUTOMATIONS_WEBHOOK_URL")
    except ValueError as exc:
        raise click.ClickException(f"AUTOMATIONS_WEBHOOK_SECRET: {exc}") from None


@main.group()
def plugins() -> None:
    """Installed plugins (AUTOMATIONS_PLUGINS lists the ids this installation may load)."""


@plugins.command("check")
@fail_on_configuration
def plugins_check() -> None:
    """Load the allowed plugins as the service does and print what became of each; exit 1 if one failed."""
    from app.registry.plugins import load_plugins
    from app.registry.registries import native_namespaces

    settings = load_settings()
    found = load_plugins(
        settings.plugin_ids, reserved=native_namespaces(), min_poll_seconds=settings.plugin_poll_min_seconds
    )
    answer = [
        {
            "id": report.id,
            "status": report.status,
            "version": report.version,
            "packages": list(report.packages),
            "error": report.error,
            "triggers": [event.type for event in report.plugin.events] if report.plugin else [],
            "actions": [action.type for action in report.plugin.actions] if report.plugin else [],
            "tools": list(report.plugin.tools) if report.plugin else [],
        }
        for report in found.reports
    ]
    click.echo(json.dumps({"plugins": answer}, indent=2))
    if any(report.status == "error" for report in found.reports):
        sys.exit(1)


@main.group()
def models() -> None:
    """The LLM models this installation allows (AUTOMATIONS_LLM_ALLOWED_MODELS)."""


@models.command("check")
@fail_on_configuration
def models_check() -> None:
    """Check each allowed model's provider, key, endpoint and price as a call would, without sending
    anything; print the findings and exit 1 if a model could not be called."""
    from app.integrations.llm import LiteLlm

    settings = load_settings()
    try:
        llm = LiteLlm(settings.llm_allowed_models, settings.llm_models)
    except ValueError as exc:
        raise click.ClickException(f"AUTOMATIONS_LLM_MODELS: {exc}") from None
    problems = llm.configuration_problems()
    answer = [
        {"model": model, "status": "error" if model in problems else "ok", "problem": problems.get(model)}
        for model in settings.llm_allowed_models
    ]
    click.echo(json.dumps({"models": answer}, indent=2))
    if problems:
        sys.exit(1)


def _spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "app.cli", *args], env=env)


def dev_environment(settings: Settings, home: Path) -> dict[str, str]:
    """The environment `automations dev` starts its processes with: this one, its home, and the api's
    lower CPU priority unless the settings name one."""
    env = dict(os.environ)
    env["AUTOMATIONS_HOME"] = str(home)
    if "api_cpu_nice" not in settings.model_fields_set:
        env["AUTOMATIONS_API_CPU_NICE"] = str(DEV_API_CPU_NICE)
    return env


def dev_worker_processes(settings: Settings) -> int:
    """Pool processes of `automations dev`'s worker: AUTOMATIONS_WORKER_CONCURRENCY when set, else the
    worker's default (two per core) up to `DEV_WORKER_PROCESSES`."""
    from app.worker.celery_app import default_concurrency

    return settings.worker_concurrency or min(default_concurrency(), DEV_WORKER_PROCESSES)


@main.command()
@click.option("--port", type=int, default=None, help="API port (default PORT or 8000).")
@fail_on_configuration
def dev(port: int | None) -> None:
    """Run everything locally: embedded PostgreSQL and Redis (unless DATABASE_URL / REDIS_URL are set),
    migrations, then api + worker + beat. Ctrl-C stops it all; the data stays in AUTOMATIONS_HOME."""
    from app.devstack import EmbeddedStack, start_postgres, start_redis

    settings = load_settings()
    home = settings.home.resolve()
    home.mkdir(parents=True, exist_ok=True)
    env = dev_environment(settings, home)
    stack = EmbeddedStack(
        home=home, database_url=settings.database_url or "", redis_url=settings.redis_url or ""
    )
    children: list[subprocess.Popen[bytes]] = []
    try:
        if not settings.database_url:
            stack.postgres, stack.database_url = start_postgres(home)
        if not settings.redis_url:
            stack.redis_process, stack.redis_url = start_redis(home)
        stack.write_stack_file()
        env["DATABASE_URL"] = stack.database_url
        env["REDIS_URL"] = stack.redis_url
        run_migrations(stack.database_url)
        asyncio.run(_sync_operator_webhook(settings, stack.database_url))
        api_port = str(port or settings.api_port)
        children = [
            _spawn(["api", "--port", api_port], env),
            _spawn(["worker", "-c", str(dev_worker_processes(settings))], env),
            _spawn(["beat"], env),
        ]
        click.echo(
            f"automations: API on http://{settings.api_host}:{api_port}/docs  (Ctrl-C stops everything)"
        )
        _wait_for_children(children)
    finally:
        _stop_children(children)
        stack.stop()


def _wait_for_children(children: list[subprocess.Popen[bytes]]) -> None:
    stop = False

    def request_stop(signum: int, _frame: Any) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    while not stop:
        exited = [child for child in children if child.poll() is not None]
        if exited:
            raise click.ClickException(
                f"a child process exited (code {exited[0].returncode}); stopping the stack"
            )
        time.sleep(0.2)


def _stop_children(children: list[subprocess.Popen[bytes]]) -> None:
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + CHILD_STOP_TIMEOUT_SECONDS
    for child in children:
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


if __name__ == "__main__":
    main()
