from enum import StrEnum

class TokenOutKind(StrEnum):
    PERSONAL = "personal"
    SERVICE = "service"
    SESSION = "session"

    def __str__(self) -> str:
        return str(self.value)
