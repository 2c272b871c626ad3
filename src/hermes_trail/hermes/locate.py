"""Where Hermes keeps its history: homes, profiles and the stores in them.

This layer answers "where is it?" and never opens a file. Home resolution follows Hermes' own
(``hermes_constants``): the platform default (``~/.hermes``, or ``%LOCALAPPDATA%\\hermes`` on Windows,
each with ``HERMES_DATA_DIR_SUFFIX`` appended with no separator), overridden by ``HERMES_HOME`` (never
suffixed). The *root* whose profiles are listed follows ``get_default_hermes_root``: a ``HERMES_HOME``
inside the default home keeps the default as root, one outside it that ends at ``profiles/<name>`` has
its grandparent as root, and any other directory is its own root. Named profiles are whole homes under
``<root>/profiles/<name>/``; a Docker or Podman volume's ``_data`` directory is a home with no
``.hermes`` prefix.

A home whose ``config.yaml`` moves its sessions to PostgreSQL (``sessiondb.provider: postgresql``, see
:mod:`hermes_trail.hermes.sessiondb`) has that database as a store too, beside any ``state.db`` it kept from
before; ``--pg`` and ``TRAIL_HERMES_PG_DSN`` name PostgreSQL stores as ``--db`` and ``TRAIL_HERMES_DB``
name files. A DSN is held only by :class:`StoreLocation` (never in its ``repr``); everything shown uses
:func:`hermes_trail.hermes.dsn.shown`.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import ClassVar

from hermes_trail.hermes import dsn as dsns
from hermes_trail.hermes.sessiondb import read_setting
from hermes_trail.model import _Frozen, _Record

DATABASE_NAME = "state.db"
PROFILES_DIR = "profiles"
DEFAULT_PROFILE = "default"

# Where container engines keep named volumes; a volume whose name contains "hermes" holds a home in _data.
_VOLUME_ROOTS = (
    Path("/var/lib/docker/volumes"),
    Path("/var/lib/containers/storage/volumes"),
)
_USER_VOLUME_ROOT = Path(".local/share/containers/storage/volumes")


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class StoreLocation(_Frozen):
    """Where a Hermes store should be: a file (``path``) or a PostgreSQL database (``dsn``), the profile it
    belongs to, its home, and what named it (``origin``)."""

    _fields: ClassVar[tuple[str, ...]] = ("path", "profile", "home", "origin", "dsn")
    __slots__ = _fields
    _hidden: ClassVar[tuple[str, ...]] = ("dsn",)
    path: Path | None
    profile: str
    home: Path | None
    origin: str
    dsn: str | None

    def __init__(
        self, path: Path | None, profile: str, home: Path | None, origin: str, dsn: str | None = None
    ) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "home", home)
        object.__setattr__(self, "origin", origin)
        object.__setattr__(self, "dsn", dsn)

    @property
    def label(self) -> str:
        return self.profile

    @property
    def kind(self) -> str:
        return "postgresql" if self.dsn is not None else "sqlite"

    @property
    def where(self) -> str:
        """The store as shown to people and programs: the file, or the DSN without its password."""
        if self.dsn is not None:
            return dsns.shown(self.dsn)
        return str(self.path)

    @property
    def key(self) -> str:
        """Stable identity across reads: the resolved file, or the DSN without its password."""
        if self.dsn is not None:
            return dsns.shown(self.dsn)
        assert self.path is not None
        return str(self.path.resolve())


class Note(_Frozen):
    """Something passed over while looking, and why. Shown on stderr, never raised."""

    _fields: ClassVar[tuple[str, ...]] = ("path", "reason")
    __slots__ = _fields
    path: str
    reason: str

    def __init__(self, path: str, reason: str) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "reason", reason)

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class Discovery(_Record):
    """What locating found: the homes, the candidate stores in them, and what was passed over."""

    _fields: ClassVar[tuple[str, ...]] = ("homes", "stores", "notes", "demo")
    __slots__ = _fields
    homes: list[tuple[Path, str]]
    stores: list[StoreLocation]
    notes: list[Note]
    demo: bool

    def __init__(
        self,
        homes: list[tuple[Path, str]] | None = None,
        stores: list[StoreLocation] | None = None,
        notes: list[Note] | None = None,
        demo: bool = False,
    ) -> None:
        self.homes = [] if homes is None else homes
        self.stores = [] if stores is None else stores
        self.notes = [] if notes is None else notes
        self.demo = demo


def _expand(value: str) -> Path:
    return Path(os.path.expandvars(value)).expanduser()


def platform_default_home(
    env: Mapping[str, str], *, platform: str = sys.platform, user_home: Path | None = None
) -> Path:
    """Hermes' default home on this platform, with ``HERMES_DATA_DIR_SUFFIX`` appended verbatim.

    On Windows the desktop app keeps using a legacy ``~/.hermes`` when ``%LOCALAPPDATA%\\hermes`` does
    not exist and no suffix is set, so that home is taken when it is the one that exists.
    """
    user_home = user_home if user_home is not None else Path.home()
    suffix = env.get("HERMES_DATA_DIR_SUFFIX", "")
    if platform == "win32":
        local = env.get("LOCALAPPDATA", "").strip()
        base = Path(local) if local else user_home / "AppData" / "Local"
        native = base / ("hermes" + suffix)
        legacy = user_home / ".hermes"
        if not suffix and not native.exists() and legacy.exists():
            return legacy
        return native
    return user_home / (".hermes" + suffix)


def _is_within(path: Path, parent: Path) -> bool:
    try:
        path.resolve().relative_to(parent.resolve())
    except (ValueError, OSError, RuntimeError):  # RuntimeError: a symlink loop (Python 3.11)
        return False
    return True


def root_for(home_value: str | Path, native: Path) -> Path:
    """The root whose profiles are visible, for a ``HERMES_HOME`` value (``get_default_hermes_root``)."""
    env_path = _expand(str(home_value)) if isinstance(home_value, str) else home_value
    if _is_within(env_path, native):
        return native
    if env_path.parent.name == PROFILES_DIR:
        return env_path.parent.parent
    return env_path


def volume_data_root(path: Path) -> Path:
    """A container volume directory stands for its ``_data`` directory, which is the Hermes home."""
    data = path / "_data"
    try:
        if path.name != "_data" and not (path / DATABASE_NAME).exists() and data.is_dir():
            return data
    except (OSError, RuntimeError):
        pass  # unreadable or looping: the walk reports it
    return path


def _volume_homes(user_home: Path) -> list[Path]:
    found: list[Path] = []
    for base in (*_VOLUME_ROOTS, user_home / _USER_VOLUME_ROOT):
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if "hermes" in entry.name.lower():
                data = Path(entry.path) / "_data"
                try:
                    if data.is_dir():
                        found.append(data)
                except OSError:
                    continue
    return found


def _split_paths(value: str) -> list[str]:
    return [p for p in value.split(os.pathsep) if p.strip()]


def resolve_roots(
    env: Mapping[str, str],
    *,
    homes: Iterable[str | Path] = (),
    platform: str = sys.platform,
    user_home: Path | None = None,
    include_volumes: bool = True,
) -> list[tuple[Path, str]]:
    """The roots to read, each with the reason it was chosen, most specific override first.

    ``--home`` flags win, then ``TRAIL_HERMES_HOME``, then ``HERMES_HOME``, then the platform default.
    Container volumes are added beside Hermes' own home unless ``--home`` or ``TRAIL_HERMES_HOME`` named
    the homes to read.
    """
    user_home = user_home if user_home is not None else Path.home()
    native = platform_default_home(env, platform=platform, user_home=user_home)
    named = [(volume_data_root(_expand(str(h))), "--home") for h in homes]
    if named:
        return [(root_for(p, native), origin) for p, origin in named]
    trail_home = env.get("TRAIL_HERMES_HOME", "").strip()
    if trail_home:
        return [
            (root_for(volume_data_root(_expand(p)), native), "TRAIL_HERMES_HOME")
            for p in _split_paths(trail_home)
        ]
    hermes_home = env.get("HERMES_HOME", "").strip()
    roots = [(root_for(hermes_home, native), "HERMES_HOME")] if hermes_home else [(native, "default")]
    if include_volumes:
        roots.extend((v, "container volume") for v in _volume_homes(user_home))
    return roots


class _Walker:
    """Lists one root's stores, passing over loops and unreadable directories with a note."""

    def __init__(self, discovery: Discovery, env: Mapping[str, str]) -> None:
        self.discovery = discovery
        self.env = env
        self.seen_files: set[str] = set()
        self.seen_dsns: dict[str, int] = {}

    def add_database(self, dsn: str, profile: str, home: Path | None, origin: str) -> None:
        """Add a PostgreSQL store; one named by several profiles is read once, as the ``default`` profile
        (its rows' ``profile_name`` then tells each session's profile)."""
        key = dsns.shown(dsn)
        if key in self.seen_dsns:
            index = self.seen_dsns[key]
            first = self.discovery.stores[index]
            if first.profile != profile and first.profile != DEFAULT_PROFILE:
                shared = StoreLocation(None, DEFAULT_PROFILE, None, first.origin, first.dsn)
                self.discovery.stores[index] = shared
            return
        self.seen_dsns[key] = len(self.discovery.stores)
        self.discovery.stores.append(StoreLocation(None, profile, home, origin, dsn))

    def consider_config(self, home: Path, profile: str) -> None:
        """Add the PostgreSQL store ``home``'s ``config.yaml`` names, or note why it cannot be read."""
        setting = read_setting(home, self.env)
        if setting is None:
            return
        if setting.dsn is None:
            self.discovery.notes.append(Note(str(setting.config), f"{setting.problem}, passed over"))
            return
        self.add_database(setting.dsn, profile, home, "config.yaml")

    def add_store(self, path: Path, profile: str, home: Path | None, origin: str) -> None:
        try:
            real = str(path.resolve(strict=True))
        except RuntimeError:
            self.discovery.notes.append(Note(str(path), "symlink loop, passed over"))
            return
        except OSError:
            return
        if real in self.seen_files:
            return
        self.seen_files.add(real)
        self.discovery.stores.append(StoreLocation(path, profile, home, origin))

    def walk_root(self, root: Path, origin: str, profiles_root: Path | None) -> None:
        try:
            root.stat()
            next(root.iterdir(), None)
        except PermissionError:
            self.discovery.notes.append(Note(str(root), "permission denied, home passed over"))
            return
        except OSError as exc:
            self.discovery.notes.append(Note(str(root), _why(exc)))
            return
        self.consider(root / DATABASE_NAME, DEFAULT_PROFILE, root, origin)
        self.consider_config(root, DEFAULT_PROFILE)
        self.walk_profiles(profiles_root or root / PROFILES_DIR, origin)

    def consider(self, db: Path, profile: str, home: Path, origin: str) -> None:
        """Add ``db`` when it is a file; a link that loops or dangles into nothing readable is noted."""
        try:
            if db.is_symlink():
                db.resolve(strict=True)
            if db.exists():  # a directory or other non-file is handed over too: the reader names it
                self.add_store(db, profile, home, origin)
        except RuntimeError:
            self.discovery.notes.append(Note(str(db), "symlink loop, passed over"))
        except FileNotFoundError:
            if db.is_symlink():
                self.discovery.notes.append(Note(str(db), "symlink to nothing, passed over"))
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                self.discovery.notes.append(Note(str(db), "symlink loop, passed over"))
            else:
                self.discovery.notes.append(Note(str(db), _why(exc)))

    def walk_profiles(self, profiles: Path, origin: str) -> None:
        try:
            if profiles.is_symlink():
                profiles.resolve(strict=True)
            if not profiles.is_dir():
                return
            # Real directories before links, so a profile linked under a second name keeps its own.
            entries = sorted(os.scandir(profiles), key=lambda e: (e.is_symlink(), e.name))
        except RuntimeError:
            self.discovery.notes.append(Note(str(profiles), "symlink loop, profiles passed over"))
            return
        except FileNotFoundError:
            return
        except PermissionError:
            self.discovery.notes.append(Note(str(profiles), "permission denied, profiles passed over"))
            return
        except OSError as exc:
            self.discovery.notes.append(Note(str(profiles), _why(exc)))
            return
        real_profiles = _real(profiles)
        for entry in entries:
            if entry.name.startswith("."):
                continue  # profile tombstones (.deleted) and hidden files are not profiles
            path = Path(entry.path)
            try:
                if not entry.is_dir():
                    continue
                if entry.is_symlink() and real_profiles is not None:
                    target = _real(path)
                    if target is None or real_profiles == target or _is_within(profiles, path):
                        self.discovery.notes.append(Note(str(path), "symlink loop, passed over"))
                        continue
                if not os.access(path, os.R_OK | os.X_OK):
                    self.discovery.notes.append(Note(str(path), "permission denied, profile passed over"))
                    continue
                self.consider(path / DATABASE_NAME, entry.name, path, origin)
                self.consider_config(path, entry.name)
            except RuntimeError:
                self.discovery.notes.append(Note(str(path), "symlink loop, passed over"))
            except OSError as exc:
                self.discovery.notes.append(Note(str(path), _why(exc)))


