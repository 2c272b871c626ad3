"""The plugin as Hermes runs it: installed into a home by ``trail install``'s code, discovered and loaded by
hermes-agent 0.19's own ``PluginManager``, its hooks fired through ``PluginManager.invoke_hook`` with the
keyword arguments Hermes passes (``agent/turn_context.py``, ``model_tools.py``), over a home written by
Hermes' ``SessionDB``."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import trailhome
from hermes_trail.integrations.hermes import runtime

plugins_mod = pytest.importorskip("hermes_cli.plugins")


def turn_kwargs(prompt: Any, session_id: str = trailhome.CURRENT_ID) -> dict[str, Any]:
    """What Hermes 0.19 passes to ``pre_llm_call`` (``agent/turn_context.py``)."""
    return {
        "session_id": session_id,
        "task_id": "task-1",
        "turn_id": "turn-1",
        "user_message": prompt,
        "conversation_history": [{"role": "user", "content": prompt}],
        "is_first_turn": False,
        "model": "anthropic/claude-sonnet-4",
        "platform": "cli",
        "sender_id": "",
    }


def tool_kwargs(
    result: str, tool: str = "terminal", command: str = "pytest -q", session_id: str = trailhome.CURRENT_ID
) -> dict[str, Any]:
    """What Hermes 0.19 passes to ``transform_tool_result`` (``model_tools.py``)."""
    return {
        "tool_name": tool,
        "args": {"command": command},
        "result": result,
        "task_id": "task-1",
        "session_id": session_id,
        "tool_call_id": "call_9",
        "turn_id": "turn-1",
        "api_request_id": "",
        "duration_ms": 12,
        "status": "ok",
        "error_type": None,
        "error_message": None,
    }


def failing(output: str, code: int = 2) -> str:
    return json.dumps({"output": output, "exit_code": code, "error": None}, ensure_ascii=False)


@pytest.fixture
def installed(tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    """A home with history, its index built, and hermes-trail installed by the installer's code."""
    return trailhome.installed(tmp_path, monkeypatch)


def load() -> Any:
    """A fresh ``PluginManager`` that discovered and loaded the plugins of ``HERMES_HOME``."""
    manager = plugins_mod.PluginManager()
    manager.discover_and_load()
    return manager


def the_plugin(manager: Any) -> Any:
    return next(cb.__self__ for cb in manager._hooks["pre_llm_call"] if hasattr(cb.__self__, "recaller"))


@pytest.fixture
def manager(installed):
    manager = load()
    yield manager
    the_plugin(manager).recaller.wait_for_sync()
    runtime.forget_providers()


def test_hermes_loads_it(manager):
    loaded = manager._plugins["hermes-trail"]
    assert loaded.enabled and loaded.error is None
    assert set(loaded.hooks_registered) == {"pre_llm_call", "transform_tool_result"}
    assert loaded.commands_registered == ["trail"]
    assert manager._plugins["trail"].enabled is False  # the provider: Hermes' memory loader's business


def test_recall_before_the_prompt(manager):
    results = manager.invoke_hook("pre_llm_call", **turn_kwargs("How did we run the zebracorn migration?"))
    assert len(results) == 1
    page = results[0]["context"]
    assert page.startswith("<trail-recall>") and page.endswith("</trail-recall>")
    assert trailhome.MIGRATION_ID in page and "untrusted" in page
    assert trailhome.CURRENT_ID not in page, "the conversation being recalled for is left out"
    assert len(page.encode()) <= runtime.Settings().budget


