"""Finding and loading plugins: entry points of the group `automations.plugins`, allow-listed by id.

Listing entry points reads package metadata only, so an installed plugin that `AUTOMATIONS_PLUGINS`
does not name runs none of its code. Each allowed plugin is imported and set up on its own: one that
fails is reported with its reason and skipped, and every other plugin (and the service) still starts.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import logging
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from app.registry.plugins.registrar import LoadedPlugin, Registrar
from app.registry.plugins.rules import ENTRY_POINT_GROUP, PluginRefused, check_plugin_id, namespace_of

logger = logging.getLogger("app.plugins")

PluginStatus = Literal["loaded", "error", "not_allowed"]


@dataclass(frozen=True)
class PluginReport:
    """One plugin id as this process sees it: loaded, refused (with the reason) or not allowed."""

    id: str
    status: PluginStatus
    packages: tuple[str, ...] = ()
    """The installed distributions that claim the id (more than one is an error)."""
    version: str | None = None
    error: str | None = None
    plugin: LoadedPlugin | None = None


@dataclass(frozen=True)
class PluginSet:
    """Every plugin id installed or allowed, and what became of it; `loaded` in id order."""

    reports: tuple[PluginReport, ...] = ()
    _by_id: dict[str, PluginReport] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_id.update({report.id: report for report in self.reports})

    def get(self, plugin_id: str) -> PluginReport | None:
        return self._by_id.get(plugin_id)

    @property
    def loaded(self) -> tuple[LoadedPlugin, ...]:
        return tuple(report.plugin for report in self.reports if report.plugin is not None)


def load_plugins(
    allowed: Collection[str],
    *,
    reserved: frozenset[str] = frozenset(),
    entry_points: Iterable[importlib.metadata.EntryPoint] | None = None,
    min_poll_seconds: float = 60.0,
) -> PluginSet:
    """Load the allowed plugins among the installed entry points; `reserved` are the core namespaces,
    `min_poll_seconds` the shortest period a poller may ask for."""
    found = (
        entry_points if entry_points is not None else importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    )
    by_name: dict[str, list[importlib.metadata.EntryPoint]] = {}
    for entry_point in found:
        by_name.setdefault(entry_point.name, []).append(entry_point)
    reports = [
        _report(name, points, name in allowed, reserved, min_poll_seconds) for name, points in by_name.items()
    ]
    reports += [
        _refused(name, (), "listed in AUTOMATIONS_PLUGINS, but no installed package provides it")
        for name in allowed
        if name not in by_name
    ]
    reports = _refuse_shared_namespaces(reports)
    for report in sorted(reports, key=lambda item: item.id):
        _log(report)
    return PluginSet(tuple(sorted(reports, key=lambda item: item.id)))


def _report(
    name: str,
    points: list[importlib.metadata.EntryPoint],
    allowed: bool,
    reserved: frozenset[str],
    min_poll_seconds: float,
) -> PluginReport:
    packages = tuple(sorted(_package(point) for point in points))
    if len(points) > 1:
        return _refused(
            name,
            packages,
            f"{len(points)} installed packages claim this id ({', '.join(packages)}); none is loaded",
        )
    if not allowed:
        return PluginReport(id=name, status="not_allowed", packages=packages)
    try:
        check_plugin_id(name)
        namespace = namespace_of(name, reserved)
        plugin = _load(name, namespace, points[0], min_poll_seconds)
    except PluginRefused as exc:
        return _refused(name, packages, str(exc))
    return PluginReport(id=name, status="loaded", packages=packages, version=plugin.version, plugin=plugin)


def _load(
    name: str, namespace: str, entry_point: importlib.metadata.EntryPoint, min_poll_seconds: float
) -> LoadedPlugin:
    try:
        target = entry_point.load()
    except Exception as exc:
        logger.warning("plugin %r: importing %s failed", name, entry_point.value, exc_info=True)
        raise PluginRefused(f"importing {entry_point.value} failed: {type(exc).__name__}: {exc}") from None
    version = _check_plugin_object(name, target)
    registrar = Registrar(name, namespace, min_poll_seconds)
    try:
        answer = target.setup(registrar)
    except PluginRefused:
        pass  # kept by the registrar, raised by close() below
    except Exception as exc:
        logger.warning("plugin %r: setup raised", name, exc_info=True)
        raise PluginRefused(f"setup raised {type(exc).__name__}: {exc}") from None
    else:
        if inspect.isawaitable(answer):
            if inspect.iscoroutine(answer):
                answer.close()
            raise PluginRefused("setup must be a plain function that registers and returns, not async")
    return registrar.close(version)


def _check_plugin_object(name: str, target: Any) -> str:
    """The plugin's version, once the entry point's object is known to be a plugin of this id."""
    if inspect.isclass(target) or not callable(getattr(target, "setup", None)):
        raise PluginRefused(
            "the entry point must name a plugin object (with id, version and setup(registrar)), "
            f"not {type(target).__name__ if not inspect.isclass(target) else 'a class'}"
        )
    plugin_id, version = getattr(target, "id", None), getattr(target, "version", None)
    if plugin_id != name:
        raise PluginRefused(
            f"the plugin object's id {plugin_id!r} differs from its entry point name {name!r}"
        )
    if not isinstance(version, str) or not version.strip():
        raise PluginRefused("the plugin object's version must be a non-empty string")
    return version


def _refuse_shared_namespaces(reports: list[PluginReport]) -> list[PluginReport]:
    """Two loaded plugins whose ids differ only by - and _ would share names: both are refused."""
    owners: dict[str, list[str]] = {}
    for report in reports:
        if report.plugin is not None:
            owners.setdefault(report.plugin.namespace, []).append(report.id)
    clashing = {plugin_id for ids in owners.values() if len(ids) > 1 for plugin_id in ids}
    return [
        _refused(
            report.id,
            report.packages,
            f"its namespace {report.plugin.namespace!r} is another plugin's too; neither is loaded",
        )
        if report.id in clashing and report.plugin is not None
        else report
        for report in reports
    ]


def _refused(name: str, packages: tuple[str, ...], reason: str) -> PluginReport:
    return PluginReport(id=name, status="error", packages=packages, error=reason)


def _package(entry_point: importlib.metadata.EntryPoint) -> str:
    dist = entry_point.dist
    return f"{dist.name} {dist.version}" if dist is not None else entry_point.value


def _log(report: PluginReport) -> None:
    if report.status == "error":
        logger.error("plugin %r skipped: %s", report.id, report.error)
    elif report.plugin is not None:
        plugin = report.plugin
        logger.info(
            "plugin %r %s loaded: %d triggers, %d actions, %d tools, %d pollers, %d subscriptions",
            plugin.id,
            plugin.version,
            len(plugin.events),
            len(plugin.actions),
            len(plugin.tools),
            len(plugin.pollers),
            len(plugin.subscriptions),
        )
