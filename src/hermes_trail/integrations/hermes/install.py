"""``trail install hermes`` and ``trail uninstall hermes``: what goes into a Hermes home, and out again.

Into each home named (the active one by default, as a bare ``hermes`` picks it; ``--profile``;
``--all-profiles``; ``--home``):

- ``config.yaml``: ``mcp_servers.trail`` launching ``trail mcp`` over stdio on this home and its index
  (:func:`index_for`), and ``hermes-trail`` in ``plugins.enabled``; with ``--memory``,
  ``memory.provider: trail`` too. Edited on the text (:mod:`.yamledit`), so comments, key order and
  quoting stay.
- ``plugins/hermes-trail/``: the plugin (``plugin.yaml``, an ``__init__.py`` that loads hermes-trail).
- ``plugins/trail/``: the memory provider ``trail`` (Hermes looks providers up by directory name).
- ``skills/trail-history/SKILL.md``: a top-level skill (a plugin's own skills never reach the prompt).
- ``plugins/hermes-trail/install-manifest.json``: what was added, so uninstall removes exactly that. Its
  paths are relative to the home it sits in: a profile cloned with ``hermes profile create --clone-all``,
  or a home copied by hand, carries it along, and uninstall there acts on that home only.

Every file is written atomically (a temporary file in the same directory, flushed to disk, then
``os.replace``): killing the installer at any point leaves each file whole, old or new. A file that is
changed gets a timestamped backup beside it first (``config.yaml.trail-YYYYmmdd-HHMMSS.bak``). Uninstall
puts ``config.yaml`` back byte for byte when nothing else changed it since (and then removes install's
backups); otherwise it takes out what install added and every setting still pointing at hermes-trail,
leaving valid values. A file install would add that is already there and not its own is not touched.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
import re
import shutil
import sys
import sysconfig
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from hermes_trail import readonly
from hermes_trail.durable import fsync_directory, mode_of, write_atomic
from hermes_trail.errors import TrailError
from hermes_trail.hermes import locate
from hermes_trail.integrations.hermes import yamledit

SERVER = "trail"
PLUGIN = "hermes-trail"
PROVIDER = "trail"
SKILL = "trail-history"
MANIFEST = "install-manifest.json"
CONFIG = "config.yaml"
# 2: every path in the manifest is relative to the home it sits in (1 kept absolute ones, which a cloned
# or copied home carried along, so uninstall there edited the home it was copied from).
MANIFEST_FORMAT = 2
# Hermes' own rule for a profile's name (hermes_cli/profiles.py, _PROFILE_ID_RE).
PROFILE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


class InstallError(TrailError):
    """Install or uninstall cannot go on: nothing was written for that home."""


@dataclass(frozen=True)
class Target:
    """One Hermes home to install into, and the profile it is."""

    home: Path
    profile: str


@dataclass
class FileChange:
    """A file install or uninstall writes (``after``) or removes (``after`` is ``None``)."""

    path: Path
    before: bytes | None
    after: bytes | None


@dataclass
class Plan:
    """What one install or uninstall does in one home."""

    target: Target
    files: list[FileChange] = field(default_factory=list)
    config: FileChange | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    dirs: list[Path] = field(default_factory=list)  # to create (install) or remove when empty (uninstall)
    notes: list[str] = field(default_factory=list)
    rewritten: bool = False  # config.yaml went through ruamel.yaml's whole-file round trip
    restored: bool = False  # uninstall: config.yaml goes back to its bytes from before install
    stale: list[Path] = field(default_factory=list)  # uninstall: install's backups, removed once restored
    first: bool = False  # install: no earlier install in this home

    @property
    def changes(self) -> list[FileChange]:
        every = [*self.files, *([self.config] if self.config else [])]
        return [c for c in every if c.before != c.after]


# -- where --------------------------------------------------------------------------------------------------
def _root(env: Mapping[str, str], home: Path | None) -> tuple[Path, Path | None]:
    """The root whose profiles are listed, and the home ``HERMES_HOME`` (or ``--home``) names, if any."""
    native = locate.platform_default_home(env)
    named = (
        home
        if home is not None
        else (Path(env["HERMES_HOME"]) if env.get("HERMES_HOME", "").strip() else None)
    )
    if named is None:
        return native, None
    named = Path(os.path.expandvars(str(named))).expanduser()
    return locate.root_for(named, native), named


def profile_home(root: Path, name: str) -> Path:
    return root if name == locate.DEFAULT_PROFILE else root / locate.PROFILES_DIR / name


def targets(
    env: Mapping[str, str] | None = None,
    *,
    profile: str | None = None,
    all_profiles: bool = False,
    home: Path | None = None,
) -> list[Target]:
    """The homes to install into or uninstall from.

    With neither ``profile`` nor ``all_profiles``: the home a bare ``hermes`` would use, as Hermes picks it
    (``hermes_cli/main.py``): ``HERMES_HOME`` (or ``home``) when it names a profile directly, else the
    sticky ``<root>/active_profile``, else the root itself.
    """
    env = os.environ if env is None else env
    root, named = _root(env, home)
    if all_profiles:
        found = [Target(root, locate.DEFAULT_PROFILE)]
        profiles = root / locate.PROFILES_DIR
        if profiles.is_dir():
            for entry in sorted(profiles.iterdir()):
                if entry.is_dir() and not entry.name.startswith(".") and PROFILE_NAME.fullmatch(entry.name):
                    found.append(Target(entry, entry.name))
        return found
    if profile is not None:
        name = profile.strip()
        name = locate.DEFAULT_PROFILE if name.casefold() == "default" else name.lower()
        if name != locate.DEFAULT_PROFILE and not PROFILE_NAME.fullmatch(name):
            raise InstallError(f"{profile!r} is not a Hermes profile name ([a-z0-9][a-z0-9_-]*)")
        where = profile_home(root, name)
        if not where.is_dir():
            raise InstallError(f"no profile {name!r} at {where} (hermes profile create {name})")
        return [Target(where, name)]
    if named is not None and named.parent.name == locate.PROFILES_DIR:
        return [Target(named, named.name)]
    try:
        active = (root / "active_profile").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        active = ""
    if active and active != locate.DEFAULT_PROFILE and PROFILE_NAME.fullmatch(active):
        return [Target(profile_home(root, active), active)]
    return [Target(named if named is not None else root, locate.DEFAULT_PROFILE)]


# -- what -----------------------------------------------------------------------------------------------
def trail_command() -> tuple[str, list[str]]:
    """How to start this ``trail``: the absolute path of the ``trail`` script installed beside this Python,
    else the one on ``PATH``, else this Python with ``-m hermes_trail``."""
    name = "trail.exe" if sys.platform == "win32" else "trail"
    candidates = [Path(sysconfig.get_path("scripts")) / name, Path(sys.executable).parent / name]
    found = shutil.which("trail")
    if found:
        candidates.append(Path(found))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate.absolute()), []
    return str(Path(sys.executable).absolute()), ["-m", "hermes_trail"]


def source_dir() -> Path:
    """The directory holding the ``hermes_trail`` package this process runs."""
    import hermes_trail

    return Path(hermes_trail.__file__).resolve().parent.parent


def index_for(home: Path, env: Mapping[str, str] | None = None) -> Path:
    """The index the MCP server and the plugin of ``home`` use.

    ``TRAIL_INDEX`` when it is set. Else the default index when ``home`` is in the root ``trail`` reads by
    default here (``HERMES_HOME``'s root, else the platform's), so Hermes and the shell share one index;
    another root gets an index of its own beside it (``homes/<name>-<hash>/index.db``). A sync drops what is
    not in the stores it reads, so two roots syncing one index would take turns emptying it (issue 17).
    """
    from hermes_trail.index.schema import default_index_path

    env = os.environ if env is None else env
    if env.get("TRAIL_INDEX", "").strip():
        return default_index_path(env).absolute()
    default = default_index_path(env).absolute()
    native = locate.platform_default_home(env)
    own_root = (
        locate.root_for(Path(env["HERMES_HOME"]), native) if env.get("HERMES_HOME", "").strip() else native
    )
    root = locate.root_for(home.absolute(), native)
    if _same(root, own_root):
        return default
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", root.name.lstrip(".") or "hermes")[:32]
    digest = hashlib.sha256(str(root.absolute()).encode()).hexdigest()[:10]
    return default.parent / "homes" / f"{name}-{digest}" / "index.db"


def server_entry(home: Path, index: Path | None = None) -> dict[str, Any]:
    """The ``mcp_servers.trail`` entry: ``trail mcp`` over stdio, reading this home's Hermes root into this
    home's index. ``--home`` and ``--index`` are given because Hermes starts MCP servers with a filtered
    environment (no ``HERMES_HOME``, no ``TRAIL_INDEX``)."""
    command, args = trail_command()
    index = index_for(home) if index is None else index
    return {"command": command, "args": [*args, "mcp", "--home", str(home.absolute()), "--index", str(index)]}


# -- the Hermes that will load it ------------------------------------------------------------------------
# Asked of Hermes' own Python: its version, whether its MCP client can run (Hermes' own flag, set when the
# optional 'mcp' SDK imports), and its plugin API.
_HERMES_FACTS = """
import json, importlib.metadata as md
facts = {"version": None, "mcp": None}
try:
    facts["version"] = md.version("hermes-agent")