def test_a_multimodal_prompt_is_read_for_its_text(manager):
    prompt = [
        {"type": "text", "text": "the zebracorn migration again"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
    ]
    [result] = manager.invoke_hook("pre_llm_call", **turn_kwargs(prompt))
    assert trailhome.MIGRATION_ID in result["context"]


@pytest.mark.parametrize("prompt", ["florp wibble snorkelflux", "ok", "/help", "", None, 42])
def test_silent_when_nothing_matches_or_nothing_to_look_for(manager, prompt):
    assert manager.invoke_hook("pre_llm_call", **turn_kwargs(prompt)) == []


def test_once_per_prompt(manager, installed):
    _, index = installed
    kwargs = turn_kwargs("zebracorn migration steps")
    first = manager.invoke_hook("pre_llm_call", **kwargs)
    the_plugin(manager).recaller.wait_for_sync()
    index.with_name("index.db-wal").unlink(missing_ok=True)
    index.write_bytes(b"not an index any more")
    assert manager.invoke_hook("pre_llm_call", **kwargs) == first, "the same prompt is not searched again"
    assert manager.invoke_hook("pre_llm_call", **turn_kwargs("zebracorn snapshot")) == []


def test_failures_are_swallowed(installed, monkeypatch):
    _, index = installed
    monkeypatch.setenv("TRAIL_INDEX", str(index.parent))  # a directory: SQLite cannot open it
    manager = load()
    try:
        assert manager.invoke_hook("pre_llm_call", **turn_kwargs("zebracorn migration")) == []
        assert manager.invoke_hook("transform_tool_result", **tool_kwargs(failing(trailhome.ERROR))) == []
    finally:
        the_plugin(manager).recaller.wait_for_sync()


LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA locking_mode=EXCLUSIVE")
conn.execute("BEGIN EXCLUSIVE")
conn.execute("SELECT count(*) FROM docs").fetchone()
print("locked", flush=True)
sys.stdin.read()
"""


def test_the_deadline_holds_when_the_index_is_locked(installed, monkeypatch):
    _, index = installed
    monkeypatch.setenv("TRAIL_HERMES_DEADLINE", "0.3")
    manager = load()
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK, str(index)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        started = time.monotonic()
        assert manager.invoke_hook("pre_llm_call", **turn_kwargs("zebracorn migration")) == []
        assert manager.invoke_hook("transform_tool_result", **tool_kwargs(failing(trailhome.ERROR))) == []
        assert time.monotonic() - started < 1.5, "two hooks, 0.3 s each at most (plus Hermes' own work)"
    finally:
        holder.communicate("")
    time.sleep(0.1)
    recaller = the_plugin(manager).recaller
    assert recaller.recall("zebracorn migration again", trailhome.CURRENT_ID, deadline=10.0), "free again"
    recaller.wait_for_sync()


def test_past_fix_on_a_failing_terminal_command(manager):
    result = failing(f"E   {trailhome.ERROR}\n1 error in 0.10s")
    [changed] = manager.invoke_hook("transform_tool_result", **tool_kwargs(result))
    assert changed.startswith(result + "\n\n<trail-fix>\n") and changed.endswith("</trail-fix>")
    assert "`pip install quagga`" in changed and trailhome.FIX_ID in changed
    again = manager.invoke_hook("transform_tool_result", **tool_kwargs(result))
    assert again == [], "once per error and session"
    other = manager.invoke_hook("transform_tool_result", **tool_kwargs(result, session_id="20261112_x"))
    assert len(other) == 1


def test_a_past_fix_that_was_a_change_is_noted_with_the_line_it_changed(manager):
    """The test failed, the code was patched, the same test passed: no command in between fixed it, and
    there was no note. The note names the file changed and the line, so the agent can make the change."""
    result = failing(f"E   {trailhome.DISCOUNT_ERROR}\n1 failed in 0.05s", code=1)
    kwargs = tool_kwargs(result, command="pytest -q tests/test_prices.py")
    [changed] = manager.invoke_hook("transform_tool_result", **kwargs)
    assert changed.startswith(result + "\n\n<trail-fix>\n") and changed.endswith("</trail-fix>")
    assert f"changed {trailhome.PRICES} before the failing command passed" in changed, changed
    assert "it changed `- return price + rate` to `+ return price * (1 - rate)`" in changed, changed
    assert trailhome.EDIT_ID in changed


@pytest.mark.parametrize(
    "result",
    [
        json.dumps({"output": "12 passed", "exit_code": 0, "error": None}),
        json.dumps({"output": "", "exit_code": -1, "error": "BLOCKED (hardline)", "status": "blocked"}),
        json.dumps({"output": "", "exit_code": 1, "error": "denied", "status": "blocked"}),
        f"<persisted-output> {trailhome.ERROR}",
        json.dumps({"error": trailhome.ERROR}),
    ],
)
def test_no_note_on_success_refusal_or_other_shapes(manager, result):
    assert manager.invoke_hook("transform_tool_result", **tool_kwargs(result)) == []


def test_no_note_on_other_tools(manager):
    kwargs = tool_kwargs(failing(trailhome.ERROR), "execute_code")
    assert manager.invoke_hook("transform_tool_result", **kwargs) == []


def test_the_trail_command(manager):
    command = manager._plugin_commands["trail"]["handler"]
    assert trailhome.MIGRATION_ID in command("zebracorn")
    assert command("florp wibble") == "Nothing on record about 'florp wibble'."
    assert command("").startswith("Usage: /trail")


def test_turned_off_by_the_environment(installed, monkeypatch):
    monkeypatch.setenv("TRAIL_HERMES_RECALL", "0")
    monkeypatch.setenv("TRAIL_HERMES_FIX", "off")
    manager = load()
    assert manager.invoke_hook("pre_llm_call", **turn_kwargs("zebracorn migration")) == []
    assert manager.invoke_hook("transform_tool_result", **tool_kwargs(failing(trailhome.ERROR))) == []


def test_not_loaded_unless_enabled(installed):
    home, _ = installed
    config = home / "config.yaml"
    config.write_text(config.read_text().replace("[hermes-trail]", "[something-else]"))
    manager = load()
    assert manager._plugins["hermes-trail"].enabled is False
    assert "pre_llm_call" not in manager._hooks


def test_a_question_asked_again_and_again_keeps_its_answer_on_the_page(tmp_path, monkeypatch):
    """Issue 17, 2: asked in ten sessions and answered in one, asked once more now. The hook Hermes fires
    before the prompt gives the answer, and the copies of the question as one line after it."""
    import hermesdb
    from hermes_trail.integrations.hermes import install
    from hermes_trail.service import Trail

    question = "How do I rotate the grafana admin password on the monitoring box?"
    answer = "Run `grafana-cli admin reset-admin-password` with the new one, then restart grafana-server."
    answered, now = "20261012_090000_bb0001", "20261130_090000_dd0001"
    specs = [hermesdb.chat(answered, (question, answer), start=hermesdb.T0 - 20 * 86400)]
    for i in range(10):  # asked again and again later, never answered again
        asked = question if i % 2 else question.lower().rstrip("?") + " ?"
        specs.append(
            hermesdb.chat(
                f"202611{i + 1:02d}_090000_aa00{i:02d}",
                (asked, "Let me look into that."),
                start=hermesdb.T0 + i * 86400,
            )
        )
    specs.append(hermesdb.chat(now, (question, "…"), start=hermesdb.T0 + 28 * 86400))
    home = hermesdb.write_home(tmp_path / "hermes", specs)
    index = tmp_path / "index" / "index.db"
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("TRAIL_INDEX", str(index))
    monkeypatch.setenv("TRAIL_HERMES_DEADLINE", "30")  # what is on the page is checked here, not how fast
    runtime.forget_providers()
    Trail(index=index, homes=(home,), parallel=False).sync(force=True)
    install.apply_install(install.plan_install(install.Target(home, "default")))
    manager = load()
    try:
        [result] = manager.invoke_hook("pre_llm_call", **turn_kwargs(question, session_id=now))
    finally:
        the_plugin(manager).recaller.wait_for_sync()
    page = result["context"]
    assert "grafana-cli admin reset-admin-password" in page and answered in page, page
    lines = [line for line in page.splitlines() if line.startswith("- ")]
    asked_lines = [line for line in lines if ", prompt):" in line]
    assert len(asked_lines) == 1 and "the same in" in asked_lines[0], page
    assert lines.index(next(x for x in lines if answered in x)) < lines.index(asked_lines[0]), "answer first"
    assert now not in page, "the session asking now is left out"
