"""The meaning server: keeps numpy, the sentence model and the passage matrices loaded for one-shot
``trail`` commands (see ``meaning_client.py`` for why), and answers each with the meaning pass's
standings, computed by the same function a long-lived process calls (``search.meaning_standing``), or,
for a search of the shared index, with the question's vector.

Run as ``python -m hermes_trail.index.meaning_server --socket PATH [--idle SECONDS]``. It serves one
question at a time on a Unix socket only its user can reach, opens each index read-only, and exits
after ``--idle`` seconds without a question, on a ``stop`` request, or when its socket was taken over.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import sqlite3
import sys
from pathlib import Path
from typing import Any

from hermes_trail import readonly

MAX_REQUEST = 1 << 20  # a question is a query and its filters: a megabyte is far past any real one


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """The answer to one request: an index's meaning standings (``{"standing": [[session, z, doc], ...]}``),
    or a text's vector (``{"encode": text}``: ``{"vector": [...]}``, what the shared index's meaning pass
    compares with), or ``{"error": ...}``."""
    if "encode" in request:
        return _encoded(request["encode"])
    from hermes_trail.index.search import SearchFilters, meaning_standing

    index, text, fields = request.get("index"), request.get("text"), request.get("filters") or {}
    if not isinstance(index, str) or not isinstance(text, str) or not isinstance(fields, dict):
        return {"error": "a request names an index, a text and filters"}
    try:
        filters = SearchFilters(**fields)
    except TypeError as exc:
        return {"error": f"filters: {exc}"}
    if not Path(index).is_file():
        return {"error": f"no index at {index}"}
    # Opened for each question and closed after it: an index this server held open between questions would
    # keep its write-ahead log on disk at its largest. What costs (the passage and gist matrices) is kept by
    # the search module, keyed by the index's state, not by the connection.
    conn = readonly.connect(index)
    try:
        found = meaning_standing(conn, text, filters)
    except sqlite3.Error as exc:
        return {"error": f"index: {exc}"}
    finally:
        conn.close()
    return {"standing": [[sess, z, doc] for sess, (z, doc) in found.items()]}


def _encoded(text: Any) -> dict[str, Any]:
    """The sentence model's vector of ``text``: float32 values, each exact as a JSON number."""
    from hermes_trail.index import encoder

    if not isinstance(text, str):
        return {"error": "an encode request names a text"}
    if not encoder.available():
        return {"error": "no sentence model here"}
    return {"vector": [float(x) for x in encoder.model().encode([text])[0]]}


def serve(where: Path, idle: float) -> int:
    """Listen on ``where`` until idle for ``idle`` seconds or asked to stop."""
    from hermes_trail.index import encoder

    if encoder.available():
        encoder.model()  # load before listening: a client that connects gets an answer, not a wait
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(where))
        return 0  # another server (started by a command at the same moment) already answers here
    except OSError:
        pass
    finally:
        probe.close()
    with contextlib.suppress(FileNotFoundError):
        where.unlink()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o077)
    try:
        server.bind(str(where))
    finally:
        os.umask(old_mask)
    server.listen(8)
    server.settimeout(idle)
    identity = where.stat().st_ino
    try:
        while True:
            try:
                client, _ = server.accept()
            except TimeoutError:
                return 0
            with client:
                client.settimeout(30)
                request = _read(client)
                if request is None:
                    continue
                if request.get("stop"):
                    _send(client, {"stopped": True})
                    return 0
                try:
                    reply = answer(request)
                except Exception as exc:  # one bad question must not end the server for the next
                    reply = {"error": f"{type(exc).__name__}: {exc}"}
                _send(client, reply)
            try:
                if where.stat().st_ino != identity:
                    return 0  # another server took the socket's name: leave it to that one
            except FileNotFoundError:
                return 0
    finally:
        server.close()
        with contextlib.suppress(OSError):
            if where.stat().st_ino == identity:
                where.unlink()


def _read(client: socket.socket) -> dict[str, Any] | None:
    data = b""
    try:
        while len(data) <= MAX_REQUEST and (chunk := client.recv(65536)):
            data += chunk
        request = json.loads(data)
    except (OSError, ValueError):
        return None
    return request if isinstance(request, dict) else None


def _send(client: socket.socket, reply: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        client.sendall(json.dumps(reply).encode())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--socket", type=Path, required=True)
    parser.add_argument("--idle", type=float, default=600.0)
    args = parser.parse_args(argv)
    return serve(args.socket, max(args.idle, 1.0))


if __name__ == "__main__":
    sys.exit(main())
