"""Side files written by Hermes' own code (``hermes-agent`` 0.19.0), for the side-store tests.

:func:`run_plan` runs a list of steps in one child process with ``HERMES_HOME`` at the home (Hermes resolves
it at import), each step a call of the Hermes function that writes that file:

- ``snapshot``: ``hermes_cli.backup.create_quick_snapshot`` (``/snapshot``, ``hermes backup --quick``);
- ``delete``: ``SessionDB.delete_session`` (``hermes sessions delete``);
- ``cli_history``: prompt_toolkit's ``FileHistory.store_string`` at the version Hermes pins, on
  ``<home>/.hermes_history``, as the classic CLI's prompt does;
- ``cron``: ``cron.scheduler.run_job`` and ``cron.jobs.save_job_output``, the agent answering through a
  chat-completions endpoint on loopback (:data:`_LOOPBACK`), so the document, the run's ``source='cron'``
  session and its rows are all Hermes' own;
- ``trajectory``: ``AIAgent(save_trajectories=True)`` running one conversation against the same endpoint,
  in the project directory (``save_trajectory`` appends to the working directory);
- ``response``: the API server's ``ResponseStore.put`` and ``set_conversation``;
- ``pairing``: ``PairingStore.generate_code`` and ``approve_code`` (and a code left pending);
- ``paste``: ``hermes_cli.debug._record_pending`` (``hermes debug share``);
- ``allowlist``: ``tools.approval.save_permanent_allowlist`` (an "always" answer).

:func:`tui_history` runs the TUI's own history writer (``ui-tui/src/lib/history.ts``, bundled in the
installed ``hermes_cli/tui_dist/entry.js``) under Node: the module's text is taken from the installed
bundle at test time and given the one esbuild helper it needs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

_LOOPBACK = r"""
import json, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLIES = []

class _Model(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, payload):
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._send({"object": "list", "data": [{"id": "loopback-model", "object": "model"}]})

    def do_POST(self):
        size = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(size) or b"{}")
        if not self.path.endswith("/chat/completions"):
            self._send({})
            return
        reply = REPLIES.pop(0) if REPLIES else "(no scripted reply)"
        if body.get("stream"):  # the agent streams; cron's runner does not
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            base = {"id": "c1", "object": "chat.completion.chunk", "created": int(time.time()),
                    "model": "loopback-model"}
            for delta, finish in (({"role": "assistant", "content": reply}, None), ({}, "stop")):
                chunk = dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish}])
                if finish:
                    chunk["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            return
        self._send({"id": "c1", "object": "chat.completion", "created": int(time.time()),
                    "model": "loopback-model", "choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": reply}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})

_server = ThreadingHTTPServer(("127.0.0.1", 0), _Model)
threading.Thread(target=_server.serve_forever, daemon=True).start()
BASE_URL = f"http://127.0.0.1:{_server.server_address[1]}/v1"
"""

_PLAN = (
    _LOOPBACK
    + r"""
import os, sys
from pathlib import Path
home = Path(os.environ["HERMES_HOME"])
results = []
for step in json.loads(sys.argv[1]):
    op = step["op"]
    if op == "snapshot":
        from hermes_cli.backup import create_quick_snapshot
        results.append(create_quick_snapshot(label=step.get("label"), hermes_home=home))
    elif op == "delete":
        from hermes_state import SessionDB
        db = SessionDB(db_path=home / "state.db")
        results.append(db.delete_session(step["session"]))
        db.close()
    elif op == "cli_history":
        from prompt_toolkit.history import FileHistory
        history = FileHistory(str(home / ".hermes_history"))
        for entry in step["entries"]:
            history.store_string(entry)
        results.append(None)
    elif op == "cron":
        from cron.scheduler import run_job
        from cron.jobs import save_job_output
        REPLIES[:] = [step.get("reply", "done")]
        job = dict(step["job"])
        if step.get("loopback", True):
            job.update(model="loopback-model", provider="custom", base_url=BASE_URL)
        ok, doc, final, error = run_job(job)
        results.append(str(save_job_output(job["id"], doc)))
    elif op == "trajectory":
        from run_agent import AIAgent
        from hermes_state import SessionDB
        REPLIES[:] = [step["reply"]]
        here = os.getcwd()
        os.chdir(step["cwd"])
        db = SessionDB(db_path=home / "state.db")
        agent = AIAgent(base_url=BASE_URL, api_key="sk-loopback", provider="custom", model="loopback-model",
                        save_trajectories=True, quiet_mode=True, session_db=db, skip_context_files=True,
                        skip_memory=True, enabled_toolsets=[])
        agent.run_conversation(step["prompt"])
        results.append(agent.session_id)
        db.close()
        os.chdir(here)  # the steps after it run where the plan started
    elif op == "response":
        from gateway.platforms.api_server import ResponseStore
        store = ResponseStore(db_path=str(home / "response_store.db"))
        store.put(step["id"], step["data"])
        if step.get("conversation"):
            store.set_conversation(step["conversation"], step["id"])
        store.close()
        results.append(None)
    elif op == "pairing":
        from gateway.pairing import PairingStore
        store = PairingStore(profile=step.get("profile"))
        code = store.generate_code(step["platform"], step["user_id"], step.get("user_name", ""))
        results.append(store.approve_code(step["platform"], code))
        for user_id in step.get("pending", []):
            store.generate_code(step["platform"], user_id, "")
    elif op == "paste":
        from hermes_cli.debug import _record_pending
        _record_pending(step["urls"])
        results.append(None)
    elif op == "allowlist":
        from tools.approval import save_permanent_allowlist
        save_permanent_allowlist(set(step["patterns"]))
        results.append(None)
    else:
        raise SystemExit(f"unknown step {op}")
