"""`automations export` and `automations apply`: a space's automations as files kept in git.

The commands are clients of a running server's REST API, as the web UI is: `--url` (or
AUTOMATIONS_URL) names the server, and the token comes from AUTOMATIONS_TOKEN only, never from the
command line, where it would be kept in shell history and CI logs. A token with the `as_code` scope
limited to the space is enough (see docs/automations-as-code.md); each change is recorded under the
token's user, whose role limits what a file may change (a member edits automations; action modes need
an admin).
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlsplit

import click

if TYPE_CHECKING:
    from app.integrations.service_api import ServiceApi

TOKEN_ENV = "AUTOMATIONS_TOKEN"  # noqa: S105 - the name of the variable, not a token
URL_HELP = "The server's base URL, e.g. https://automations.example.com (or AUTOMATIONS_URL)."
TOKEN_REFUSED = (
    f"a token is never passed on the command line (shell history, CI logs keep it): set {TOKEN_ENV}"
)


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


def _refuse_token_option(_ctx: click.Context, _param: click.Parameter, value: Any) -> None:
    if value is not None:
        _fail(TOKEN_REFUSED)


def _server_options(command: Any) -> Any:
    command = click.option("--url", required=True, envvar="AUTOMATIONS_URL", help=URL_HELP)(command)
    # Accepted only to be refused with the reason, rather than as an unknown option.
    return click.option(
        "--token", hidden=True, expose_value=False, callback=_refuse_token_option, is_eager=True
    )(command)


def _api(url: str) -> ServiceApi:
    """A client of the server at `url`, as the token in AUTOMATIONS_TOKEN."""
    from app.integrations.service_api import ServiceApi

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        _fail(
            f"--url must be an http(s) URL of the server, e.g. https://automations.example.com; got {url!r}"
        )
    if parts.username or parts.password or parts.query:
        _fail(f"--url must not carry credentials or a query: {TOKEN_REFUSED}")
    # One line per request would bury the diff (and the server's address) in a CI log.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        _fail(
            f"no token: set {TOKEN_ENV} to an API token (one with the as_code scope for the space suffices)"
        )
    return ServiceApi(url, token)


@click.command("export")
@click.argument("space")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@_server_options
def export_automations(space: str, directory: Path, url: str) -> None:
    """Write each active or paused automation of SPACE (an id, or with a full-access token a name) to
    DIRECTORY/<key>.yaml.

    The same state always writes the same bytes. Secret values are never written (definitions hold
    references); standing grants are listed for review only."""
    from app.integrations.service_api import ApiRefused
    from app.services.automations.code_files import FILE_SUFFIXES, render
    from app.services.automations.code_sync import export_files, space_of

    try:
        with _api(url) as api:
            files = export_files(api, space_of(api, space))
    except ApiRefused as exc:
        _fail(str(exc))
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
@_server_options
@click.option("--dry-run", is_flag=True, help="Show what would change; change nothing.")
@click.option("--force", is_flag=True, help="Apply over changes made since a file's base version.")
def apply_automations(directory: Path, space: str, url: str, dry_run: bool, force: bool) -> None:
    """Create or update the automations of DIRECTORY's files in a space, matched by key.

    Every file is checked first against the space (nothing changes while any file has a problem) and a
    diff shown per automation; then the changes are made file by file. Any problem exits 1 naming the
    file, the JSON pointer and the API's error code."""
    from app.integrations.service_api import ApiRefused
    from app.services.automations.code_files import FILE_SUFFIXES, FileInvalid, parse
    from app.services.automations.code_sync import ApplyRefused, Problem, apply_changes, plan_apply, space_of

    paths = sorted(path for path in directory.iterdir() if path.suffix in FILE_SUFFIXES and path.is_file())
    if not paths:
        _fail(f"no automation files (*.yaml) in {directory}")
    problems: list[Problem] = []
    files = []
    for path in paths:
        try:
            files.append((path.name, parse(path.read_text(encoding="utf-8"))))
        except FileInvalid as exc:
            problems += [Problem(path.name, problem.pointer, problem.message) for problem in exc.problems]
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(Problem(path.name, "", f"cannot be read: {exc}"))

    try:
        with _api(url) as api:
            target = space_of(api, space)
            try:
                changes = plan_apply(api, target, files, force=force)
            except ApplyRefused as exc:
                raise ApplyRefused([*problems, *exc.problems]) from None
            if problems:
                raise ApplyRefused(problems)
            _show(changes)
            applied = None if dry_run else apply_changes(api, target, changes, force=force)
    except ApiRefused as exc:
        _fail(str(exc))
    except ApplyRefused as exc:
        for problem in exc.problems:
            click.echo(f"error: {problem}", err=True)
        if exc.applied:
            click.echo(f"applied before the error: {', '.join(exc.applied)}; the rest was not", err=True)
        else:
            click.echo("nothing was changed", err=True)
        sys.exit(1)
    counts = {
        action: sum(1 for c in changes if c.action == action) for action in ("create", "update", "unchanged")
    }
    summary = ", ".join(f"{count} {action}" for action, count in counts.items())
    click.echo(f"dry run, nothing changed: {summary}" if applied is None else f"applied: {summary}")
    if applied is not None and applied.new_tokens:
        click.echo(
            f"note: {applied.new_tokens} new webhook trigger token(s) are not shown;"
            " rotate a trigger's token to get one",
            err=True,
        )


def _show(changes: list[Any]) -> None:
    for change in changes:
        click.echo(f"{change.file_name}: {change.action}")
        if change.diff:
            click.echo("".join(change.diff), nl=False)
