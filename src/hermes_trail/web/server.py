"""The web viewer's HTTP server: the standard library's threading server, GET only, every answer with
headers that keep transcript content inert.

It listens on loopback unless told otherwise. On loopback it answers only requests addressed to a
loopback name (``Host``), which stops a web page elsewhere from reaching it through DNS rebinding. Bound
to any other address it needs the token it printed: in the URL (``?token=``) once, then in a cookie the
first answer sets. The pages load only their own script and styles (Content-Security-Policy), images only
from ``data:`` URLs, and never send a referrer, so a token in the address does not leak.
"""

from __future__ import annotations

import hmac
import html
import json
import mimetypes
import socket
import sys
import threading
import traceback
from collections.abc import Callable
from functools import cache
from http import HTTPStatus
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from hermes_trail.loopback import is_loopback, new_token
from hermes_trail.web.app import BadRequest, NotFound, WebApp

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
COOKIE = "trail_token"
ALLOW = "GET, HEAD"
PAGES = {"/": "index.html", "/session": "session.html"}
# Files served under /static/: the dashboard's own, and the replay's, shared with the HTML export.
STATIC = {
    "web.css": ("web", "static/web.css"),
    "dashboard.js": ("web", "static/dashboard.js"),
    "charts.js": ("web", "static/charts.js"),
    "replay.js": ("export", "assets/replay.js"),
    "replay.css": ("export", "assets/replay.css"),
}


@cache
def _file(package: str, name: str) -> bytes:
    return (resources.files(f"hermes_trail.{package}") / name).read_bytes()


# The first turns a replay page asks for (replay.js: HEAD), asked for by the page itself before its
# script has loaded, so the server reads the session meanwhile.
REPLAY_HEAD = 30


def _preloading(page: bytes, ref: str) -> bytes:
    """The replay page with a preload of its first request, written as replay.js writes that URL
    (``encodeURIComponent``), so the browser uses the preloaded answer."""
    from urllib.parse import quote

    unreserved = "-_.!~*'()"  # what encodeURIComponent leaves as it is
    url = f"/api/session?ref={quote(ref, safe=unreserved)}&head={REPLAY_HEAD}"
    link = f'<link rel="preload" as="fetch" crossorigin href="{html.escape(url)}">\n'.encode()
    return page.replace(b'<link rel="stylesheet"', link + b'<link rel="stylesheet"', 1)


# The dashboard's page of sessions (dashboard.js: PAGE).
DASHBOARD_PAGE = 100


def _preloading_dashboard(page: bytes, query: str) -> bytes:
    """The dashboard with a preload of its first request: the sessions of the view its address names,
    written as dashboard.js writes that URL (the address's query as it came, then the page size), so the
    list is read while the page's scripts load."""
    url = f"/api/sessions?{query + '&' if query else ''}limit={DASHBOARD_PAGE}"
    link = f'<link rel="preload" as="fetch" crossorigin href="{html.escape(url)}">\n'.encode()
    return page.replace(b'<link rel="stylesheet"', link + b'<link rel="stylesheet"', 1)


def machine_address(ipv6: bool = False) -> str:
    """This machine's address on its network: the one it would send from (a UDP connect sends nothing),
    else its host name."""
    family, probe = (socket.AF_INET6, "2001:db8::1") if ipv6 else (socket.AF_INET, "192.0.2.1")
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.connect((probe, 9))
            address = str(sock.getsockname()[0])
        if not is_loopback(address):
            return address
    except OSError:
        pass
    return socket.gethostname() or ("::1" if ipv6 else "127.0.0.1")


