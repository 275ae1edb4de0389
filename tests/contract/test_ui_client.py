"""The web UI's API client is the API's own OpenAPI document: the committed `ui/openapi.json` and the
types generated from it (`ui/src/api-schema.d.ts`) must be what the live application produces, and every
UI module must type-check against them (`tsc --checkJs`), so a path, parameter or field the API does not
have fails here. `make ui-client` regenerates both after an API change."""

from __future__ import annotations

import difflib
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.openapi_export import DEFAULT_TARGET, openapi_text

ROOT = Path(__file__).resolve().parents[2]
UI = ROOT / "ui"
SCHEMA_TYPES = UI / "src" / "api-schema.d.ts"


def _ui_build(*args: str, cwd: Path = UI) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(UI / "build.py"), *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def _builder():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("ui_build", UI / "build.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _diff(expected: str, actual: str, name: str) -> str:
    lines = difflib.unified_diff(
        actual.splitlines(),
        expected.splitlines(),
        f"{name} (committed)",
        f"{name} (from the app)",
        lineterm="",
    )
    return "\n".join(list(lines)[:60])


def test_the_committed_openapi_document_is_the_apps() -> None:
    fresh = openapi_text()
    committed = DEFAULT_TARGET.read_text(encoding="utf-8")
    assert committed == fresh, "run `make ui-client`:\n" + _diff(fresh, committed, "ui/openapi.json")


def test_the_committed_client_types_are_generated_from_the_apps_document(tmp_path: Path) -> None:
    document = tmp_path / "openapi.json"
    document.write_text(openapi_text(), encoding="utf-8")
    target = tmp_path / "api-schema.d.ts"
    assert _builder().generate(document, target) == 0
    fresh = target.read_text(encoding="utf-8")
    committed = SCHEMA_TYPES.read_text(encoding="utf-8")
    assert committed == fresh, "run `make ui-client`:\n" + _diff(fresh, committed, "ui/src/api-schema.d.ts")


def test_every_ui_module_type_checks_against_the_api() -> None:
    checked = _ui_build("--check")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _copy_of_ui(tmp_path: Path) -> Path:
    copy = tmp_path / "ui"
    shutil.copytree(UI / "src", copy / "src")
    shutil.copy(UI / "tsconfig.json", copy / "tsconfig.json")
    (copy / "node_modules").symlink_to(UI / "node_modules")
    return copy


def test_a_field_the_api_does_not_return_and_a_path_it_does_not_have_fail_the_check(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # Both mistakes in one copy, so one type check (seconds of CPU) shows each being reported.
    copy = _copy_of_ui(tmp_path)
    page = copy / "src" / "pages" / "approvals" / "decision.js"
    text = page.read_text(encoding="utf-8")
    route = '"/api/v1/spaces/{space_id}/approvals/{approval_id}/deny"'
    assert 'h("code", {}, approval.step_id)' in text
    assert route in text
    text = text.replace("approval.step_id)", "approval.requested_by)", 1)
    page.write_text(text.replace(route, route.replace("/deny", "/refuse")), encoding="utf-8")
    assert _builder().typecheck(copy) != 0
    reported = capfd.readouterr().out
    assert "Property 'requested_by' does not exist" in reported
    assert "/refuse" in reported
