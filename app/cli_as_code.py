"""`automations export` and `automations apply`: a space's automations as files kept in git.

The commands reach the database directly, as the other operator commands do, and act as a named member
of the space (`--as`): each version and policy change they make is recorded under that person, and
that person's role limits what a file may change (a member edits automations; action modes need an
admin). See docs/automations-as-code.md.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from app.cli_common import load_settings, refuse_jobs
from app.config import Settings

T = TypeVar("T")
AS_HELP = "Email of the space member the changes are made as (or AUTOMATIONS_AS)."


async def _with_session(settings: Settings, work: Callable[[Any, Any], Awaitable[T]], *, commit: bool) -> T:
    """Run `work(session, runtime)` in one transaction, committed only when `commit` and it succeeds."""
    from app.composition import build_runtime
    from app.persistence.db import create_engine, create_sessionmaker
    from app.persistence.transaction import transaction

    engine = create_engine(
        settings.resolved_direct_database_url(), pool_size=1, application_name="automations-cli"
    )
    sessionmaker = create_sessionmaker(engine)
    try:
        runtime = build_runtime(settings, refuse_jobs, sessionmaker)
        if commit:
            async with transaction(sessionmaker, refuse_jobs) as session:
                return await work(session, runtime)
        async with sessionmaker() as session:
            try:
                return await work(session, runtime)
            finally:
                await session.rollback()
    finally:
        await engine.dispose()


def _run(settings: Settings, work: Callable[[Any, Any], Awaitable[T]], *, commit: bool) -> T:
    from app.errors import AppError

    try:
        return asyncio.run(_with_session(settings, work, commit=commit))
    except AppError as exc:
        raise click.ClickException(exc.message) from None


@click.command("export")
@click.argument("space")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--as", "email", required=True, envvar="AUTOMATIONS_AS", help=AS_HELP)
def export_automations(space: str, directory: Path, email: str) -> None:
    """Write each active or paused automation of SPACE (an id or a name) to DIRECTORY/<key>.yaml.

    The same state always writes the same bytes. Secret values are never written (definitions hold
    references); standing grants are listed for review only."""
    from app.services.automations.code_files import FILE_SUFFIXES, render
    from app.services.automations.code_sync import acting_access, export_files

    async def work(session: Any, _runtime: Any) -> list[Any]:
        return await export_files(session, await acting_access(session, space, email))

    files = _run(load_settings(), work, commit=False)
    directory.mkdir(parents=True, exist_ok=True)
    for exported in files:
        (directory / exported.file_name).write_text(render(exported), encoding="utf-8")
    written = {exported.file_name for exported in files}
    click.echo(f"exported {len(files)} automation(s) to {directory}")
    for other in sorted(path.name for path in directory.iterdir() if path.suffix in FILE_SUFFIXES):
        if other not in written:
            click.echo(f"note: {other} matches no active or paused automation of the space", err=True)


@click.command("apply")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--space", required=True, envvar="AUTOMATIONS_SPACE", help="Space id or name (or AUTOMATIONS_SPACE)."
)
@click.option("--as", "email", required=True, envvar="AUTOMATIONS_AS", help=AS_HELP)
@click.option("--dry-run", is_flag=True, help="Show what would change; change nothing.")
@click.option("--force", is_flag=True, help="Apply over changes made since a file's base version.")
def apply_automations(directory: Path, space: str, email: str, dry_run: bool, force: bool) -> None:
    """Create or update the automations of DIRECTORY's files in a space, matched by key.

    Every file is checked first and a diff shown per automation; then all changes are made in one
    transaction, or none: any problem exits 1 naming the file and the JSON pointer."""
    from app.services.automations.code_files import FILE_SUFFIXES, FileInvalid, parse
    from app.services.automations.code_sync import (
        ApplyRefused,
        Problem,
        acting_access,
        apply_changes,
        plan_apply,
    )
    from app.services.automations.vocabulary import space_vocabulary

    paths = sorted(path for path in directory.iterdir() if path.suffix in FILE_SUFFIXES and path.is_file())
    if not paths:
        raise click.ClickException(f"no automation files (*.yaml) in {directory}")
    problems: list[Problem] = []
    files = []
    for path in paths:
        try:
            files.append((path.name, parse(path.read_text(encoding="utf-8"))))
        except FileInvalid as exc:
            problems += [Problem(path.name, problem.pointer, problem.message) for problem in exc.problems]
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(Problem(path.name, "", f"cannot be read: {exc}"))

    async def work(session: Any, runtime: Any) -> tuple[list[Any], int]:
        access = await acting_access(session, space, email)
        vocabulary = await space_vocabulary(session, access, runtime.vocabulary_for)
        try:
            changes = await plan_apply(session, access, files, vocabulary, force=force)
        except ApplyRefused as exc:
            raise ApplyRefused([*problems, *exc.problems]) from None
        if problems:
            raise ApplyRefused(problems)
        _show(changes)
        if dry_run:
            return changes, 0
        return changes, await apply_changes(session, access, changes, vocabulary, force=force)

    try:
        changes, new_tokens = _run(load_settings(), work, commit=not dry_run)
    except ApplyRefused as exc:
        for problem in exc.problems:
            click.echo(f"error: {problem}", err=True)
        click.echo("nothing was changed", err=True)
        sys.exit(1)
    counts = {
        action: sum(1 for c in changes if c.action == action) for action in ("create", "update", "unchanged")
    }
    summary = ", ".join(f"{count} {action}" for action, count in counts.items())
    click.echo(f"dry run, nothing changed: {summary}" if dry_run else f"applied: {summary}")
    if new_tokens:
        click.echo(
            f"note: {new_tokens} new webhook trigger token(s) are not shown;"
            " rotate a trigger's token to get one",
            err=True,
        )


def _show(changes: list[Any]) -> None:
    for change in changes:
        click.echo(f"{change.file_name}: {change.action}")
        if change.diff:
            click.echo("".join(change.diff), nl=False)
