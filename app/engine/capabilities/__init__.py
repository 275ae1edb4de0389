"""`invoke_capability`: the one path every side effect takes, as an ordered pipeline of named rules.

A rule is `async (call, proceed) -> result`: it may inspect or refuse the call before `proceed()`,
and look at the result after. Permissions, grants, rate limits and the cost ledger are rules added to
the pipeline by name, never `if`s in the executor. docs/architecture.md describes the rules in order.
"""

from app.engine.capabilities.call import CapabilityCall, NamedRule, Proceed, Rule
from app.engine.capabilities.pipeline import CapabilityPipeline, default_rules
from app.engine.capabilities.secrets import NoSecrets, SecretResolver

__all__ = [
    "CapabilityCall",
    "CapabilityPipeline",
    "NamedRule",
    "NoSecrets",
    "Proceed",
    "Rule",
    "SecretResolver",
    "default_rules",
]
