"""Parse, check, compile and render templates: the work done inside the sandbox process.

`Evaluator.handle` answers one request (an operation, a list of sources, one context) and turns
every failure into a `TemplateError` carried in the reply. Compiled templates are cached by source.
Nothing here is safe to run in a long-lived service process on hostile input: a single operation
may exhaust memory or CPU, which is why only the sandbox process (see `child.py`) runs it.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, ItemsView, KeysView, ValuesView
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import jinja2
from jinja2 import Template, Undefined, meta, nodes
from jinja2.exceptions import SecurityError
from jinja2.parser import Parser

from app.engine.templating.checks import find_problems
from app.engine.templating.errors import (
    MEMORY,
    OUTPUT_TOO_LARGE,
    TIMEOUT,
    TOO_COMPLEX,
    VALUE_TOO_LARGE,
    TemplateError,
    TemplateLimitError,
    TemplateRuntimeError,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateUndefinedError,
    error_to_problem,
    error_to_wire,
    problem_to_error,
)
from app.engine.templating.limits import (
    COMPILE_CPU_SECONDS,
    MAX_OUTPUT_BYTES,
    MAX_TOTAL_OUTPUT_BYTES,
    RENDER_CPU_SECONDS,
    check_source,
    check_text,
)
from app.engine.templating.sandbox import create_environment

_RESULT = "result"
_CACHE_SIZE = 256


class CpuBudgetExceeded(BaseException):
    """A compile or render used up its CPU time.

    A BaseException so that no `except Exception` inside Jinja or a filter can swallow it.
    """

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


Budget = Callable[[float | None], AbstractContextManager[object]]


def no_budget(seconds: float | None) -> AbstractContextManager[object]:
    """A budget that never expires (for in-process use where the caller bounds the time)."""
    return nullcontext()


@dataclass(frozen=True)
class _Compiled:
    template: Template
    native: bool  # True: the template assigns one expression's value to `result` instead of rendering text


def _single_expression(tree: nodes.Template) -> nodes.Expr | None:
    """The expression of a template that is exactly one `{{ expr }}`, whitespace around allowed."""
    if len(tree.body) != 1 or not isinstance(tree.body[0], nodes.Output):
        return None
    parts = [
        part
        for part in tree.body[0].nodes
        if not (isinstance(part, nodes.TemplateData) and not part.data.strip())
    ]
    if len(parts) == 1 and not isinstance(parts[0], nodes.TemplateData):
        return parts[0]
    return None


def _template_line(exc: BaseException, template: Template | None) -> int | None:
    if template is None:
        return None
    line = None
    trace = exc.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == "<template>":
            line = template.get_corresponding_lineno(trace.tb_lineno)
        trace = trace.tb_next
    return line


def convert_error(exc: BaseException, *, compiling: bool, template: Template | None = None) -> TemplateError:
    """Map anything raised while compiling or rendering to the matching `TemplateError`."""
    line = _template_line(exc, template)
    if isinstance(exc, TemplateError):
        return exc.located(line=line)
    if isinstance(exc, CpuBudgetExceeded):
        stage = "compiling" if compiling else "rendering"
        return TemplateLimitError(
            f"{stage} the template took more than {exc.seconds:g} s of CPU", code=TIMEOUT
        )
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return TemplateSyntaxError(exc.message or "invalid template syntax", line=exc.lineno)
    if isinstance(exc, jinja2.UndefinedError):
        return TemplateUndefinedError(exc.message or "undefined value", line=line)
    if isinstance(exc, SecurityError):
        return TemplateSecurityError(exc.message or "forbidden by the sandbox", line=line)
    if isinstance(exc, MemoryError):
        return TemplateLimitError("the template ran out of memory", code=MEMORY, line=line)
    # Python's own compiler refuses deep nesting with SyntaxError / IndentationError.
    if isinstance(exc, RecursionError | SyntaxError):
        what = "nests too deeply" if compiling else "recurses too deeply"
        return TemplateLimitError(f"the template {what}", code=TOO_COMPLEX, line=line)
    if isinstance(exc, OverflowError):
        return TemplateLimitError(f"a number is too large: {exc}", code=VALUE_TOO_LARGE, line=line)
    message = str(exc) or type(exc).__name__
    if compiling:  # e.g. an integer literal longer than Python converts
        return TemplateSyntaxError(message, line=line)
    if isinstance(exc, jinja2.TemplateError):
        return TemplateRuntimeError(exc.message or message, line=line)
    return TemplateRuntimeError(message, line=line)


class _Exporter:
    """Turns an expression's value into JSON data, within the output limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0

    def _count(self, size: int) -> None:
        self.size += size
        if self.size > self.limit:
            raise TemplateLimitError(
                f"the expression's value is larger than {self.limit} bytes", code=OUTPUT_TOO_LARGE
            )

    def _key(self, key: Any) -> str:
        if isinstance(key, str):
            check_text(key)
            return str(key)
        if key is None or isinstance(key, bool | int | float):
            return json.dumps(key)
        raise TemplateRuntimeError(f"an object key of type {type(key).__name__!r} is not JSON data")

    def export(self, value: Any) -> Any:
        if value is None or isinstance(value, bool):
            self._count(5)
            return value
        if isinstance(value, int):
            self._count(value.bit_length() // 3 + 2)
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                raise TemplateRuntimeError(f"the expression's value {value} is not a finite number")
            self._count(24)
            return value
        if isinstance(value, str):
            self._count(len(value) + 2)
            check_text(value)
            return str(value)
        if isinstance(value, dict):
            self._count(2)
            return {self._key(key): self.export(item) for key, item in value.items()}
        if isinstance(value, list | tuple | KeysView | ValuesView | ItemsView):
            self._count(2)
            return [self.export(element) for element in value]
        if isinstance(value, Undefined):
            str(value)  # raises the undefined error of StrictUndefined
        raise TemplateRuntimeError(
            f"the expression's value of type {type(value).__name__!r} is not JSON data"
        )


class Evaluator:
    """Answers requests: render text, evaluate values and predicates, check, list referenced names."""

    def __init__(
        self,
        budget: Budget = no_budget,
        *,
        render_seconds: float | None = RENDER_CPU_SECONDS,
        compile_seconds: float | None = COMPILE_CPU_SECONDS,
    ) -> None:
        self.environment = create_environment()
        self._budget = budget
        self._render_seconds = render_seconds
        self._compile_seconds = compile_seconds
        self._cached = functools.lru_cache(maxsize=_CACHE_SIZE)(self._compile)
        self._operations: dict[str, Callable[[str, dict[str, Any], str], tuple[Any, int]]] = {
            "render": self._render,
            "value": self._value,
            "predicate": self._predicate,
            "check": self._check,
            "names": self._names,
        }

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answer one request; the reply holds `results`, or the first `error` and its source `index`."""
        operation = self._operations.get(str(request.get("op")))
        sources = request.get("sources")
        context = request.get("context")
        mode = "predicate" if request.get("predicate") else "text"
        if operation is None or not isinstance(sources, list) or not isinstance(context, dict):
            return {"error": error_to_wire(TemplateError("malformed request to the template sandbox"))}
        results: list[Any] = []
        total = 0
        for index, source in enumerate(sources):
            try:
                result, size = operation(source, context, mode)
                total += size
                if total > MAX_TOTAL_OUTPUT_BYTES:
                    raise TemplateLimitError(
                        f"the rendered values together exceed {MAX_TOTAL_OUTPUT_BYTES} bytes",
                        code=OUTPUT_TOO_LARGE,
                    )
            except BaseException as exc:  # the reply must carry every failure, whatever it is
                error = convert_error(exc, compiling=False)
                reply: dict[str, Any] = {"error": error_to_wire(error), "index": index}
                if error.code == MEMORY:
                    reply["retire"] = True  # after a MemoryError the process state is not trusted
                return reply
            results.append(result)
        return {"results": results}

    def _parse(self, kind: str, source: str) -> tuple[nodes.Template, nodes.Expr | None]:
        check_source(source)
        if kind == "predicate" and not source.strip().startswith("{{"):
            parser = Parser(self.environment, source, state="variable")
            bare = parser.parse_expression()
            if not parser.stream.eos:
                raise TemplateSyntaxError(
                    "unexpected text after the expression", line=parser.stream.current.lineno
                )
            tree = nodes.Template([nodes.Output([bare])], lineno=1)
            tree.set_environment(self.environment)
            return tree, bare
        tree = self.environment.parse(source)
        if kind == "text":
            return tree, None
        expression = _single_expression(tree)
        if expression is None and kind == "predicate":
            raise TemplateSyntaxError("a predicate must be a single expression, like {{ x > 1 }} or x > 1")
        return tree, expression

    def _compile(self, kind: str, source: str) -> _Compiled:
        try:
            with self._budget(self._compile_seconds):
                tree, expression = self._parse(kind, source)
                problems = find_problems(tree, self.environment)
                if problems:
                    raise problem_to_error(problems[0])
                if expression is None:
                    return _Compiled(self.environment.from_string(tree), native=False)
                line = expression.lineno
                assign = nodes.Assign(nodes.Name(_RESULT, "store", lineno=line), expression, lineno=line)
                template = nodes.Template([assign], lineno=line)
                template.set_environment(self.environment)
                return _Compiled(self.environment.from_string(template), native=True)
        except BaseException as exc:
            raise convert_error(exc, compiling=True) from None

    def _get(self, kind: str, source: str) -> _Compiled:
        if not isinstance(source, str):
            raise TemplateSyntaxError(f"a template must be a string, not {type(source).__name__}")
        return self._cached(kind, source)

    def _run_text(self, template: Template, context: dict[str, Any]) -> tuple[str, int]:
        parts: list[str] = []
        size = 0
        try:
            with self._budget(self._render_seconds):
                for part in template.root_render_func(template.new_context(context)):
                    size += len(part)
                    if size > MAX_OUTPUT_BYTES:
                        raise TemplateLimitError(
                            f"template output is larger than {MAX_OUTPUT_BYTES} bytes", code=OUTPUT_TOO_LARGE
                        )
                    parts.append(part)
        except BaseException as exc:
            raise convert_error(exc, compiling=False, template=template) from None
        text = "".join(parts)
        return text, check_text(text)

    def _run_value(self, template: Template, context: dict[str, Any], export: bool) -> tuple[Any, int]:
        try:
            with self._budget(self._render_seconds):
                render_context = template.new_context(context)
                for _ in template.root_render_func(render_context):
                    pass
                value = render_context.vars[_RESULT]
                if not export:
                    return bool(value), 0
                exporter = _Exporter(MAX_OUTPUT_BYTES)
                return exporter.export(value), exporter.size
        except BaseException as exc:
            raise convert_error(exc, compiling=False, template=template) from None

    def _render(self, source: str, context: dict[str, Any], mode: str) -> tuple[Any, int]:
        return self._run_text(self._get("text", source).template, context)

    def _value(self, source: str, context: dict[str, Any], mode: str) -> tuple[Any, int]:
        compiled = self._get("value", source)
        if compiled.native:
            return self._run_value(compiled.template, context, export=True)
        return self._run_text(compiled.template, context)

    def _predicate(self, source: str, context: dict[str, Any], mode: str) -> tuple[Any, int]:
        return self._run_value(self._get("predicate", source).template, context, export=False)

    def _check(self, source: str, context: dict[str, Any], mode: str) -> tuple[Any, int]:
        try:
            with self._budget(self._compile_seconds):
                tree, _ = self._parse(mode, source)
                problems = find_problems(tree, self.environment)
        except BaseException as exc:
            problems = [error_to_problem(convert_error(exc, compiling=True))]
        if not problems:
            try:
                self._get(mode, source)
            except TemplateError as error:
                problems = [error_to_problem(error)]
        return [[problem.code, problem.message, problem.line] for problem in problems], 0

    def _names(self, source: str, context: dict[str, Any], mode: str) -> tuple[Any, int]:
        try:
            with self._budget(self._compile_seconds):
                tree, _ = self._parse(mode, source)
                return sorted(meta.find_undeclared_variables(tree)), 0
        except BaseException as exc:
            raise convert_error(exc, compiling=True) from None
