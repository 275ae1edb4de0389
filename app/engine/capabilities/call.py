"""One capability call travelling through the pipeline, and the shape of a rule."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from app.definitions.signals import CallId
from app.registry import Capability

ChosenBy = Literal["definition", "agent"]

if TYPE_CHECKING:
    from app.engine.context import ActionContext


@dataclass
class CapabilityCall:
    """One invocation: who asks (the context), what (capability id and arguments), under which identity.

    `capability` is filled in by the resolve rule (or set beforehand for the engine's internal
    capabilities, such as an agent's model turn). `notes` lets rules leave facts for later rules
    (e.g. the worst-case cost the budget rule computed), never values of secrets.
    """

    ctx: ActionContext
    capability_id: str
    args: dict[str, Any]
    id: CallId
    capability: Capability | None = None
    chosen_by: ChosenBy = "definition"
    """Who chose this call: the saved definition (a tight step, `call_tool`) or an agent's model."""
    notes: dict[str, Any] = field(default_factory=dict)

    def resolved(self) -> Capability:
        """The capability, once the resolve rule has run (a rule placed before it is a wiring bug)."""
        if self.capability is None:
            raise RuntimeError(f"{self.capability_id}: a rule ran before the capability was resolved")
        return self.capability


Proceed = Callable[[], Awaitable[Any]]
Rule = Callable[[CapabilityCall, Proceed], Awaitable[Any]]
"""`async (call, proceed) -> result`: inspect or refuse the call, `await proceed()`, look at the result."""


@dataclass(frozen=True)
class NamedRule:
    """A rule with the name the pipeline orders and replaces it by."""

    name: str
    rule: Rule
