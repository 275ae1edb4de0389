from enum import StrEnum

class ScheduleConfigCatchUp(StrEnum):
    LATEST = "latest"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
