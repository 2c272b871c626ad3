"""``trail install hermes`` / ``trail uninstall hermes``: what goes in, what comes out, byte for byte."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hermesdb
from hermes_trail.cli.app import app
from hermes_trail.integrations.hermes import install
from hermes_trail.integrations.hermes.yamledit import load_data

# A config.yaml as people leave them: comments, odd quoting, a four-space block, a flow mapping, no
# trailing newline.
CONFIG = """\
# ~/.hermes/config.yaml  (hand edited; keep the comments)
model:
  default: "anthropic/claude-sonnet-4"     # double quotes
  provider: 'openrouter'                   # single quotes
toolsets: [terminal, file, 'web']
agent:
    max_turns: 90
    reasoning_effort: "high"
plugins:
  enabled:
  - disk-cleanup   # the only one so far
mcp_servers:
  github:
    command: "npx"
    args: ["-y", "@modelcontextprotocol/server-github"]
    env:
      GITHUB_PERSONAL_ACCESS_TOKEN: '***'
memory:
  memory_enabled: yes
  provider: ''
# the end"""


@pytest.fixture
def root(tmp_path: Path, monkeypatch) -> Path:
    """A Hermes root with a store, the config above and two profiles (``work`` with its own config)."""
    chat = hermesdb.chat("20261102_090000_aaaaaa", ("hi", "hello"))
    root = hermesdb.write_home(tmp_path / ".hermes", [chat], profiles={"work": [], "ops": []})
    (root / "config.yaml").write_text(CONFIG)
    (root / "profiles" / "work" / "config.yaml").write_text("model:\n  default: gpt-5   # work\n")
    monkeypatch.setenv("HERMES_HOME", str(root))
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def trail_process(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``trail ARGS`` in a process of its own, as a person starts it."""
    return subprocess.run(
        [sys.executable, "-m", "hermes_trail", *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
    )


def trail(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``trail ARGS`` in this process (Typer's ``CliRunner``): the same exit code and output without a
    process start-up. What is about the process itself (the first install and uninstall, the kill, Hermes'
    Python probed for its MCP client, the index built on install's stderr) uses ``trail_process``."""
    argv = [str(a) for a in args]
    done = CliRunner().invoke(app, argv, env=env, catch_exceptions=False)
    return subprocess.CompletedProcess(argv, done.exit_code, done.stdout, done.stderr)


def test_install_adds_the_pieces_and_keeps_the_config_as_written(root):
    before = snapshot(root)
    done = trail_process("install", "hermes", "--json")
    assert done.returncode == 0, done.stderr
    [report] = json.loads(done.stdout)["homes"]
    assert report["home"] == str(root) and report["profile"] == "default" and report["status"] == "installed"
    assert set(report["changed"]) == {str(root / "config.yaml")}
    added = {str(Path(p).relative_to(root)) for p in report["added"]}
    assert added == {
        "plugins/hermes-trail/plugin.yaml",
        "plugins/hermes-trail/__init__.py",
        "plugins/trail/plugin.yaml",
        "plugins/trail/__init__.py",
        "skills/trail-history/SKILL.md",
    }
    [backup] = report["backups"]
    assert Path(backup).read_bytes() == before["config.yaml"] and Path(backup).name.startswith(
        "config.yaml.trail-"
    )
    config = (root / "config.yaml").read_text()
    old_lines = CONFIG.splitlines()
    assert [line for line in config.splitlines() if line in old_lines] == old_lines, (
        "every line kept, in order"
    )
    data = load_data(config)
    entry = data["mcp_servers"]["trail"]
    assert Path(entry["command"]).is_absolute() and Path(entry["command"]).name == "trail"
    assert os.access(entry["command"], os.X_OK)
    assert entry["args"] == ["mcp", "--home", str(root), "--index", str(install.index_for(root))]
    assert data["plugins"]["enabled"] == ["disk-cleanup", "hermes-trail"]
    assert data["memory"]["provider"] == "", "the memory provider is only set with --memory"
    manifest = json.loads((root / "plugins" / "hermes-trail" / "install-manifest.json").read_text())
    assert manifest["profile"] == "default" and manifest["config"]["original_backup"] == Path(backup).name
    assert not any(
        Path(p).is_absolute() for p in [*manifest["files"], *manifest["dirs"], manifest["config"]["path"]]
    ), "paths are the home's own"


def test_hermes_reads_what_install_wrote(root):
    config = pytest.importorskip("hermes_cli.config")
    assert trail("install", "hermes").returncode == 0
    loaded = config.load_config()
    assert loaded["mcp_servers"]["trail"]["args"][0] == "mcp"
    assert "hermes-trail" in loaded["plugins"]["enabled"]
    mcp_tool = pytest.importorskip("tools.mcp_tool")
    servers = mcp_tool._load_mcp_config()  # Hermes' own reading, its suspicious-server filter included
    assert servers["trail"] == install.server_entry(root)
    prompt_builder = pytest.importorskip("agent.prompt_builder")
    prompt_builder.clear_skills_system_prompt_cache(clear_snapshot=True)
    skills = prompt_builder.build_skills_system_prompt()
    assert "trail-history" in skills, "a top-level skill reaches the system prompt"


def test_uninstall_puts_the_home_back_byte_for_byte(root):
    before = snapshot(root)
    assert trail_process("install", "hermes").returncode == 0
    done = trail_process("uninstall", "hermes", "--json")
    assert done.returncode == 0, done.stderr
    [report] = json.loads(done.stdout)["homes"]
    assert snapshot(root) == before, "nothing left behind, install's backups neither"
    assert (root / "config.yaml").read_bytes() == CONFIG.encode()
    assert not (root / "plugins").exists() and not (root / "skills").exists()
    assert report["backups"] == [] and len(report["backups_removed"]) == 1


def test_dry_run_prints_every_diff_and_writes_nothing(root):
    before = snapshot(root)
    done = trail("install", "hermes", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert snapshot(root) == before
    out = done.stdout
    assert f"--- {root / 'config.yaml'}\n+++ {root / 'config.yaml'}\n" in out
    assert "+  - hermes-trail\n" in out and "+  trail:\n" in out
    for new in (
        "plugins/hermes-trail/__init__.py",
        "plugins/trail/plugin.yaml",
        "skills/trail-history/SKILL.md",
    ):
        assert f"--- /dev/null\n+++ {root / new}\n" in out
    assert "\n-" not in out.replace("\n--- ", "\n"), "install removes no line"
    assert trail("install", "hermes").returncode == 0
    undo = trail("uninstall", "hermes", "--dry-run")
    assert "+++ /dev/null" in undo.stdout and "-  - hermes-trail\n" in undo.stdout


def test_installing_twice_changes_nothing_the_second_time(root):
    assert trail("install", "hermes").returncode == 0
    before = snapshot(root)
    again = trail("install", "hermes", "--json")
    assert json.loads(again.stdout)["homes"][0]["changed"] == [] and snapshot(root) == before


def test_all_profiles(root):
    before = snapshot(root)
    done = trail("install", "hermes", "--all-profiles", "--json")
    homes = {h["profile"]: h for h in json.loads(done.stdout)["homes"]}
    assert set(homes) == {"default", "work", "ops"}
    assert str(root / "profiles" / "ops" / "config.yaml") in homes["ops"]["added"], "a config is created"
    for profile in ("work", "ops"):
        data = load_data((root / "profiles" / profile / "config.yaml").read_text())
        where = root / "profiles" / profile
        assert data["mcp_servers"]["trail"]["args"] == [
            "mcp",
            "--home",
            str(where),
            "--index",
            str(install.index_for(root)),
        ], "one root, one index"
        assert (root / "profiles" / profile / "plugins" / "trail" / "__init__.py").is_file()
    assert trail("uninstall", "hermes", "--all-profiles").returncode == 0
    after = {k: v for k, v in snapshot(root).items() if ".trail-" not in k}
    assert after == before


def test_one_profile_and_no_other_home(root):
    before = snapshot(root)
    assert trail("install", "hermes", "--profile", "work").returncode == 0
    changed = {k for k, v in snapshot(root).items() if before.get(k) != v}
    assert changed and all(k.startswith("profiles/work/") for k in changed)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--profile", "nope"], "no profile 'nope'"),
        (["--profile", "Bad Name"], "not a Hermes profile name"),
        (["--profile", "work", "--all-profiles"], "cannot go together"),
    ],
)
def test_bad_targets_are_refused(root, args, message):
    before = snapshot(root)
    done = trail("install", "hermes", *args)
    assert done.returncode == 1 and message in done.stderr
    assert snapshot(root) == before


