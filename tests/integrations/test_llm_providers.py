"""Each provider family LiteLlm serves, against the loopback fake speaking that provider's wire format:
the request lands where the operator's settings say (path, query, authentication), the answer is parsed,
and its usage is charged at the configured prices. Nothing here opens AUTOMATIONS_EGRESS_ALLOW: a model
endpoint is a trusted destination, loopback included."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from app.definitions.signals import StepError
from app.integrations.llm import LiteLlm
from tests.support.fake_llm import FakeLlm, error, json_reply, reply, tool_call

KEY = "fake-provider-key-0123456789"
KEY_ENV = "AUTOMATIONS_TEST_PROVIDER_KEY"
AWS_KEY_ID = "AKIDFAKEPROVIDERTEST"
AWS_SECRET = "fake-aws-secret-access-key-0123456789"
IN_PRICE, OUT_PRICE = 0.000_002, 0.000_010
HELLO = [{"role": "user", "content": "Say hello."}]
PRICES = {"input_cost_per_token": IN_PRICE, "output_cost_per_token": OUT_PRICE}

AZURE = "azure/ops-deployment"
ANTHROPIC = "anthropic/claude-sonnet-4-5"
OLLAMA = "ollama_chat/llama3.2"
BEDROCK = "bedrock/anthropic.claude-3-haiku-20240307-v1:0"
# Every provider variable these tests read or that litellm would pick up instead of the settings.
PROVIDER_VARIABLES = (
    "AZURE_API_BASE",
    "AZURE_API_KEY",
    "AZURE_API_VERSION",
    "AZURE_AD_TOKEN",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_API_BASE",
    "ANTHROPIC_BASE_URL",
    "OLLAMA_API_BASE",
    "OLLAMA_API_KEY",
    "AWS_BEDROCK_RUNTIME_ENDPOINT",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_BEARER_TOKEN_BEDROCK",
)


@pytest.fixture
def fake() -> Iterator[FakeLlm]:
    with FakeLlm() as server:
        yield server


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROVIDER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", AWS_KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", AWS_SECRET)
    monkeypatch.setenv("AWS_REGION_NAME", "us-east-1")


async def complete(llm: LiteLlm, model: str, **overrides: Any) -> Any:
    arguments: dict[str, Any] = {
        "model": model,
        "messages": HELLO,
        "tools": None,
        "response_schema": None,
        "max_tokens": 100,
        "temperature": None,
        "timeout_seconds": 10.0,
        **overrides,
    }
    return await llm.complete(**arguments)


async def failure(llm: LiteLlm, model: str, **overrides: Any) -> StepError:
    with pytest.raises(StepError) as caught:
        await complete(llm, model, **overrides)
    return caught.value


def assert_charged(answer: Any, prompt_tokens: int, completion_tokens: int) -> None:
    assert (answer.input_tokens, answer.output_tokens) == (prompt_tokens, completion_tokens)
    assert answer.cost_usd == prompt_tokens * IN_PRICE + completion_tokens * OUT_PRICE


class TestAzureOpenAI:
    def llm(self, fake: FakeLlm, **extra: Any) -> LiteLlm:
        settings = {"api_base": fake.url, "api_key_env": KEY_ENV, "api_version": "2024-10-21", **PRICES}
        return LiteLlm([AZURE], {AZURE: settings | extra})

    async def test_a_deployment_answers_at_its_url_with_the_api_key_header(self, fake: FakeLlm) -> None:
        fake.script(reply("hello from azure", prompt_tokens=21, completion_tokens=4))
        answer = await complete(self.llm(fake), AZURE)
        assert answer.content == "hello from azure"
        assert_charged(answer, 21, 4)
        assert fake.targets == ["/openai/deployments/ops-deployment/chat/completions?api-version=2024-10-21"]
        assert fake.headers[0]["api-key"] == KEY
        assert "authorization" not in fake.headers[0]
        assert fake.requests[0]["messages"] == HELLO

    async def test_the_usual_azure_variables_need_no_model_settings_but_prices(
        self, fake: FakeLlm, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("AZURE_API_BASE", fake.url)
        monkeypatch.setenv("AZURE_API_KEY", "azure-key-from-the-environment")
        monkeypatch.setenv("AZURE_API_VERSION", "2024-06-01")
        fake.script(reply("env", prompt_tokens=3, completion_tokens=2))
        answer = await complete(LiteLlm([AZURE], {AZURE: PRICES}), AZURE)
        assert answer.content == "env"
        assert fake.targets == ["/openai/deployments/ops-deployment/chat/completions?api-version=2024-06-01"]
        assert fake.headers[0]["api-key"] == "azure-key-from-the-environment"

    async def test_tool_calls_and_structured_output_go_through(self, fake: FakeLlm) -> None:
        fake.script(tool_call("lookup", {"q": "x"}), json_reply({"ok": True}))
        tools = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
        first = await complete(self.llm(fake), AZURE, tools=tools)
        assert [(call.name, json.loads(call.arguments)) for call in first.tool_calls] == [
            ("lookup", {"q": "x"})
        ]
        schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
        second = await complete(self.llm(fake, supports_response_schema=True), AZURE, response_schema=schema)
        assert json.loads(second.content) == {"ok": True}
        assert fake.requests[1]["response_format"]["type"] == "json_schema"

    async def test_an_error_quoting_the_key_is_stored_without_it(self, fake: FakeLlm) -> None:
        fake.script(error(401, f"Access denied: key {KEY} is not valid for this resource"))
        problem = await failure(self.llm(fake), AZURE)
        assert (problem.code, problem.retryable) == ("llm_refused", False)
        assert KEY not in problem.message
        assert "[redacted]" in problem.message

    async def test_no_endpoint_anywhere_is_a_configuration_error(self, fake: FakeLlm) -> None:
        llm = LiteLlm([AZURE], {AZURE: {"api_key_env": KEY_ENV, **PRICES}})
        problem = await failure(llm, AZURE)
        assert (problem.code, problem.retryable) == ("llm_misconfigured", False)
        assert "AZURE_API_BASE" in problem.message
        assert fake.requests == []


class TestAnthropic:
    async def test_messages_api_with_the_x_api_key_header(self, fake: FakeLlm) -> None:
        llm = LiteLlm([ANTHROPIC], {ANTHROPIC: {"api_base": fake.url, "api_key_env": KEY_ENV, **PRICES}})
        fake.script(reply("hello from claude", prompt_tokens=40, completion_tokens=6))
        answer = await complete(llm, ANTHROPIC, max_tokens=64)
        assert answer.content == "hello from claude"
        assert_charged(answer, 40, 6)
        assert fake.paths == ["/v1/messages"]
        assert fake.headers[0]["x-api-key"] == KEY
        assert fake.requests[0]["model"] == "claude-sonnet-4-5"
        assert fake.requests[0]["max_tokens"] == 64

    async def test_tool_use_blocks_become_tool_calls(self, fake: FakeLlm) -> None:
        llm = LiteLlm([ANTHROPIC], {ANTHROPIC: {"api_base": fake.url, "api_key_env": KEY_ENV, **PRICES}})
        fake.script(tool_call("lookup", {"q": "claude"}, id="toolu_1"))
        tools = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
        answer = await complete(llm, ANTHROPIC, tools=tools)
        assert [(c.id, c.name, json.loads(c.arguments)) for c in answer.tool_calls] == [
            ("toolu_1", "lookup", {"q": "claude"})
        ]
        assert fake.requests[0]["tools"][0]["name"] == "lookup"


class TestOllamaNative:
    async def test_api_chat_on_loopback(self, fake: FakeLlm) -> None:
        llm = LiteLlm([OLLAMA], {OLLAMA: {"api_base": fake.url, **PRICES}})
        fake.script(reply("hello from ollama", prompt_tokens=12, completion_tokens=3))
        answer = await complete(llm, OLLAMA)
        assert answer.content == "hello from ollama"
        assert_charged(answer, 12, 3)
        assert fake.paths == ["/api/chat"]
        assert "authorization" not in fake.headers[0]
        sent = fake.requests[0]
        assert (sent["model"], sent["stream"]) == ("llama3.2", False)
        assert sent["messages"][0]["content"] == "Say hello."

    async def test_ollama_api_base_from_the_environment(
        self, fake: FakeLlm, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("OLLAMA_API_BASE", fake.url)
        fake.script(reply("env"))
        assert (await complete(LiteLlm([OLLAMA], {OLLAMA: PRICES}), OLLAMA)).content == "env"
        assert fake.paths == ["/api/chat"]

    async def test_an_unpriced_ollama_model_is_refused_without_asking_the_server(self, fake: FakeLlm) -> None:
        llm = LiteLlm([OLLAMA], {OLLAMA: {"api_base": fake.url}})
        problem = await failure(llm, OLLAMA)
        assert problem.code == "unknown_model_price"
        assert fake.requests == []


class TestBedrock:
    async def test_converse_signed_with_sigv4(self, fake: FakeLlm) -> None:
        llm = LiteLlm([BEDROCK], {BEDROCK: {"api_base": fake.url, **PRICES}})
        fake.script(reply("hello from bedrock", prompt_tokens=17, completion_tokens=5))
        answer = await complete(llm, BEDROCK)
        assert answer.content == "hello from bedrock"
        assert_charged(answer, 17, 5)
        assert fake.targets == ["/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse"]
        authorization = fake.headers[0]["authorization"]
        assert authorization.startswith(f"AWS4-HMAC-SHA256 Credential={AWS_KEY_ID}/")
        assert "/us-east-1/bedrock/aws4_request" in authorization
        assert AWS_SECRET not in json.dumps(fake.headers[0])
        assert fake.requests[0]["messages"] == [{"role": "user", "content": [{"text": "Say hello."}]}]

    async def test_the_runtime_endpoint_variable_is_honoured(
        self, fake: FakeLlm, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("AWS_BEDROCK_RUNTIME_ENDPOINT", fake.url)
        fake.script(reply("env"))
        assert (await complete(LiteLlm([BEDROCK], {BEDROCK: PRICES}), BEDROCK)).content == "env"
        assert fake.paths == ["/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse"]

    async def test_an_error_quoting_the_secret_is_stored_without_it(self, fake: FakeLlm) -> None:
        fake.script(error(403, f"The request signature we calculated does not match ({AWS_SECRET})"))
        problem = await failure(LiteLlm([BEDROCK], {BEDROCK: {"api_base": fake.url, **PRICES}}), BEDROCK)
        assert (problem.code, problem.retryable) == ("llm_refused", False)
        assert AWS_SECRET not in problem.message
