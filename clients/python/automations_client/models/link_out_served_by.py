from enum import StrEnum

class LinkOutServedBy(StrEnum):
    API = "api"
    STORE = "store"

    def __str__(self) -> str:
        return str(self.value)