def test_the_home_hermes_would_use(root, monkeypatch):
    env = {"HERMES_HOME": str(root)}
    assert install.targets(env) == [install.Target(root, "default")]
    (root / "active_profile").write_text("work\n")
    assert install.targets(env) == [install.Target(root / "profiles" / "work", "work")]
    profile_env = {"HERMES_HOME": str(root / "profiles" / "ops")}
    assert install.targets(profile_env) == [install.Target(root / "profiles" / "ops", "ops")]
    assert install.targets(env, profile="default") == [install.Target(root, "default")]
    user = Path(os.environ["HOME"])
    assert install.targets({}) == [install.Target(user / ".hermes", "default")]


def test_what_is_not_its_own_is_not_touched(root):
    text = CONFIG.replace("mcp_servers:\n", "mcp_servers:\n  trail:\n    command: /usr/local/bin/other\n")
    (root / "config.yaml").write_text(text)
    before = snapshot(root)
    done = trail("install", "hermes")
    assert done.returncode == 1 and "mcp_servers.trail entry trail install did not add" in done.stderr
    assert snapshot(root) == before
    (root / "config.yaml").write_text(CONFIG)
    skill = root / "skills" / "trail-history" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("my own notes\n")
    done = trail("install", "hermes")
    assert done.returncode == 1 and "was not written by trail install" in done.stderr
    assert skill.read_text() == "my own notes\n"


