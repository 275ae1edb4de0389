"""`automations export` and `automations apply` against the test database, as a separate process."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import yaml

from app.persistence.base import utcnow
from app.persistence.models import ApprovalGrant
from app.persistence.repositories.policy import ApprovalGrantRepository
from app.persistence.transaction import transaction
from tests.support.factories import Caller, Factory, minimal_definition

ROOT_ARGS = [sys.executable, "-m", "app.cli"]
SECRET_VALUE = "s3cr3t-value-never-in-files"


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ROOT_ARGS, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _export(owner: Caller, email: str, folder: Path, env: dict[str, str]) -> dict[str, bytes]:
    result = _run(["export", owner.space_id, str(folder), "--as", email], env)
    assert result.returncode == 0, result.stderr
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def _apply(
    owner: Caller, email: str, folder: Path, env: dict[str, str], *extra: str
) -> subprocess.CompletedProcess[str]:
    return _run(["apply", str(folder), "--space", owner.space_id, "--as", email, *extra], env)


async def _owner(factory: Factory, space: str) -> tuple[Caller, str]:
    email = f"{space.lower()}-{uuid.uuid4().hex[:8]}@example.test"
    return await factory.owner(space, email), email


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
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        source, source_email = await _owner(factory, "Source")
        await _seed(source)
        exported = _export(source, source_email, tmp_path / "repo", service_env)
        assert sorted(exported) == ["nightly-cleanup.yaml", "weekly-report.yaml"]
        report = yaml.safe_load(exported["weekly-report.yaml"])
        assert report["status"] == "active"
        assert report["base_version"] == 1
        assert report["action_modes"] == {"http_request": "require_approval"}
        assert report["standing_grants"] == []
        assert "goal: |-\n    Tidy up.\n    Every night." in exported["nightly-cleanup.yaml"].decode()

        target, target_email = await _owner(factory, "Target")
        applied = _apply(target, target_email, tmp_path / "repo", service_env)
        assert applied.returncode == 0, applied.stderr
        assert "nightly-cleanup.yaml: create" in applied.stdout
        assert "applied: 2 create, 0 update, 0 unchanged" in applied.stdout

        made = await _automations(target)
        assert {name: item["status"] for name, item in made.items()} == {
            "Weekly report": "active",
            "Nightly cleanup": "paused",
        }
        # Both spaces are at version 1, so the target's export is the source's, byte for byte.
        assert _export(target, target_email, tmp_path / "again", service_env) == exported

    async def test_export_twice_writes_the_same_bytes(
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner, email = await _owner(factory, "Twice")
        await _seed(owner)
        assert _export(owner, email, tmp_path / "one", service_env) == _export(
            owner, email, tmp_path / "two", service_env
        )

    async def test_applying_twice_changes_nothing_the_second_time(
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        source, source_email = await _owner(factory, "Source")
        await _seed(source)
        _export(source, source_email, tmp_path, service_env)
        target, target_email = await _owner(factory, "Target")
        assert _apply(target, target_email, tmp_path, service_env).returncode == 0

        again = _apply(target, target_email, tmp_path, service_env)
        assert again.returncode == 0, again.stderr
        assert "applied: 0 create, 0 update, 2 unchanged" in again.stdout
        assert "---" not in again.stdout
        for item in (await _automations(target)).values():
            assert item["version"] == 1
            assert await _versions(target, item["id"]) == 1


class TestChanges:
    async def test_an_edited_file_updates_the_automation_and_shows_the_diff(
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner, email = await _owner(factory, "Edits")
        await _seed(owner)
        _export(owner, email, tmp_path, service_env)
        _edit(
            tmp_path / "weekly-report.yaml", lambda d: d["definition"].update(description="Sums the month.")
        )
        _edit(tmp_path / "nightly-cleanup.yaml", lambda d: d.update(status="active"))

        applied = _apply(owner, email, tmp_path, service_env)
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
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner, email = await _owner(factory, "Stale")
        await _seed(owner)
        _export(owner, email, tmp_path, service_env)
        report = (await _automations(owner))["Weekly report"]
        moved = await owner.request(
            "PUT",
            owner.space_path(f"/automations/{report['id']}"),
            json={"definition": minimal_definition(name="Weekly report", description="Changed in the UI.")},
            headers={"If-Match": '"1"'},
        )
        assert moved.status_code == 200, moved.text
        _edit(tmp_path / "weekly-report.yaml", lambda d: d["definition"].update(description="From git."))

        refused = _apply(owner, email, tmp_path, service_env)
        assert refused.returncode == 1
        assert "weekly-report.yaml /base_version: the automation is at version 2" in refused.stderr
        assert "nothing was changed" in refused.stderr
        assert (await _automations(owner))["Weekly report"]["definition"][
            "description"
        ] == "Changed in the UI."

        forced = _apply(owner, email, tmp_path, service_env, "--force")
        assert forced.returncode == 0, forced.stderr
        after = (await _automations(owner))["Weekly report"]
        assert (after["version"], after["definition"]["description"]) == (3, "From git.")

    async def test_dry_run_shows_the_changes_and_makes_none(
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        source, source_email = await _owner(factory, "Source")
        await _seed(source)
        _export(source, source_email, tmp_path, service_env)
        _edit(tmp_path / "weekly-report.yaml", lambda d: d["definition"].update(description="Dry."))
        target, target_email = await _owner(factory, "Target")

        into_empty = _apply(target, target_email, tmp_path, service_env, "--dry-run")
        assert into_empty.returncode == 0, into_empty.stderr
        assert "dry run, nothing changed: 2 create, 0 update, 0 unchanged" in into_empty.stdout
        assert await _automations(target) == {}

        on_source = _apply(source, source_email, tmp_path, service_env, "--dry-run")
        assert on_source.returncode == 0, on_source.stderr
        assert "+  description: Dry." in on_source.stdout
        report = (await _automations(source))["Weekly report"]
        assert (report["version"], report["definition"]["description"]) == (1, "Sums the week.")

    async def test_a_paused_file_pauses_an_active_automation(
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner, email = await _owner(factory, "Pause")
        await _seed(owner)
        _export(owner, email, tmp_path, service_env)
        _edit(tmp_path / "weekly-report.yaml", lambda d: d.update(status="paused"))
        assert _apply(owner, email, tmp_path, service_env).returncode == 0
        assert (await _automations(owner))["Weekly report"]["status"] == "paused"


class TestBadFiles:
    async def test_an_invalid_definition_names_file_and_pointer_and_changes_nothing(
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner, email = await _owner(factory, "Bad")
        await _seed(owner)
        _export(owner, email, tmp_path, service_env)
        _edit(tmp_path / "weekly-report.yaml", lambda d: d["definition"].update(description="Would change."))
        _edit(
            tmp_path / "nightly-cleanup.yaml",
            lambda d: d["definition"]["plan"][0].update(action="no_such_action"),
        )

        refused = _apply(owner, email, tmp_path, service_env)
        assert refused.returncode == 1
        assert "error: nightly-cleanup.yaml /definition/plan/0/action" in refused.stderr
        assert "weekly-report.yaml" not in refused.stderr
        # (The test installation's broken plugin logs its own traceback while loading; ours shows none.)
        assert refused.stderr.endswith(
            "error: nightly-cleanup.yaml /definition/plan/0/action: no action type "
            "'no_such_action'\nnothing was changed\n"
        )
        # All or nothing: the valid file's change was not made either.
        assert (await _automations(owner))["Weekly report"]["definition"]["description"] == "Sums the week."

    async def test_file_shape_problems_are_located(
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner, email = await _owner(factory, "Shape")
        (tmp_path / "a.yaml").write_text(
            "key: Not A Key\nstatus: running\nbase_version: -1\naction_modes: {http_request: sometimes}\n"
            "definition: {name: A, plan: [{step_id: s, action: transform_data, config: {output: {}}}]}\n"
        )
        (tmp_path / "b.yaml").write_text("key: [unclosed\n")
        (tmp_path / "c.yaml").write_text(
            "key: not-the-name\nstatus: paused\n"
            "definition: {name: C, plan: [{step_id: s, action: transform_data, config: {output: {}}}]}\n"
        )
        refused = _apply(owner, email, tmp_path, service_env)
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
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner, email = await _owner(factory, "Twice")
        await _seed(owner)
        _export(owner, email, tmp_path, service_env)
        (tmp_path / "copy.yaml").write_bytes((tmp_path / "weekly-report.yaml").read_bytes())
        refused = _apply(owner, email, tmp_path, service_env)
        assert refused.returncode == 1
        assert "weekly-report.yaml /key: 'weekly-report' is also the key of copy.yaml" in refused.stderr

    async def test_someone_outside_the_space_cannot_apply(
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner, email = await _owner(factory, "Mine")
        await _seed(owner)
        _export(owner, email, tmp_path, service_env)
        _, stranger = await _owner(factory, "Theirs")
        refused = _apply(owner, stranger, tmp_path, service_env)
        assert refused.returncode == 1
        assert "is not a member of a space" in refused.stderr

    async def test_a_member_cannot_change_action_modes(
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner, email = await _owner(factory, "Roles")
        await _seed(owner)
        _export(owner, email, tmp_path, service_env)
        member = await factory.member(owner)
        member_email = (await member.request("GET", "/api/v1/me")).json()["email"]
        _edit(tmp_path / "weekly-report.yaml", lambda d: d.update(action_modes={}))
        _edit(tmp_path / "nightly-cleanup.yaml", lambda d: d["definition"].update(description="Member edit."))
        refused = _apply(owner, member_email, tmp_path, service_env)
        assert refused.returncode == 1
        assert "weekly-report.yaml /action_modes: Your role in this space (member)" in refused.stderr
        automations = await _automations(owner)
        assert automations["Nightly cleanup"]["version"] == 1


class TestSecrets:
    async def test_files_hold_secret_references_never_values(
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner, email = await _owner(factory, "Secrets")
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
        exported = _export(owner, email, tmp_path, service_env)
        text = exported["calls-out.yaml"].decode()
        assert "$secret: api_key" in text
        assert SECRET_VALUE not in text
        again = _apply(owner, email, tmp_path, service_env)
        assert again.returncode == 0, again.stderr
        assert "1 unchanged" in again.stdout


class TestStandingGrants:
    async def test_live_grants_are_exported_for_review_and_never_applied(
        self, factory: Factory, service_env: dict[str, str], tmp_path: Path
    ) -> None:
        owner, email = await _owner(factory, "Grants")
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
        exported = yaml.safe_load(_export(owner, email, tmp_path, service_env)["granted.yaml"])
        (grant,) = exported["standing_grants"]
        assert {key: grant[key] for key in ("capability", "step_id", "target", "granted_by")} == {
            "capability": "http_request",
            "step_id": "shape",
            "target": "example.com",
            "granted_by": email,
        }
        _edit(tmp_path / "granted.yaml", lambda d: d.update(standing_grants=[]))
        again = _apply(owner, email, tmp_path, service_env)
        assert again.returncode == 0, again.stderr
        assert "granted.yaml: unchanged" in again.stdout
        listed = await owner.request("GET", owner.space_path(f"/automations/{made['id']}/approval-grants"))
        assert listed.status_code == 200, listed.text
        assert len(listed.json()["items"]) == 2


async def test_a_file_without_base_version_does_not_overwrite_an_existing_automation(
    factory: Factory, service_env: dict[str, str], tmp_path: Path
) -> None:
    owner, email = await _owner(factory, "Nobase")
    await owner.create_automation(minimal_definition(name="Existing"))
    (tmp_path / "existing.yaml").write_text(
        "key: existing\nstatus: paused\ndefinition:\n  name: Existing\n  description: Hand-written.\n"
        "  plan: [{step_id: shape, action: transform_data, config: {output: {}}}]\n"
    )
    refused = _apply(owner, email, tmp_path, service_env)
    assert refused.returncode == 1
    assert "existing.yaml /base_version: missing, and the automation exists at version 1" in refused.stderr
    assert (await _automations(owner))["Existing"]["version"] == 1


async def test_activating_over_an_overlap_needs_a_coexistence_note_in_the_file(
    factory: Factory, service_env: dict[str, str], tmp_path: Path
) -> None:
    owner, email = await _owner(factory, "Overlap")
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

    refused = _apply(owner, email, tmp_path, service_env)
    assert refused.returncode == 1
    assert "write-b-again.yaml /status: This automation overlaps 1 active automation(s)" in refused.stderr
    assert "Write b again" not in await _automations(owner)

    note = "Both post to b: one for each region."
    (tmp_path / "write-b-again.yaml").write_text(yaml.safe_dump({**document, "coexistence_note": note}))
    applied = _apply(owner, email, tmp_path, service_env)
    assert applied.returncode == 0, applied.stderr
    made = (await _automations(owner))["Write b again"]
    assert (made["status"], made["coexistence_note"]) == ("active", note)
