from enum import StrEnum

class ApprovalGrantOutStatus(StrEnum):
    ACTIVE = "active"
    LAPSED = "lapsed"

    def __str__(self) -> str:
        return str(self.value)