def _why(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied, passed over"
    if exc.errno == errno.ELOOP:
        return "symlink loop, passed over"
    return f"cannot be read ({exc.strerror or exc})"


def _real(path: Path) -> Path | None:
    try:
        return path.resolve(strict=True)
    except (OSError, RuntimeError):
        return None


def _pin(walker: _Walker, path: Path, origin: str) -> None:
    """Add one named database (a directory means its ``state.db``), noting why when it cannot be."""
    notes = walker.discovery.notes
    try:
        if path.is_dir() and not (path.name == DATABASE_NAME and not (path / DATABASE_NAME).exists()):
            path = volume_data_root(path) / DATABASE_NAME
        path.resolve(strict=True)
    except RuntimeError:
        notes.append(Note(str(path), "symlink loop, passed over"))
        return
    except FileNotFoundError:
        notes.append(Note(str(path), "no such file"))
        return
    except OSError as exc:
        notes.append(Note(str(path), _why(exc)))
        return
    profile, home = profile_of_file(path)
    walker.add_store(path, profile, home, origin)


def profile_of_file(path: Path) -> tuple[str, Path | None]:
    """The profile and home a store file belongs to, judged by where it lies."""
    parent = path.parent
    if parent.parent.name == PROFILES_DIR:
        return parent.name, parent
    return DEFAULT_PROFILE, parent


# Variables that name what to read: set, no demo home stands in for a missing or empty one. HERMES_HOME
# too: it is Hermes' own, and a person who set it means that home, even one with no history yet.
NAMING_VARIABLES = ("TRAIL_HERMES_DB", "TRAIL_HERMES_HOME", "TRAIL_HERMES_PG_DSN", "HERMES_HOME")


def named_by_environment(env: Mapping[str, str]) -> bool:
    """Whether the environment names what to read (then no demo home stands in for a missing one)."""
    return any(env.get(name, "").strip() for name in NAMING_VARIABLES)


def discover(
    env: Mapping[str, str] | None = None,
    *,
    homes: Iterable[str | Path] = (),
    dbs: Iterable[str | Path] = (),
    pgs: Iterable[str] = (),
    platform: str = sys.platform,
    user_home: Path | None = None,
    include_volumes: bool = True,
) -> Discovery:
    """Every candidate store: named databases (``--db``/``--pg``, ``TRAIL_HERMES_DB``/``TRAIL_HERMES_PG_DSN``)
    or every home's stores.

    :param env: the environment to read (defaults to ``os.environ``).
    :param homes: ``--home`` values; each is a home or root, or a container volume directory.
    :param dbs: ``--db`` values; each pins one database file (or a home directory's ``state.db``).
    :param pgs: ``--pg`` values; each pins one PostgreSQL database by its DSN.
    """
    env = os.environ if env is None else env
    discovery = Discovery()
    walker = _Walker(discovery, env)
    homes, dbs, pgs = list(homes), list(dbs), [str(p) for p in pgs]
    # Flags win over the environment: --home, --db or --pg replace TRAIL_HERMES_DB and TRAIL_HERMES_PG_DSN
    # as --home replaces TRAIL_HERMES_HOME; the two variables (like the two flags) combine.
    flagged = bool(homes or dbs or pgs)
    pinned = [str(d) for d in dbs] or ([] if flagged else _split_paths(env.get("TRAIL_HERMES_DB", "")))
    env_dsn = env.get("TRAIL_HERMES_PG_DSN", "").strip()
    pinned_pg = pgs or ([env_dsn] if env_dsn and not flagged else [])
    if pinned or pinned_pg:
        origin = "--db" if dbs else "TRAIL_HERMES_DB"
        for value in pinned:
            _pin(walker, _expand(value), origin)
        pg_origin = "--pg" if pgs else "TRAIL_HERMES_PG_DSN"
        for value in pinned_pg:
            if value.strip():
                walker.add_database(value.strip(), DEFAULT_PROFILE, None, pg_origin)
        return discovery
    profiles_root = env.get("TRAIL_HERMES_PROFILES_ROOT", "").strip()
    roots = resolve_roots(
        env, homes=homes, platform=platform, user_home=user_home, include_volumes=include_volumes
    )
    seen_roots: set[str] = set()
    for root, origin in roots:
        key = str(_real(root) or root)
        if key in seen_roots:
            continue
        seen_roots.add(key)
        discovery.homes.append((root, origin))
        try:
            root.stat()
        except FileNotFoundError:
            if root.is_symlink():
                discovery.notes.append(Note(str(root), "symlink to nothing, passed over"))
            elif origin not in ("default", "container volume"):
                discovery.notes.append(Note(str(root), "no such directory"))
            continue
        except OSError as exc:
            discovery.notes.append(Note(str(root), _why(exc)))
            continue
        walker.walk_root(root, origin, _expand(profiles_root) if profiles_root else None)
    return discovery


# -- side files ------------------------------------------------------------------------------------------
# What Hermes keeps beside state.db in each home, by kind (docs/sidefiles.md). Listing a directory is all
# locate does: no file is opened here. Credential files (.env, auth.json, the pairing stores' pending codes)
# are never listed, so no reader can be handed one.
SNAPSHOTS_DIR = "state-snapshots"
DIVERTS_DIR = "sessions"
PROMPT_HISTORY = ".hermes_history"
CRON_OUTPUT_DIR = ("cron", "output")
RESPONSE_STORE = "response_store.db"
CONFIG_FILE = "config.yaml"
PAIRING_DIRS = (("pairing",), ("platforms", "pairing"))
APPROVED_SUFFIX = "-approved.json"
PASTES_FILE = ("pastes", "pending.json")
TRAJECTORY_FILES = ("trajectory_samples.jsonl", "failed_trajectories.jsonl")
DESKTOP_CONNECTIONS = "connections.json"
DESKTOP_APP_DIR = "Hermes"


class SideFile(_Frozen):
    """A file beside a store that holds part of the record.

    :param kind: ``snapshot``, ``divert``, ``prompt_history``, ``cron_run``, ``response_store``, ``config``,
        ``pairing``, ``pastes``, ``trajectory`` or ``desktop_connections``.
    :param name: what the path names: the snapshot id, the divert's session id, the cron job id, the
        pairing platform; empty otherwise.
    """

    _fields: ClassVar[tuple[str, ...]] = ("kind", "path", "profile", "home", "name")
    __slots__ = _fields
    kind: str
    path: Path
    profile: str
    home: Path | None
    name: str

    def __init__(self, kind: str, path: Path, profile: str, home: Path | None, name: str = "") -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "home", home)
        object.__setattr__(self, "name", name)


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    """A directory's entries by name; nothing when it is missing or unreadable (a getter never raises)."""
    try:
        return sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return []


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def side_files(home: Path, profile: str) -> list[SideFile]:
    """Every side file of one home (a root or ``profiles/<name>``), in a stable order.

    Snapshots are listed oldest first (their ids start with the UTC time they were taken); a cron job's runs
    by file name, which is their time. Writers' temporary files (``.output_*.tmp``, ``*.json.tmp``) are
    partial writes and left out.
    """
    found: list[SideFile] = []

    def add(kind: str, path: Path, name: str = "") -> None:
        found.append(SideFile(kind, path, profile, home, name))

    for entry in _entries(home / SNAPSHOTS_DIR):
        db = Path(entry.path) / DATABASE_NAME
        if _is_dir(entry) and _is_file(db):
            add("snapshot", db, entry.name)
    for divert in divert_files(home):
        add("divert", divert, divert.name[: -len(".jsonl")])
    if _is_file(home / PROMPT_HISTORY):
        add("prompt_history", home / PROMPT_HISTORY)
    for job in _entries(home.joinpath(*CRON_OUTPUT_DIR)):
        if not _is_dir(job):
            continue
        for run in _entries(Path(job.path)):
            if run.name.endswith(".md") and not run.name.startswith(".") and _is_file(Path(run.path)):
                add("cron_run", Path(run.path), job.name)
    if _is_file(home / RESPONSE_STORE):
        add("response_store", home / RESPONSE_STORE)
    if _is_file(home / CONFIG_FILE):
        add("config", home / CONFIG_FILE)
    for parts in PAIRING_DIRS:
        for entry in _entries(home.joinpath(*parts)):
            # Only the approved lists: <platform>-pending.json holds live pairing codes and is never read.
            if entry.name.endswith(APPROVED_SUFFIX) and _is_file(Path(entry.path)):
                add("pairing", Path(entry.path), entry.name[: -len(APPROVED_SUFFIX)])
    if _is_file(home.joinpath(*PASTES_FILE)):
        add("pastes", home.joinpath(*PASTES_FILE))
    return found


