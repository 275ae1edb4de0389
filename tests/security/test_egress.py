"""The egress guard's URL and address checks (no network: every name goes through a fake resolver)."""

from __future__ import annotations

import pickle
from ipaddress import IPv4Address, ip_address

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.security.egress import EgressAllowList, EgressDenied, check_url
from app.security.egress.addresses import address_problem, parse_ipv4_number

PUBLIC = "93.184.216.34"
ZONE = {
    "public.example": [PUBLIC],
    "public6.example": ["2606:4700:4700::1111"],
    "xn--bcher-kva.example": [PUBLIC],
    "under_score.public.example": [PUBLIC],
    "mixed.example": [PUBLIC, "10.0.0.5"],
    "v6mixed.example": ["2606:4700:4700::1111", "fd00::1"],
    "metadata.example": ["169.254.169.254"],
    "mapped.example": ["::ffff:127.0.0.1"],
    "linklocal6.example": ["fe80::1%eth0"],
    "cgnat.example": ["100.64.0.1"],
    "internal.example.com": ["10.1.2.3"],
    "sub.internal.example.com": ["10.1.2.4"],
    "localhost": ["127.0.0.1", "::1"],
    "garbage.example": ["not-an-address"],
}


def resolver(host: str, port: int) -> list[str]:
    try:
        return ZONE[host]
    except KeyError:
        raise OSError(f"{host}: name or service not known") from None


def denied(url: str, allow: EgressAllowList | None = None) -> EgressDenied:
    with pytest.raises(EgressDenied) as caught:
        check_url(url, allow=allow, resolver=resolver)
    return caught.value


