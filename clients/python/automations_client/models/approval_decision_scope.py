from enum import StrEnum

class ApprovalDecisionScope(StrEnum):
    ALWAYS = "always"
    ALWAYS_SPACE = "always_space"
    ONCE = "once"

    def __str__(self) -> str:
        return str(self.value)
