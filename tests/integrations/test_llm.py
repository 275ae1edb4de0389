"""LiteLlm against a loopback OpenAI-compatible server: replies, costs, errors, endpoints, token counts.

The other provider families (Azure OpenAI, Anthropic, Ollama, Bedrock) are in test_llm_providers.py."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from app.definitions.signals import StepError
from app.integrations.llm import LiteLlm, ModelSettings
from app.integrations.llm.clients import HTTP_HANDLER_PROVIDERS
from app.registry.llm_ports import LlmPort
from app.security.egress.client import DEFAULT_MAX_RESPONSE_BYTES
from tests.support.fake_llm import FakeLlm, error, json_reply, reply, tool_call, tool_calls

MODEL = "openai/test-model"
KEY = "sk-fake-test-key-0123456789"
KEY_ENV = "AUTOMATIONS_TEST_LLM_KEY"
IN_PRICE = 0.000_003
OUT_PRICE = 0.000_015
HELLO = [{"role": "user", "content": "Say hello."}]


@pytest.fixture
def fake() -> Iterator[FakeLlm]:
    with FakeLlm() as server:
        yield server


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test's key, and none of litellm's OpenAI variables leaking in from the machine."""
    monkeypatch.setenv(KEY_ENV, KEY)
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def configured(fake: FakeLlm, **extra: Any) -> dict[str, Any]:
    return {
        "api_base": fake.base_url,
        "api_key_env": KEY_ENV,
        "input_cost_per_token": IN_PRICE,
        "output_cost_per_token": OUT_PRICE,
        **extra,
    }


def llm_for(fake: FakeLlm, **models: dict[str, Any]) -> LiteLlm:
    settings = {MODEL: configured(fake), **{name.replace("__", "/"): raw for name, raw in models.items()}}
    return LiteLlm(list(settings), settings)


async def complete(llm: LiteLlm, model: str = MODEL, **overrides: Any) -> Any:
    arguments: dict[str, Any] = {
        "model": model,
        "messages": HELLO,
        "tools": None,
        "response_schema": None,
        "max_tokens": 200,
        "temperature": 0.2,
        "timeout_seconds": 10.0,
        **overrides,
    }
    return await llm.complete(**arguments)


async def failure(llm: LiteLlm, model: str = MODEL, **overrides: Any) -> StepError:
    with pytest.raises(StepError) as caught:
        await complete(llm, model, **overrides)
    return caught.value


# --- replies and costs -------------------------------------------------------------------------------


async def test_text_reply_costs_exactly_usage_times_configured_prices(fake: FakeLlm) -> None:
    fake.script(reply("Hello!", prompt_tokens=123, completion_tokens=45))
    answer = await complete(llm_for(fake))
    assert answer.content == "Hello!"
    assert answer.tool_calls == ()
    assert (answer.input_tokens, answer.output_tokens) == (123, 45)
    assert answer.cost_usd == 123 * IN_PRICE + 45 * OUT_PRICE
    assert answer.model == MODEL
    sent = fake.requests[0]
    assert sent["model"] == "test-model"
    assert sent["messages"] == HELLO
    assert (sent["max_tokens"], sent["temperature"]) == (200, 0.2)
    assert "tools" not in sent
    assert "response_format" not in sent
    assert fake.headers[0]["authorization"] == f"Bearer {KEY}"
    assert fake.paths == ["/v1/chat/completions"]


def test_lite_llm_is_the_worker_llm_port(fake: FakeLlm) -> None:
    port: LlmPort = llm_for(fake)  # mypy checks the protocol here
    assert port.allows(MODEL)


