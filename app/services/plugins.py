"""A space's view of the installed plugins, and switching one on or off (admins)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import Conflict, NotFound
from app.persistence.models import SpacePlugin
from app.persistence.repositories.plugins import SpacePluginRepository
from app.registry.plugins import PluginReport, PluginSet
from app.services.access import Permissions, SpaceAccess


@dataclass(frozen=True)
class SpacePluginView:
    """One plugin as a space sees it: what the installation made of it, and the space's switch."""

    report: PluginReport
    enabled: bool
    updated_at: datetime | None

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
        self, session: AsyncSession, access: SpaceAccess, plugins: PluginSet, plugin_id: str, enabled: bool
    ) -> SpacePluginView:
        """Switch the plugin on or off in the space; only a loaded plugin can be switched on."""
        access.require(Permissions.manage_space)
        report = self._report(plugins, plugin_id)
        if enabled and report.status != "loaded":
            reason = report.error if report.status == "error" else "it is not listed in AUTOMATIONS_PLUGINS"
            raise Conflict(f"Plugin {plugin_id!r} cannot be enabled: {reason}", code="plugin_unavailable")
        repository = SpacePluginRepository(session)
        switch = await repository.get(access.space_id, plugin_id)
        if switch is None:
            switch = await repository.create(
                SpacePlugin(
                    space_id=access.space_id, plugin_id=plugin_id, enabled=enabled, updated_by=access.user_id
                )
            )
        else:
            await repository.update(switch, {"enabled": enabled, "updated_by": access.user_id})
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
        )


plugin_service = PluginService()
