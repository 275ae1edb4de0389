"""What every `automations` command module shares: the settings, and configuration problems as clean
command-line errors instead of tracebacks."""

from __future__ import annotations

from typing import Any

import click
from pydantic import ValidationError

from app.config import ConfigurationError, Settings, get_settings
from app.config.reference import ENV_PREFIX, env_names


def load_settings() -> Settings:
    """The process's settings; a setting that cannot work ends the command with its message."""
    try:
        return get_settings()
    except ConfigurationError as exc:
        raise click.ClickException(str(exc)) from None
    except ValidationError as exc:
        raise click.ClickException(invalid_settings(exc)) from None


def invalid_settings(error: ValidationError) -> str:
    """Each refused value as the variables that set it and why (`AUTOMATIONS_API_WORKERS: …`); never the
    value itself, which may be a secret."""
    lines = ["invalid settings:"]
    for problem in error.errors(include_url=False):
        # A check of the settings as a whole names no field.
        where = _variables(str(problem["loc"][0])) if problem["loc"] else "settings"
        lines.append(f"  {where}: {problem['msg']}")
    return "\n".join(lines)


def _variables(location: str) -> str:
    """The environment variables of the setting a validation error names (its field or the alias used)."""
    for name, field in Settings.model_fields.items():
        names = env_names(name, field)
        if location == name or location in names:
            return " or ".join(names)
    return f"{ENV_PREFIX}{location.upper()}"


def fail_on_configuration(func: Any) -> Any:
    """A command whose configuration problems end it with their message, not a traceback."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ConfigurationError as exc:
            raise click.ClickException(str(exc)) from None

    wrapper.__name__ = func.__name__
    wrapper.__doc__ = func.__doc__
    return wrapper


def refuse_jobs(job: Any) -> None:
    """The job sender of a command's transaction: a command never queues work for the workers."""
    raise RuntimeError(f"the CLI does not send jobs ({job.name})")
