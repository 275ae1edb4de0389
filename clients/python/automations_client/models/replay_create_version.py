from enum import StrEnum

class ReplayCreateVersion(StrEnum):
    CURRENT = "current"
    SNAPSHOT = "snapshot"

    def __str__(self) -> str:
        return str(self.value)
