"""The Jinja environment every user template runs in.

An `ImmutableSandboxedEnvironment` with nothing added: no globals, the fifteen audited filters, the
safe tests, `StrictUndefined`, autoescape off. On top of Jinja's own sandbox it

- intercepts `+`, `*`, `**` and `%`, so they are never folded at compile time and cannot build
  huge integers, strings or lists (the operand sizes are checked before the operation runs);
- allows calls only to macros, loop helpers and a short list of non-amplifying methods of strings,
  objects and lists (so no `str.format`, `center(10**9)` and the like);
- looks up object keys before methods, so `payload.items` reads the key "items" when there is one.

This module is imported by the sandbox process; the parent only needs the filter list.
"""

from __future__ import annotations

import types
from typing import Any

from jinja2 import StrictUndefined, Undefined
from jinja2.exceptions import SecurityError
from jinja2.runtime import Context, LoopContext, Macro
from jinja2.sandbox import ImmutableSandboxedEnvironment

from app.engine.templating.errors import VALUE_TOO_LARGE, TemplateLimitError, TemplateSecurityError
from app.engine.templating.filters import FILTERS, TESTS, to_text
from app.engine.templating.limits import MAX_INT_BITS, MAX_OUTPUT_BYTES

# Methods a template may call, per exact receiver type. None of them can return more than a small
# multiple of its input; padding, repetition and formatting methods are deliberately absent.
SAFE_METHODS: dict[type, frozenset[str]] = {
    str: frozenset(
        {
            "capitalize",
            "casefold",
            "count",
            "endswith",
            "find",
            "isalnum",
            "isalpha",
            "isascii",
            "isdecimal",
            "isdigit",
            "islower",
            "isnumeric",
            "isspace",
            "istitle",
            "isupper",
            "lower",
            "lstrip",
            "partition",
            "removeprefix",
            "removesuffix",
            "rfind",
            "rpartition",
            "rsplit",
            "rstrip",
            "split",
            "splitlines",
            "startswith",
            "strip",
            "swapcase",
            "title",
            "upper",
        }
    ),
    dict: frozenset({"get", "items", "keys", "values"}),
    list: frozenset({"count", "index"}),
    LoopContext: frozenset({"cycle", "changed"}),
}


def _size_hint(value: Any) -> int:
    """Rough size of a string or list, counting the characters of list items that are strings."""
    if isinstance(value, str):
        return len(value)
    return len(value) + sum(len(item) for item in value if isinstance(item, str))


def _is_int(value: Any) -> bool:
    return isinstance(value, int)


def _too_large(what: str) -> TemplateLimitError:
    return TemplateLimitError(f"{what} would be too large", code=VALUE_TOO_LARGE)


def _check_power(base: Any, exponent: Any) -> None:
    huge = _is_int(base) and _is_int(exponent) and exponent > 0 and abs(base) > 1
    if huge and abs(base).bit_length() * exponent > MAX_INT_BITS:
        raise _too_large(f"the result of {base} ** {exponent}")


def _check_product(left: Any, right: Any) -> None:
    if _is_int(left) and _is_int(right):
        if left.bit_length() + right.bit_length() > MAX_INT_BITS:
            raise _too_large("the product")
        return
    for sequence, times in ((left, right), (right, left)):
        repeated = isinstance(sequence, str | list | tuple) and _is_int(times) and times > 0
        if repeated and (times > MAX_OUTPUT_BYTES or _size_hint(sequence) * times > MAX_OUTPUT_BYTES):
            raise _too_large("the repeated string or list")


def _check_sum(left: Any, right: Any) -> None:
    sequences = isinstance(left, str | list | tuple) and isinstance(right, str | list | tuple)
    if sequences and _size_hint(left) + _size_hint(right) > MAX_OUTPUT_BYTES:
        raise _too_large("the concatenation")


def _describe_callable(obj: Any) -> str:
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    return f"{name}()" if isinstance(name, str) else f"a {type(obj).__name__} object"


def _is_safe_method(obj: Any) -> bool:
    if not isinstance(obj, types.BuiltinMethodType | types.MethodType):
        return False
    allowed = SAFE_METHODS.get(type(getattr(obj, "__self__", None)))
    return allowed is not None and obj.__name__ in allowed


class SafeEnvironment(ImmutableSandboxedEnvironment):
    """The sandboxed environment for user templates (see the module docstring for what it adds)."""

    intercepted_binops = frozenset({"+", "*", "**", "%"})

    def __init__(self) -> None:
        super().__init__(
            autoescape=False,
            undefined=StrictUndefined,
            finalize=to_text,
            # A template without markup must render to exactly itself, trailing newline included.
            keep_trailing_newline=True,
            cache_size=0,
            auto_reload=False,
        )
        self.globals.clear()  # Jinja's defaults (range, dict, lipsum, cycler, joiner, namespace)
        self.filters = dict(FILTERS)
        self.tests = dict(TESTS)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        """Run an intercepted operator after checking that its result stays small."""
        if operator == "**":
            _check_power(left, right)
        elif operator == "*":
            _check_product(left, right)
        elif operator == "+":
            _check_sum(left, right)
        elif operator == "%" and isinstance(left, str):
            # printf-style formatting takes widths ("%999999999d") and is another format language.
            raise TemplateSecurityError("'%' formatting of strings is not allowed; use filters instead")
        return self.binop_table[operator](left, right)

    def getattr(self, obj: Any, attribute: str) -> Any:
        """Dotted access: private names are refused; object keys win over methods of the same name."""
        if attribute.startswith("_"):
            return self.unsafe_undefined(obj, attribute)
        if isinstance(obj, dict) and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)

    def call(self, context: Context, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        """Call a macro, a loop helper or an allow-listed method; refuse every other callable."""
        if isinstance(obj, Undefined | Macro | LoopContext) or _is_safe_method(obj):
            return context.call(obj, *args, **kwargs)
        raise SecurityError(f"calling {_describe_callable(obj)} is not allowed in templates")


def create_environment() -> SafeEnvironment:
    """A fresh environment for user templates."""
    return SafeEnvironment()
