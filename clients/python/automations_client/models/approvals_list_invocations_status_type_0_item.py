from enum import StrEnum

class ApprovalsListInvocationsStatusType0Item(StrEnum):
    APPROVED = "approved"
    DENIED = "denied"
    EXECUTED = "executed"
    EXECUTING = "executing"
    EXPIRED = "expired"
    FAILED = "failed"
    PENDING = "pending"
    SUPPRESSED = "suppressed"

    def __str__(self) -> str:
        return str(self.value)
