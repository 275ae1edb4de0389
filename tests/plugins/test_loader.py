"""Loading plugins from installed packages: the allow-list, and every way a plugin can be broken.

Each test writes real distributions (dist-info metadata and modules) into its own folder, so the
loader reads them through `importlib.metadata` as it reads packages pip installed.
"""

from __future__ import annotations

import logging
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from app.registry.plugins import PluginSet, load_plugins
from app.registry.registries import native_namespaces
from tests.support.plugins import entry_points_in, write_distribution

GOOD = """
class Plugin:
    version = "1.2.3"

    def __init__(self, plugin_id):
        self.id = plugin_id

    def setup(self, registrar):
        async def handler(ctx, args):
            return {{}}
        schema = {{"type": "object"}}
        registrar.register_tool("lookup", handler, "Looks up.", schema, schema, "read")

plugin = Plugin({plugin_id!r})
"""


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def module_name() -> str:
    return f"plugin_{uuid.uuid4().hex[:12]}"


def install(site: Path, plugin_id: str, source: str, *, package: str | None = None) -> str:
    module = module_name()
    write_distribution(
        site, package or f"pkg-{module}", "1.0", {plugin_id: f"{module}:plugin"}, {module: source}
    )
    return module


def load(site: Path, *allowed: str) -> PluginSet:
    return load_plugins(allowed, reserved=native_namespaces(), entry_points=entry_points_in(site))


def test_an_allowed_plugin_loads_with_its_registrations(site: Path) -> None:
    install(site, "acme", GOOD.format(plugin_id="acme"))
    found = load(site, "acme")
    report = found.get("acme")
    assert report is not None
    assert report.status == "loaded"
    assert report.version == "1.2.3"
    assert [plugin.id for plugin in found.loaded] == ["acme"]


def test_an_installed_plugin_not_allowed_runs_none_of_its_code(site: Path) -> None:
    marker = site / "imported"
    module = install(site, "acme", f"open({str(marker)!r}, 'w').close()\n" + GOOD.format(plugin_id="acme"))
    report = load(site).get("acme")
    assert report is not None
    assert report.status == "not_allowed"
    assert report.plugin is None
    assert not marker.exists()
    assert module not in sys.modules


def test_an_import_error_is_reported_and_the_others_still_load(
    site: Path, caplog: pytest.LogCaptureFixture
) -> None:
    install(site, "broken", "import a_module_that_is_not_installed\n")
    install(site, "acme", GOOD.format(plugin_id="acme"))
    with caplog.at_level(logging.INFO, logger="app.plugins"):
        found = load(site, "broken", "acme")
    broken = found.get("broken")
    assert broken is not None
    assert broken.status == "error"
    assert "ModuleNotFoundError" in (broken.error or "")
    assert [plugin.id for plugin in found.loaded] == ["acme"]
    assert any("plugin 'broken' skipped" in record.getMessage() for record in caplog.records)


def plugin_class(setup: str = "def setup(self, r):\n        pass", **attributes: object) -> str:
    fields = {"id": "acme", "version": "1", **attributes}
    lines = [f"    {name} = {value!r}" for name, value in fields.items()]
    return "class P:\n" + "\n".join(lines) + f"\n    {setup}\nplugin = P()\n"


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("def plugin():\n    pass\n", "must name a plugin object"),
        ("plugin = 42\n", "must name a plugin object"),
        (plugin_class().replace("plugin = P()", "plugin = P"), "not a class"),
        (plugin_class(id="other"), "differs from its entry point name"),
        (plugin_class(version=None), "version must be a non-empty string"),
        (
            plugin_class("def setup(self, r):\n        raise ValueError('boom')"),
            "setup raised ValueError: boom",
        ),
        (plugin_class("async def setup(self, r):\n        pass"), "not async"),
    ],
)
def test_an_entry_point_that_is_not_a_working_plugin_object_is_refused(
    site: Path, source: str, reason: str
) -> None:
    install(site, "acme", source)
    report = load(site, "acme").get("acme")
    assert report is not None
    assert report.status == "error"
    assert reason in (report.error or "")


def test_fifty_one_actions_refuse_the_plugin(site: Path) -> None:
    source = textwrap.dedent(
        """
        class P:
            id = "acme"
            version = "1"
            def setup(self, registrar):
                async def handler(ctx, args):
                    return {}
                for index in range(51):
                    schema = {"type": "object"}
                    registrar.register_action(f"a{index}", handler, "d", schema, schema, "read")
        plugin = P()
        """
    )
    install(site, "acme", source)
    report = load(site, "acme").get("acme")
    assert report is not None
    assert report.status == "error"
    assert "more than 50 actions" in (report.error or "")


def test_two_packages_claiming_one_id_are_both_refused_before_any_import(site: Path) -> None:
    first = install(site, "acme", GOOD.format(plugin_id="acme"), package="first-package")
    second = install(site, "acme", GOOD.format(plugin_id="acme"), package="second-package")
    report = load(site, "acme").get("acme")
    assert report is not None
    assert report.status == "error"
    assert "2 installed packages claim this id" in (report.error or "")
    assert report.packages == ("first-package 1.0", "second-package 1.0")
    assert first not in sys.modules
    assert second not in sys.modules


def test_ids_that_differ_only_by_hyphen_and_underscore_are_both_refused(site: Path) -> None:
    install(site, "a-b", GOOD.format(plugin_id="a-b"))
    install(site, "a_b", GOOD.format(plugin_id="a_b"))
    install(site, "acme", GOOD.format(plugin_id="acme"))
    found = load(site, "a-b", "a_b", "acme")
    assert [(r.id, r.status) for r in found.reports] == [
        ("a-b", "error"),
        ("a_b", "error"),
        ("acme", "loaded"),
    ]


@pytest.mark.parametrize("plugin_id", ["http", "Acme", "-x", "a"])
def test_an_id_that_breaks_the_rules_or_takes_a_core_namespace_is_refused(site: Path, plugin_id: str) -> None:
    install(site, plugin_id, GOOD.format(plugin_id=plugin_id))
    report = load(site, plugin_id).get(plugin_id)
    assert report is not None
    assert report.status == "error"


def test_an_allowed_id_nothing_provides_is_reported(site: Path) -> None:
    report = load(site, "ghost").get("ghost")
    assert report is not None
    assert report.status == "error"
    assert "no installed package" in (report.error or "")
