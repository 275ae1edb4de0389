"""The operator's list of targets that are opened despite the address table (AUTOMATIONS_EGRESS_ALLOW)."""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network, ip_network

from app.security.egress.addresses import IPAddress, canonical
from app.security.egress.hosts import normalise_host


@dataclass(frozen=True)
class EgressAllowList:
    """Networks and host names that outbound requests may reach even when they are not public.

    A network opens every address inside it, whatever name led there. A host name opens that exact name
    (not its subdomains) whatever it resolves to; the connection still goes to the addresses resolved for
    the check. The names `localhost` and `*.localhost` are only opened by naming them: a network such as
    127.0.0.1/32 opens the address, not the name.
    """

    networks: tuple[IPv4Network | IPv6Network, ...] = ()
    hosts: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, text: str) -> EgressAllowList:
        """Read a comma-separated list of CIDRs, addresses and host names; raise ValueError on garbage.

        An empty string opens nothing. Networks must be written with their host bits clear
        (`10.0.0.0/8`, not `10.0.0.1/8`) so that a typo cannot open more than intended.
        """
        networks: list[IPv4Network | IPv6Network] = []
        hosts: set[str] = set()
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            if "/" in item:
                try:
                    networks.append(ip_network(item))
                except ValueError as exc:
                    raise ValueError(f"egress allow list: {item!r} is not a valid network ({exc})") from None
                continue
            try:
                host = normalise_host(item)
            except ValueError as exc:
                message = f"egress allow list: {item!r} is not an address or host name ({exc})"
                raise ValueError(message) from None
            if isinstance(host, str):
                hosts.add(host)
            else:
                networks.append(ip_network(host))
        return cls(networks=tuple(networks), hosts=frozenset(hosts))

    def allows_address(self, address: IPAddress) -> bool:
        """Whether an address lies in one of the opened networks (IPv4-mapped IPv6 counts as IPv4)."""
        address = canonical(address)
        return any(address in network for network in self.networks)

    def allows_host(self, host: str) -> bool:
        """Whether a normalised host name was opened by name."""
        return host in self.hosts
