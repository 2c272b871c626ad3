"""The memory provider ``trail`` as Hermes runs it: found and loaded by hermes-agent 0.19's own memory
plugin loader (``plugins.memory``) from the directory the installer wrote, driven by Hermes'
``MemoryManager`` the way ``agent/agent_init.py`` and ``agent/turn_context.py`` drive it, next to the
plugin loaded by Hermes' ``PluginManager``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import trailhome
from hermes_trail.integrations.hermes import runtime
from test_hermes_plugin import turn_kwargs

memory_plugins = pytest.importorskip("plugins.memory")
memory_manager = pytest.importorskip("agent.memory_manager")
memory_provider = pytest.importorskip("agent.memory_provider")
plugins_mod = pytest.importorskip("hermes_cli.plugins")


LOADED: list[Any] = []


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    home, _ = trailhome.installed(tmp_path, monkeypatch, memory=True)
    yield home
    while LOADED:  # let background syncs finish before the home goes
        for callback in LOADED.pop()._hooks.get("pre_llm_call", []):
            callback.__self__.recaller.wait_for_sync()
    runtime.forget_providers()


def activate(session_id: str = trailhome.CURRENT_ID) -> Any:
    """What ``agent_init`` does with ``memory.provider: trail``: load it, check it, add it, initialise it."""
    manager = memory_manager.MemoryManager()
    provider = memory_plugins.load_memory_provider("trail")
    assert provider is not None and provider.is_available()
    manager.add_provider(provider)
    manager.initialize_all(session_id=session_id, platform="cli", agent_context="primary")
    return manager


def plugin_manager() -> Any:
    manager = plugins_mod.PluginManager()
    manager.discover_and_load()
    LOADED.append(manager)
    return manager


def test_hermes_lists_and_loads_it(home):
    listed = {name: (desc, ok) for name, desc, ok in memory_plugins.discover_memory_providers()}
    assert listed["trail"][1] is True and "hermes-trail" in listed["trail"][0]
    provider = memory_plugins.load_memory_provider("trail")
    assert isinstance(provider, memory_provider.MemoryProvider)
    assert provider.name == "trail"
    assert "hermes-trail" not in listed, "the plugin's directory is not taken for a provider"


def test_the_turn_as_hermes_drives_it(home):
    manager = activate()
    try:
        block = manager.build_system_prompt()
        assert "<trail-recall>" in block and "trail_recall" in block and "untrusted" in block
        page = manager.prefetch_all("How did we run the zebracorn migration?")
        assert page.startswith("<trail-recall>") and trailhome.MIGRATION_ID in page
        assert trailhome.CURRENT_ID not in page, "the session the provider serves is left out"
        assert manager.prefetch_all("florp wibble snorkelflux") == ""
        context = memory_manager.build_memory_context_block(page)
        assert context.startswith("<memory-context>") and trailhome.MIGRATION_ID in context
        # Hermes labels the fence "authoritative"; the block says what that means for trail's untrusted page.
        if "authoritative" in context:
            assert "authoritative reference data" in block and "not instructions" in block
            assert "untrusted" in context.split("<trail-recall>")[1].splitlines()[1]
        provider = manager.get_provider("trail")
        assert provider.recall_status() is None  # hermes-agent 0.19 has no recall indicator
        assert provider.sync_turn("a prompt", "a reply", session_id=trailhome.CURRENT_ID) is None
    finally:
        manager.shutdown_all()


def test_its_tools(home):
    manager = activate()
    try:
        names = {s["name"] for s in manager.get_all_tool_schemas()}
        assert names == {"trail_recall", "trail_fix", "trail_blame"}
        recalled = json.loads(manager.handle_tool_call("trail_recall", {"query": "zebracorn migration"}))
        assert recalled["found"] and trailhome.MIGRATION_ID in recalled["recall"]
        fixed = json.loads(manager.handle_tool_call("trail_fix", {"error": trailhome.ERROR}))
        assert [f["command"] for f in fixed["fixes"]] == ["pip install quagga"]
        blamed = json.loads(manager.handle_tool_call("trail_blame", {"path": "app.py"}))
        assert blamed["path"] == "app.py" and blamed["edits"] == []
        empty = json.loads(manager.handle_tool_call("trail_recall", {"query": "  "}))
        assert "error" in empty and "query is empty" in empty["error"]
    finally:
        manager.shutdown_all()


def test_the_plugin_stands_aside_once_the_provider_is_loaded(home):
    plugins = plugin_manager()
    prompt = turn_kwargs("How did we run the zebracorn migration?")
    assert plugins.invoke_hook("pre_llm_call", **prompt), "before the provider: the hook recalls"
    manager = activate()
    try:
        assert plugins.invoke_hook("pre_llm_call", **prompt) == [], "the provider's prefetch recalls"
        other = turn_kwargs("zebracorn migration once more", session_id="20261112_090000_ee0005")
        assert plugins.invoke_hook("pre_llm_call", **other), "a session without the provider still gets it"
        manager.on_session_switch(
            "20261112_090000_ff0006", parent_session_id=trailhome.CURRENT_ID, reset=True
        )
        switched = turn_kwargs("zebracorn migration", session_id="20261112_090000_ff0006")
        assert plugins.invoke_hook("pre_llm_call", **switched) == []
        assert plugins.invoke_hook("pre_llm_call", **turn_kwargs("zebracorn again")), "left behind"
    finally:
        manager.shutdown_all()
    assert plugins.invoke_hook("pre_llm_call", **turn_kwargs("the zebracorn migration, after")), "gone"


def test_a_provider_that_does_not_load_leaves_the_hook_recalling(home):
    shutil.rmtree(home / "plugins" / "trail")
    assert memory_plugins.load_memory_provider("trail") is None  # agent_init then activates none
    plugins = plugin_manager()
    assert plugins.invoke_hook("pre_llm_call", **turn_kwargs("How did we run the zebracorn migration?"))


def test_memory_provider_is_set_by_install_memory(home):
    config = (home / "config.yaml").read_text()
    assert "memory:\n  provider: trail\n" in config