UNSAFE = [
    # schemes
    ("ftp://public.example/", "scheme ftp is not allowed"),
    ("file:///etc/passwd", "scheme file"),
    ("gopher://public.example:70/_x", "scheme gopher"),
    ("javascript:alert(1)", "scheme javascript"),
    ("data:text/plain,hello", "scheme data"),
    ("dict://public.example:11211/", "scheme dict"),
    ("ws://public.example/", "scheme ws"),
    ("//public.example/", "scheme (none)"),
    ("public.example/path", "scheme (none)"),
    # credentials
    ("http://user:pass@public.example/", "credentials"),
    ("http://public.example@127.0.0.1/", "credentials"),
    ("http://user@public.example/", "credentials"),
    # characters parsers disagree on
    ("http://public.example\\@127.0.0.1/", "backslash"),
    ("http:\\\\127.0.0.1\\", "backslash"),
    ("http://public.example /", "whitespace (U+0020)"),
    (" http://public.example/", "whitespace"),
    ("http://public.exa\tmple/", "whitespace (U+0009)"),
    ("http://public.example/\r\nX-Injected: 1", "whitespace (U+000D)"),
    ("http://127.0.0.1\x00.public.example/", "control character (U+0000)"),
    ("http://public.example\u200b/", "U+200B"),
    ("http://public.example\u00a0/", "whitespace (U+00A0)"),
    ("http://public.example/\x7f", "control character (U+007F)"),
    ("http://public.example/" + "a" * 9000, "longer than"),
    # no host, bad host, bad port
    ("http:///path", "no host"),
    ("http://:80/", "no host"),
    ("http:public.example", "no host"),
    ("http://?x=1", "no host"),
    ("http://pub..example/", "not a valid host name"),
    ("http://-bad-.example/", "not a valid host name"),
    ("http://a%20b/", "not a valid host name"),
    ("http://public.example:0/", "port 0"),
    ("http://public.example:65536/", "malformed"),
    ("http://public.example:abc/", "malformed"),
    ("http://[::1/", "malformed"),
    ("http://[2606:4700:4700::1111]junk/", "text after the IPv6 address"),
    # IPv4 literals, one per blocked range (and its edges)
    ("http://127.0.0.1/", "loopback address 127.0.0.1"),
    ("http://127.255.255.254:8080/", "loopback"),
    ("http://10.0.0.1/", "private address 10.0.0.1"),
    ("http://172.16.0.1/", "private"),
    ("http://172.31.255.255/", "private"),
    ("http://192.168.1.1/", "private"),
    ("http://169.254.169.254/latest/meta-data/", "link-local address 169.254.169.254"),
    ("http://169.254.0.1/", "link-local"),
    ("http://100.64.0.1/", "carrier-grade NAT"),
    ("http://100.127.255.255/", "carrier-grade NAT"),
    ("http://0.0.0.0/", "unspecified address 0.0.0.0"),
    ("http://0.1.2.3/", "'this network'"),
    ("http://224.0.0.1/", "multicast"),
    ("http://239.255.255.250/", "multicast"),
    ("http://255.255.255.255/", "broadcast"),
    ("http://240.0.0.1/", "reserved"),
    ("http://198.18.0.1/", "benchmarking"),
    ("http://198.19.255.255/", "benchmarking"),
    ("http://192.0.2.1/", "documentation"),
    ("http://198.51.100.7/", "documentation"),
    ("http://203.0.113.9/", "documentation"),
    ("http://192.0.0.8/", "IETF protocol"),
    ("http://192.88.99.1/", "6to4 relay"),
    # other spellings of IPv4
    ("http://2130706433/", "loopback address 127.0.0.1"),
    ("http://0x7f000001/", "loopback address 127.0.0.1"),
    ("http://0X7F000001/", "loopback address 127.0.0.1"),
    ("http://017700000001/", "loopback address 127.0.0.1"),
    ("http://0177.0.0.1/", "loopback address 127.0.0.1"),
    ("http://0177.0000.0000.0001/", "loopback address 127.0.0.1"),
    ("http://127.1/", "loopback address 127.0.0.1"),
    ("http://127.0.1/", "loopback address 127.0.0.1"),
    ("http://0/", "unspecified address 0.0.0.0"),
    ("http://0x/", "unspecified address 0.0.0.0"),
    ("http://0x7f.1/", "loopback address 127.0.0.1"),
    ("http://0x7f.0.0.1/", "loopback address 127.0.0.1"),
    ("http://0xa9.0xfe.0xa9.0xfe/", "link-local address 169.254.169.254"),
    ("http://3232235521/", "private address 192.168.0.1"),
    ("http://167772161/", "private address 10.0.0.1"),
    ("http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", "loopback address 127.0.0.1"),
    ("http://127\u30020\u30020\u30021/", "loopback address 127.0.0.1"),
    ("http://\u2460\u2461\u2466.0.0.1/", "loopback address 12"),
    ("http://127.0.0.1./", "loopback address 127.0.0.1"),
    ("http://1.2.3.256/", "looks numeric"),
    ("http://08.0.0.1/", "looks numeric"),
    ("http://1.2.3.4.5/", "looks numeric"),
    ("http://example.123/", "looks numeric"),
    ("http://%31%32%37.0.0.1/", "looks numeric"),
    # names of this machine
    ("http://localhost/", "localhost always means this machine"),
    ("http://LOCALHOST:8000/", "localhost"),
    ("http://localhost./", "localhost"),
    ("http://api.localhost/", "api.localhost"),
    ("http://a.b.localhost./", "a.b.localhost"),
    ("http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/", "localhost"),
    # IPv6 literals
    ("http://[::1]/", "loopback address ::1"),
    ("http://[0:0:0:0:0:0:0:1]:8080/", "loopback"),
    ("http://[::]/", "unspecified address ::"),
    ("http://[fe80::1]/", "link-local"),
    ("http://[fe80::1%25eth0]/", "zone identifiers"),
    ("http://[fe80::1%eth0]/", "zone identifiers"),
    ("http://[fec0::1]/", "site-local"),
    ("http://[fc00::1]/", "unique-local"),
    ("http://[fd12:3456:789a::1]/", "unique-local"),
    ("http://[ff02::1]/", "multicast"),
    ("http://[2001:db8::1]/", "documentation"),
    ("http://[100::1]/", "discard-only"),
    ("http://[::ffff:127.0.0.1]/", "loopback address 127.0.0.1"),
    ("http://[::ffff:7f00:1]/", "loopback address 127.0.0.1"),
    ("http://[::ffff:169.254.169.254]/", "link-local address 169.254.169.254"),
    ("http://[::127.0.0.1]/", "IPv4-compatible address embedding a loopback address 127.0.0.1"),
    ("http://[::10.0.0.1]/", "IPv4-compatible address embedding a private"),
    ("http://[::ffff:0:a00:1]/", "IPv4-translated address embedding a private address 10.0.0.1"),
    ("http://[2002:7f00:1::]/", "6to4 address embedding a loopback address 127.0.0.1"),
    ("http://[2002:a9fe:a9fe::1]/", "6to4 address embedding a link-local address 169.254.169.254"),
    ("http://[64:ff9b::127.0.0.1]/", "NAT64 address embedding a loopback"),
    ("http://[64:ff9b::a9fe:a9fe]/", "NAT64 address embedding a link-local"),
    ("http://[64:ff9b:1::a00:1]/", "local-use NAT64"),
    ("http://[2001:0:a00:1::]/", "Teredo address embedding a private address 10.0.0.1"),
    (
        "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
        "Teredo address embedding a loopback address 127.0.0.1",
    ),
    # names that resolve to refused addresses
    ("http://mixed.example/", "host mixed.example resolves to a private address 10.0.0.5"),
    ("http://v6mixed.example/", "resolves to a unique-local address fd00::1"),
    ("http://metadata.example/", "resolves to a link-local address 169.254.169.254"),
    ("http://mapped.example/", "resolves to a loopback address 127.0.0.1"),
    ("http://linklocal6.example/", "resolves to a link-local address fe80::1"),
    ("http://cgnat.example/", "carrier-grade NAT"),
    ("http://internal.example.com/", "private address 10.1.2.3"),
    ("http://garbage.example/", "no address"),
    ("http://does-not-exist.example/", "does not resolve"),
]


