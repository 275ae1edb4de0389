from enum import StrEnum

class ApprovalDecisionOutVia(StrEnum):
    API = "api"
    EMAIL = "email"
    SLACK = "slack"

    def __str__(self) -> str:
        return str(self.value)
