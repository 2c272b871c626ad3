"""The tools of :mod:`hermes_trail.mcp.tools` on the official MCP SDK's low-level server, over stdio or
streamable HTTP.

Each call is answered in a worker thread (the index and the stores are read with blocking SQLite), so the
event loop keeps serving other requests. Arguments are checked against the tool's schema here, so a bad
one comes back as an error result with a hint rather than as the SDK's bare validation message. Over
HTTP, a bearer token, when there is one, is checked on every request before the SDK sees it; the SDK's
DNS-rebinding protection guards a loopback address.
"""

from __future__ import annotations

import hmac
import json
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from io import TextIOWrapper
from socket import socket
from typing import Any

import anyio
import jsonschema  # type: ignore[import-untyped]  # (a dependency of mcp)
from mcp import types
from mcp.server.lowlevel import Server

from hermes_trail import __version__
from hermes_trail.mcp.tools import INSTRUCTIONS, TOOLS, Answer, answer, error_answer
from hermes_trail.service import Trail

ENDPOINT = "/mcp"
# Every tool only reads, gives the same answer to the same call, and reaches nothing beyond this machine.
_ANNOTATIONS = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}


def build_server(trail: Trail, note: str = "") -> Server[Any, Any]:
    """An MCP server answering every tool from ``trail``; ``note`` is added to its instructions."""
    instructions = INSTRUCTIONS + (f"\n\n{note}" if note else "")
    server: Server[Any, Any] = Server("hermes-trail", version=__version__, instructions=instructions)
    listed = [
        types.Tool(
            name=spec.name,
            title=spec.title,
            description=spec.description,
            inputSchema=spec.schema,
            annotations=types.ToolAnnotations(title=spec.title, **_ANNOTATIONS),
        )
        for spec in TOOLS.values()
    ]

    @server.list_tools()  # type: ignore[no-untyped-call,untyped-decorator]
    async def list_tools() -> list[types.Tool]:
        return listed

    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        # A null for an optional argument (some clients send every one) means it was not given.
        given = {k: v for k, v in (arguments or {}).items() if v is not None}
        result = _checked(name, given)
        if result is None:
            result = await anyio.to_thread.run_sync(partial(answer, trail, name, given))
        return _result(result)

    return server


def _checked(name: str, arguments: dict[str, Any]) -> Answer | None:
    """An error answer when the arguments do not fit the tool's schema, else ``None``."""
    spec = TOOLS.get(name)
    if spec is None:
        return None  # answer() says which tools there are
    try:
        jsonschema.validate(arguments, spec.schema)
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or "arguments"
        allowed = ", ".join(spec.schema["properties"])
        return error_answer(
            f"{where}: {exc.message}",
            f"{name} takes {allowed or 'no arguments'}; see its input schema for types and ranges",
        )
    return None


def _result(result: Answer) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.text)],
        structuredContent=result.structured,
        isError=result.error,
    )


def warm_up(trail: Trail) -> None:
    """Bring the index up to date in the background, so the first question does not wait for it."""

    def sync() -> None:
        try:
            trail.sync()
        except Exception as exc:  # the first call will sync again and say what is wrong
            sys.stderr.write(f"trail mcp: index not brought up to date yet: {exc}\n")
            return
        for failed in trail.warm_up():  # the dictionary and the sentence model, before a question needs them
            sys.stderr.write(f"trail mcp: {failed}\n")

    threading.Thread(target=sync, name="trail-index-warm-up", daemon=True).start()


# -- stdio ---------------------------------------------------------------------------------------------
def run_stdio(server: Server[Any, Any]) -> None:
    """Serve on stdin/stdout until the client closes stdin. Anything else that would print to stdout goes
    to stderr instead: stdout carries only protocol messages."""
    from mcp.server.stdio import stdio_server

    protocol_out = anyio.wrap_file(TextIOWrapper(sys.stdout.buffer, encoding="utf-8"))
    sys.stdout = sys.stderr

    async def serve() -> None:
        async with stdio_server(stdout=protocol_out) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


# -- streamable HTTP -----------------------------------------------------------------------------------
class TokenGate:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._allowed(scope):
            hint = (
                "send the header Authorization: Bearer <token> that trail mcp printed when it "
                "started (or the TRAIL_MCP_TOKEN it was given)"
            )
            body = json.dumps({"error": "missing or wrong bearer token", "hint": hint}).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="trail"'),
                (b"content-length", str(len(body)).encode()),
            ]
            await send({"type": "http.response.start", "status": 401, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope: dict[str, Any]) -> bool:
        for key, value in scope.get("headers", []):
            if key == b"authorization":
                scheme, _, given = bytes(value).partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.token)
        return False


class _Endpoint:
    """The streamable HTTP endpoint, as an ASGI app the router hands the request to unchanged."""

    def __init__(self, manager: Any) -> None:
        self.manager = manager

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        await self.manager.handle_request(scope, receive, send)


def http_app(server: Server[Any, Any], *, loopback: bool, host: str, port: int, token: str | None) -> Any:
    """The ASGI app: the MCP endpoint at ``/mcp``, behind the token gate when there is a token. On a
    loopback address only requests naming this machine (``Host``, ``Origin``) are served."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.routing import Route

    bound = f"[{host}]" if ":" in host else host
    names = list(dict.fromkeys(f"{h}:{port}" for h in ("127.0.0.1", "localhost", "[::1]", bound)))
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=loopback,
        allowed_hosts=names,
        allowed_origins=[f"http://{n}" for n in names],
    )
    # Stateless, plain JSON answers: the tools keep no state between calls, so no session, no open stream.
    manager = StreamableHTTPSessionManager(
        app=server, security_settings=security, stateless=True, json_response=True
    )

    @asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        async with manager.run():
            yield

    app = Starlette(routes=[Route(ENDPOINT, endpoint=_Endpoint(manager))], lifespan=lifespan)
    return TokenGate(app, token) if token else app


def run_http(server: Server[Any, Any], sock: socket, *, loopback: bool, token: str | None) -> None:
    """Serve streamable HTTP on the bound ``sock`` until interrupted (Ctrl-C or SIGTERM)."""
    import uvicorn

    host, port = sock.getsockname()[:2]
    app = http_app(server, loopback=loopback, host=host, port=port, token=token)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
