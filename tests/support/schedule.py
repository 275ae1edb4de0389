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
# about ten seconds are left out. Only the order matters, so figures from a loaded machine serve. The
# two files here are the long poles seen so far: the contract run (about five minutes in CI) and
# automations-as-code, which starts the CLI as a process twice or more per test.
FILE_SECONDS: dict[str, float] = {
    "tests/contract/test_openapi_contract.py": 300,
    "tests/test_automations_as_code.py": 250,
    "tests/runs/test_direct_claims.py": 90,
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
