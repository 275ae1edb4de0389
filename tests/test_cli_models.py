"""`automations models check`: each allowed model checked as a call would be, without sending anything."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.support.fake_llm import FakeLlm

PRICES = {"input_cost_per_token": 0, "output_cost_per_token": 0}
# Variables of the machine that would answer for a model these tests mean to leave unconfigured.
UNSET = ("AZURE_API_BASE", "ANTHROPIC_API_KEY", "OLLAMA_API_BASE")


def check(
    service_env: dict[str, str], allowed: list[str], models: dict[str, Any]
) -> tuple[int, dict[str, Any]]:
    env = {name: value for name, value in service_env.items() if name not in UNSET}
    env["AUTOMATIONS_LLM_ALLOWED_MODELS"] = json.dumps(allowed)
    env["AUTOMATIONS_LLM_MODELS"] = json.dumps(models)
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "models", "check"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.stdout, result.stderr
    answer = {item["model"]: item for item in json.loads(result.stdout)["models"]}
    return result.returncode, answer


def test_models_that_could_not_be_called_are_named_with_the_reason(service_env: dict[str, str]) -> None:
    with FakeLlm() as local:
        allowed = [
            "ollama_chat/llama3.2",
            "azure/ops-deployment",
            "anthropic/claude-sonnet-4-5",
            "nosuchprovider/x",
            "ollama/unpriced",
        ]
        models = {
            "ollama_chat/llama3.2": {"api_base": local.url, **PRICES},
            "azure/ops-deployment": PRICES,
            "ollama/unpriced": {"api_base": local.url},
        }
        code, answer = check(service_env, allowed, models)
        assert local.requests == []
    assert code == 1
    assert answer["ollama_chat/llama3.2"] == {
        "model": "ollama_chat/llama3.2",
        "status": "ok",
        "problem": None,
    }
    problems = {model: item["problem"].split(":", 1)[0] for model, item in answer.items() if item["problem"]}
    assert problems == {
        "azure/ops-deployment": "llm_misconfigured",
        "anthropic/claude-sonnet-4-5": "llm_misconfigured",
        "nosuchprovider/x": "llm_unknown_provider",
        "ollama/unpriced": "unknown_model_price",
    }
    assert "AZURE_API_BASE" in answer["azure/ops-deployment"]["problem"]
    assert "ANTHROPIC_API_KEY" in answer["anthropic/claude-sonnet-4-5"]["problem"]


def test_a_configured_installation_passes(service_env: dict[str, str]) -> None:
    allowed = ["ollama_chat/llama3.2", "azure/ops-deployment"]
    models = {
        "ollama_chat/llama3.2": {"api_base": "http://127.0.0.1:11434", **PRICES},
        "azure/ops-deployment": {"api_base": "https://acme.openai.azure.com", **PRICES},
    }
    code, answer = check(service_env, allowed, models)
    assert code == 0
    assert {item["status"] for item in answer.values()} == {"ok"}
