"""`automations export` and `automations apply` as clients of a running API, in separate processes."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.config import Settings
from app.persistence.base import utcnow
from app.persistence.models import ApprovalGrant
from app.persistence.repositories.policy import ApprovalGrantRepository
from app.persistence.transaction import transaction
from tests.support.browser import start_api
from tests.support.factories import Caller, Factory, minimal_definition

ROOT_ARGS = [sys.executable, "-m", "app.cli"]
SECRET_VALUE = "s3cr3t-value-never-in-files"


@pytest.fixture(scope="module")
def api_base(service_env: dict[str, str], settings: Settings) -> Iterator[str]:
    """A real `automations api` process the commands talk to (no worker: nothing here runs)."""
    process, base = start_api(service_env, settings.home, name="as-code-api")
    yield base
    process.stop(graceful=False)


@pytest.fixture
def cli_env(service_env: dict[str, str], api_base: str) -> dict[str, str]:
    """The environment of a CI job: the server's URL, and nothing to reach the database with."""
    env = {
        key: value
        for key, value in service_env.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "AUTOMATIONS_SECRET_KEY")
    }
    return {**env, "AUTOMATIONS_URL": api_base}


def _run(args: list[str], env: dict[str, str], token: str | None) -> subprocess.CompletedProcess[str]:
    with_token = {**env, "AUTOMATIONS_TOKEN": token} if token is not None else env
    return subprocess.run(
        [*ROOT_ARGS, *args], env=with_token, capture_output=True, text=True, timeout=120, check=False
    )


def _export(owner: Caller, folder: Path, env: dict[str, str], token: str | None = None) -> dict[str, bytes]:
    result = _run(["export", owner.space_id, str(folder)], env, token or owner.token)
    assert result.returncode == 0, result.stderr
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def _apply(
    owner: Caller, folder: Path, env: dict[str, str], *extra: str, token: str | None = None
) -> subprocess.CompletedProcess[str]:
    return _run(["apply", str(folder), "--space", owner.space_id, *extra], env, token or owner.token)


async def _owner(factory: Factory, space: str) -> Caller:
    return await factory.owner(space, f"{space.lower()}-{uuid.uuid4().hex[:8]}@example.test")


async def _scoped_token(caller: Caller, scopes: dict[str, Any]) -> str:
    made = await caller.request("POST", "/api/v1/tokens", json={"name": "ci", "scopes": scopes})
    assert made.status_code == 201, made.text
    token: str = made.json()["token"]
    return token


async def _automations(owner: Caller) -> dict[str, dict[str, Any]]:
    response = await owner.request("GET", owner.space_path("/automations"))
    assert response.status_code == 200, response.text
    return {item["name"]: item for item in response.json()["items"]}


async def _versions(owner: Caller, automation_id: str) -> int:
    response = await owner.request("GET", owner.space_path(f"/automations/{automation_id}/versions"))
    assert response.status_code == 200, response.text
    return len(response.json()["items"])


async def _seed(owner: Caller) -> None:
    """An active automation with action modes, and a paused one with a trigger."""
    report = await owner.create_automation(
        minimal_definition(name="Weekly report", description="Sums the week.")
    )
    activated = await owner.request("POST", owner.space_path(f"/automations/{report['id']}/activate"))
    assert activated.status_code == 200, activated.text
    modes = await owner.request(
        "PUT",
        owner.space_path(f"/automations/{report['id']}/action-modes"),
        json={"modes": {"http_request": "require_approval"}},
    )
    assert modes.status_code == 200, modes.text
    await owner.create_automation(
        minimal_definition(
            name="Nightly cleanup",
            goal="Tidy up.\nEvery night.",
            triggers=[{"type": "schedule", "config": {"cron": "0 3 * * *"}}],
        )
    )


def _edit(path: Path, change: Any) -> None:
    document = yaml.safe_load(path.read_text())
    change(document)
    path.write_text(yaml.safe_dump(document, sort_keys=False))


