"""A problem found in a definition: where (JSON pointer), what (stable code), how bad."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    path: str
    code: str
    message: str
    severity: Severity = "error"

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "code": self.code, "message": self.message, "severity": self.severity}


def errors(problems: list[Problem]) -> list[Problem]:
    return [problem for problem in problems if problem.severity == "error"]


def warnings(problems: list[Problem]) -> list[Problem]:
    return [problem for problem in problems if problem.severity == "warning"]