print(json.dumps(results, default=str))
"""
)


def run_plan(
    home: Path, steps: list[dict[str, Any]], env: dict[str, str] | None = None, python: str | None = None
) -> list[Any]:
    """Run ``steps`` (module docstring) with Hermes' code against ``home``; their results, in order.

    :param python: another interpreter, whose (newer) hermes-agent writes instead.
    """
    home.mkdir(parents=True, exist_ok=True)
    full = {**os.environ, "HERMES_HOME": str(home), "OPENAI_API_KEY": "sk-loopback", **(env or {})}
    done = subprocess.run(
        [python or sys.executable, "-c", _PLAN, json.dumps(steps)],
        capture_output=True,
        text=True,
        env=full,
        timeout=300,
    )
    finished = _results(done.stdout, len(steps))
    if done.returncode < 0 and finished is not None:
        # Every step done and its results printed, then a signal at the interpreter's exit (a SIGSEGV in
        # the newer Hermes' teardown, once in a CI run, SQLite 3.40): what it wrote is committed.
        sys.stderr.write(f"Hermes finished its plan, then died of signal {-done.returncode} at exit\n")
        return finished
    if done.returncode != 0 or finished is None:  # the exit status and the output's end: a hard exit
        said = f"{done.stderr[-4000:]}\nstdout: {done.stdout[-2000:]}"  # leaves no traceback
        raise RuntimeError(f"Hermes plan failed (exit {done.returncode}):\n{said}")
    return finished


def _results(stdout: str, steps: int) -> list[Any] | None:
    """The results a plan printed last, one a step, or None when it did not get that far."""
    lines = stdout.strip().splitlines()
    try:
        found = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        return None
    return found if isinstance(found, list) and len(found) == steps else None


def _tui_module() -> str:
    """The TUI's history module as Hermes ships it, cut from the installed bundle."""
    import hermes_cli

    bundle = Path(hermes_cli.__file__).parent / "tui_dist" / "entry.js"
    text = bundle.read_text(encoding="utf-8")
    start = text.index("// src/lib/history.ts")
    end = text.index("// src/", start + 10)
    return text[start:end]


def tui_history(home: Path, entries: list[str]) -> None:
    """Append ``entries`` to ``<home>/.hermes_history`` with the TUI's own writer (``append``), under Node."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node to run the TUI's history writer")
    # esbuild's lazy-init helper, the one name the bundled module uses but does not define.
    prelude = "const __esm = (mod) => () => { for (const k in mod) mod[k](); };\n"
    calls = "init_history();\n" + "".join(f"append({json.dumps(e)});\n" for e in entries)
    script = home.parent / f"tui-history-{os.getpid()}.mjs"
    script.write_text(prelude + _tui_module() + calls, encoding="utf-8")
    try:
        subprocess.run(
            [node, str(script)],
            check=True,
            env={**os.environ, "HERMES_HOME": str(home)},
            capture_output=True,
            timeout=60,
        )
    finally:
        script.unlink()
