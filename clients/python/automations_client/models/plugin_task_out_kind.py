from enum import StrEnum

class PluginTaskOutKind(StrEnum):
    POLLER = "poller"
    SUBSCRIPTION = "subscription"

    def __str__(self) -> str:
        return str(self.value)
