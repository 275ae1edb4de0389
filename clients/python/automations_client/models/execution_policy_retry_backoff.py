from enum import StrEnum

class ExecutionPolicyRetryBackoff(StrEnum):
    EXPONENTIAL = "exponential"
    LINEAR = "linear"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