def side_notes(home: Path) -> list[Note]:
    """The directories of a home's copies (``state-snapshots/``, ``sessions/``) that are there but cannot be
    read: :func:`side_files` passes them over, and whoever reads the copies says so with these notes."""
    notes: list[Note] = []
    for name in (SNAPSHOTS_DIR, DIVERTS_DIR):
        directory = home / name
        try:
            with os.scandir(directory):
                pass
        except FileNotFoundError:
            continue
        except OSError as exc:
            notes.append(Note(str(directory), _why(exc)))
    return notes


def divert_file(home: str | Path | None, session_id: str) -> Path | None:
    """The divert file of one session of a home (``sessions/<id>.jsonl``), when there is one."""
    if home is None or not session_id or session_id.startswith(".") or any(c in session_id for c in "/\\"):
        return None
    path = Path(home) / DIVERTS_DIR / f"{session_id}.jsonl"
    return path if _is_file(path) else None


def divert_files(home: str | Path | None) -> list[Path]:
    """Every divert file of a home (``sessions/*.jsonl``), by name."""
    if home is None:
        return []
    found = [
        Path(e.path)
        for e in _entries(Path(home) / DIVERTS_DIR)
        if e.name.endswith(".jsonl") and not e.name.startswith(".")
    ]
    return [path for path in found if _is_file(path)]


