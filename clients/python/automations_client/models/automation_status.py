from enum import StrEnum

class AutomationStatus(StrEnum):
    ACTIVE = "active"
    ARCHIVED = "archived"
    PAUSED = "paused"

    def __str__(self) -> str:
        return str(self.value)
