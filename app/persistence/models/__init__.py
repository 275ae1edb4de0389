"""All models, imported here so Alembic and the mappers see every table."""

from app.persistence.models.automations import Automation, AutomationStatus, AutomationVersion
from app.persistence.models.tenancy import ApiToken, Membership, Role, Space, User

__all__ = [
    "ApiToken",
    "Automation",
    "AutomationStatus",
    "AutomationVersion",
    "Membership",
    "Role",
    "Space",
    "User",
]
