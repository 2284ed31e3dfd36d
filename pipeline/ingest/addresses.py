"""Which addresses ingest may connect to: public ones only (the feeds' hosts are third parties
that could point a name at an internal service), seen through IPv6's ways of carrying IPv4."""

from __future__ import annotations

import ipaddress

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
"""The well-known NAT64 prefix: its last 32 bits are the IPv4 address reached."""
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
"""Local-use NAT64 (RFC 8215): translates to whatever the local network chooses."""


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """Return the IPv4 address an IPv6 address reaches by a transition form (IPv4-mapped,
    IPv4-compatible, NAT64, 6to4, Teredo's client), if it is one."""
    if ip.ipv4_mapped:
        return ip.ipv4_mapped
    if ip in _NAT64 or int(ip) >> 32 == 0 and int(ip) > 1:  # NAT64; ::a.b.c.d (not :: or ::1)
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour:
        return ip.sixtofour
    if ip.teredo:
        return ip.teredo[1]
    return None


def address_allowed(ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
                    allowed: list[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    """May ingest connect to `ip`? Only a public address, or one inside `allowed` (a test's
    loopback); an IPv6 address that carries an IPv4 one is judged by that one."""
    if any(ip in net for net in allowed):
        return True
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.is_site_local or ip in _NAT64_LOCAL:
            return False
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            return address_allowed(embedded, allowed)
    # Python counts multicast and reserved ranges (ff00::/8, ::/8 beyond the forms above) as
    # global; neither is a host a feed lives on.
    return ip.is_global and not ip.is_multicast and not ip.is_reserved


def address_kind(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """Return what kind of address `ip` is, for the message that refuses it."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.is_site_local:
            return "site-local"
        if ip in _NAT64_LOCAL:
            return "local NAT64"
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            return f"{address_kind(embedded)} (as {embedded} inside IPv6)"
    # No "unspecified": 0.0.0.0 and :: are private to Python, so that case would never be reached.
    for name in ("loopback", "link_local", "private", "multicast", "reserved"):
        if getattr(ip, f"is_{name}"):
            return name.replace("_", "-")
    return "non-public"
