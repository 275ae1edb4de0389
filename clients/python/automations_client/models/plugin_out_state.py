from enum import StrEnum

class PluginOutState(StrEnum):
    DISABLED = "disabled"
    ENABLED = "enabled"
    ERROR = "error"
    NOT_ALLOWED = "not_allowed"

    def __str__(self) -> str:
        return str(self.value)
