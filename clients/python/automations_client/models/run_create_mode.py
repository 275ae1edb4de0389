from enum import StrEnum

class RunCreateMode(StrEnum):
    DRY_RUN = "dry_run"
    LIVE = "live"
    VERIFY = "verify"

    def __str__(self) -> str:
        return str(self.value)