async def test_openai_environment_variables_need_no_model_settings(
    fake: FakeLlm, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    # A name litellm prices itself, so nothing about it is configured.
    llm = LiteLlm(["openai/gpt-4o-mini"], {})
    fake.script(reply("hi", prompt_tokens=1000, completion_tokens=100))
    answer = await complete(llm, "openai/gpt-4o-mini")
    assert fake.headers[0]["authorization"] == "Bearer sk-from-the-environment"
    assert fake.requests[0]["model"] == "gpt-4o-mini"
    # litellm's price map: $0.15 per million input tokens, $0.60 per million output tokens.
    assert answer.cost_usd == pytest.approx(1000 * 0.15e-6 + 100 * 0.6e-6)


async def test_several_tool_calls_in_one_message_are_parsed(fake: FakeLlm) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "Search the web.",
                "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
            },
        },
        {"type": "function", "function": {"name": "clock", "parameters": {"type": "object"}}},
    ]
    fake.script(
        tool_calls(tool_call("search", {"q": "weather"}, id="call_a"), tool_call("clock", id="call_b"))
    )
    answer = await complete(llm_for(fake), tools=tools)
    assert answer.content is None
    assert [(c.id, c.name, json.loads(c.arguments)) for c in answer.tool_calls] == [
        ("call_a", "search", {"q": "weather"}),
        ("call_b", "clock", {}),
    ]
    assert fake.requests[0]["tools"] == tools
    # Our private litellm switches (_skip_mcp_handler) must never reach the provider.
    assert not [key for key in fake.requests[0] if key.startswith("_")]


async def test_tool_results_are_fed_back_as_sent(fake: FakeLlm) -> None:
    conversation = [
        *HELLO,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "clock", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "content": '{"now": "12:00"}'},
    ]
    fake.script(tool_call("clock"), reply("It is noon."))
    first = await complete(llm_for(fake))
    assert first.tool_calls[0].name == "clock"
    second = await complete(llm_for(fake), messages=conversation)
    assert second.content == "It is noon."
    fed_back = fake.requests[1]["messages"]
    assert fed_back[1]["tool_calls"][0]["id"] == "call_a"
    assert fed_back[2] == {"role": "tool", "tool_call_id": "call_a", "content": '{"now": "12:00"}'}


SCHEMA = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}


async def test_schema_is_requested_as_json_schema_where_the_model_supports_it(fake: FakeLlm) -> None:
    llm = llm_for(fake, openai__structured=configured(fake, supports_response_schema=True))
    fake.script(json_reply({"title": "Hi"}))
    answer = await complete(llm, "openai/structured", response_schema=SCHEMA)
    assert json.loads(answer.content) == {"title": "Hi"}
    assert fake.requests[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "output", "schema": SCHEMA, "strict": False},
    }
    assert fake.requests[0]["messages"] == HELLO


async def test_litellm_says_which_known_models_support_schemas(fake: FakeLlm) -> None:
    llm = LiteLlm(["openai/gpt-4o-mini"], {"openai/gpt-4o-mini": configured(fake)})
    fake.script(json_reply({"title": "Hi"}))
    await complete(llm, "openai/gpt-4o-mini", response_schema=SCHEMA)
    assert fake.requests[0]["response_format"]["type"] == "json_schema"


async def test_without_schema_support_json_mode_and_the_schema_in_the_prompt(fake: FakeLlm) -> None:
    fake.script(json_reply({"title": "Hi"}))
    await complete(llm_for(fake), response_schema=SCHEMA)
    sent = fake.requests[0]
    assert sent["response_format"] == {"type": "json_object"}
    instruction, *rest = sent["messages"]
    assert instruction["role"] == "system"
    assert json.loads(instruction["content"].split("\n", 1)[1]) == SCHEMA
    assert rest == HELLO


async def test_requested_output_is_capped_at_the_models_max_tokens(fake: FakeLlm) -> None:
    llm = llm_for(fake, openai__small=configured(fake, max_tokens=50))
    fake.script(reply("ok"))
    await complete(llm, "openai/small", max_tokens=4000)
    assert fake.requests[0]["max_tokens"] == 50


async def test_no_temperature_is_sent_when_none_is_given(fake: FakeLlm) -> None:
    fake.script(reply("ok"))
    await complete(llm_for(fake), temperature=None)
    assert "temperature" not in fake.requests[0]


# --- failures ----------------------------------------------------------------------------------------


