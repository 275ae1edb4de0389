from enum import StrEnum

class SearchOutMode(StrEnum):
    FULLTEXT = "fulltext"
    HYBRID = "hybrid"
    VECTOR = "vector"

    def __str__(self) -> str:
        return str(self.value)
