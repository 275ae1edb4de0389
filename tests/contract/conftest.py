"""The contract test reuses the browser tests' API process fixtures (a real `automations api`)."""

from tests.ui.conftest import owner, ui_base, ui_env

__all__ = ["owner", "ui_base", "ui_env"]
