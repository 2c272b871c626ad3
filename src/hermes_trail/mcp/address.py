"""Where ``trail mcp --http`` listens: ``[host:]port`` read, loopback told apart, the socket bound.

Binding before the server starts lets ``trail mcp`` say the real port (``--http 0`` takes a free one)
before any client connects, and report an address in use as one line instead of a traceback.
"""

from __future__ import annotations

import socket

from hermes_trail.errors import TrailError
from hermes_trail.loopback import MIN_TOKEN_CHARS, check_token, is_loopback, new_token

__all__ = ["MIN_TOKEN_CHARS", "bind", "check_token", "is_loopback", "new_token", "parse_address", "url"]

LOOPBACK = "127.0.0.1"


def parse_address(value: str) -> tuple[str, int]:
    """``8765``, ``0.0.0.0:8765``, ``localhost:8765`` or ``[::1]:8765`` as (host, port); the host is
    ``127.0.0.1`` when only a port is given.

    :raises TrailError: anything else, saying what is accepted.
    """
    host, sep, port_text = value.strip().rpartition(":")
    host = host.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not sep:
        host = LOOPBACK
    try:
        port = int(port_text)
    except ValueError:
        port = -1
    if not host or not 0 <= port <= 65535:
        raise TrailError(f"--http {value!r}: give [HOST:]PORT, like 8765, 127.0.0.1:8765 or [::1]:8765")
    return host, port


def bind(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` and listening.

    :raises TrailError: the address cannot be resolved or taken.
    """
    try:
        family, kind, proto, _, where = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise TrailError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(where)
        sock.listen(128)  # a client that connects before the server loop starts waits in the backlog
    except OSError as exc:
        sock.close()
        raise TrailError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    return sock


def url(host: str, port: int, path: str) -> str:
    """The URL a client uses; an address listening everywhere is shown by this machine's name."""
    if host in ("0.0.0.0", "::"):
        host = socket.gethostname()
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"