async def test_429_is_rate_limited_retryable_and_not_retried_inside(fake: FakeLlm) -> None:
    fake.script(error(429, "slow down", retry_after=7), reply("never reached"))
    problem = await failure(llm_for(fake))
    assert problem.code == "llm_rate_limited"
    assert problem.retryable
    assert problem.details == {"retry_after_seconds": 7.0}
    assert len(fake.requests) == 1  # litellm's and the SDK's own retries are off


async def test_500_is_unavailable_retryable_and_not_retried_inside(fake: FakeLlm) -> None:
    fake.script(error(500, "upstream broke"), reply("never reached"))
    problem = await failure(llm_for(fake))
    assert (problem.code, problem.retryable) == ("llm_unavailable", True)
    assert "upstream broke" in problem.message
    assert len(fake.requests) == 1


async def test_an_exhausted_script_answers_500_saying_so(fake: FakeLlm) -> None:
    problem = await failure(llm_for(fake))
    assert problem.code == "llm_unavailable"
    assert "script exhausted" in problem.message


@pytest.mark.parametrize("status", [400, 401, 404, 422])
async def test_other_4xx_is_refused_not_retryable_and_never_shows_the_key(fake: FakeLlm, status: int) -> None:
    fake.script(error(status, f"Incorrect API key provided: {KEY}. Authorization: Bearer {KEY}"))
    problem = await failure(llm_for(fake))
    assert (problem.code, problem.retryable) == ("llm_refused", False)
    assert f"HTTP {status}" in problem.message
    assert KEY not in problem.message
    assert KEY[:12] not in problem.message
    assert "Traceback" not in problem.message
    assert "\n" not in problem.message


async def test_a_slow_provider_times_out_as_unavailable(fake: FakeLlm) -> None:
    fake.script(reply("too late", delay=5))
    problem = await failure(llm_for(fake), timeout_seconds=0.5)
    assert (problem.code, problem.retryable) == ("llm_unavailable", True)


async def test_a_model_not_allowed_is_refused_before_any_request(fake: FakeLlm) -> None:
    fake.script(reply("never reached"))
    llm = llm_for(fake)
    assert llm.allows(MODEL)
    assert not llm.allows("openai/gpt-4o")
    assert not llm.allows("OPENAI/TEST-MODEL")
    problem = await failure(llm, "openai/gpt-4o")
    assert (problem.code, problem.retryable) == ("model_not_allowed", False)
    with pytest.raises(StepError, match="not in AUTOMATIONS_LLM_ALLOWED_MODELS"):
        llm.worst_case_cost("openai/gpt-4o", 10, 10)
    assert fake.requests == []


async def test_an_unset_key_variable_is_a_configuration_error(fake: FakeLlm, monkeypatch) -> None:
    monkeypatch.delenv(KEY_ENV)
    problem = await failure(llm_for(fake))
    assert (problem.code, problem.retryable) == ("llm_misconfigured", False)
    assert KEY_ENV in problem.message
    assert fake.requests == []


async def test_a_model_without_any_price_is_refused_before_any_request(fake: FakeLlm) -> None:
    llm = llm_for(fake, openai__unpriced={"api_base": fake.base_url, "api_key_env": KEY_ENV})
    fake.script(reply("never reached"))
    problem = await failure(llm, "openai/unpriced")
    assert (problem.code, problem.retryable) == ("unknown_model_price", False)
    assert fake.requests == []


# --- endpoints ---------------------------------------------------------------------------------------
# A model's endpoint is the operator's choice, so it is trusted: no AUTOMATIONS_EGRESS_ALLOW is involved
# (LiteLlm takes none), and loopback works. The guarded client still caps what the endpoint answers.


async def test_a_loopback_endpoint_needs_no_egress_opening(fake: FakeLlm) -> None:
    fake.script(reply("local"))
    answer = await complete(llm_for(fake))
    assert answer.content == "local"
    assert fake.targets == ["/v1/chat/completions"]


async def test_an_endpoint_named_localhost_is_trusted_by_its_name(fake: FakeLlm) -> None:
    port = fake.url.rsplit(":", 1)[1]
    llm = llm_for(fake, openai__named=configured(fake, api_base=f"http://localhost:{port}/v1"))
    fake.script(reply("by name"))
    assert (await complete(llm, "openai/named")).content == "by name"