def test_memory_provider_only_when_free(root):
    done = trail("install", "hermes", "--memory")
    assert done.returncode == 0, done.stderr
    assert load_data((root / "config.yaml").read_text())["memory"]["provider"] == "trail"
    assert "  provider: trail\n" in (root / "config.yaml").read_text()
    assert trail("uninstall", "hermes").returncode == 0
    assert (root / "config.yaml").read_bytes() == CONFIG.encode()
    (root / "config.yaml").write_text(CONFIG.replace("provider: ''", "provider: honcho"))
    done = trail("install", "hermes", "--memory")
    assert done.returncode == 1 and "memory.provider is 'honcho'" in done.stderr


def test_uninstall_after_the_user_changed_the_config_takes_out_only_its_own(root):
    assert trail("install", "hermes", "--memory").returncode == 0
    config = root / "config.yaml"
    config.write_text(config.read_text().replace("max_turns: 90", "max_turns: 120"))
    done = trail("uninstall", "hermes", "--json")
    [report] = json.loads(done.stdout)["homes"]
    assert any("changed since install" in n for n in report["notes"])
    data, original = load_data(config.read_text()), load_data(CONFIG)
    original["agent"]["max_turns"] = 120
    assert data == original
    assert "# the end" in config.read_text() and "'openrouter'" in config.read_text()


def test_a_config_install_created_goes_with_uninstall(root):
    (root / "config.yaml").unlink()
    assert trail("install", "hermes").returncode == 0
    assert (root / "config.yaml").is_file()
    assert trail("uninstall", "hermes").returncode == 0
    assert not (root / "config.yaml").exists()


