"""`automations plugins check`: what the service would make of each plugin, as a separate process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.plugins import write_distribution


def check(env: dict[str, str]) -> tuple[int, dict[str, Any], str]:
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "plugins", "check"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    answer = {item["id"]: item for item in json.loads(result.stdout)["plugins"]}
    return result.returncode, answer, result.stderr


def test_allowed_plugins_load_and_list_their_names(service_env: dict[str, str]) -> None:
    code, plugins, _ = check({**service_env, "AUTOMATIONS_PLUGINS": "uptime,misbehave"})
    assert code == 0
    assert plugins["unlisted"]["status"] == "not_allowed"
    uptime = plugins["uptime"]
    assert (uptime["status"], uptime["version"]) == ("loaded", "0.1.0")
    assert (uptime["triggers"], uptime["actions"], uptime["tools"]) == (
        ["uptime.site_down"],
        ["uptime.check"],
        ["uptime.page_status"],
    )


def test_without_the_allow_list_nothing_loads(service_env: dict[str, str]) -> None:
    code, plugins, _ = check({**service_env, "AUTOMATIONS_PLUGINS": ""})
    assert code == 0
    assert {item["status"] for item in plugins.values()} == {"not_allowed"}


def test_a_broken_plugin_is_an_error_and_the_others_still_load(
    service_env: dict[str, str], tmp_path: Path
) -> None:
    write_distribution(
        tmp_path,
        "crashing-plugin",
        "1.0",
        {"crashing": "crashing_plugin_module:plugin"},
        {"crashing_plugin_module": "raise RuntimeError('cannot start')\n"},
    )
    env = {
        **service_env,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), service_env["PYTHONPATH"]]),
        "AUTOMATIONS_PLUGINS": "uptime,crashing,ghost",
    }
    code, plugins, stderr = check(env)
    assert code == 1
    assert plugins["uptime"]["status"] == "loaded"
    assert plugins["crashing"]["status"] == "error"
    assert "RuntimeError: cannot start" in plugins["crashing"]["error"]
    assert plugins["ghost"]["status"] == "error"
    assert "plugin 'crashing' skipped" in stderr