async def test_openai_base_url_from_the_environment_is_a_trusted_endpoint(
    fake: FakeLlm, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    fake.script(reply("from the variable"))
    answer = await complete(LiteLlm(["openai/gpt-4o-mini"], {}), "openai/gpt-4o-mini")
    assert answer.content == "from the variable"
    assert fake.headers[0]["authorization"] == "Bearer sk-from-the-environment"


async def test_an_endpoint_that_cannot_be_reached_is_unavailable_and_retryable(fake: FakeLlm) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]  # bound, never listening: connections are refused
        llm = llm_for(fake, openai__gone=configured(fake, api_base=f"http://127.0.0.1:{closed}/v1"))
        problem = await failure(llm, "openai/gone")
    assert (problem.code, problem.retryable) == ("llm_unavailable", True)


# One model per provider served through litellm's own HTTP handler; each must use the client we pass.
HANDLER_MODELS = {
    "anthropic": "anthropic/claude-sonnet-4-5",
    "gemini": "gemini/gemini-2.0-flash",
    "mistral": "mistral/mistral-small-latest",
    "groq": "groq/llama-3.1-8b-instant",
    "deepseek": "deepseek/deepseek-chat",
    "xai": "xai/grok-2",
    "openrouter": "openrouter/openai/gpt-4o-mini",
    "ollama": "ollama/llama3",
    "ollama_chat": "ollama_chat/llama3",
    "bedrock": "bedrock/anthropic.claude-3-haiku-20240307-v1:0",
}


def test_every_handler_provider_is_checked_below() -> None:
    assert set(HANDLER_MODELS) == HTTP_HANDLER_PROVIDERS