except Exception:
    pass
try:
    import tools.mcp_tool as mcp_tool
    facts["mcp"] = bool(mcp_tool._MCP_AVAILABLE)
except Exception:
    import importlib.util
    facts["mcp"] = importlib.util.find_spec("mcp") is not None
print(json.dumps(facts))
"""


@dataclass
class HermesFound:
    """The ``hermes`` command on ``PATH`` and what its Python has."""

    command: Path | None = None
    python: str | None = None
    version: str | None = None
    mcp: bool | None = None  # None: could not tell

    @property
    def mcp_fix(self) -> str:
        """How to give this Hermes its MCP client."""
        where = (
            f"{self.python} -m pip install 'hermes-agent[mcp]'"
            if self.python
            else "pip install 'hermes-agent[mcp]' in Hermes' environment"
        )
        return (
            f"{where} (installed with pipx: pipx inject hermes-agent mcp; with uv: uv tool install "
            "--force 'hermes-agent[mcp]')"
        )


def interpreter_of(command: Path) -> str | None:
    """The Python a console script runs (its ``#!`` line; ``/usr/bin/env python3`` looked up)."""
    try:
        with command.open("rb") as script:
            first = script.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if Path(words[0]).name == "env" and len(words) > 1:
        return shutil.which(words[1])
    return words[0]


def find_hermes(env: Mapping[str, str] | None = None, *, ask: bool = True) -> HermesFound:
    """The ``hermes`` a person runs (the first on ``PATH``), its Python, and (``ask``) its version and
    whether its MCP client can run, asked of that Python (about a second)."""
    import subprocess

    env = os.environ if env is None else env
    found = shutil.which("hermes", path=env.get("PATH"))
    if found is None:
        return HermesFound()
    hermes = HermesFound(Path(found), interpreter_of(Path(found).resolve()) or interpreter_of(Path(found)))
    if not ask or hermes.python is None:
        return hermes
    try:
        done = subprocess.run(
            [hermes.python, "-c", _HERMES_FACTS],
            capture_output=True,
            text=True,
            env=dict(env),
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        facts = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {}
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        facts = {}
    hermes.version, hermes.mcp = facts.get("version"), facts.get("mcp")
    return hermes


def hermes_notes(hermes: HermesFound) -> list[str]:
    """What install says about the Hermes it found: none on PATH, or one without an MCP client."""
    if hermes.command is None:
        return [
            "no hermes command on PATH: the plugin, the provider and the skill load when Hermes starts "
            "in these homes; check with `trail doctor` once it is installed"
        ]
    if hermes.mcp is False:
        return [
            f"{hermes.command} (hermes-agent {hermes.version or '?'}) has no MCP client (the optional "
            "'mcp' Python SDK), so mcp_servers.trail cannot connect; the plugin, the provider and the "
            f"skill work without it. To add it: {hermes.mcp_fix}"
        ]
    return []


# -- the first index build ----------------------------------------------------------------------------
# Seconds per million messages for a first build of the word index by ``trail index`` with its worker
# processes, on two cores (docs/index.md, bench/README.md).
BUILD_SECONDS_PER_MILLION = 45.0


def first_build(home: Path, index: Path) -> dict[str, Any] | None:
    """What building ``index`` for the first time would read, and about how long it takes: ``None`` when
    it is built already. The stores of ``home``'s root (its ``state.db`` and each profile's) are counted,
    as they are on disk (an estimate: what is still in a write-ahead log is not counted); ``done``: the
    messages a build cut short has indexed already, which the next build does not read again."""
    import sqlite3

    from hermes_trail.index import opening, schema

    if index.is_file() and schema.inspect(index) == schema.FORMAT:
        return None
    root = locate.root_for(home.absolute(), locate.platform_default_home(os.environ))
    stores = [root / "state.db", *sorted((root / locate.PROFILES_DIR).glob("*/state.db"))]
    messages = sessions = 0
    for store in stores:
        if not store.is_file():
            continue
        try:
            # immutable: an estimate needs no WAL, and opening creates no -wal/-shm beside a store
            conn = readonly.connect(store, "immutable=1", timeout=1.0)
            try:
                messages += conn.execute("SELECT count(*) FROM messages").fetchone()[0]
                sessions += conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
            finally:
                conn.close()
        except sqlite3.Error:
            continue
    progress = opening.build_progress(index)
    done = min(progress[1], messages) if progress else 0
    return {
        "messages": messages,
        "sessions": sessions,
        "done": done,
        "seconds": round((messages - done) / 1e6 * BUILD_SECONDS_PER_MILLION, 1),
    }


def _asset(name: str) -> str:
    return resources.files("hermes_trail.integrations.hermes").joinpath("assets", name).read_text("utf-8")


def _version() -> str:
    import hermes_trail

    return hermes_trail.__version__


def _fill(text: str, **values: str) -> str:
    for key, value in values.items():
        text = text.replace(f"__{key}__", value)
    return text


def shim(module: str, doc: str, index: Path) -> str:
    """The ``__init__.py`` Hermes imports: it loads hermes-trail, then takes ``register`` from ``module``."""
    line = (
        f"from hermes_trail.integrations.hermes.{module} import register as _register  # noqa: E402\n\n\n"
        "def register(ctx):\n"
        "    # The index and the trail command of this home (a TRAIL_INDEX set for Hermes wins).\n"
        "    return _register(ctx, index=INDEX, command=TRAIL)"
    )
    source = repr(str(source_dir()))
    command = repr(trail_command()[0])
    return _fill(
        _asset("shim.py.in"),
        DOC=doc,
        VERSION=_version(),
        SOURCE=source,
        TRAIL=command,
        INDEX=repr(str(index)),
        IMPORT=line,
    )


def added_files(home: Path) -> dict[Path, bytes]:
    """Every file install puts into ``home`` (the manifest aside), with its content."""
    command, args = trail_command()
    trail = " ".join([command, *args])
    plugin_doc = (
        "The Hermes plugin hermes-trail: recall from past sessions before each prompt, past\n"
        "fixes on a failing command, and /trail."
    )
    provider_doc = (
        "The memory provider trail (hermes-trail): register(ctx) calls\n"
        "ctx.register_memory_provider with a MemoryProvider over hermes-trail's "
        "index."
    )
    files = {
        Path("plugins", PLUGIN, "plugin.yaml"): _fill(_asset("plugin.yaml.in"), VERSION=_version()),
        Path("plugins", PLUGIN, "__init__.py"): shim("plugin", plugin_doc, index_for(home)),
        Path("plugins", PROVIDER, "plugin.yaml"): _fill(_asset("provider.yaml.in"), VERSION=_version()),
        Path("plugins", PROVIDER, "__init__.py"): shim("provider", provider_doc, index_for(home)),
        Path("skills", SKILL, "SKILL.md"): _fill(_asset("SKILL.md.in"), TRAIL=trail),
    }
    return {home / rel: text.encode() for rel, text in files.items()}


def manifest_path(home: Path) -> Path:
    return home / "plugins" / PLUGIN / MANIFEST


def read_manifest(home: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(manifest_path(home).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise InstallError(f"{manifest_path(home)} cannot be read ({exc}); remove it to start over") from exc
    return data if isinstance(data, dict) else None


def _own_path(home: Path, manifest: Mapping[str, Any], value: str | None, base: Path) -> Path | None:
    """A path the manifest names, as a path of ``home`` (the home the manifest sits in now).

    Relative paths (format 2) are taken from ``base``. An absolute one (format 1) is the home's only when the
    manifest was written in this very home; written in another (this home is a clone or a copy of it), a path
    under that home is taken to the same place in this one, and any other is not this home's (``None``).
    """
    if not value:
        return None
    path = Path(value)
    if not path.is_absolute():
        return base / path
    written = Path(str(manifest.get("home") or ""))
    if not written.is_absolute() or _same(written, home):
        return path
    try:
        return home / path.relative_to(written)
    except ValueError:
        return None


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a.absolute() == b.absolute()


def copied_from(home: Path, manifest: Mapping[str, Any] | None) -> Path | None:
    """The home an install manifest was written in, when it is not ``home`` (a clone or a copy)."""
    written = str((manifest or {}).get("home") or "")
    if not written or _same(Path(written), home):
        return None
    return Path(written)


def _sha(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _config_path(home: Path) -> Path:
    """``config.yaml``, or the file it links to: a dotfiles link stays a link."""
    path = home / CONFIG
    return path.resolve() if path.is_symlink() else path


# -- install --------------------------------------------------------------------------------------------
def plan_install(target: Target, *, memory: bool = False) -> Plan:
    """What installing into ``target`` changes; nothing is written. Raises :class:`InstallError` when a
    file or a setting install needs is there already and is not its own."""
    home = target.home
    if not home.is_dir():
        raise InstallError(f"no Hermes home at {home} (run hermes once, or name one with --home)")
    previous = read_manifest(home)
    own = {str(p) for p in (previous or {}).get("files", {})}
    plan = Plan(target, first=previous is None)
    for path, content in added_files(home).items():
        before = _read(path)
        rel = str(path.relative_to(home))
        if before is not None and before != content and rel not in own:
            raise InstallError(
                f"{path} is there already and was not written by trail install; move it away first"
            )
        plan.files.append(FileChange(path, before, content))
    for sub in (
        Path("plugins"),
        Path("plugins", PLUGIN),
        Path("plugins", PROVIDER),
        Path("skills"),
        Path("skills", SKILL),
    ):
        if not (home / sub).is_dir():
            plan.dirs.append(home / sub)
    created_dirs = [str(d.relative_to(home)) for d in plan.dirs]
    old_dirs = list((previous or {}).get("dirs", []))

    config_path = _config_path(home)
    before = _read(config_path)
    text = before.decode("utf-8") if before is not None else ""
    edits: list[list[Any]] = [list(e) for e in (previous or {}).get("config", {}).get("edits", [])]
    text = _install_config(plan, text, edits, home, memory=memory)
    after = text.encode("utf-8")
    plan.config = FileChange(config_path, before, after if (before is not None or after) else None)
    if plan.config.after is None and before is None:
        plan.config = None

    prior = (previous or {}).get("config", {})
    existed = prior.get("existed", before is not None) if previous else before is not None
    # config.yaml can be put back byte for byte on uninstall only while hermes-trail is the only one that
    # changed it since the first install.
    restorable = (
        prior.get("restorable", False) and prior.get("written_sha256") == _sha(before) if previous else True
    )
    files = {str(p.relative_to(home)): _sha(c.after) for p, c in ((c.path, c) for c in plan.files)}
    backup_name = (prior.get("original_backup") if restorable else None) if previous else None
    if backup_name:
        local = _own_path(home, previous or {}, backup_name, config_path.parent)
        backup_name = local.name if local is not None else None
    plan.manifest = {
        "format": MANIFEST_FORMAT,
        "tool": "hermes-trail",
        "version": _version(),
        "installed_at": (previous or {}).get("installed_at") or _now_iso(),
        "updated_at": _now_iso(),
        "home": str(home),
        "profile": target.profile,
        "files": files,
        "dirs": old_dirs + [d for d in created_dirs if d not in old_dirs],
        "config": {
            "path": CONFIG,
            "existed": existed,
            "restorable": restorable,
            "original_sha256": (prior.get("original_sha256") if restorable else None)
            if previous
            else _sha(before),
            "original_backup": backup_name,  # a file name beside config.yaml
            "backups": list(prior.get("backups") or []) if previous else [],  # every one install made
            "written_sha256": _sha(plan.config.after) if plan.config else _sha(before),
            "edits": edits,
        },
    }
    return plan


def _install_config(plan: Plan, text: str, edits: list[list[Any]], home: Path, *, memory: bool) -> str:
    """``text`` with install's settings; ``edits`` gets what was done (for uninstall)."""
    data = yamledit.load_data(text) or {}
    if not isinstance(data, dict):
        raise InstallError(f"{home / CONFIG} does not hold a mapping at its top")
    entry = server_entry(home)
    ours = {(e[0], tuple(e[1])): e for e in edits}

    def record(action: str, path: Sequence[str], value: Any) -> None:
        """Note an edit for uninstall; a re-install keeps the first install's (what was there before)."""
        mine = ours.get((action, tuple(path)))
        if mine is None:
            mine = ours[(action, tuple(path))] = [action, list(path), value]
            edits.append(mine)
        elif action == "key":
            mine[2] = value  # the entry as it is now, to be recognised on uninstall

    servers = data.get("mcp_servers")
    if servers is not None and not isinstance(servers, dict):
        raise InstallError(f"mcp_servers in {home / CONFIG} is not a mapping")
    current = (servers or {}).get(SERVER)
    if current != entry:
        if current is not None and ("key", ("mcp_servers", SERVER)) not in ours:
            raise InstallError(
                f"{home / CONFIG} has an mcp_servers.{SERVER} entry trail install did not "
                "add; remove or rename it first"
            )
        if servers is None and "mcp_servers" not in data:
            record("prune", ["mcp_servers"], None)
        if current is not None:  # our own entry, from an older install: replace it
            text = yamledit.remove(text, [("key", ["mcp_servers", SERVER], current)])
        text, rewritten = yamledit.put_key(text, ["mcp_servers"], SERVER, entry)
        plan.rewritten |= rewritten
        record("key", ["mcp_servers", SERVER], entry)
        data = yamledit.load_data(text) or {}

    plugins = data.get("plugins")
    if plugins is not None and not isinstance(plugins, dict):
        raise InstallError(f"plugins in {home / CONFIG} is not a mapping")
    enabled = (plugins or {}).get("enabled")
    if enabled is not None and not isinstance(enabled, list):
        raise InstallError(f"plugins.enabled in {home / CONFIG} is not a list")
    if PLUGIN not in (enabled or []):
        if plugins is None and "plugins" not in data:
            record("prune", ["plugins"], None)
        if enabled is None:
            record("prune", ["plugins", "enabled"], None)
        text, rewritten = yamledit.append_item(text, ["plugins", "enabled"], PLUGIN)
        plan.rewritten |= rewritten
        record("item", ["plugins", "enabled"], PLUGIN)
        data = yamledit.load_data(text) or {}
    if PLUGIN in ((data.get("plugins") or {}).get("disabled") or []):
        plan.notes.append(
            f"{PLUGIN} is in plugins.disabled of {home / CONFIG}: Hermes will not load it "
            f"until you take it out (hermes plugins enable {PLUGIN})"
        )

    if memory:
        mem = data.get("memory")
        if mem is not None and not isinstance(mem, dict):
            raise InstallError(f"memory in {home / CONFIG} is not a mapping")
        provider = (mem or {}).get("provider")
        if provider != PROVIDER:
            if provider:
                raise InstallError(
                    f"memory.provider is {provider!r} in {home / CONFIG}; Hermes runs one "
                    f"memory provider: set it to {PROVIDER!r} yourself (hermes memory setup) "
                    "if you want hermes-trail's instead"
                )
            if mem is None and "memory" not in data:
                record("prune", ["memory"], None)
            had = "provider" in (mem or {})
            text, rewritten = yamledit.set_scalar(text, ["memory", "provider"], PROVIDER)
            plan.rewritten |= rewritten
            record("scalar", ["memory", "provider"], provider if had else None)
    return text


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


# -- uninstall ------------------------------------------------------------------------------------------
def plan_uninstall(target: Target) -> Plan:
    """What uninstalling from ``target`` changes (nothing when hermes-trail is not installed there)."""
    home = target.home
    plan = Plan(target)
    manifest = read_manifest(home)
    if manifest is None:
        return plan
    plan.manifest = manifest
    source = copied_from(home, manifest)
    if source is not None:
        plan.notes.append(
            f"{home} was copied from {source} (a cloned profile or a copied home): only {home} is changed"
        )
    for rel, sha in (manifest.get("files") or {}).items():
        path = _own_path(home, manifest, rel, home)
        if path is None:
            continue
        before = _read(path)
        if before is None:
            continue
        if _sha(before) != sha:
            plan.notes.append(f"{path} was changed since install: kept")
            continue
        plan.files.append(FileChange(path, before, None))
    mpath = manifest_path(home)
    plan.files.append(FileChange(mpath, _read(mpath), None))
    dirs = {p for d in manifest.get("dirs") or [] if (p := _own_path(home, manifest, d, home)) is not None}
    dirs |= {home / "plugins" / PLUGIN, home / "plugins" / PROVIDER, home / "skills" / SKILL}
    plan.dirs = sorted(dirs, key=lambda d: len(d.parts), reverse=True)  # removed only when left empty

    config = manifest.get("config") or {}
    config_path = _config_path(home)  # this home's, whatever home the manifest was written in
    before = _read(config_path)
    if before is None:
        return plan
    backup_path = _own_path(home, manifest, config.get("original_backup"), config_path.parent)
    original = _read(backup_path) if backup_path is not None else None
    if (
        config.get("restorable", True)
        and _sha(before) == config.get("written_sha256")
        and (
            (
                config.get("existed")
                and original is not None
                and _sha(original) == config.get("original_sha256")
            )
            or not config.get("existed")
        )
    ):
        plan.config = FileChange(config_path, before, original if config.get("existed") else None)
        plan.restored = True
        names = {*(config.get("backups") or []), *([backup_path.name] if backup_path is not None else [])}
        for name in sorted(names):
            own = _own_path(home, manifest, name, config_path.parent)
            if own is None or own.parent != config_path.parent or not own.name.startswith(f"{CONFIG}.trail-"):
                continue
            if own.is_file():
                plan.stale.append(own)
        return plan
    edits = [(e[0], e[1], e[2]) for e in reversed(config.get("edits") or [])]
    removal = [e for e in edits if e[0] != "prune"] + [e for e in edits if e[0] == "prune"]
    text = _without_trail(yamledit.remove(before.decode("utf-8"), removal))
    after: bytes | None = text.encode("utf-8")
    if not config.get("existed") and not text.strip():
        after = None  # install made the file, and nothing else is in it
    plan.config = FileChange(config_path, before, after)
    plan.rewritten = after != before
    plan.notes.append(f"{config_path} was changed since install: only hermes-trail's settings are taken out")
    return plan


def _without_trail(text: str) -> str:
    """``text`` with every setting that still points at hermes-trail taken out, whoever wrote it
    (``hermes memory setup`` rewrites the whole file, so install's record of its edits cannot find its
    own), and valid values left behind: ``memory.provider: ''`` (Hermes' own "no provider") and
    ``plugins.enabled: []``, never a null."""
    data = yamledit.load_data(text) or {}
    if not isinstance(data, dict):
        return text
    memory = data.get("memory")
    if isinstance(memory, dict) and memory.get("provider") == PROVIDER:
        text, _ = yamledit.set_scalar(text, ["memory", "provider"], "")
    for _ in range(8):  # the plugin named more than once
        plugins = (yamledit.load_data(text) or {}).get("plugins")
        enabled = plugins.get("enabled") if isinstance(plugins, dict) else None
        if not isinstance(enabled, list) or PLUGIN not in enabled:
            break
        text = yamledit.remove(text, [("item", ["plugins", "enabled"], PLUGIN)])
    text, _ = yamledit.empty_list(text, ["plugins", "enabled"])
    return text


# -- showing and doing ----------------------------------------------------------------------------------
def diff(plan: Plan) -> str:
    """A unified diff of every file the plan writes, adds or removes."""
    out: list[str] = []
    for change in plan.changes:
        old = (change.before or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
        new = (change.after or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
        a = str(change.path) if change.before is not None else "/dev/null"
        b = str(change.path) if change.after is not None else "/dev/null"
        lines = list(difflib.unified_diff(old, new, a, b))
        ending = "\n\\ No newline at end of file\n"
        out.extend(line if line.endswith("\n") else line + ending for line in lines)
    return "".join(out)


def backup(path: Path) -> Path:
    """A copy of ``path`` beside it, named with the time (``config.yaml.trail-20261130-045845.bak``)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    candidate = path.with_name(f"{path.name}.trail-{stamp}.bak")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.trail-{stamp}-{n}.bak")
        n += 1
    data = path.read_bytes()
    write_atomic(candidate, data, mode_of(path))
    return candidate


def apply_install(plan: Plan) -> list[Path]:
    """Write an install plan: files first, then the manifest, then ``config.yaml`` (backed up first), then
    the manifest again with what ``config.yaml`` now is. Returns the backups made."""
    backups: list[Path] = []
    for directory in plan.dirs:
        directory.mkdir(parents=True, exist_ok=True)
    for change in plan.files:
        if change.after is not None and change.before != change.after:
            write_atomic(change.path, change.after)
    mpath = manifest_path(plan.target.home)
    config = plan.config
    if config is not None and config.before != config.after and config.before is not None:
        made = backup(config.path)
        backups.append(made)
        plan.manifest["config"].setdefault("backups", []).append(made.name)
        if plan.first:  # the copy uninstall puts back, named beside config.yaml
            plan.manifest["config"]["original_backup"] = made.name
    pending = json.loads(json.dumps(plan.manifest))
    pending["config"]["written_sha256"] = None  # until config.yaml is written
    write_atomic(mpath, (json.dumps(pending, indent=2) + "\n").encode())
    if config is not None and config.after is not None and config.before != config.after:
        write_atomic(config.path, config.after, mode_of(config.path))
    write_atomic(mpath, (json.dumps(plan.manifest, indent=2) + "\n").encode())
    return backups


def apply_uninstall(plan: Plan) -> list[Path]:
    """Write an uninstall plan: ``config.yaml`` first (backed up, unless it goes back to its bytes from
    before install: then install's own backups go too), then the files, the manifest last."""
    backups: list[Path] = []
    config = plan.config
    if config is not None and config.before != config.after:
        if not plan.restored:
            backups.append(backup(config.path))
        if config.after is None:
            config.path.unlink()
            fsync_directory(config.path.parent)
        else:
            write_atomic(config.path, config.after, mode_of(config.path))
    mpath = manifest_path(plan.target.home)
    for change in plan.files:
        if change.path != mpath:
            change.path.unlink(missing_ok=True)
    for directory in plan.dirs:
        shutil.rmtree(directory / "__pycache__", ignore_errors=True)  # Python's, from Hermes importing ours
    mpath.unlink(missing_ok=True)
    for directory in plan.dirs:
        with contextlib.suppress(OSError):  # not empty (the user's files) or gone: left as it is
            directory.rmdir()
    for stale in plan.stale:
        stale.unlink(missing_ok=True)
    return backups
