"""Which local user a loopback connection comes from.

A cookie for 127.0.0.1 is sent to every port on that address (cookies ignore ports), so another
local user's server on another port can receive the dashboard's session cookie and replay it. Over
plain HTTP no cookie attribute prevents that, but on Linux the kernel says who owns each socket:
``/proc/net/tcp`` (and ``tcp6``) lists every TCP socket with its owner's uid. The client end of a
loopback connection is one of them, so the server can tell whether the request comes from a
process of its own user (the person's browser) or of someone else.
"""

from __future__ import annotations

import ipaddress
import os
import struct
import time

_TABLES = ("/proc/net/tcp", "/proc/net/tcp6")


def _hex(ip: str, port: int) -> str:
    """An address as /proc/net/tcp* prints it: 32-bit words in host byte order, then the port."""
    addr = ipaddress.ip_address(ip)
    packed = addr.packed
    if addr.version == 4:
        words = struct.unpack("=I", packed)
        return f"{words[0]:08X}:{port:04X}"
    words = struct.unpack("=4I", packed)
    return "".join(f"{w:08X}" for w in words) + f":{port:04X}"


def _forms(ip: str, port: int) -> set[str]:
    """An IPv4 client of a dual-stack socket shows as ``::ffff:a.b.c.d`` in ``tcp6``."""
    out = {_hex(ip, port)}
    addr = ipaddress.ip_address(ip)
    if addr.version == 4:
        out.add(_hex(f"::ffff:{ip}", port))
    elif addr.ipv4_mapped is not None:
        out.add(_hex(str(addr.ipv4_mapped), port))
    return out


def owner(client: tuple | None, server: tuple | None) -> int | None:
    """The uid owning the client end of a loopback connection, or None when that cannot be
    told (not Linux, not a loopback address, no such socket listed)."""
    if not client or not server:
        return None
    try:
        cip, cport = client[0], int(client[1])
        sip, sport = server[0], int(server[1])
        if not ipaddress.ip_address(cip).is_loopback and ipaddress.ip_address(cip).ipv4_mapped is None:
            return None
        local, remote = _forms(cip, cport), _forms(sip, sport)
    except (ValueError, TypeError, IndexError):
        return None
    for table in _TABLES:
        try:
            with open(table, encoding="ascii") as f:
                next(f, None)
                for line in f:
                    parts = line.split()
                    if len(parts) > 7 and parts[1] in local and parts[2] in remote:
                        return int(parts[7])
        except OSError:
            continue
    return None


def readable() -> bool:
    """Whether this system lists its sockets' owners at all."""
    return os.path.exists(_TABLES[0])


def is_loopback_client(client: tuple | None) -> bool:
    try:
        addr = ipaddress.ip_address(client[0])
    except (ValueError, TypeError, IndexError):
        return False
    return addr.is_loopback or (addr.ipv4_mapped is not None and addr.ipv4_mapped.is_loopback)


#: A connection's answer is kept this long: a browser sends a page's requests over a few kept-alive
#: connections, and reading the socket tables costs milliseconds on a busy machine.
CACHE_SECONDS = 2.0
_cache: dict[tuple, tuple[float, bool]] = {}


def from_another_user(client: tuple | None, server: tuple | None) -> bool:
    """True when the connection comes from a process of another user, or from a loopback socket
    the tables do not list (fail closed); False when it is this user's, or cannot be told (not a
    loopback client, no socket tables on this system)."""
    if not is_loopback_client(client) or not readable():
        return False
    key = (tuple(client), tuple(server or ()))
    now = time.monotonic()
    hit = _cache.get(key)
    if hit is not None and hit[0] > now:
        return hit[1]
    uid = owner(client, server)
    other = uid is None or uid != os.getuid()
    if len(_cache) > 256:
        _cache.clear()
    _cache[key] = (now + CACHE_SECONDS, other)
    return other


def client_key(client: tuple | None, server: tuple | None) -> str:
    """Who a connection is, for counting failed logins: ``uid:N`` for a local process whose
    owner the socket tables show, else ``ip:ADDRESS`` (a remote client)."""
    uid = owner(client, server) if is_loopback_client(client) else None
    if uid is not None:
        return f"uid:{uid}"
    try:
        return f"ip:{client[0]}" if client else "ip:?"
    except (TypeError, IndexError):
        return "ip:?"
