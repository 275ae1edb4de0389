"""Save-time validation of definitions against the registries, the template sandbox and the filter grammar."""

from app.engine.validation.problems import Problem, Severity, errors, warnings
from app.engine.validation.validator import Vocabulary, validate_definition

__all__ = ["Problem", "Severity", "Vocabulary", "errors", "validate_definition", "warnings"]
