"""Which IP addresses an outbound request may reach, and the IPv4 spellings a URL may use.

Public-only means: not loopback, private, link-local, CGNAT, multicast, reserved,
documentation or benchmarking space, and not an IPv6 address that carries one of
those IPv4 addresses (IPv4-mapped, IPv4-compatible, NAT64, 6to4). The tables are
explicit rather than ``ipaddress.is_global``, whose answer has changed between
Python versions (and still calls multicast global).
"""

from __future__ import annotations

import ipaddress

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

BLOCKED_V4 = tuple(
    ipaddress.IPv4Network(net)
    for net in (
        "0.0.0.0/8",  # "this network", 0.0.0.0 reaches the local host
        "10.0.0.0/8",
        "100.64.0.0/10",  # CGNAT
        "127.0.0.0/8",
        "169.254.0.0/16",  # link-local, cloud metadata
        "172.16.0.0/12",
        "192.0.0.0/24",  # IETF protocol assignments
        "192.0.2.0/24",  # documentation
        "192.88.99.0/24",  # 6to4 relay anycast
        "192.168.0.0/16",
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, broadcast
    )
)

BLOCKED_V6 = tuple(
    ipaddress.IPv6Network(net)
    for net in (
        "::/96",  # unspecified, loopback, IPv4-compatible (deprecated)
        "64:ff9b:1::/48",  # local-use NAT64
        "100::/64",  # discard
        "2001::/23",  # IETF protocol assignments (Teredo, benchmarking, ORCHID)
        "2001:db8::/32",  # documentation
        "3fff::/20",  # documentation
        "fc00::/7",  # unique local
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local (deprecated)
        "ff00::/8",  # multicast
    )
)

NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (mapped, NAT64, 6to4), if any."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in SIX_TO_FOUR:
        return address.sixtofour
    return None


def is_public(address: IPAddress) -> bool:
    """Whether ``address`` is an ordinary internet address (see the module docstring)."""
    if isinstance(address, ipaddress.IPv4Address):
        return not any(address in net for net in BLOCKED_V4)
    inner = embedded_ipv4(address)
    if inner is not None:
        return is_public(inner)
    return not any(address in net for net in BLOCKED_V6)


def parse_ip(host: str) -> IPAddress | None:
    """An IP literal in any spelling a URL parser or ``inet_aton`` accepts, else None.

    IPv6 may come bracketed and with a zone (``[fe80::1%eth0]``). IPv4 may be short
    (``127.1``), decimal (``2130706433``), hex (``0x7f000001``, ``0x7f.1``) or octal
    (``0177.0.0.1``): the WHATWG URL rules, which are also what ``getaddrinfo`` accepts.
    Raises ValueError for a host that ends in a number but is no valid IPv4 address
    (``1.2.3.4.5``, ``256.1.1.1``), which no resolver should be asked about.
    """
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if ":" in text:
        try:
            return ipaddress.IPv6Address(text.split("%", 1)[0])
        except ValueError:
            raise ValueError(f"invalid IPv6 address {host!r}") from None
    return _parse_ipv4(text)


def _parse_ipv4(host: str) -> ipaddress.IPv4Address | None:
    labels = host.split(".")
    if labels and labels[-1] == "" and len(labels) > 1:
        labels.pop()  # a trailing dot names the same host
    if not labels or _number(labels[-1]) is None:
        return None  # a name, not an address
    if len(labels) > 4:
        raise ValueError(f"invalid IPv4 address {host!r}")
    numbers = [_number(label) for label in labels]
    if any(n is None for n in numbers):
        raise ValueError(f"invalid IPv4 address {host!r}")
    values = [n for n in numbers if n is not None]
    *head, last = values
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(values)):
        raise ValueError(f"invalid IPv4 address {host!r}")
    result = last
    for index, part in enumerate(head):
        result += part << (8 * (3 - index))
    return ipaddress.IPv4Address(result)


def _number(label: str) -> int | None:
    """One IPv4 label: decimal, ``0x`` hex or leading-zero octal; None if not a number."""
    if label == "":
        return None
    try:
        if label[:2].lower() == "0x":
            return int(label[2:], 16) if label[2:] else 0
        if len(label) > 1 and label.startswith("0"):
            return int(label[1:], 8)
        return int(label, 10) if label.isdigit() else None
    except ValueError:
        return None


__all__ = ["IPAddress", "embedded_ipv4", "is_public", "parse_ip"]
