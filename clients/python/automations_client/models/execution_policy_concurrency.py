from enum import StrEnum

class ExecutionPolicyConcurrency(StrEnum):
    ALLOW_PARALLEL = "allow_parallel"
    DROP_IF_RUNNING = "drop_if_running"
    QUEUE = "queue"

    def __str__(self) -> str:
        return str(self.value)
