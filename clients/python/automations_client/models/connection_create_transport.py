from enum import StrEnum

class ConnectionCreateTransport(StrEnum):
    HTTP = "http"
    STDIO = "stdio"

    def __str__(self) -> str:
        return str(self.value)
