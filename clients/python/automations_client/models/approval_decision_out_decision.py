from enum import StrEnum

class ApprovalDecisionOutDecision(StrEnum):
    APPROVE = "approve"
    DENY = "deny"

    def __str__(self) -> str:
        return str(self.value)
