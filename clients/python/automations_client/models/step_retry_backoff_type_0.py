from enum import StrEnum

class StepRetryBackoffType0(StrEnum):
    EXPONENTIAL = "exponential"
    LINEAR = "linear"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
