from enum import StrEnum

class ExecutionPolicyWritePolicy(StrEnum):
    ALWAYS_DRAFT = "always_draft"
    AUTO_CONFIRM_SAFE = "auto_confirm_safe"

    def __str__(self) -> str:
        return str(self.value)
