from enum import StrEnum

class ReplayCreateModeType0(StrEnum):
    DRY_RUN = "dry_run"
    LIVE = "live"
    VERIFY = "verify"

    def __str__(self) -> str:
        return str(self.value)
