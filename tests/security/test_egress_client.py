"""The egress client against real loopback servers: pinning, redirects, size caps, deadlines, TLS."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.security.egress import (
    EgressAllowList,
    EgressDenied,
    RedirectLimitExceeded,
    ResponseTooLarge,
    check_url,
    egress_client,
)
from app.security.egress.transport import GuardedTransport, default_tls_context
from tests.support.loopback_http import LoopbackHTTP

LOOPBACK = EgressAllowList.parse("127.0.0.1/32")
PUBLIC = "93.184.216.34"


class Zone:
    """A fake resolver: each name answers from a list of answers, one per call, the last one repeating."""

    def __init__(self, **answers: list[list[str]]) -> None:
        self.answers = {name.replace("_", "."): list(values) for name, values in answers.items()}
        self.calls: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append(host)
        if host not in self.answers:
            raise OSError(f"{host} does not resolve")
        queue = self.answers[host]
        return queue.pop(0) if len(queue) > 1 else queue[0]


@pytest.fixture
async def server() -> AsyncIterator[LoopbackHTTP]:
    running = await LoopbackHTTP("a").start()
    yield running
    await running.stop()


@pytest.fixture
async def other_server() -> AsyncIterator[LoopbackHTTP]:
    running = await LoopbackHTTP("b").start()
    yield running
    await running.stop()


async def test_allow_list_opens_a_loopback_server(server: LoopbackHTTP) -> None:
    async with egress_client(allow=LOOPBACK) as client:
        response = await client.fetch("GET", server.url("/ok"))
    assert (response.status_code, response.content, response.text) == (200, b"hello from a", "hello from a")
    assert response.url == server.url("/ok")
    assert response.redirects == ()


async def test_loopback_is_refused_without_the_allow_list_and_nothing_is_sent(server: LoopbackHTTP) -> None:
    async with egress_client(allow=None) as client:
        with pytest.raises(EgressDenied, match=r"loopback address 127\.0\.0\.1"):
            await client.fetch("GET", server.url("/ok"))
    assert server.requests == []


async def test_plain_httpx_calls_are_guarded_as_well(server: LoopbackHTTP) -> None:
    async with egress_client(allow=None) as client:
        with pytest.raises(EgressDenied):
            await client.get(server.url("/ok"))
        with pytest.raises(EgressDenied, match="credentials"):
            await client.get(f"http://user:pw@127.0.0.1:{server.port}/ok")
    async with egress_client(allow=LOOPBACK) as client:
        target = server.url("/redirect?to=http://10.0.0.1/")
        with pytest.raises(EgressDenied, match=r"private address 10\.0\.0\.1"):
            await client.get(target, follow_redirects=True)
    assert [seen.path for seen in server.requests] == ["/redirect?to=http://10.0.0.1/"]


async def test_non_2xx_answers_are_returned(server: LoopbackHTTP) -> None:
    async with egress_client(allow=LOOPBACK) as client:
        response = await client.fetch("GET", server.url("/missing"))
    assert response.status_code == 404


async def test_host_header_keeps_the_name_while_the_socket_goes_to_the_checked_address(
    server: LoopbackHTTP,
) -> None:
    zone = Zone(service_test=[["127.0.0.1"]])
    async with egress_client(allow=LOOPBACK, resolver=zone) as client:
        response = await client.fetch("GET", server.url("/headers", host="service.test"))
    assert response.json() == {"host": f"service.test:{server.port}", "accept-encoding": "gzip, deflate"}
    assert zone.calls == ["service.test"]


async def test_every_resolved_address_must_pass(server: LoopbackHTTP) -> None:
    zone = Zone(multi_test=[["127.0.0.1", "10.0.0.1"]])
    async with egress_client(allow=LOOPBACK, resolver=zone) as client:
        with pytest.raises(EgressDenied, match=r"host multi\.test resolves to a private address 10\.0\.0\.1"):
            await client.fetch("GET", server.url("/ok", host="multi.test"))
    assert server.requests == []


async def test_the_next_checked_address_is_tried_when_one_refuses_the_connection(
    server: LoopbackHTTP,
) -> None:
    zone = Zone(fallback_test=[["127.0.0.3", "127.0.0.1"]])
    allow = EgressAllowList.parse("127.0.0.0/8")
    async with egress_client(allow=allow, resolver=zone) as client:
        response = await client.fetch("GET", server.url("/ok", host="fallback.test"))
    assert response.content == b"hello from a"


async def test_a_name_that_does_not_resolve_is_a_connect_error() -> None:
    async with egress_client(allow=None, resolver=Zone()) as client:
        with pytest.raises(httpx.ConnectError, match=r"cannot resolve nowhere\.test"):
            await client.fetch("GET", "http://nowhere.test/")


class TestDnsRebinding:
    @pytest.fixture
    async def twin(self, server: LoopbackHTTP) -> AsyncIterator[LoopbackHTTP]:
        """A second server on 127.0.0.2 with the same port: the same URL reaches either, by address."""
        try:
            running = await LoopbackHTTP("twin", host="127.0.0.2", port=server.port).start()
        except OSError as exc:
            pytest.skip(f"cannot bind 127.0.0.2 here: {exc}")
        yield running
        await running.stop()

    async def test_the_connection_goes_to_the_address_that_was_checked(
        self, server: LoopbackHTTP, twin: LoopbackHTTP
    ) -> None:
        # First answer allowed, every later answer another server: a second lookup would reach the twin.
        zone = Zone(rebind_test=[["127.0.0.1"], ["127.0.0.2"]])
        async with egress_client(allow=LOOPBACK, resolver=zone) as client:
            response = await client.fetch("GET", server.url("/ok", host="rebind.test"))
            assert response.content == b"hello from a"
            assert zone.calls == ["rebind.test"]
            assert twin.requests == []
            # The next connection resolves again and is checked again: 127.0.0.2 is not open.
            with pytest.raises(EgressDenied, match=r"127\.0\.0\.2"):
                await client.fetch("GET", server.url("/ok", host="rebind.test"))
        assert twin.requests == []

    async def test_a_connection_reaches_exactly_what_its_own_lookup_answered(
        self, server: LoopbackHTTP, twin: LoopbackHTTP
    ) -> None:
        zone = Zone(rebind_test=[["127.0.0.1"], ["127.0.0.2"]])
        allow = EgressAllowList.parse("127.0.0.0/8")
        async with egress_client(allow=allow, resolver=zone) as client:
            first = await client.fetch("GET", server.url("/ok", host="rebind.test"))
            second = await client.fetch("GET", server.url("/ok", host="rebind.test"))
        assert (first.content, second.content) == (b"hello from a", b"hello from twin")
        assert (len(server.requests), len(twin.requests), len(zone.calls)) == (1, 1, 2)

    async def test_a_public_answer_at_check_time_does_not_open_a_private_one_later(self) -> None:
        zone = Zone(rebind_test=[[PUBLIC], ["127.0.0.1"]])
        check_url("http://rebind.test/", resolver=zone)
        async with egress_client(allow=None, resolver=zone) as client:
            with pytest.raises(EgressDenied, match=r"resolves to a loopback address 127\.0\.0\.1"):
                await client.fetch("GET", "http://rebind.test/")


class TestRedirects:
    async def test_redirect_to_a_private_address_is_refused_naming_the_hop(
        self, server: LoopbackHTTP
    ) -> None:
        async with egress_client(allow=LOOPBACK) as client:
            with pytest.raises(EgressDenied) as caught:
                await client.fetch("GET", server.url("/redirect?to=http://10.0.0.1/admin"))
        assert caught.value.url == "http://10.0.0.1/admin"
        assert caught.value.reason == (
            f"redirect 1 from http://127.0.0.1:{server.port}/…: host 10.0.0.1 is a private address 10.0.0.1"
        )

    async def test_redirect_to_localhost_on_another_port_is_refused(
        self, server: LoopbackHTTP, other_server: LoopbackHTTP
    ) -> None:
        async with egress_client(allow=LOOPBACK) as client:
            with pytest.raises(EgressDenied, match=r"redirect 1 .* localhost always means this machine"):
                await client.fetch("GET", server.url(f"/redirect?to=http://localhost:{other_server.port}/ok"))
        assert other_server.requests == []

    async def test_redirect_to_another_scheme_is_refused(self, server: LoopbackHTTP) -> None:
        async with egress_client(allow=LOOPBACK) as client:
            with pytest.raises(EgressDenied, match="scheme ftp is not allowed"):
                await client.fetch("GET", server.url("/redirect?to=ftp://example.com/"))

    async def test_redirect_to_an_allowed_target_is_followed(
        self, server: LoopbackHTTP, other_server: LoopbackHTTP
    ) -> None:
        async with egress_client(allow=LOOPBACK) as client:
            response = await client.fetch("GET", server.url(f"/redirect?to={other_server.url('/ok')}"))
        assert (response.content, response.url) == (b"hello from b", other_server.url("/ok"))
        assert response.redirects == (server.url(f"/redirect?to={other_server.url('/ok')}"),)

    async def test_five_redirects_are_followed_and_a_sixth_is_refused(self, server: LoopbackHTTP) -> None:
        async with egress_client(allow=LOOPBACK) as client:
            response = await client.fetch("GET", server.url("/chain/5"))
            assert (response.content, len(response.redirects)) == (b"end of chain", 5)
            with pytest.raises(RedirectLimitExceeded) as caught:
                await client.fetch("GET", server.url("/chain/6"))
        assert caught.value.code == "egress_too_many_redirects"
        assert caught.value.url == server.url("/chain/0")

    async def test_a_redirect_loop_stops(self, server: LoopbackHTTP) -> None:
        async with egress_client(allow=LOOPBACK, max_redirects=2) as client:
            with pytest.raises(RedirectLimitExceeded, match="redirected more than 2 times"):
                await client.fetch("GET", server.url("/loop"))
        assert len(server.requests) == 3


class TestResponseSize:
    async def test_a_body_at_the_cap_is_read(self, server: LoopbackHTTP) -> None:
        async with egress_client(allow=LOOPBACK, max_response_bytes=1000) as client:
            response = await client.fetch("GET", server.url("/big?size=1000"))
        assert len(response.content) == 1000

    async def test_a_declared_length_over_the_cap_fails_before_the_body_is_read(
        self, server: LoopbackHTTP
    ) -> None:
        async with egress_client(allow=LOOPBACK, max_response_bytes=1000) as client:
            request = client.build_request("GET", server.url("/big?size=1001"))
            with pytest.raises(ResponseTooLarge) as caught:
                await client.send(request, stream=True)
        assert (caught.value.code, caught.value.limit) == ("egress_response_too_large", 1000)

    async def test_a_body_without_length_is_cut_off_past_the_cap(self, server: LoopbackHTTP) -> None:
        async with egress_client(allow=LOOPBACK, max_response_bytes=100_000) as client:
            with pytest.raises(ResponseTooLarge, match="larger than 100000 bytes"):
                await client.fetch("GET", server.url("/stream?size=300000"))
            async with client.stream("GET", server.url("/stream?size=300000")) as response:
                received: list[bytes] = []

                async def consume() -> None:
                    async for chunk in response.aiter_bytes():
                        received.append(chunk)

                with pytest.raises(ResponseTooLarge):
                    await consume()
                assert sum(map(len, received)) <= 100_000

    async def test_compressed_bodies_are_decoded_and_counted_after_decoding(
        self, server: LoopbackHTTP
    ) -> None:
        async with egress_client(allow=LOOPBACK, max_response_bytes=1_000_000) as client:
            response = await client.fetch("GET", server.url("/gzip"))
            assert response.json() == {"zipped": True}
            assert "content-encoding" not in response.headers
            started = time.monotonic()
            with pytest.raises(ResponseTooLarge):
                await client.fetch("GET", server.url("/bomb?size=20000000"))
            assert time.monotonic() - started < 5

    async def test_an_encoding_that_was_not_asked_for_is_refused(self, server: LoopbackHTTP) -> None:
        async with egress_client(allow=LOOPBACK) as client:
            with pytest.raises(httpx.DecodingError, match="unsupported content encoding br"):
                await client.fetch("GET", server.url("/brotli"))


class TestTimeouts:
    async def test_a_server_that_never_answers_times_out(self, server: LoopbackHTTP) -> None:
        started = time.monotonic()
        async with egress_client(allow=LOOPBACK, timeout=0.3) as client:
            with pytest.raises(httpx.TimeoutException):
                await client.fetch("GET", server.url("/hang"))
        assert time.monotonic() - started < 3

    async def test_a_slow_drip_is_stopped_by_the_whole_request_deadline(self, server: LoopbackHTTP) -> None:
        started = time.monotonic()
        async with egress_client(allow=LOOPBACK, timeout=0.5) as client:
            with pytest.raises(httpx.TimeoutException, match=r"did not complete within 0\.5 s"):
                await client.fetch("GET", server.url("/drip"))
        assert time.monotonic() - started < 3


async def test_proxy_settings_from_the_environment_are_ignored(
    server: LoopbackHTTP, other_server: LoopbackHTTP, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, other_server.url("/"))
    async with egress_client(allow=LOOPBACK) as client:
        response = await client.fetch("GET", server.url("/ok"))
    assert response.content == b"hello from a"
    assert other_server.requests == []


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for pinned.test, made with the openssl command."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=pinned.test",
         "-addext", "subjectAltName=DNS:pinned.test", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


class TestTls:
    @pytest.fixture
    async def tls_server(
        self, certificate: tuple[Path, Path]
    ) -> AsyncIterator[tuple[LoopbackHTTP, list[str]]]:
        names: list[str] = []
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(*certificate)

        def record(_socket: ssl.SSLObject, name: str | None, _context: ssl.SSLContext) -> None:
            names.append(str(name))

        context.sni_callback = record
        running = await LoopbackHTTP("tls", ssl_context=context).start()
        yield running, names
        await running.stop()

    async def test_sni_and_certificate_use_the_name_while_the_socket_uses_the_checked_address(
        self, tls_server: tuple[LoopbackHTTP, list[str]], certificate: tuple[Path, Path]
    ) -> None:
        server, names = tls_server
        trust = ssl.create_default_context(cafile=str(certificate[0]))
        zone = Zone(pinned_test=[["127.0.0.1"]])
        async with egress_client(allow=LOOPBACK, resolver=zone, ssl_context=trust) as client:
            response = await client.fetch("GET", server.url("/headers", host="pinned.test"))
        assert response.json()["host"] == f"pinned.test:{server.port}"
        assert names == ["pinned.test"]

    async def test_a_certificate_for_another_name_is_rejected(
        self, tls_server: tuple[LoopbackHTTP, list[str]], certificate: tuple[Path, Path]
    ) -> None:
        server, _ = tls_server
        trust = ssl.create_default_context(cafile=str(certificate[0]))
        zone = Zone(other_test=[["127.0.0.1"]])
        async with egress_client(allow=LOOPBACK, resolver=zone, ssl_context=trust) as client:
            with pytest.raises(httpx.ConnectError, match="certificate verify failed"):
                await client.fetch("GET", server.url("/headers", host="other.test"))
        assert server.requests == []

    async def test_clients_without_a_context_of_their_own_share_one_that_trusts_only_the_default_bundle(
        self, tls_server: tuple[LoopbackHTTP, list[str]]
    ) -> None:
        # Loading the CA bundle costs ~50 ms of CPU: each outbound call used to pay it.
        server, _ = tls_server
        zone = Zone(pinned_test=[["127.0.0.1"]])
        for _ in range(2):
            async with egress_client(allow=LOOPBACK, resolver=zone) as client:
                with pytest.raises(httpx.ConnectError, match="certificate verify failed"):
                    await client.fetch("GET", server.url("/headers", host="pinned.test"))
        assert server.requests == []
        limits: dict[str, Any] = {
            "allow": LOOPBACK,
            "resolver": zone,
            "max_response_bytes": 1,
            "total_timeout": 1.0,
        }
        first, second = GuardedTransport(**limits), GuardedTransport(**limits)
        assert first.tls_context is second.tls_context is default_tls_context()
        own = ssl.create_default_context()
        assert GuardedTransport(**limits, ssl_context=own).tls_context is own
