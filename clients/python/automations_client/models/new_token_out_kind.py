from enum import StrEnum

class NewTokenOutKind(StrEnum):
    PERSONAL = "personal"
    SERVICE = "service"
    SESSION = "session"

    def __str__(self) -> str:
        return str(self.value)
