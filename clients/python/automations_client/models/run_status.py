from enum import StrEnum

class RunStatus(StrEnum):
    AWAITING_APPROVAL = "awaiting_approval"
    CANCELLED = "cancelled"
    DROPPED = "dropped"
    FAILED = "failed"
    PENDING = "pending"
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    TIMED_OUT = "timed_out"
    WAITING = "waiting"

    def __str__(self) -> str:
        return str(self.value)