def test_a_linked_config_stays_a_link_and_keeps_its_mode(root, tmp_path):
    real = tmp_path / "dotfiles" / "hermes.yaml"
    real.parent.mkdir()
    real.write_text(CONFIG)
    real.chmod(0o600)
    (root / "config.yaml").unlink()
    (root / "config.yaml").symlink_to(real)
    assert trail("install", "hermes").returncode == 0
    assert (root / "config.yaml").is_symlink() and "hermes-trail" in real.read_text()
    assert real.stat().st_mode & 0o777 == 0o600
    assert trail("uninstall", "hermes").returncode == 0
    assert (root / "config.yaml").is_symlink() and real.read_bytes() == CONFIG.encode()


def test_uninstall_where_nothing_was_installed(root):
    before = snapshot(root)
    done = trail("uninstall", "hermes")
    assert done.returncode == 0 and "not installed there" in done.stderr and snapshot(root) == before


def test_uninstall_keeps_files_the_user_changed(root):
    assert trail("install", "hermes").returncode == 0
    skill = root / "skills" / "trail-history" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nmy addition\n")
    done = trail("uninstall", "hermes")
    assert done.returncode == 0 and "changed since install: kept" in done.stderr
    assert skill.is_file() and not (root / "plugins" / "hermes-trail").exists()


# The installer, killed at any moment, leaves config.yaml whole: the old file or the new one, never a part.
KILL_RUNS = 12


