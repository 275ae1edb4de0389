"""A space's view of the installed plugins, and switching one on or off (admins)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.definitions.json_schema import schema_problems
from app.errors import Conflict, ErrorDetail, NotFound, ValidationFailed
from app.persistence.base import utcnow
from app.persistence.models import SpacePlugin
from app.persistence.repositories.plugins import SpacePluginRepository
from app.persistence.types import AsyncSession
from app.registry.plugins import PluginReport, PluginSet
from app.services.identity.access import Permissions, SpaceAccess


@dataclass(frozen=True)
class SpacePluginView:
    """One plugin as a space sees it: what the installation made of it, and the space's switch."""

    report: PluginReport
    enabled: bool
    updated_at: datetime | None
    settings: dict[str, Any]

    @property
    def state(self) -> str:
        """`enabled` / `disabled` for a loaded plugin; otherwise `error` or `not_allowed`."""
        if self.report.status != "loaded":
            return self.report.status
        return "enabled" if self.enabled else "disabled"


class PluginService:
    async def list(
        self, session: AsyncSession, access: SpaceAccess, plugins: PluginSet
    ) -> list[SpacePluginView]:
        """Every plugin installed or allowed, in id order, with the space's switch."""
        access.require(Permissions.read)
        switches = await SpacePluginRepository(session).for_space(access.space_id)
        return [self._view(report, switches.get(report.id)) for report in plugins.reports]

    async def get(
        self, session: AsyncSession, access: SpaceAccess, plugins: PluginSet, plugin_id: str
    ) -> SpacePluginView:
        access.require(Permissions.read)
        report = self._report(plugins, plugin_id)
        return self._view(report, await SpacePluginRepository(session).get(access.space_id, plugin_id))

    async def set_enabled(
        self,
        session: AsyncSession,
        access: SpaceAccess,
        plugins: PluginSet,
        plugin_id: str,
        enabled: bool,
        settings: dict[str, Any] | None = None,
    ) -> SpacePluginView:
        """Switch the plugin on or off in the space, and replace its settings when given; only a loaded
        plugin can be switched on, and settings must match the schema it registered."""
        access.require(Permissions.manage_space)
        report = self._report(plugins, plugin_id)
        if enabled and report.status != "loaded":
            reason = report.error if report.status == "error" else "it is not listed in AUTOMATIONS_PLUGINS"
            raise Conflict(f"Plugin {plugin_id!r} cannot be enabled: {reason}", code="plugin_unavailable")
        values: dict[str, Any] = {"enabled": enabled, "updated_by": access.user_id}
        if settings is not None:
            values["settings"] = _checked_settings(report, settings)
        repository = SpacePluginRepository(session)
        switch = await repository.get(access.space_id, plugin_id)
        if enabled and (switch is None or not switch.enabled):
            # Subscriptions hear events from here on; a settings change alone keeps this place.
            values["enabled_at"] = utcnow()
        if switch is None:
            switch = await repository.create(
                SpacePlugin(space_id=access.space_id, plugin_id=plugin_id, **values)
            )
        else:
            await repository.update(switch, values)
        return self._view(report, switch)

    def _report(self, plugins: PluginSet, plugin_id: str) -> PluginReport:
        report = plugins.get(plugin_id)
        if report is None:
            raise NotFound(f"No plugin {plugin_id!r} is installed.", code="plugin_not_found")
        return report

    def _view(self, report: PluginReport, switch: SpacePlugin | None) -> SpacePluginView:
        return SpacePluginView(
            report=report,
            enabled=bool(switch and switch.enabled and report.status == "loaded"),
            updated_at=switch.updated_at if switch is not None else None,
            settings=dict(switch.settings or {}) if switch is not None else {},
        )


def _has_secret(value: Any) -> bool:
    if isinstance(value, dict):
        return "$secret" in value or any(_has_secret(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_secret(item) for item in value)
    return False


def _detail(problem: str) -> ErrorDetail:
    """A schema problem line (`<pointer>: <message>`) as a detail under `/settings`."""
    pointer, _, message = problem.partition(": ")
    if not pointer.startswith("/") and pointer != "":
        return ErrorDetail(path="/settings", message=problem)
    return ErrorDetail(path="/settings" + pointer, message=message or problem)


def _checked_settings(report: PluginReport, settings: dict[str, Any]) -> dict[str, Any]:
    """The settings when they match the plugin's settings schema; 422 `invalid_plugin_settings` if not."""
    schema = report.plugin.settings_schema if report.plugin is not None else None
    if schema is None:
        if settings:
            raise ValidationFailed(
                f"Plugin {report.id!r} takes no settings.",
                code="invalid_plugin_settings",
                details=[ErrorDetail(path="/settings", message="this plugin registered no settings")],
            )
        return {}
    if _has_secret(settings):
        raise ValidationFailed(
            "Plugin settings are shown in answers and cannot hold a secret reference.",
            code="invalid_plugin_settings",
            details=[ErrorDetail(path="/settings", message='no {"$secret": …} in settings')],
        )
    problems = schema_problems(schema, settings)
    if problems:
        raise ValidationFailed(
            f"The settings do not match plugin {report.id!r}'s settings schema.",
            code="invalid_plugin_settings",
            details=[_detail(problem) for problem in problems],
        )
    return settings


plugin_service = PluginService()