class TestExportThenApply:
    async def test_an_empty_space_gets_the_same_automations_and_statuses(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        source = await _owner(factory, "Source")
        await _seed(source)
        exported = _export(source, tmp_path / "repo", cli_env)
        assert sorted(exported) == ["nightly-cleanup.yaml", "weekly-report.yaml"]
        report = yaml.safe_load(exported["weekly-report.yaml"])
        assert report["status"] == "active"
        assert report["base_version"] == 1
        assert report["action_modes"] == {"http_request": "require_approval"}
        assert report["standing_grants"] == []
        assert "goal: |-\n    Tidy up.\n    Every night." in exported["nightly-cleanup.yaml"].decode()

        target = await _owner(factory, "Target")
        applied = _apply(target, tmp_path / "repo", cli_env)
        assert applied.returncode == 0, applied.stderr
        assert "nightly-cleanup.yaml: create" in applied.stdout
        assert "applied: 2 create, 0 update, 0 unchanged" in applied.stdout

        made = await _automations(target)
        assert {name: item["status"] for name, item in made.items()} == {
            "Weekly report": "active",
            "Nightly cleanup": "paused",
        }
        # Both spaces are at version 1, so the target's export is the source's, byte for byte.
        assert _export(target, tmp_path / "again", cli_env) == exported

    async def test_export_twice_writes_the_same_bytes(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Twice")
        await _seed(owner)
        assert _export(owner, tmp_path / "one", cli_env) == _export(owner, tmp_path / "two", cli_env)

    async def test_applying_twice_changes_nothing_the_second_time(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        source = await _owner(factory, "Source")
        await _seed(source)
        _export(source, tmp_path, cli_env)
        target = await _owner(factory, "Target")
        assert _apply(target, tmp_path, cli_env).returncode == 0

        again = _apply(target, tmp_path, cli_env)
        assert again.returncode == 0, again.stderr
        assert "applied: 0 create, 0 update, 2 unchanged" in again.stdout
        assert "---" not in again.stdout
        for item in (await _automations(target)).values():
            assert item["version"] == 1
            assert await _versions(target, item["id"]) == 1


class TestChanges:
    async def test_an_edited_file_updates_the_automation_and_shows_the_diff(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Edits")
        await _seed(owner)
        _export(owner, tmp_path, cli_env)
        _edit(
            tmp_path / "weekly-report.yaml", lambda d: d["definition"].update(description="Sums the month.")
        )
        _edit(tmp_path / "nightly-cleanup.yaml", lambda d: d.update(status="active"))

        applied = _apply(owner, tmp_path, cli_env)
        assert applied.returncode == 0, applied.stderr
        assert "-  description: Sums the week.\n+  description: Sums the month." in applied.stdout
        assert "-status: paused\n+status: active" in applied.stdout
        automations = await _automations(owner)
        assert automations["Weekly report"]["version"] == 2
        assert automations["Weekly report"]["definition"]["description"] == "Sums the month."
        # A status change is not a new definition version.
        assert automations["Nightly cleanup"]["version"] == 1
        assert automations["Nightly cleanup"]["status"] == "active"

    async def test_a_stale_base_is_refused_and_forced_through_with_force(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Stale")
        await _seed(owner)
        _export(owner, tmp_path, cli_env)
        report = (await _automations(owner))["Weekly report"]
        moved = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{report['id']}"),
            json={"definition": minimal_definition(name="Weekly report", description="Changed in the UI.")},
            headers={"If-Match": '"1"'},
        )
        assert moved.status_code == 200, moved.text
        _edit(tmp_path / "weekly-report.yaml", lambda d: d["definition"].update(description="From git."))

        refused = _apply(owner, tmp_path, cli_env)
        assert refused.returncode == 1
        assert "weekly-report.yaml /base_version: the automation is at version 2" in refused.stderr
        assert "nothing was changed" in refused.stderr
        assert (await _automations(owner))["Weekly report"]["definition"][
            "description"
        ] == "Changed in the UI."

        forced = _apply(owner, tmp_path, cli_env, "--force")
        assert forced.returncode == 0, forced.stderr
        after = (await _automations(owner))["Weekly report"]
        assert (after["version"], after["definition"]["description"]) == (3, "From git.")

    async def test_dry_run_shows_the_changes_and_makes_none(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        source = await _owner(factory, "Source")
        await _seed(source)
        _export(source, tmp_path, cli_env)
        _edit(tmp_path / "weekly-report.yaml", lambda d: d["definition"].update(description="Dry."))
        target = await _owner(factory, "Target")

        into_empty = _apply(target, tmp_path, cli_env, "--dry-run")
        assert into_empty.returncode == 0, into_empty.stderr
        assert "dry run, nothing changed: 2 create, 0 update, 0 unchanged" in into_empty.stdout
        assert await _automations(target) == {}

        on_source = _apply(source, tmp_path, cli_env, "--dry-run")
        assert on_source.returncode == 0, on_source.stderr
        assert "+  description: Dry." in on_source.stdout
        report = (await _automations(source))["Weekly report"]
        assert (report["version"], report["definition"]["description"]) == (1, "Sums the week.")

    async def test_a_paused_file_pauses_an_active_automation(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Pause")
        await _seed(owner)
        _export(owner, tmp_path, cli_env)
        _edit(tmp_path / "weekly-report.yaml", lambda d: d.update(status="paused"))
        assert _apply(owner, tmp_path, cli_env).returncode == 0
        assert (await _automations(owner))["Weekly report"]["status"] == "paused"


class TestBadFiles:
    async def test_an_invalid_definition_names_file_and_pointer_and_changes_nothing(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Bad")
        await _seed(owner)
        _export(owner, tmp_path, cli_env)
        _edit(tmp_path / "weekly-report.yaml", lambda d: d["definition"].update(description="Would change."))
        _edit(
            tmp_path / "nightly-cleanup.yaml",
            lambda d: d["definition"]["plan"][0].update(action="no_such_action"),
        )

        refused = _apply(owner, tmp_path, cli_env)
        assert refused.returncode == 1
        assert "error: nightly-cleanup.yaml /definition/plan/0/action" in refused.stderr
        assert "weekly-report.yaml" not in refused.stderr
        assert (
            "error: nightly-cleanup.yaml /definition/plan/0/action: no action type 'no_such_action' ["
            in refused.stderr
        )
        assert refused.stderr.endswith("]\nnothing was changed\n")
        # Every file is checked before any changes: the valid file's change was not made either.
        assert (await _automations(owner))["Weekly report"]["definition"]["description"] == "Sums the week."

    async def test_file_shape_problems_are_located(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Shape")
        (tmp_path / "a.yaml").write_text(
            "key: Not A Key\nstatus: running\nbase_version: -1\naction_modes: {http_request: sometimes}\n"
            "definition: {name: A, plan: [{step_id: s, action: transform_data, config: {output: {}}}]}\n"
        )
        (tmp_path / "b.yaml").write_text("key: [unclosed\n")
        (tmp_path / "c.yaml").write_text(
            "key: not-the-name\nstatus: paused\n"
            "definition: {name: C, plan: [{step_id: s, action: transform_data, config: {output: {}}}]}\n"
        )
        refused = _apply(owner, tmp_path, cli_env)
        assert refused.returncode == 1
        for expected in (
            "a.yaml /key:",
            "a.yaml /status: must be active or paused",
            "a.yaml /base_version:",
            "a.yaml /action_modes/http_request:",
            "b.yaml /: not valid YAML",
            "c.yaml /key: must be 'c'",
        ):
            assert expected in refused.stderr
        assert await _automations(owner) == {}

    async def test_a_key_given_twice_is_refused(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Twice")
        await _seed(owner)
        _export(owner, tmp_path, cli_env)
        (tmp_path / "copy.yaml").write_bytes((tmp_path / "weekly-report.yaml").read_bytes())
        refused = _apply(owner, tmp_path, cli_env)
        assert refused.returncode == 1
        assert "weekly-report.yaml /key: 'weekly-report' is also the key of copy.yaml" in refused.stderr

    async def test_someone_outside_the_space_cannot_apply(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Mine")
        await _seed(owner)
        _export(owner, tmp_path, cli_env)
        stranger = await _owner(factory, "Theirs")
        refused = _apply(owner, tmp_path, cli_env, token=stranger.token)
        assert refused.returncode == 1
        assert refused.stderr == "error: Space not found. [space_not_found]\n"

    async def test_a_member_cannot_change_action_modes(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Roles")
        await _seed(owner)
        _export(owner, tmp_path, cli_env)
        member = await factory.member(owner)
        _edit(tmp_path / "weekly-report.yaml", lambda d: d.update(action_modes={}))
        _edit(tmp_path / "nightly-cleanup.yaml", lambda d: d["definition"].update(description="Member edit."))
        refused = _apply(owner, tmp_path, cli_env, token=member.token)
        assert refused.returncode == 1
        assert "weekly-report.yaml /action_modes: Your role in this space (member)" in refused.stderr
        assert "[role_insufficient]" in refused.stderr
        # Found while checking, before any file was applied.
        assert "nothing was changed" in refused.stderr
        automations = await _automations(owner)
        assert automations["Nightly cleanup"]["version"] == 1


class TestSecrets:
    async def test_files_hold_secret_references_never_values(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Secrets")
        stored = await owner.request(
            "PUT", owner.space_path("/secrets/api_key"), json={"value": SECRET_VALUE}
        )
        assert stored.status_code == 201, stored.text
        step = {
            "step_id": "call",
            "action": "http_request",
            "config": {
                "method": "GET",
                "url": "https://example.com/",
                "headers": {"X-Api-Key": {"$secret": "api_key"}},
            },
        }
        await owner.create_automation(minimal_definition(name="Calls out", plan=[step]))
        exported = _export(owner, tmp_path, cli_env)
        text = exported["calls-out.yaml"].decode()
        assert "$secret: api_key" in text
        assert SECRET_VALUE not in text
        again = _apply(owner, tmp_path, cli_env)
        assert again.returncode == 0, again.stderr
        assert "1 unchanged" in again.stdout


class TestStandingGrants:
    async def test_live_grants_are_exported_for_review_and_never_applied(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Grants")
        made = await owner.create_automation(minimal_definition(name="Granted"))
        async with transaction(factory.app.state.sessionmaker, factory.app.state.send_job) as session:
            for capability, lapsed in (("http_request", None), ("send_email", utcnow())):
                await ApprovalGrantRepository(session).create(
                    ApprovalGrant(
                        id=uuid.uuid4(),
                        space_id=uuid.UUID(owner.space_id),
                        automation_id=uuid.UUID(made["id"]),
                        capability=capability,
                        step_id="shape",
                        target="example.com",
                        definition_version=1,
                        granted_by=uuid.UUID(owner.user_id),
                        lapsed_at=lapsed,
                    )
                )
        exported = yaml.safe_load(_export(owner, tmp_path, cli_env)["granted.yaml"])
        (grant,) = exported["standing_grants"]
        assert {key: grant[key] for key in ("capability", "step_id", "target", "granted_by")} == {
            "capability": "http_request",
            "step_id": "shape",
            "target": "example.com",
            "granted_by": owner.user_id,
        }
        _edit(tmp_path / "granted.yaml", lambda d: d.update(standing_grants=[]))
        again = _apply(owner, tmp_path, cli_env)
        assert again.returncode == 0, again.stderr
        assert "granted.yaml: unchanged" in again.stdout
        listed = await owner.request("GET", owner.space_path(f"/automations/{made['id']}/approval-grants"))
        assert listed.status_code == 200, listed.text
        assert len(listed.json()["items"]) == 2


async def test_a_file_without_base_version_does_not_overwrite_an_existing_automation(
    factory: Factory, cli_env: dict[str, str], tmp_path: Path
) -> None:
    owner = await _owner(factory, "Nobase")
    await owner.create_automation(minimal_definition(name="Existing"))
    (tmp_path / "existing.yaml").write_text(
        "key: existing\nstatus: paused\ndefinition:\n  name: Existing\n  description: Hand-written.\n"
        "  plan: [{step_id: shape, action: transform_data, config: {output: {}}}]\n"
    )
    refused = _apply(owner, tmp_path, cli_env)
    assert refused.returncode == 1
    assert "existing.yaml /base_version: missing, and the automation exists at version 1" in refused.stderr
    assert (await _automations(owner))["Existing"]["version"] == 1


async def test_activating_over_an_overlap_needs_a_coexistence_note_in_the_file(
    factory: Factory, cli_env: dict[str, str], tmp_path: Path
) -> None:
    owner = await _owner(factory, "Overlap")
    writer = {
        "step_id": "call",
        "action": "http_request",
        "config": {"method": "POST", "url": "https://api.example.com/b"},
    }
    first = await owner.create_automation(minimal_definition(name="Write b", plan=[writer]))
    assert (
        await owner.request("POST", owner.space_path(f"/automations/{first['id']}/activate"))
    ).status_code == 200
    document = {
        "key": "write-b-again",
        "status": "active",
        "definition": minimal_definition(name="Write b again", plan=[writer]),
    }
    (tmp_path / "write-b-again.yaml").write_text(yaml.safe_dump(document))

    refused = _apply(owner, tmp_path, cli_env)
    assert refused.returncode == 1
    assert "write-b-again.yaml /status: This automation overlaps 1 active automation(s)" in refused.stderr
    # The API has no transaction across calls: the file's automation was made, and left paused.
    assert "applied before the error: write-b-again.yaml (only: created paused)" in refused.stderr
    assert (await _automations(owner))["Write b again"]["status"] == "paused"

    note = "Both post to b: one for each region."
    (tmp_path / "write-b-again.yaml").write_text(yaml.safe_dump({**document, "coexistence_note": note}))
    applied = _apply(owner, tmp_path, cli_env)
    assert applied.returncode == 0, applied.stderr
    made = (await _automations(owner))["Write b again"]
    assert (made["status"], made["coexistence_note"]) == ("active", note)


class TestTokens:
    async def test_an_as_code_token_exports_and_applies_its_space(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        source = await _owner(factory, "Source")
        await _seed(source)
        target = await _owner(factory, "Target")
        exported = _export(source, tmp_path, cli_env, await _scoped_token(source, _as_code(source)))
        ci_token = await _scoped_token(target, _as_code(target))

        dry = _apply(target, tmp_path, cli_env, "--dry-run", token=ci_token)
        assert dry.returncode == 0, dry.stderr
        assert "weekly-report.yaml: create\n--- (new)\n+++ weekly-report.yaml" in dry.stdout
        assert await _automations(target) == {}

        applied = _apply(target, tmp_path, cli_env, token=ci_token)
        assert applied.returncode == 0, applied.stderr
        assert "applied: 2 create, 0 update, 0 unchanged" in applied.stdout
        again = _apply(target, tmp_path, cli_env, token=ci_token)
        assert "applied: 0 create, 0 update, 2 unchanged" in again.stdout
        assert _export(target, tmp_path / "back", cli_env, ci_token) == exported

    async def test_an_as_code_token_cannot_act_on_another_space(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        mine = await _owner(factory, "Mine")
        await _seed(mine)
        token = await _scoped_token(mine, _as_code(mine))
        _export(mine, tmp_path, cli_env, token)
        # The token's user owns a second space: the token still acts on the one it names only.
        second = await mine.request("POST", "/api/v1/spaces", json={"name": "Second"})
        assert second.status_code == 201, second.text
        refused = _run(["apply", str(tmp_path), "--space", second.json()["id"]], cli_env, token)
        assert refused.returncode == 1
        assert "[token_scope_other_space]" in refused.stderr
        assert "nothing was changed" not in refused.stderr

    async def test_missing_wrong_and_narrow_tokens_are_clear_errors(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Tokens")
        await _seed(owner)
        _export(owner, tmp_path, cli_env)

        missing = _run(["apply", str(tmp_path), "--space", owner.space_id], cli_env, None)
        assert missing.returncode == 1
        assert missing.stderr.startswith("error: no token: set AUTOMATIONS_TOKEN")

        wrong = _apply(owner, tmp_path, cli_env, token="not-a-token")
        assert wrong.returncode == 1
        assert "[invalid_token]" in wrong.stderr

        mcp_only = await _scoped_token(owner, {"mcp": {"automations": [_ids(await _automations(owner))[0]]}})
        narrow = _apply(owner, tmp_path, cli_env, token=mcp_only)
        assert narrow.returncode == 1
        assert "[token_scope_insufficient]" in narrow.stderr

    async def test_a_space_is_named_by_name_with_a_full_token_and_by_id_with_a_scoped_one(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, f"Named {uuid.uuid4().hex[:6]}")
        await _seed(owner)
        name = (await owner.request("GET", owner.space_path())).json()["name"]
        by_name = _run(["export", name, str(tmp_path)], cli_env, owner.token)
        assert by_name.returncode == 0, by_name.stderr
        assert "exported 2 automation(s)" in by_name.stdout
        scoped = await _scoped_token(owner, _as_code(owner))
        refused = _run(["apply", str(tmp_path), "--space", name], cli_env, scoped)
        assert refused.returncode == 1
        assert "a scoped token names its space by id" in refused.stderr

    async def test_a_token_on_the_command_line_is_refused(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Cmdline")
        for args in (
            ["export", owner.space_id, str(tmp_path), "--token", owner.token],
            ["apply", str(tmp_path), "--space", owner.space_id, f"--token={owner.token}"],
        ):
            refused = _run(args, cli_env, owner.token)
            assert refused.returncode == 1
            assert "never passed on the command line" in refused.stderr
            assert owner.token not in refused.stdout + refused.stderr
        in_url = _run(
            ["export", owner.space_id, str(tmp_path), "--url", f"http://me:{owner.token}@127.0.0.1:1/"],
            cli_env,
            owner.token,
        )
        assert in_url.returncode == 1
        assert "must not carry credentials" in in_url.stderr
        assert owner.token not in in_url.stderr

    async def test_an_unreachable_server_is_a_clear_error(
        self, factory: Factory, cli_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner = await _owner(factory, "Down")
        gone = _run(
            ["export", owner.space_id, str(tmp_path), "--url", "http://127.0.0.1:9/"], cli_env, owner.token
        )
        assert gone.returncode == 1
        assert "[unreachable]" in gone.stderr


def _as_code(owner: Caller) -> dict[str, Any]:
    return {"as_code": {"space": owner.space_id}}


def _ids(automations: dict[str, dict[str, Any]]) -> list[str]:
    return [item["id"] for item in automations.values()]
