from enum import StrEnum

class LinkDecisionDecision(StrEnum):
    APPROVE = "approve"
    DENY = "deny"

    def __str__(self) -> str:
        return str(self.value)
