"""The order in which parallel sessions (pytest-xdist, `--dist loadfile`) take test files: the longest
first.

A session takes whole files; the run ends when the last file ends. Left to itself xdist hands out the
files with the most tests first, but a file of few slow tests (a contract run, a browser page) then
starts late and runs on alone while the other session idles. Handing out the longest files first, by
seconds measured in a whole run, keeps both sessions busy to the end. Files not in the table (new or
quick ones) follow, the most tests first, as xdist would order them.

Refresh the table from a run's JUnit report when the order drifts:

    pytest -n 2 --dist loadfile --junitxml=/tmp/suite.xml
    python -m tests.support.schedule /tmp/suite.xml
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Protocol, TypeVar

# Seconds per file (setup + call + teardown of its tests) in a whole run on two cores; files under
# ten seconds are left out. Only the order matters, so figures from a loaded machine serve.
FILE_SECONDS: dict[str, float] = {
    "tests/contract/test_openapi_contract.py": 180,
    "tests/runs/test_direct_claims.py": 105,
    "tests/test_automations_as_code.py": 101,
    "tests/ui/test_automation_page.py": 86,
    "tests/test_bench_smoke.py": 83,
    "tests/ui/test_visual_pages.py": 78,
    "tests/ui/test_connections_page.py": 77,
    "tests/scaling/test_node_failure.py": 50,
    "tests/ui/test_pages.py": 47,
    "tests/contract/test_python_client.py": 40,
    "tests/ui/test_run_events_access.py": 37,
    "tests/ui/test_settings_page.py": 37,
    "tests/ui/test_template_editor.py": 42,
    "tests/ui/test_documents_page.py": 36,
    "tests/runs/test_policies.py": 36,
    "tests/contract/test_ui_client.py": 33,
    "tests/test_dev_stack.py": 33,
    "tests/ui/test_literal_secret.py": 40,
    "tests/ui/test_run_page.py": 32,
    "tests/ui/test_plan_blocks.py": 31,
    "tests/mcp_server/test_processes.py": 31,
    "tests/runs/test_resilience.py": 28,
    "tests/ui/test_input_defaults_page.py": 27,
    "tests/ui/test_approval_channels.py": 26,
    "tests/ui/test_queue_page.py": 25,
    "tests/ui/test_approvals_phone.py": 24,
    "tests/ui/test_invitation_page.py": 23,
    "tests/runs/test_wait_events_and_children.py": 23,
    "tests/test_serving.py": 22,
    "tests/api/test_metrics.py": 22,
    "tests/ui/test_spending_limits.py": 21,
    "tests/ui/test_policy_pages.py": 21,
    "tests/plugins/test_runs.py": 19,
    "tests/test_cli_models.py": 19,
    "tests/ui/test_secret_hosts_page.py": 16,
    "tests/triggers/test_events.py": 15,
    "tests/mcp/test_runs.py": 15,
    "tests/scaling/test_pgbouncer.py": 15,
    "tests/outbound/test_worker_restart.py": 14,
    "tests/ui/test_mcp_exposure_page.py": 14,
    "tests/agent/test_agent_task.py": 14,
    "tests/identity/test_signin.py": 13,
    "tests/tryout/test_run_modes.py": 13,
    "tests/security/test_truncation.py": 12,
    "tests/test_cli.py": 11,
    "tests/databases/test_roles.py": 11,
    "tests/runs/test_waits.py": 11,
    "tests/governed/test_approvals.py": 11,
    "tests/mcp_server/test_fire_path.py": 11,
    "tests/integrations/test_llm.py": 11,
    "tests/security/test_redaction.py": 11,
    "tests/engine/test_mapping.py": 10,
    "tests/mcp/test_oauth.py": 10,
    "tests/governed/test_slack_approvals.py": 10,
    "tests/ui/test_draft_to_run.py": 10,
    "tests/governed/test_agent_approvals.py": 10,
}


class _Item(Protocol):
    nodeid: str


ItemT = TypeVar("ItemT", bound=_Item)


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def longest_files_first(items: Sequence[ItemT], seconds: dict[str, float] = FILE_SECONDS) -> list[ItemT]:
    """`items` grouped by file, the files in decreasing measured time, then by decreasing number of
    tests; the tests of one file keep their order."""
    by_file: dict[str, list[ItemT]] = defaultdict(list)
    for item in items:
        by_file[file_of(item.nodeid)].append(item)
    ordered = sorted(by_file, key=lambda path: (-seconds.get(path, 0.0), -len(by_file[path])))
    return [item for path in ordered for item in by_file[path]]


def seconds_per_file(junit_xml: str) -> dict[str, float]:
    """Seconds per test file in a JUnit report (pytest's `--junitxml`), the longest first."""
    totals: Counter[str] = Counter()
    # The report of one's own run, not untrusted input.
    for case in ElementTree.parse(junit_xml).getroot().iter("testcase"):  # noqa: S314
        path = case.get("classname", "").split(".")
        # pytest writes "tests.api.test_x.TestClass" or "tests.api.test_x": the file is the part
        # up to the first name that is not a package or module of the tests.
        module = next((i for i, part in enumerate(path) if part.startswith("test_")), len(path) - 1)
        totals["/".join(path[: module + 1]) + ".py"] += float(case.get("time", "0"))
    return dict(totals.most_common())


def main(argv: list[str]) -> None:
    """Print `FILE_SECONDS` for the files of at least ten seconds in the report `argv[0]`."""
    lines = ["FILE_SECONDS: dict[str, float] = {"]
    lines += [
        f'    "{path}": {total:.0f},' for path, total in seconds_per_file(argv[0]).items() if total >= 10
    ]
    sys.stdout.write("\n".join([*lines, "}"]) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
