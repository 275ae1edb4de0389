from enum import StrEnum

class WebhookConfigOutputVisibility(StrEnum):
    CALLER = "caller"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
