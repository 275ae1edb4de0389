from enum import StrEnum

class WebhookEndpointCreateEventsItem(StrEnum):
    APPROVAL_DECIDED = "approval.decided"
    APPROVAL_REQUESTED = "approval.requested"
    AUTOMATION_RUN = "automation.run.*"
    AUTOMATION_RUN_CANCELLED = "automation.run.cancelled"
    AUTOMATION_RUN_DROPPED = "automation.run.dropped"
    AUTOMATION_RUN_FAILED = "automation.run.failed"
    AUTOMATION_RUN_SUCCEEDED = "automation.run.succeeded"
    AUTOMATION_RUN_TIMED_OUT = "automation.run.timed_out"

    def __str__(self) -> str:
        return str(self.value)