@pytest.mark.parametrize("model", sorted(HANDLER_MODELS.values()))
async def test_handler_providers_send_through_the_guarded_client(
    fake: FakeLlm, model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Fake credentials: Bedrock signs with them, and the keyed providers must find their variable.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDFAKEFAKEFAKE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-secret-access-key")
    monkeypatch.setenv("AWS_REGION_NAME", "us-east-1")
    # Only the guard caps an answer: one just over its cap fails inside our client, so the request was
    # sent by the client we handed litellm, not by one litellm built itself.
    fake.script(reply("x" * (DEFAULT_MAX_RESPONSE_BYTES + 1)))
    base = fake.url if model.startswith(("ollama", "bedrock", "anthropic")) else fake.base_url
    llm = LiteLlm([model], {model: configured(fake, api_base=base)})
    problem = await failure(llm, model)
    assert (problem.code, problem.retryable) == ("egress_response_too_large", False)
    assert len(fake.requests) == 1


async def test_a_model_name_litellm_cannot_route_is_refused_before_any_request(fake: FakeLlm) -> None:
    llm = LiteLlm(["nosuchprovider/x"], {"nosuchprovider/x": configured(fake)})
    problem = await failure(llm, "nosuchprovider/x")
    assert (problem.code, problem.retryable) == ("llm_unknown_provider", False)
    assert "provider/model" in problem.message
    with pytest.raises(StepError, match="no provider"):
        llm.worst_case_cost("nosuchprovider/x", 10, 10)
    assert fake.requests == []


async def test_a_missing_provider_key_is_a_configuration_error_before_any_request(
    fake: FakeLlm, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    model = "anthropic/claude-sonnet-4-5"
    llm = LiteLlm([model], {model: {"api_base": fake.url}})
    problem = await failure(llm, model)
    assert (problem.code, problem.retryable) == ("llm_misconfigured", False)
    assert "ANTHROPIC_API_KEY" in problem.message
    assert fake.requests == []


async def test_responses_api_only_models_are_refused(fake: FakeLlm) -> None:
    model = "openai/gpt-5-codex"  # litellm bridges it to the Responses API, a path we do not call
    llm = LiteLlm([model], {model: configured(fake)})
    problem = await failure(llm, model)
    assert problem.code == "llm_provider_unsupported"
    assert fake.requests == []


# --- budgeting and counting --------------------------------------------------------------------------


def test_worst_case_cost_is_prompt_and_max_output_at_the_prices(fake: FakeLlm) -> None:
    llm = llm_for(fake, openai__small=configured(fake, max_tokens=50))
    assert llm.worst_case_cost(MODEL, 1000, 500) == 1000 * IN_PRICE + 500 * OUT_PRICE
    assert llm.worst_case_cost(MODEL, 0, 0) == 0
    # The output cap applies to the estimate as to the request.
    assert llm.worst_case_cost("openai/small", 1000, 500) == 1000 * IN_PRICE + 50 * OUT_PRICE


def test_worst_case_cost_uses_litellms_prices_for_models_it_knows() -> None:
    llm = LiteLlm(["openai/gpt-4o-mini"], {})
    # $0.15 and $0.60 per million tokens; output is capped at the model's 16384 tokens.
    assert llm.worst_case_cost("openai/gpt-4o-mini", 1_000_000, 10_000) == pytest.approx(0.15 + 0.006)
    assert llm.worst_case_cost("openai/gpt-4o-mini", 0, 1_000_000) == pytest.approx(16384 * 0.6e-6)


def test_worst_case_cost_refuses_a_model_without_a_price(fake: FakeLlm) -> None:
    llm = llm_for(fake, openai__unpriced={"api_base": fake.base_url})
    with pytest.raises(StepError) as caught:
        llm.worst_case_cost("openai/unpriced", 10, 10)
    assert (caught.value.code, caught.value.retryable) == ("unknown_model_price", False)


def test_count_tokens_works_offline(fake: FakeLlm, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"count_tokens tried the network: {args}")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    llm = llm_for(fake)
    long = [{"role": "user", "content": "word " * 400}]
    # Llama and Claude names would make litellm fetch HuggingFace tokenizers if we let it.
    for model in (MODEL, "openai/gpt-4o-mini", "groq/llama-3.1-8b-instant", "anthropic/claude-2.1"):
        short = llm.count_tokens(model, HELLO)
        assert 3 <= short < 20
        assert llm.count_tokens(model, long) > 300
    odd = [{"role": "user", "content": [{"type": "mystery", "blob": "x" * 400}]}]
    assert llm.count_tokens(MODEL, odd) > 0


# --- settings ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "complaint"),
    [
        ({"api_key": "sk-inline"}, "api_key_env"),
        ({"input_cost_per_token": 0.1}, "both"),
        ({"input_cost_per_token": -1, "output_cost_per_token": 1}, ">= 0"),
        ({"input_cost_per_token": "1", "output_cost_per_token": 1}, "numbers"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"api_base": ""}, "api_base"),
        ({"api_base": "file:///etc/passwd"}, "http"),
        ({"api_base": "http://user:pw@127.0.0.1/v1"}, "credentials"),
        ({"api_version": 5}, "api_version"),
        ({"supports_response_schema": "yes"}, "true or false"),
    ],
)
def test_bad_model_settings_are_refused_at_start(raw: dict[str, Any], complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint):
        ModelSettings.parse("openai/x", raw)
    with pytest.raises(ValueError, match="openai/x"):
        LiteLlm(["openai/x"], {"openai/x": raw})


def test_the_fake_is_reachable_from_another_process(fake: FakeLlm) -> None:
    fake.script(reply("from afar", prompt_tokens=3, completion_tokens=2))
    code = (
        "import json, sys, urllib.request\n"
        "body = json.dumps({'model': 'm', 'messages': []}).encode()\n"
        "request = urllib.request.Request(sys.argv[1] + '/chat/completions', body,"
        " {'Content-Type': 'application/json'})\n"
        "print(urllib.request.urlopen(request, timeout=5).read().decode())\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", code, fake.base_url], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    answer = json.loads(output)
    assert answer["choices"][0]["message"]["content"] == "from afar"
    assert answer["usage"] == {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    assert fake.requests == [{"model": "m", "messages": []}]