def homes_of(discovery: Discovery) -> list[tuple[Path, str]]:
    """Every home of a discovery with its profile: each root, each ``profiles/<name>`` under it, and the
    home of every store found (a ``--db`` store's directory). A home reached twice is listed once."""
    out: list[tuple[Path, str]] = []
    seen: set[str] = set()

    def add(home: Path, profile: str) -> None:
        key = str(_real(home) or home)
        if key not in seen:
            seen.add(key)
            out.append((home, profile))

    for location in discovery.stores:
        if location.home is not None:
            add(location.home, location.profile)
    for root, _origin in discovery.homes:
        try:
            if not root.is_dir():
                continue
        except OSError:
            continue
        add(root, DEFAULT_PROFILE)
        for entry in _entries(root / PROFILES_DIR):
            if not entry.name.startswith(".") and _is_dir(entry):
                add(Path(entry.path), entry.name)
    return out


def project_side_files(
    directories: Iterable[str], profiles: Mapping[str, str] | None = None
) -> list[SideFile]:
    """The trajectory files Hermes' ``--save-trajectories`` appends to in the directories sessions ran in.

    :param profiles: the profile each directory belongs to (the first session's), for the rows' profile.
    """
    found: list[SideFile] = []
    for directory in dict.fromkeys(d for d in directories if d and d.strip()):
        for name in TRAJECTORY_FILES:
            path = Path(directory) / name
            if _is_file(path):
                profile = (profiles or {}).get(directory, DEFAULT_PROFILE)
                found.append(SideFile("trajectory", path, profile, None, name))
    return found