class Server(ThreadingHTTPServer):
    """One viewer: its app, and the token it needs (``None`` on loopback)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], app: WebApp, token: str | None, quiet: bool = True) -> None:
        self.app = app
        self.token = token
        self.quiet = quiet
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)

    @property
    def url(self) -> str:
        """The address to open: for a wildcard bind (``0.0.0.0``, ``::``), this machine's own address on
        its network, which is what another machine reaches (loopback is never that)."""
        host, port = self.server_address[:2]
        shown = str(host)
        if host in ("", "0.0.0.0", "::"):
            shown = machine_address(ipv6=host == "::")
        if ":" in shown:
            shown = f"[{shown}]"
        query = f"/?token={self.token}" if self.token else "/"
        return f"http://{shown}:{port}{query}"

    def allowed_host(self, header: str | None) -> bool:
        """On loopback, only a loopback name in ``Host`` (or none, as HTTP/1.0 clients send)."""
        if self.token is not None:
            return True
        if not header:
            return True
        host = header if header.endswith("]") else header.rsplit(":", 1)[0]
        return is_loopback(host.strip("[]"))


class Handler(BaseHTTPRequestHandler):
    server: Server
    protocol_version = "HTTP/1.1"
    server_version = "hermes-trail"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            sys.stderr.write(f"trail web: {self.address_string()} {format % args}\n")

    # -- answering ------------------------------------------------------------------------------------
    def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-store")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, value: Any) -> None:
        body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace")
        self._send(status, body, "application/json; charset=utf-8")

    def _error(self, status: int, message: str, extra: dict[str, str] | None = None) -> None:
        # Read off the request's own line: one the standard library refused (too long) has no path yet, and
        # a connection kept alive still holds the path of the request before.
        line = getattr(self, "raw_requestline", b"")[:64].decode("latin-1").split(" ")
        asked = line[1] if len(line) > 1 else getattr(self, "path", "")
        if asked.startswith("/api/"):
            body = json.dumps({"error": message}, ensure_ascii=False).encode("utf-8", "replace")
            self._send(status, body, "application/json; charset=utf-8", extra)
        else:
            head = "<!doctype html><meta charset=utf-8><title>hermes-trail</title>"
            page = f"{head}<p>{html.escape(message)}</p>"
            self._send(status, page.encode("utf-8", "replace"), "text/html; charset=utf-8", extra)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Every error the standard library answers itself (a bad request line, a method no ``do_*``
        handles) with this server's headers; a method it does not know is a 405 naming the ones it does."""
        self.close_connection = True
        extra = {"Connection": "close"}
        if code == HTTPStatus.NOT_IMPLEMENTED and self.command:
            extra["Allow"] = ALLOW
            self._error(HTTPStatus.METHOD_NOT_ALLOWED, f"read-only: {ALLOW} only", extra)
            return
        try:
            text = message or HTTPStatus(code).phrase
        except ValueError:
            text = message or "error"
        self._error(code, text, extra)

    def _authorized(self, query: dict[str, str]) -> tuple[bool, dict[str, str]]:
        token = self.server.token
        if token is None:
            return True, {}
        given = query.get("token")
        if given is not None and hmac.compare_digest(given.encode(), token.encode()):
            cookie = f"{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"
            return True, {"Set-Cookie": cookie}
        jar = SimpleCookie()
        try:
            jar.load(self.headers.get("Cookie") or "")
        except Exception:
            return False, {}
        morsel = jar.get(COOKIE)
        if morsel is not None and hmac.compare_digest(morsel.value.encode(), token.encode()):
            return True, {}
        return False, {}

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        try:
            self._route()
        except BrokenPipeError:
            pass
        except Exception:  # an answer, not a dropped connection, for whatever went wrong
            if not self.server.quiet:
                traceback.print_exc()
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, "internal error (see where trail web runs)")

    def _route(self) -> None:
        if not self.server.allowed_host(self.headers.get("Host")):
            self._error(HTTPStatus.MISDIRECTED_REQUEST, "This viewer answers only on localhost.")
            return
        parts = urlsplit(self.path)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        ok, cookie = self._authorized(query)
        if not ok:
            self._error(HTTPStatus.FORBIDDEN, "This viewer needs the token in the URL trail web printed.")
            return
        path = parts.path
        if path == "/favicon.ico":
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
            return
        if path in PAGES:
            page = _file("web", f"static/{PAGES[path]}")
            if path == "/session" and query.get("ref"):
                page = _preloading(page, query["ref"])
            elif path == "/":
                page = _preloading_dashboard(page, parts.query)
            self._send(HTTPStatus.OK, page, "text/html; charset=utf-8", cookie)
            return
        if path.startswith("/static/"):
            name = path.removeprefix("/static/")
            if name not in STATIC:
                self._error(HTTPStatus.NOT_FOUND, "no such file")
                return
            kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
            self._send(HTTPStatus.OK, _file(*STATIC[name]), f"{kind}; charset=utf-8", cookie)
            return
        api: dict[str, Callable[[dict[str, str]], Any]] = {
            "/api/sessions": self.server.app.sessions,
            "/api/stats": self.server.app.stats,
            "/api/search": self.server.app.search,
            "/api/index": self.server.app.index_status,
        }
        try:
            if path == "/api/session":
                body = self.server.app.session_body(query)
                try:
                    self._send(HTTPStatus.OK, body, "application/json; charset=utf-8", cookie)
                    self.wfile.flush()
                finally:
                    self.server.app.answered()
            elif path in api:
                self._json(HTTPStatus.OK, api[path](query))
            elif path.startswith("/api/ask/"):  # every question, generated from its declaration
                self._json(HTTPStatus.OK, self.server.app.ask(path.removeprefix("/api/ask/"), query))
            else:
                self._error(HTTPStatus.NOT_FOUND, "no such page")
        except BadRequest as exc:
            self._error(HTTPStatus.BAD_REQUEST, str(exc))
        except NotFound as exc:
            self._error(HTTPStatus.NOT_FOUND, str(exc))

    def _not_allowed(self) -> None:
        self.close_connection = True  # its body, if any, is never read
        extra = {"Allow": ALLOW, "Connection": "close"}
        self._error(HTTPStatus.METHOD_NOT_ALLOWED, f"read-only: {ALLOW} only", extra)

    do_POST = do_PUT = do_DELETE = do_PATCH = _not_allowed


def start(
    app: WebApp, host: str = "127.0.0.1", port: int = 0, token: str | None = None, quiet: bool = True
) -> Server:
    """A server listening (in a background thread) on ``host:port`` (0: any free port).

    A token is made when ``host`` is not loopback and none was given.
    """
    if token is None and not is_loopback(host):
        token = new_token()
    server = Server((host, port), app, token, quiet)
    threading.Thread(target=server.serve_forever, name="trail-web", daemon=True).start()
    return server