def test_the_unsafe_table_is_broad() -> None:
    assert len(UNSAFE) >= 60


@pytest.mark.parametrize(("url", "reason"), UNSAFE)
def test_unsafe_url_is_refused_with_a_reason(url: str, reason: str) -> None:
    error = denied(url)
    assert reason in error.reason
    assert error.code == "egress_denied"
    assert error.url == url


SAFE = [
    "http://public.example/",
    "https://public.example/path?q=1#fragment",
    "HTTPS://PUBLIC.EXAMPLE:8443/x",
    "http://public.example./",
    "http://public6.example/",
    "http://b\u00fccher.example/",
    "http://under_score.public.example/",
    "http://93.184.216.34/",
    "http://0x08080808/",
    "http://[2606:4700:4700::1111]/",
    "http://[::ffff:8.8.8.8]/",
    "http://[2002:808:808::1]/",
    "http://[64:ff9b::8.8.8.8]/",
    "http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/",
    # neighbours of blocked ranges
    "http://9.255.255.255/",
    "http://11.0.0.0/",
    "http://100.63.255.255/",
    "http://100.128.0.0/",
    "http://172.15.255.255/",
    "http://172.32.0.0/",
    "http://192.167.255.255/",
    "http://192.169.0.0/",
    "http://198.17.255.255/",
    "http://198.20.0.0/",
    "http://223.255.255.255/",
    "http://1.0.0.0/",
]


@pytest.mark.parametrize("url", SAFE)
def test_public_url_passes(url: str) -> None:
    check_url(url, resolver=resolver)


class TestAllowList:
    def test_parses_networks_addresses_and_names(self) -> None:
        allow = EgressAllowList.parse(" 127.0.0.1/32, ::1/128 ,Internal.Example.com., 10.9.8.7 ")
        assert [str(n) for n in allow.networks] == ["127.0.0.1/32", "::1/128", "10.9.8.7/32"]
        assert allow.hosts == {"internal.example.com"}

    @pytest.mark.parametrize("text", ["", " ", ",", " , ,"])
    def test_empty_opens_nothing(self, text: str) -> None:
        allow = EgressAllowList.parse(text)
        assert allow == EgressAllowList()
        assert "loopback" in denied("http://127.0.0.1/", allow).reason

    @pytest.mark.parametrize(
        "text", ["10.0.0.1/8", "10.0.0.0/33", "*.example.com", "http://x", "300.1.1.1", "not a host", "a/b"]
    )
    def test_garbage_is_a_value_error(self, text: str) -> None:
        with pytest.raises(ValueError, match="egress allow list"):
            EgressAllowList.parse(text)

    def test_network_opens_addresses_inside_it_only(self) -> None:
        allow = EgressAllowList.parse("127.0.0.1/32,10.0.0.0/8")
        check_url("http://127.0.0.1:8080/", allow=allow, resolver=resolver)
        check_url("http://[::ffff:127.0.0.1]/", allow=allow, resolver=resolver)
        check_url("http://mixed.example/", allow=allow, resolver=resolver)
        assert "127.0.0.2" in denied("http://127.0.0.2/", allow).reason
        assert "192.168.0.1" in denied("http://192.168.0.1/", allow).reason

    def test_a_network_does_not_open_the_localhost_name(self) -> None:
        allow = EgressAllowList.parse("127.0.0.0/8,::1/128")
        assert "localhost" in denied("http://localhost:8000/", allow).reason

    def test_a_name_opens_that_name_whatever_it_resolves_to(self) -> None:
        allow = EgressAllowList.parse("internal.example.com,localhost")
        check_url("http://internal.example.com/", allow=allow, resolver=resolver)
        check_url("http://localhost:8000/", allow=allow, resolver=resolver)
        assert "10.1.2.4" in denied("http://sub.internal.example.com/", allow).reason
        assert "10.1.2.3" in denied("http://10.1.2.3/", allow).reason


