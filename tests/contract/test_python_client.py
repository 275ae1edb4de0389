"""The Python client (clients/python): the committed generated package is what the API's current
document generates (`make python-client` regenerates it), and the client drives the live API: sign-in,
an automation created, fired on demand, its run read, the runs paged through; errors come back as
`ApiError` with the API's stable code and pointer."""

from __future__ import annotations

import filecmp
import importlib.util
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from app.openapi_export import openapi_text
from tests.ui.conftest import Owner

CLIENTS = Path(__file__).resolve().parents[2] / "clients" / "python"
sys.path.insert(0, str(CLIENTS))

from automations_client import AuthenticatedClient  # noqa: E402
from automations_client.api.automations import (  # noqa: E402
    automations_create as create_automation,
)
from automations_client.api.runs import runs_get as get_run  # noqa: E402
from automations_client.api.runs import runs_list as list_runs  # noqa: E402
from automations_client.api.runs import runs_now as run_now  # noqa: E402
from automations_client.models import AutomationCreate, RunCreate  # noqa: E402
from automations_client_helpers import ApiError, expect, pages, sign_in  # noqa: E402

# Starting the API stack on a loaded two-core machine alone can take minutes.
pytestmark = pytest.mark.timeout(900)

TERMINAL = {"succeeded", "failed", "cancelled", "timed_out", "dropped"}
DEFINITION: dict[str, Any] = {
    "schema_version": "1.0",
    "name": "Client check",
    "plan": [{"step_id": "shape", "action": "transform_data", "config": {"output": {"ok": True}}}],
}


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("python_client_generate", CLIENTS / "generate.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _differences(left: Path, right: Path) -> list[str]:
    """Files that differ, or exist on one side only, between two trees (caches ignored)."""
    compared = filecmp.dircmp(left, right, ignore=["__pycache__"])
    found = [f"only in the committed client: {name}" for name in compared.left_only]
    found += [f"missing from the committed client: {name}" for name in compared.right_only]
    found += [f"differs: {name}" for name in compared.diff_files]
    for name in compared.common_dirs:
        found += [f"{name}/{item}" for item in _differences(left / name, right / name)]
    return found


def test_the_committed_client_is_generated_from_the_apps_document(tmp_path: Path) -> None:
    generator = _generator()
    fresh = tmp_path / generator.PACKAGE
    generator.generate(openapi_text(), fresh)
    differences = _differences(CLIENTS / generator.PACKAGE, fresh)
    assert not differences, "run `make python-client`:\n" + "\n".join(differences[:40])


def _finished(client: AuthenticatedClient, space_id: uuid.UUID, run_id: uuid.UUID) -> Any:
    """The run once it is terminal (read through the client until then)."""
    deadline = time.monotonic() + 60
    while True:
        run = expect(get_run.sync(space_id, run_id, client=client))
        if run.status in TERMINAL or time.monotonic() > deadline:
            return run
        time.sleep(0.2)


def test_the_client_signs_in_creates_fires_reads_and_pages_runs(ui_base: str, owner: Owner) -> None:
    space_id = uuid.UUID(owner.space_id)
    with sign_in(ui_base, owner.email, owner.password, raise_on_unexpected_status=True) as client:
        saved = expect(
            create_automation.sync(
                space_id, client=client, body=AutomationCreate.from_dict({"definition": DEFINITION})
            )
        )
        fired = [
            expect(run_now.sync(space_id, saved.id, client=client, body=RunCreate.from_dict({})))
            for _ in range(3)
        ]
        finished = [_finished(client, space_id, run.id) for run in fired]
        assert [run.status for run in finished] == ["succeeded"] * 3, [run.to_dict() for run in finished]
        assert {run.automation_id for run in finished} == {saved.id}

        paged = list(
            pages(
                lambda cursor: list_runs.sync(
                    space_id, client=client, automation_id=saved.id, limit=1, cursor=cursor
                )
            )
        )
        assert sorted(str(run.id) for run in paged) == sorted(str(run.id) for run in fired)


def test_an_error_answer_is_an_api_error_with_the_code_and_pointer(ui_base: str, owner: Owner) -> None:
    space_id = uuid.UUID(owner.space_id)
    with sign_in(ui_base, owner.email, owner.password) as client:
        broken = {**DEFINITION, "plan": [{"step_id": "shape", "action": "no_such_action", "config": {}}]}
        with pytest.raises(ApiError) as refused:
            expect(
                create_automation.sync(
                    space_id, client=client, body=AutomationCreate.from_dict({"definition": broken})
                )
            )
        assert refused.value.code == "invalid_definition"
        assert "/definition/plan/0/action" in [path for path, _ in refused.value.details]
        with pytest.raises(ApiError) as missing:
            expect(get_run.sync(space_id, uuid.uuid4(), client=client))
        assert missing.value.code == "run_not_found"


def test_a_wrong_password_is_refused(ui_base: str, owner: Owner) -> None:
    with pytest.raises(ApiError) as refused:
        sign_in(ui_base, owner.email, owner.password + " wrong")
    assert refused.value.code in {"invalid_credentials", "unauthorized"}
