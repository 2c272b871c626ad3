"""Asking the meaning server (``meaning_server.py``) for a search's meaning pass, from a one-shot command.

The meaning pass needs numpy and the sentence model, which take one to two seconds to load: more than
everything else a ``trail search`` does, every time. So a command run from the shell hands that pass to
a small server of the same user that keeps them loaded (started on first need, gone after
:data:`IDLE_SECONDS` unused), and gets back the same numbers it would have computed. Long-lived processes
(the MCP server, the web viewer, the Hermes plugin) load the model once and never ask.

The server listens on a Unix socket in a directory only this user can enter; its name carries a digest
of this installation (its Python, its code), so a server left by another version is never asked and
idles out. Whenever the server cannot be reached or answer, the command computes the pass itself:
slower, never different. ``TRAIL_MEANING_SERVER=0`` turns the server off.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the rest is imported when a server is asked: a search the words answer never does
    import socket
    import sqlite3

    from hermes_trail.index.filters import SearchFilters

IDLE_SECONDS = 600.0  # the server exits after this long without a question
START_SECONDS = 60.0  # how long a command waits for a server it started to load the model
ANSWER_SECONDS = 60.0  # how long it waits for one answer
_ACTIVE: list[bool] = []


@contextlib.contextmanager
def served() -> Iterator[None]:
    """Within this block, searches of this process ask the meaning server (when it is allowed here)."""
    _ACTIVE.append(True)
    try:
        yield
    finally:
        _ACTIVE.pop()


def enabled() -> bool:
    """Whether this process asks a server: inside :func:`served`, with Unix sockets, not turned off."""
    import socket

    if not _ACTIVE or not hasattr(socket, "AF_UNIX"):
        return False
    return os.environ.get("TRAIL_MEANING_SERVER", "1").strip().lower() not in ("0", "no", "off", "false")


def standing(
    conn: sqlite3.Connection, text: str, filters: SearchFilters
) -> dict[int, tuple[float, int | None]] | None:
    """The meaning pass's standings as the server computes them for this index, or ``None`` when this
    process computes them itself (no server wanted here, or none could answer)."""
    if not enabled():
        return None
    path = _database_path(conn)
    where = socket_path()
    if path is None or where is None:
        return None
    request = {"index": path, "text": text, "filters": filters.as_dict()}
    answer = _ask(where, request, start=True)
    if answer is None or not isinstance(answer.get("standing"), list):
        return None
    return {int(sess): (float(z), None if doc is None else int(doc)) for sess, z, doc in answer["standing"]}


def vector(text: str) -> list[float] | None:
    """The sentence model's vector of ``text`` as the server computes it (the shared index's meaning pass
    compares it with the passages there), or ``None`` when this process encodes it itself."""
    if not enabled() or (where := socket_path()) is None:
        return None
    answer = _ask(where, {"encode": text}, start=True)
    found = None if answer is None else answer.get("vector")
    if not isinstance(found, list) or not all(isinstance(x, float) for x in found):
        return None
    return found


def stop() -> bool:
    """Stop this installation's server; whether one was running."""
    where = socket_path()
    if where is None:
        return False
    return _ask(where, {"stop": True}, start=False) is not None


def socket_path() -> Path | None:
    """The server's socket: in ``TRAIL_MEANING_SOCKET_DIR``, else ``$XDG_RUNTIME_DIR/hermes-trail``, else
    a ``hermes-trail-<uid>`` folder in the temp folder; ``None`` when that folder is not this user's
    alone (then no server is used)."""
    import tempfile

    base = os.environ.get("TRAIL_MEANING_SOCKET_DIR")
    if base:
        folder = Path(base)
    elif os.environ.get("XDG_RUNTIME_DIR"):
        folder = Path(os.environ["XDG_RUNTIME_DIR"]) / "hermes-trail"
    else:
        folder = Path(tempfile.gettempdir()) / f"hermes-trail-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return None
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None  # another user could reach it: not a place to trust
    path = folder / f"meaning-{_installation()}.sock"
    return path if len(str(path)) < 100 else None  # a Unix socket's path is short


def _installation() -> str:
    """A digest of this Python and of the code the server runs: another version has another socket."""
    import hashlib

    here = Path(__file__).resolve().parent
    digest = hashlib.sha256(sys.executable.encode())
    for name in ("search.py", "vectors.py", "encoder.py", "semantic.py", "meaning_server.py"):
        with contextlib.suppress(OSError):
            stat = (here / name).stat()
            digest.update(f"{name}:{stat.st_mtime_ns}:{stat.st_size}".encode())
    return digest.hexdigest()[:16]


def _database_path(conn: sqlite3.Connection) -> str | None:
    for _, name, file in conn.execute("PRAGMA database_list").fetchall():
        if name == "main":
            return str(file) if file else None
    return None


def _ask(where: Path, request: dict[str, Any], start: bool) -> dict[str, Any] | None:
    """One request and its answer; starts the server and waits for it when it is not there (``start``)."""
    import json
    import socket
    import time

    sock = _connect(where)
    if sock is None and start:
        _start(where)
        deadline = time.monotonic() + START_SECONDS
        while sock is None and time.monotonic() < deadline:
            time.sleep(0.02)
            sock = _connect(where)
    if sock is None:
        return None
    try:
        with sock:
            sock.settimeout(ANSWER_SECONDS)
            sock.sendall(json.dumps(request).encode() + b"\n")
            sock.shutdown(socket.SHUT_WR)
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        answer = json.loads(data) if data else None
    except (OSError, ValueError):
        return None
    return answer if isinstance(answer, dict) and "error" not in answer else None


def _connect(where: Path) -> socket.socket | None:
    import socket

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(where))
    except OSError:
        sock.close()
        return None
    return sock


def _start(where: Path) -> None:
    """Start the server in its own session, detached from this command's terminal and output."""
    import subprocess

    command = [
        sys.executable,
        "-m",
        "hermes_trail.index.meaning_server",
        "--socket",
        str(where),
        "--idle",
        str(float(os.environ.get("TRAIL_MEANING_IDLE", IDLE_SECONDS))),
    ]
    with contextlib.suppress(OSError):
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
