from enum import StrEnum

class ReplayCreateLlmType0(StrEnum):
    RUN = "run"
    SKIP = "skip"

    def __str__(self) -> str:
        return str(self.value)
