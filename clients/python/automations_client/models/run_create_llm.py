from enum import StrEnum

class RunCreateLlm(StrEnum):
    RUN = "run"
    SKIP = "skip"

    def __str__(self) -> str:
        return str(self.value)
