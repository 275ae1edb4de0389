"""The httpx transport behind every egress client: checked connections, a size cap and a deadline.

Pinning works at the socket level. httpcore asks its network backend to `connect_tcp(host, port)` for
every new connection; our backend resolves the host once, checks every address, and opens the socket to
one of exactly those addresses. There is no second lookup that a rebinding DNS server could answer
differently. A transport that lives long (an MCP session kept open between calls) can also pin its
hosts: the first checked answer for a host and port is kept, and every later connection of that
transport goes to those same addresses, whatever the DNS says by then.

Everything above the socket is unchanged: the request line and Host header carry the original name,
and TLS sends it as SNI and verifies the certificate against it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ssl
import zlib
from collections.abc import AsyncIterable, AsyncIterator, Iterable

import httpcore
import httpx

from app.security.egress.addresses import IPAddress
from app.security.egress.allowlist import EgressAllowList
from app.security.egress.errors import EgressDenied, ResponseTooLarge
from app.security.egress.outgoing import check_request
from app.security.egress.targets import Resolver, resolve_checked, vet_origin

# httpcore errors as the httpx errors callers catch; an error's nearest listed ancestor decides.
_HTTPX_ERRORS: dict[type[Exception], type[httpx.TransportError]] = {
    httpcore.ConnectTimeout: httpx.ConnectTimeout,
    httpcore.ReadTimeout: httpx.ReadTimeout,
    httpcore.WriteTimeout: httpx.WriteTimeout,
    httpcore.PoolTimeout: httpx.PoolTimeout,
    httpcore.TimeoutException: httpx.TimeoutException,
    httpcore.ConnectError: httpx.ConnectError,
    httpcore.ReadError: httpx.ReadError,
    httpcore.WriteError: httpx.WriteError,
    httpcore.NetworkError: httpx.NetworkError,
    httpcore.RemoteProtocolError: httpx.RemoteProtocolError,
    httpcore.LocalProtocolError: httpx.LocalProtocolError,
    httpcore.ProtocolError: httpx.ProtocolError,
    httpcore.UnsupportedProtocol: httpx.UnsupportedProtocol,
}
_DECODABLE = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}


class _CheckedBackend(httpcore.AsyncNetworkBackend):
    """Opens TCP connections only to addresses that were resolved and checked for this very connection."""

    def __init__(self, allow: EgressAllowList, resolver: Resolver, *, pin_hosts: bool = False) -> None:
        self._allow = allow
        self._resolver = resolver
        self._network = httpcore.AnyIOBackend()
        self._pinned: dict[tuple[str, int], tuple[IPAddress, ...]] | None = {} if pin_hosts else None

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface; it is the connect timeout)
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = self._pinned.get((host, port)) if self._pinned is not None else None
        if addresses is None:
            addresses = await self._resolve(host, port)
            if self._pinned is not None:
                self._pinned[(host, port)] = addresses
        *others, last = addresses
        for address in others:
            with contextlib.suppress(httpcore.ConnectError, httpcore.ConnectTimeout):
                return await self._connect(address, port, timeout, local_address, socket_options)
        return await self._connect(last, port, timeout, local_address, socket_options)

    async def _resolve(self, host: str, port: int) -> tuple[IPAddress, ...]:
        try:
            # Resolvers block (getaddrinfo); the deadline around the request still bounds the wait.
            return await asyncio.to_thread(
                resolve_checked,
                host,
                port,
                allow=self._allow,
                resolver=self._resolver,
                url=f"//{host}:{port}/",
            )
        except OSError as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from exc

    async def _connect(
        self,
        address: IPAddress,
        port: int,
        connect_timeout: float | None,
        local_address: str | None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None,
    ) -> httpcore.AsyncNetworkStream:
        return await self._network.connect_tcp(
            str(address),
            port,
            timeout=connect_timeout,
            local_address=local_address,
            socket_options=socket_options,
        )

    async def sleep(self, seconds: float) -> None:
        await self._network.sleep(seconds)


@contextlib.asynccontextmanager
async def _guarded(deadline: float, seconds: float) -> AsyncIterator[None]:
    """Enforce the whole-request deadline and translate httpcore errors into the httpx ones callers expect."""
    try:
        async with asyncio.timeout_at(deadline):
            yield
    except TimeoutError as exc:
        raise httpx.TimeoutException(f"the request did not complete within {seconds:g} s") from exc
    except Exception as exc:
        for cls in type(exc).__mro__:
            if cls in _HTTPX_ERRORS:
                raise _HTTPX_ERRORS[cls](str(exc)) from exc
        raise


class _Inflater:
    """Streaming gzip/deflate decoding that never produces more than the bytes still allowed plus one."""

    def __init__(self, encoding: str) -> None:
        self._raw_fallback = encoding == "deflate"
        self._zlib = zlib.decompressobj(_DECODABLE[encoding])

    def decode(self, data: bytes, budget: int) -> bytes:
        try:
            decoded = self._zlib.decompress(data, budget + 1)
        except zlib.error as exc:
            if not self._raw_fallback:
                raise httpx.DecodingError(f"invalid compressed body: {exc}") from exc
            # Some servers send raw deflate without the zlib wrapper that the standard asks for.
            self._raw_fallback = False
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
            return self.decode(data, budget)
        self._raw_fallback = False
        return decoded

    def flush(self) -> bytes:
        return self._zlib.flush()


class _CappedBody(httpx.AsyncByteStream):
    """The response body, decoded here (so the cap counts real bytes), cut off past the limit or deadline."""

    def __init__(
        self,
        raw: AsyncIterable[bytes],
        inflater: _Inflater | None,
        *,
        limit: int,
        url: str,
        deadline: float,
        timeout: float,
    ) -> None:
        self._raw = raw
        self._inflater = inflater
        self._limit = limit
        self._url = url
        self._deadline = deadline
        self._timeout = timeout

    async def __aiter__(self) -> AsyncIterator[bytes]:
        received = 0
        async for chunk in self._chunks():
            data = self._inflater.decode(chunk, self._limit - received) if self._inflater else chunk
            received += len(data)
            if received > self._limit:
                raise ResponseTooLarge(self._url, self._limit)
            yield data
        if self._inflater is not None:
            tail = self._inflater.flush()
            if received + len(tail) > self._limit:
                raise ResponseTooLarge(self._url, self._limit)
            yield tail

    async def _chunks(self) -> AsyncIterator[bytes]:
        iterator = aiter(self._raw)
        while True:
            async with _guarded(self._deadline, self._timeout):
                try:
                    chunk = await anext(iterator)
                except StopAsyncIteration:
                    return
            yield chunk

    async def aclose(self) -> None:
        close = getattr(self._raw, "aclose", None)
        if close is not None:
            await close()


@functools.cache
def default_tls_context() -> ssl.SSLContext:
    """The process's one TLS context for verifying servers against the default CA bundle.

    Building one loads and parses the whole bundle, about 50 ms of CPU: once per process, not once per
    outbound call. Sharing it is safe: a connection reads it, and the one thing httpcore sets on it (the
    ALPN list) is the same HTTP/1.1-only list for every transport here.
    """
    return httpx.create_ssl_context()


class GuardedTransport(httpx.AsyncBaseTransport):
    """Sends requests through checked connections; see the module docstring for how pinning works."""

    def __init__(
        self,
        *,
        allow: EgressAllowList,
        resolver: Resolver,
        max_response_bytes: int,
        total_timeout: float,
        ssl_context: ssl.SSLContext | None = None,
        pin_hosts: bool = False,
    ) -> None:
        self._limit = max_response_bytes
        self._total_timeout = total_timeout
        self.tls_context = ssl_context or default_tls_context()
        """What its connections verify servers with: the one given, or the process's default."""
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=self.tls_context,
            network_backend=_CheckedBackend(allow, resolver, pin_hosts=pin_hosts),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            retries=0,
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        # Before any connection: where the call's secrets may go, and redirects refused on the way.
        check_request(request)
        url = str(request.url)
        has_userinfo = bool(request.url.userinfo)
        vet_origin(request.url.scheme, has_userinfo=has_userinfo, port=request.url.port, url=url)
        assert isinstance(request.stream, httpx.AsyncByteStream)
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=_with_accept_encoding(request.headers.raw),
            content=request.stream,
            extensions=request.extensions,
        )
        deadline = asyncio.get_running_loop().time() + self._total_timeout
        try:
            async with _guarded(deadline, self._total_timeout):
                response = await self._pool.handle_async_request(core_request)
        except EgressDenied as exc:
            # The backend only knows host and port; name the whole URL for the caller.
            raise EgressDenied(exc.reason, url) from None
        assert isinstance(response.stream, AsyncIterable)
        try:
            headers, inflater = _decoding(response.headers)
            self._check_declared_length(request.method, response.headers, url)
        except (httpx.DecodingError, ResponseTooLarge):
            await response.aclose()
            raise
        body = _CappedBody(
            response.stream,
            inflater,
            limit=self._limit,
            url=url,
            deadline=deadline,
            timeout=self._total_timeout,
        )
        return httpx.Response(response.status, headers=headers, stream=body, extensions=response.extensions)

    def _check_declared_length(self, method: str, headers: list[tuple[bytes, bytes]], url: str) -> None:
        if method == "HEAD":
            return  # a HEAD answer describes a body that is never sent
        for name, value in headers:
            if name.lower() == b"content-length" and value.strip().isdigit() and int(value) > self._limit:
                raise ResponseTooLarge(url, self._limit)

    async def aclose(self) -> None:
        await self._pool.aclose()


def _with_accept_encoding(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    # Only ask for encodings this module can decode under the size cap.
    kept = [(name, value) for name, value in headers if name.lower() != b"accept-encoding"]
    return [*kept, (b"Accept-Encoding", b"gzip, deflate")]


def _decoding(headers: list[tuple[bytes, bytes]]) -> tuple[list[tuple[bytes, bytes]], _Inflater | None]:
    """The headers to hand to httpx and the decoder for the body, for the response's Content-Encoding."""
    encodings = [
        token.strip().lower()
        for name, value in headers
        if name.lower() == b"content-encoding"
        for token in value.decode("latin-1").split(",")
    ]
    encodings = [encoding for encoding in encodings if encoding and encoding != "identity"]
    if not encodings:
        return headers, None
    if len(encodings) > 1 or encodings[0] not in _DECODABLE:
        raise httpx.DecodingError(f"unsupported content encoding {', '.join(encodings)}")
    # The body handed on is decoded, so its original length and encoding no longer describe it.
    dropped = (b"content-encoding", b"content-length")
    return [(n, v) for n, v in headers if n.lower() not in dropped], _Inflater(encodings[0])