def test_killing_the_installer_leaves_config_yaml_whole(root):
    started = time.monotonic()
    assert trail_process("install", "hermes", "--dry-run").returncode == 0
    whole = time.monotonic() - started  # about how long an install takes here
    installed_bytes = None
    outcomes = set()
    for run in range(KILL_RUNS):
        (root / "config.yaml").write_text(CONFIG)
        for leftover in (root / "plugins", root / "skills"):
            if leftover.exists():
                subprocess.run(["rm", "-rf", str(leftover)], check=True)
        child = subprocess.Popen(
            [sys.executable, "-m", "hermes_trail", "install", "hermes"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(whole * (0.2 + 1.2 * run / KILL_RUNS))
        child.send_signal(signal.SIGKILL)
        child.wait()
        data = (root / "config.yaml").read_bytes()
        outcomes.add(data == CONFIG.encode())
        if data != CONFIG.encode():
            installed_bytes = installed_bytes or data
            assert data == installed_bytes
            assert load_data(data.decode())["mcp_servers"]["trail"]["args"][0] == "mcp"
    print(f"killed {KILL_RUNS} installs over {whole:.2f} s: config.yaml old or new, {outcomes}")


def test_installing_again_from_another_trail_updates_its_entry_only(root):
    assert trail("install", "hermes").returncode == 0
    config = root / "config.yaml"
    manifest_path = root / "plugins" / "hermes-trail" / "install-manifest.json"
    manifest = json.loads(manifest_path.read_text())
    current = install.trail_command()[0]
    # As if the first install had run from a trail that has moved since.
    config.write_text(config.read_text().replace(current, "/old/venv/bin/trail"))
    for edit in manifest["config"]["edits"]:
        if edit[0] == "key":
            edit[2]["command"] = "/old/venv/bin/trail"
    manifest["config"]["written_sha256"] = install._sha(config.read_bytes())
    manifest_path.write_text(json.dumps(manifest))
    before = config.read_text()
    done = trail("install", "hermes", "--json")
    assert done.returncode == 0, done.stderr
    assert config.read_text() == before.replace("/old/venv/bin/trail", current)
    assert trail("uninstall", "hermes").returncode == 0
    assert config.read_bytes() == CONFIG.encode()


def test_a_change_between_two_installs_is_never_undone(root):
    assert trail("install", "hermes").returncode == 0
    config = root / "config.yaml"
    config.write_text(config.read_text().replace("max_turns: 90", "max_turns: 150"))
    assert trail("install", "hermes", "--memory").returncode == 0  # changes config.yaml again
    assert trail("uninstall", "hermes").returncode == 0
    data = load_data(config.read_text())
    assert data["agent"]["max_turns"] == 150, "the user's change stays"
    assert "trail" not in data["mcp_servers"] and data["plugins"]["enabled"] == ["disk-cleanup"]
    assert data["memory"]["provider"] == ""


def hermes(*args: object, root: Path) -> subprocess.CompletedProcess[str]:
    """Hermes' own CLI (the ``hermes`` beside this Python), on the root ``root``."""
    command = [str(Path(sys.executable).parent / "hermes"), *map(str, args)]
    env = {**os.environ, "HERMES_HOME": str(root), "HOME": str(root.parent)}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def test_uninstall_in_a_cloned_profile_acts_on_the_clone_only(root):
    assert trail("install", "hermes", "--memory").returncode == 0
    done = hermes("profile", "create", "twin", "--clone-all", "--no-alias", root=root)
    assert done.returncode == 0, done.stdout + done.stderr
    twin = root / "profiles" / "twin"
    assert (twin / "plugins" / "hermes-trail" / "install-manifest.json").is_file(), "Hermes copied it"
    source = snapshot(root / "profiles" / "work") | {"root": (root / "config.yaml").read_bytes()}
    source_plugin = snapshot(root / "plugins")
    done = trail("uninstall", "hermes", "--profile", "twin", "--json")
    assert done.returncode == 0, done.stderr
    [report] = json.loads(done.stdout)["homes"]
    touched = report["removed"] + report["changed"] + report["backups"]
    assert touched and all(Path(p).is_relative_to(twin) for p in touched)
    assert any("copied from" in n for n in report["notes"])
    assert (root / "config.yaml").read_bytes() == source["root"], "the source profile is not touched"
    assert snapshot(root / "plugins") == source_plugin
    data = load_data((twin / "config.yaml").read_text())
    assert "trail" not in (data.get("mcp_servers") or {})
    assert "hermes-trail" not in (data.get("plugins") or {}).get("enabled", [])
    assert (data.get("memory") or {}).get("provider") != "trail"
    assert not (twin / "plugins" / "hermes-trail").exists()
    assert not (twin / "skills" / "trail-history").exists()
    listed = hermes("plugins", "list", root=twin)
    assert not re.search(r"hermes-trail\s*│\s*enabled", listed.stdout), listed.stdout
    assert trail("uninstall", "hermes", "--json").returncode == 0
    assert (root / "config.yaml").read_bytes() == CONFIG.encode(), "the source uninstalls as its own still"


def test_installing_in_a_cloned_profile_makes_it_its_own(root):
    """docs/hermes.md: a clone's MCP entry names the home it was cloned from until ``trail install hermes
    --profile NAME`` runs in it; then the entry, the plugin and the manifest are the clone's."""
    assert trail("install", "hermes").returncode == 0
    done = hermes("profile", "create", "twin", "--clone-all", "--no-alias", root=root)
    assert done.returncode == 0, done.stdout + done.stderr
    twin = root / "profiles" / "twin"
    args = load_data((twin / "config.yaml").read_text())["mcp_servers"]["trail"]["args"]
    assert args[args.index("--home") + 1] == str(root), "cloned as it was"
    source = snapshot(root / "plugins") | {"config": (root / "config.yaml").read_bytes()}
    done = trail("install", "hermes", "--profile", "twin", "--json")
    assert done.returncode == 0, done.stderr
    args = load_data((twin / "config.yaml").read_text())["mcp_servers"]["trail"]["args"]
    assert args[args.index("--home") + 1] == str(twin)
    assert json.loads((twin / "plugins" / "hermes-trail" / "install-manifest.json").read_text())[
        "home"
    ] == str(twin)
    assert install.copied_from(twin, install.read_manifest(twin)) is None
    assert snapshot(root / "plugins") | {"config": (root / "config.yaml").read_bytes()} == source
    listed = hermes("plugins", "list", root=twin)
    assert re.search(r"hermes-trail\s*│\s*enabled", listed.stdout), listed.stdout


def test_uninstall_in_a_copied_home_acts_on_the_copy_only(root, tmp_path):
    assert trail("install", "hermes").returncode == 0
    copy = tmp_path / "copy" / ".hermes"
    shutil.copytree(root, copy, symlinks=True)
    before = snapshot(root)
    done = trail("uninstall", "hermes", "--home", copy, "--json")
    assert done.returncode == 0, done.stderr
    assert snapshot(root) == before
    assert (copy / "config.yaml").read_bytes() == CONFIG.encode()
    assert not (copy / "plugins").exists()


def test_uninstall_takes_out_the_provider_hermes_memory_setup_chose(root):
    """``hermes memory setup trail`` rewrites config.yaml (Hermes' save_config): install's record of its
    edits no longer matches, and uninstall still takes out every setting pointing at trail, leaving valid
    values."""
    (root / "config.yaml").write_text("plugins:\n  enabled: []\nmemory:\n  provider: ''\n")
    assert trail("install", "hermes").returncode == 0
    done = hermes("memory", "setup", "trail", root=root)
    assert done.returncode == 0 and "Memory provider: trail" in done.stdout, done.stdout + done.stderr
    assert load_data((root / "config.yaml").read_text())["memory"]["provider"] == "trail"
    done = trail("uninstall", "hermes", "--json")
    assert done.returncode == 0, done.stderr
    data = load_data((root / "config.yaml").read_text())
    assert data["memory"]["provider"] == "" and data["plugins"]["enabled"] == []
    assert "trail" not in (data.get("mcp_servers") or {})
    status = hermes("memory", "status", root=root)
    assert "trail" not in status.stdout.split("Provider:")[-1].splitlines()[0], status.stdout


def test_two_hermes_roots_never_share_an_index(root, tmp_path, offline):
    """A second root (``--home``) gets its own index in its MCP entry and its plugin; Hermes starts the
    server with a filtered environment, so the path is in the entry itself. Each server Hermes starts
    syncs its own index, and the first root's index is left alone."""
    from hermes_trail.index.schema import default_index_path
    from hermes_trail.service import Trail

    other = hermesdb.write_home(
        tmp_path / "srv" / "hermes",
        [hermesdb.chat("20261104_090000_ee0005", ("the wombatron deploy", "done"))],
    )
    assert trail("install", "hermes").returncode == 0
    assert trail("install", "hermes", "--home", other).returncode == 0
    first = load_data((root / "config.yaml").read_text())["mcp_servers"]["trail"]["args"]
    second = load_data((other / "config.yaml").read_text())["mcp_servers"]["trail"]["args"]
    assert first[first.index("--index") + 1] == str(default_index_path().absolute())
    index = Path(second[second.index("--index") + 1])
    assert index != Path(first[first.index("--index") + 1]) and not index.exists()
    assert f"INDEX = {str(index)!r}" in (other / "plugins" / "hermes-trail" / "__init__.py").read_text()
    Trail(homes=(root,), parallel=False).sync(force=True)  # the first root's index, as the shell builds it
    default = default_index_path()
    before = indexed(default)
    assert "20261102_090000_aaaaaa" in before
    env = {**os.environ, "HERMES_HOME": str(other)}
    ask = [*offline, sys.executable, "-c", ASK_THROUGH_HERMES, "search", '{"query": "wombatron"}']
    done = subprocess.run(ask, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0 and "20261104_090000_ee0005" in done.stdout, done.stdout + done.stderr
    mine = indexed(index)
    assert "20261104_090000_ee0005" in mine and "20261102_090000_aaaaaa" not in mine, "its own root, synced"
    assert indexed(default) == before, "and left the first root's alone"


# Hermes' MCP client, as a chat uses it: start the configured servers, call one tool by the name Hermes gives
# it, print the answer.
ASK_THROUGH_HERMES = """
import json, sys
from tools import mcp_tool
from tools.registry import registry

mcp_tool.discover_mcp_tools()
try:
    print(registry.dispatch(mcp_tool.mcp_prefixed_tool_name("trail", sys.argv[1]), json.loads(sys.argv[2])))
finally:
    mcp_tool.shutdown_mcp_servers()
"""


def indexed(index: Path) -> list[str]:
    """The sessions an index holds, read as they stand (no sync)."""
    import sqlite3

    for _ in range(100):  # a server warms its index up in a thread as it starts
        if index.exists():
            try:
                with contextlib.closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as conn:
                    return sorted(r[0] for r in conn.execute("SELECT session_id FROM sessions"))
            except sqlite3.OperationalError:
                pass
        time.sleep(0.1)
    return []


def test_install_says_when_hermes_has_no_mcp_client(root, tmp_path):
    """A plain ``pip install hermes-agent`` has no MCP client: Hermes' own flag (``_MCP_AVAILABLE``, read in
    Hermes' Python) says so, and install says what to do. Here Hermes' Python finds an ``mcp`` that cannot
    be imported, as where the SDK is missing."""
    no_sdk = tmp_path / "no-sdk"
    (no_sdk / "mcp").mkdir(parents=True)
    (no_sdk / "mcp" / "__init__.py").write_text("raise ImportError('No module named mcp')\n")
    env = {"PYTHONPATH": str(no_sdk), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.defpath}"}
    done = trail_process("install", "hermes", "--json", env=env)
    assert done.returncode == 0, done.stderr
    [report] = json.loads(done.stdout)["homes"]
    [note] = [n for n in report["notes"] if "MCP client" in n]
    assert "pip install 'hermes-agent[mcp]'" in note and str(Path(sys.executable).parent / "hermes") in note
    assert trail_process("uninstall", "hermes").returncode == 0
    with_sdk = trail_process("install", "hermes", "--json", env={"PATH": env["PATH"]})
    assert not any("MCP client" in n for n in json.loads(with_sdk.stdout)["homes"][0]["notes"])


def test_install_says_how_long_the_first_index_build_takes_and_builds_it(root):
    from hermes_trail.index.schema import default_index_path

    done = trail("install", "hermes", "--no-build-index")
    assert done.returncode == 0 and "is not built yet: 2 messages in 1 sessions" in done.stderr, done.stderr
    assert "trail index --index" in done.stderr and not default_index_path().exists()
    done = trail_process("install", "hermes", "--build-index")  # it runs `trail index` on its stderr
    assert done.returncode == 0, done.stderr
    assert "20261102_090000_aaaaaa" in indexed(default_index_path()), "built, as `trail index` builds it"
    again = trail("install", "hermes")
    assert "not built yet" not in again.stderr


def test_install_at_a_terminal_offers_to_build_the_index_now(root):
    """On a terminal, install says how long the first build takes and asks; a yes runs ``trail index``
    there, its progress on the same terminal."""
    import pty

    from hermes_trail.index.schema import default_index_path

    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermes_trail", "install", "hermes"],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=terminal,
        env={**os.environ, "COLUMNS": "200"},
    )
    os.close(terminal)
    seen = b""
    answered = False
    try:
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the terminal closed: every process on it is gone
                break
            if not chunk:
                break
            seen += chunk
            if not answered and b"Build it now?" in seen:
                os.write(controller, b"y\n")
                answered = True
    finally:
        os.close(controller)
        proc.wait(timeout=300)
    text = seen.decode("utf-8", "replace")
    assert proc.returncode == 0, text
    assert "is not built yet: 2 messages in 1 sessions" in text and answered, text
    assert "20261102_090000_aaaaaa" in indexed(default_index_path()), "built after the yes"
