"""Installing plugin packages for tests: real `.dist-info` metadata on a folder put on the path.

`importlib.metadata` finds a distribution by its `<name>-<version>.dist-info` folder on `sys.path`,
exactly as pip leaves it, so the service discovers these plugins through its ordinary entry-point
lookup. Nothing is installed into the virtualenv: a clean clone runs the tests unchanged.
"""

from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

from app.registry.plugins import ENTRY_POINT_GROUP

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_PLUGIN = ROOT / "examples" / "plugins" / "uptime"


def write_distribution(
    site: Path, name: str, version: str, entry_points: dict[str, str], modules: dict[str, str] | None = None
) -> Path:
    """A distribution in `site`: its dist-info (METADATA, entry_points.txt) and its modules' sources."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    lines = [f"[{ENTRY_POINT_GROUP}]", *(f"{key} = {value}" for key, value in entry_points.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    for module, source in (modules or {}).items():
        (site / f"{module}.py").write_text(source)
    return info


def install_example_plugin(site: Path) -> list[Path]:
    """The example plugin's metadata (from its own pyproject) in `site`; answers the path entries to add."""
    project = tomllib.loads((EXAMPLE_PLUGIN / "pyproject.toml").read_text())["project"]
    write_distribution(site, project["name"], project["version"], project["entry-points"][ENTRY_POINT_GROUP])
    return [site, EXAMPLE_PLUGIN / "src"]


def install_test_plugins(site: Path) -> list[Path]:
    """What test sessions install: the example plugin, a misbehaving one (tests.support.misbehaving_plugin),
    one with a poller and a subscription (tests.support.pollster_plugin),
    `broken` (its import fails) and `unlisted` (never allowed; importing it would fail loudly)."""
    write_distribution(site, "misbehave", "1.0.0", {"misbehave": "tests.support.misbehaving_plugin:plugin"})
    write_distribution(site, "pollster", "1.0.0", {"pollster": "tests.support.pollster_plugin:plugin"})
    write_distribution(
        site,
        "automations-broken",
        "0.0.1",
        {"broken": "automations_broken_plugin:plugin"},
        {"automations_broken_plugin": "raise ImportError('a dependency of this plugin is missing')\n"},
    )
    write_distribution(
        site,
        "automations-unlisted",
        "0.0.1",
        {"unlisted": "automations_unlisted_plugin:plugin"},
        {"automations_unlisted_plugin": "raise SystemExit('an unlisted plugin must never be imported')\n"},
    )
    return [*install_example_plugin(site), ROOT]


def entry_points_in(site: Path) -> list[importlib.metadata.EntryPoint]:
    """The plugin entry points of the distributions in `site` alone."""
    return [
        point
        for dist in importlib.metadata.distributions(path=[str(site)])
        for point in dist.entry_points
        if point.group == ENTRY_POINT_GROUP
    ]