def desktop_side_files(
    env: Mapping[str, str], *, platform: str = sys.platform, user_home: Path | None = None
) -> list[SideFile]:
    """The desktop app's ``connections.json`` in its userData directory.

    Electron's default userData for the product name ``Hermes`` (``~/.config/Hermes`` on Linux,
    ``~/Library/Application Support/Hermes`` on macOS, ``%APPDATA%\\Hermes`` on Windows), suffixed with
    ``HERMES_DATA_DIR_SUFFIX`` like the home, or ``HERMES_DESKTOP_USER_DATA_DIR`` when set. The
    single-connection ``connection.json`` beside it is not listed.
    """
    user_home = user_home if user_home is not None else Path.home()
    override = env.get("HERMES_DESKTOP_USER_DATA_DIR", "").strip()
    suffix = env.get("HERMES_DATA_DIR_SUFFIX", "")
    if override:
        base = _expand(override)
    elif platform == "darwin":
        base = user_home / "Library" / "Application Support" / (DESKTOP_APP_DIR + suffix)
    elif platform == "win32":
        roaming = env.get("APPDATA", "").strip()
        base = (Path(roaming) if roaming else user_home / "AppData" / "Roaming") / (DESKTOP_APP_DIR + suffix)
    else:
        config = env.get("XDG_CONFIG_HOME", "").strip()
        base = (Path(config) if config else user_home / ".config") / (DESKTOP_APP_DIR + suffix)
    path = base / DESKTOP_CONNECTIONS
    return [SideFile("desktop_connections", path, "", None)] if _is_file(path) else []