class TestErrors:
    def test_message_names_the_target_without_path_query_or_credentials(self) -> None:
        error = denied("http://user:hunter2@public.example/hooks/T0/B0/s3cr3t?token=abc")
        assert str(error).startswith("request to http://public.example/… refused: credentials")
        assert "hunter2" not in str(error)
        assert "s3cr3t" not in str(error)
        assert "abc" not in str(error)

    def test_message_has_no_control_characters(self) -> None:
        assert str(denied("http://127.0.0.1\x00\n.example/")).startswith(
            "request to http://127.0.0.1?.example"
        )

    def test_survives_pickling_for_celery(self) -> None:
        error = denied("http://10.0.0.1/")
        copy = pickle.loads(pickle.dumps(error))  # noqa: S301 (our own object, round-tripped)
        assert (type(copy), copy.reason, copy.url, copy.code) == (
            EgressDenied,
            error.reason,
            error.url,
            error.code,
        )


BLOCKED_EDGES = [
    "0.0.0.0", "0.255.255.255", "10.0.0.0", "10.255.255.255", "100.64.0.0", "100.127.255.255",  # noqa: S104
    "127.0.0.0",
    "127.255.255.255", "169.254.0.0", "169.254.255.255", "172.16.0.0", "172.31.255.255", "192.0.0.0",
    "192.0.0.255", "192.0.2.0", "192.0.2.255", "192.88.99.0", "192.88.99.255", "192.168.0.0",
    "192.168.255.255", "198.18.0.0", "198.19.255.255", "198.51.100.0", "198.51.100.255", "203.0.113.0",
    "203.0.113.255", "224.0.0.0", "239.255.255.255", "240.0.0.0", "255.255.255.254", "255.255.255.255",
    "::", "::1", "64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", "100::", "100::ffff:ffff:ffff:ffff",
    "2001:2::", "2001:10::", "2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "3fff::",
    "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", "5f00::", "fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    "fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    "ff00::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::1:0:0:0", "4000::", "fe00::",
    "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
]  # fmt: skip
PUBLIC_EDGES = [
    "1.0.0.0", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "126.255.255.255", "128.0.0.0",
    "169.253.255.255", "169.255.0.0", "172.15.255.255", "172.32.0.0", "191.255.255.255", "192.0.1.0",
    "192.0.3.0", "192.88.98.255", "192.88.100.0", "192.167.255.255", "192.169.0.0", "198.17.255.255",
    "198.20.0.0", "198.51.99.255", "198.51.101.0", "203.0.112.255", "203.0.114.0", "223.255.255.255",
    "64:ff9b::808:808", "2000::", "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db9::", "2606:4700::1111",
    "2a00:1450::1", "3fff:1000::", "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
]  # fmt: skip


@pytest.mark.parametrize("text", BLOCKED_EDGES)
def test_explicit_table_blocks_both_ends_of_every_range(text: str) -> None:
    assert address_problem(ip_address(text)) is not None


@pytest.mark.parametrize("text", PUBLIC_EDGES)
def test_explicit_table_passes_the_neighbours_of_every_range(text: str) -> None:
    assert address_problem(ip_address(text)) is None


def _spellings(value: int) -> list[str]:
    octets = value.to_bytes(4, "big")
    return [
        str(value),
        hex(value),
        "0" + oct(value)[2:],
        ".".join(f"0{b:o}" for b in octets),
        ".".join(hex(b) for b in octets),
        f"{octets[0]}.{int.from_bytes(octets[1:], 'big')}",
        f"{octets[0]}.{octets[1]}.{int.from_bytes(octets[2:], 'big')}",
    ]


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_every_spelling_of_an_ipv4_address_gets_the_same_answer(value: int) -> None:
    address = IPv4Address(value)
    expected = address_problem(address)
    for spelling in _spellings(value):
        assert parse_ipv4_number(spelling) == address
        url = f"http://{spelling}/"
        if expected is None:
            check_url(url, resolver=resolver)
        else:
            assert expected in denied(url).reason


def _refusal(url: str) -> str | None:
    try:
        check_url(url, resolver=resolver)
    except EgressDenied as error:
        return error.reason
    return None


@given(st.text(max_size=80))
def test_arbitrary_text_is_refused_cleanly_or_accepted(text: str) -> None:
    for url in (text, "http://" + text, "http://public.example/" + text):
        reason = _refusal(url)
        assert reason is None or reason.strip()
