from enum import StrEnum

class WebhookEndpointsListSpaceDeliveriesStatusType0(StrEnum):
    FAILED = "failed"
    PENDING = "pending"
    SUCCEEDED = "succeeded"

    def __str__(self) -> str:
        return str(self.value)
