"""Where Hermes keeps its history: homes, roots, profiles and the stores in them (``hermes/locate.py``).

The rules come from Hermes' own ``hermes_constants`` (``_get_platform_default_hermes_home`` and
``get_default_hermes_root``) plus hermes-trail's overrides. Locating never opens a file, so every
``state.db`` here is an empty file in a real directory tree. Every call passes an explicit ``env`` and
``user_home``; ``HOME`` is only set (with ``monkeypatch``) where ``~`` expansion itself is under test.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from hermes_trail.hermes import locate
from hermes_trail.hermes.locate import (
    DATABASE_NAME,
    DEFAULT_PROFILE,
    Discovery,
    Note,
    StoreLocation,
    discover,
    platform_default_home,
    profile_of_file,
    resolve_roots,
    root_for,
    volume_data_root,
)

POSIX = "linux"
WINDOWS = "win32"
SUFFIXES = ["-canary", "_beta", ".v2", "2"]


@pytest.fixture(autouse=True)
def _no_system_volumes(monkeypatch):
    """The machine's own /var/lib/{docker,containers} volumes never leak into a test."""
    monkeypatch.setattr(locate, "_VOLUME_ROOTS", ())


# --- helpers ------------------------------------------------------------------------------------------


def make_home(path: Path, *profiles: str, root_db: bool = True) -> Path:
    """A home directory with a root ``state.db`` (unless ``root_db=False``) and the named profiles."""
    path.mkdir(parents=True, exist_ok=True)
    if root_db:
        (path / DATABASE_NAME).touch()
    for name in profiles:
        profile = path / "profiles" / name
        profile.mkdir(parents=True, exist_ok=True)
        (profile / DATABASE_NAME).touch()
    return path


def run(user_home: Path, env: dict[str, str] | None = None, **kwargs) -> Discovery:
    kwargs.setdefault("platform", POSIX)
    kwargs.setdefault("include_volumes", False)
    return discover({} if env is None else env, user_home=user_home, **kwargs)


def found(discovery: Discovery) -> set[tuple[str, Path]]:
    """``(profile, path)`` of every store found."""
    return {(store.profile, store.path) for store in discovery.stores}


def expected(home: Path, *profiles: str, root_db: bool = True) -> set[tuple[str, Path]]:
    stores = {(name, home / "profiles" / name / DATABASE_NAME) for name in profiles}
    if root_db:
        stores.add((DEFAULT_PROFILE, home / DATABASE_NAME))
    return stores


def noted(discovery: Discovery) -> set[str]:
    return {note.path for note in discovery.notes}


def root_of(user_home: Path, env: dict[str, str], platform: str = POSIX) -> Path:
    roots = resolve_roots(env, platform=platform, user_home=user_home, include_volumes=False)
    assert len(roots) == 1, roots
    return roots[0][0]


# --- the platform default home ------------------------------------------------------------------------


def test_posix_default_home_is_dot_hermes(tmp_path):
    assert platform_default_home({}, platform=POSIX, user_home=tmp_path) == tmp_path / ".hermes"


@pytest.mark.parametrize("platform", [POSIX, "darwin"])
@pytest.mark.parametrize("suffix", SUFFIXES)
def test_data_dir_suffix_is_appended_with_no_separator(tmp_path, platform, suffix):
    env = {"HERMES_DATA_DIR_SUFFIX": suffix}
    assert platform_default_home(env, platform=platform, user_home=tmp_path) == tmp_path / f".hermes{suffix}"


def test_empty_suffix_is_no_suffix(tmp_path):
    env = {"HERMES_DATA_DIR_SUFFIX": ""}
    assert platform_default_home(env, platform=POSIX, user_home=tmp_path) == tmp_path / ".hermes"


def test_no_override_reads_the_default_home_and_all_its_profiles(tmp_path):
    home = make_home(tmp_path / ".hermes", "coder", "writer")
    discovery = run(tmp_path)
    assert discovery.homes == [(home, "default")]
    assert found(discovery) == expected(home, "coder", "writer")
    assert {store.origin for store in discovery.stores} == {"default"}
    assert discovery.notes == []


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_suffix_selects_the_suffixed_home_only(tmp_path, suffix):
    make_home(tmp_path / ".hermes", "plain")
    canary = make_home(tmp_path / f".hermes{suffix}", "coder")
    discovery = run(tmp_path, {"HERMES_DATA_DIR_SUFFIX": suffix})
    assert discovery.homes == [(canary, "default")]
    assert found(discovery) == expected(canary, "coder")


def test_a_missing_default_home_is_listed_quietly_with_no_stores(tmp_path):
    discovery = run(tmp_path)
    assert discovery.homes == [(tmp_path / ".hermes", "default")]
    assert discovery.stores == []
    assert discovery.notes == []


# --- the root for HERMES_HOME (get_default_hermes_root) -------------------------------------------------

# (HERMES_HOME relative to the user's home, the root expected relative to it)
ROOT_CASES = [
    pytest.param(".hermes", ".hermes", id="the-default-home-itself"),
    pytest.param(".hermes/profiles/coder", ".hermes", id="profile-inside-default"),
    pytest.param(".hermes/profiles/coder/", ".hermes", id="profile-inside-default-trailing-slash"),
    pytest.param(".hermes/profiles", ".hermes", id="profiles-dir-inside-default"),
    pytest.param(".hermes/some/nested/dir", ".hermes", id="any-dir-inside-default"),
    pytest.param("opt/data", "opt/data", id="custom-dir-is-its-own-root"),
    pytest.param("opt/data/profiles/coder", "opt/data", id="custom-profile-grandparent"),
    pytest.param("opt/data/profiles/coder/", "opt/data", id="custom-profile-trailing-slash"),
    pytest.param("opt/data/profiles", "opt/data/profiles", id="custom-profiles-dir-is-itself"),
    pytest.param("opt/profiles/coder/sub", "opt/profiles/coder/sub", id="deeper-than-a-profile-is-itself"),
    pytest.param(".hermes-old", ".hermes-old", id="sibling-with-default-prefix-is-outside"),
    pytest.param(".hermes-old/profiles/x", ".hermes-old", id="sibling-profile-grandparent"),
    pytest.param("profiles/x", ".", id="profile-directly-under-user-home"),
]


@pytest.mark.parametrize("exists", [False, True], ids=["absent", "present"])
@pytest.mark.parametrize(("value", "root"), ROOT_CASES)
def test_root_for_hermes_home(tmp_path, value, root, exists):
    if exists:
        (tmp_path / value).mkdir(parents=True, exist_ok=True)
    env = {"HERMES_HOME": f"{tmp_path}/{value}"}
    assert root_of(tmp_path, env) == (tmp_path / root)
    assert (
        resolve_roots(env, user_home=tmp_path, platform=POSIX, include_volumes=False)[0][1] == "HERMES_HOME"
    )


@pytest.mark.parametrize(("value", "root"), ROOT_CASES)
def test_root_for_accepts_a_path(tmp_path, value, root):
    assert root_for(tmp_path / value, tmp_path / ".hermes") == tmp_path / root


def test_hermes_home_reaching_into_the_default_home_through_a_symlink_keeps_the_default_root(tmp_path):
    default = make_home(tmp_path / ".hermes", "coder")
    link = tmp_path / "elsewhere" / "coder-link"
    link.parent.mkdir()
    link.symlink_to(default / "profiles" / "coder")
    assert root_of(tmp_path, {"HERMES_HOME": str(link)}) == default


def test_a_symlinked_default_home_still_contains_its_profiles(tmp_path):
    real = make_home(tmp_path / "real-hermes", "coder")
    (tmp_path / ".hermes").symlink_to(real)
    assert root_of(tmp_path, {"HERMES_HOME": str(real / "profiles" / "coder")}) == tmp_path / ".hermes"


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_an_explicit_hermes_home_is_never_suffixed(tmp_path, suffix):
    data = make_home(tmp_path / "opt" / "data")
    make_home(tmp_path / "opt" / f"data{suffix}")
    discovery = run(tmp_path, {"HERMES_HOME": str(data), "HERMES_DATA_DIR_SUFFIX": suffix})
    assert discovery.homes == [(data, "HERMES_HOME")]
    assert found(discovery) == expected(data)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_with_a_suffix_the_unsuffixed_home_is_outside_the_default(tmp_path, suffix):
    env = {"HERMES_HOME": str(tmp_path / ".hermes" / "profiles" / "coder"), "HERMES_DATA_DIR_SUFFIX": suffix}
    assert root_of(tmp_path, env) == tmp_path / ".hermes"  # grandparent, not .hermes<suffix>
    env["HERMES_HOME"] = str(tmp_path / f".hermes{suffix}" / "profiles" / "coder")
    assert root_of(tmp_path, env) == tmp_path / f".hermes{suffix}"  # inside the suffixed default


@pytest.mark.parametrize("blank", ["", " ", "\t", "  \n"])
def test_a_blank_hermes_home_means_the_default(tmp_path, blank):
    assert resolve_roots(
        {"HERMES_HOME": blank}, user_home=tmp_path, platform=POSIX, include_volumes=False
    ) == [(tmp_path / ".hermes", "default")]


def test_surrounding_whitespace_in_hermes_home_is_stripped(tmp_path):
    assert root_of(tmp_path, {"HERMES_HOME": f"  {tmp_path}/opt/data  "}) == tmp_path / "opt" / "data"


@pytest.mark.parametrize(
    ("value", "root"),
    [
        ("~/opt/data", "opt/data"),
        ("~/opt/data/profiles/coder", "opt/data"),
        ("~/.hermes/profiles/coder", ".hermes"),
        ("~", "."),
        ("$HT_BASE", "base"),
        ("$HT_BASE/profiles/coder", "base"),
        ("${HT_BASE}/profiles/coder", "base"),
        ("$HT_NESTED/data", "nested/dir/data"),
    ],
)
def test_tilde_and_variables_in_hermes_home_are_expanded(tmp_path, monkeypatch, value, root):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HT_BASE", str(tmp_path / "base"))
    monkeypatch.setenv("HT_NESTED", str(tmp_path / "nested" / "dir"))
    assert root_of(tmp_path, {"HERMES_HOME": value}) == tmp_path / root


def test_hermes_home_at_a_profile_inside_the_default_lists_every_profile(tmp_path):
    default = make_home(tmp_path / ".hermes", "coder", "writer")
    discovery = run(tmp_path, {"HERMES_HOME": str(default / "profiles" / "coder")})
    assert discovery.homes == [(default, "HERMES_HOME")]
    assert found(discovery) == expected(default, "coder", "writer")


def test_hermes_home_at_a_custom_profile_lists_its_siblings_from_the_grandparent(tmp_path):
    make_home(tmp_path / ".hermes", "unrelated")
    data = make_home(tmp_path / "opt" / "data", "coder", "writer")
    discovery = run(tmp_path, {"HERMES_HOME": str(data / "profiles" / "coder")})
    assert discovery.homes == [(data, "HERMES_HOME")]
    assert found(discovery) == expected(data, "coder", "writer")


def test_hermes_home_at_any_other_directory_is_its_own_root(tmp_path):
    make_home(tmp_path / ".hermes", "unrelated")
    custom = make_home(tmp_path / "srv" / "hermes", "ops")
    discovery = run(tmp_path, {"HERMES_HOME": str(custom)})
    assert discovery.homes == [(custom, "HERMES_HOME")]
    assert found(discovery) == expected(custom, "ops")
    assert {store.origin for store in discovery.stores} == {"HERMES_HOME"}


# --- agreement with Hermes' own get_default_hermes_root ------------------------------------------------

ORACLE_CASES = [
    "",
    ".hermes",
    ".hermes/profiles/coder",
    ".hermes/profiles",
    ".hermes/nested/dir",
    "opt/data",
    "opt/data/profiles/coder",
    "opt/data/profiles",
    ".hermes-old/profiles/x",
    "profiles/x",
]


@functools.cache
def _hv31_constants_path() -> Path:
    """Where the newer Hermes (``corpusgen.next_python``, installed by ``./run-tests``) keeps the module."""
    import corpusgen

    python = corpusgen.next_python()
    assert python is not None, "no schema-31 Hermes beside this Python: run ./run-tests, which installs it"
    done = subprocess.run(
        [str(python), "-c", "import hermes_constants; print(hermes_constants.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return Path(done.stdout.strip())


def _load_hv31_constants():
    spec = importlib.util.spec_from_file_location("hermes_constants_hv31", _hv31_constants_path())
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _hermes_root(module, monkeypatch, user_home: Path, env: dict[str, str]) -> Path:
    monkeypatch.setenv("HOME", str(user_home))
    for name in ("HERMES_HOME", "HERMES_DATA_DIR_SUFFIX"):
        if name in env:
            monkeypatch.setenv(name, env[name])
        else:
            monkeypatch.delenv(name, raising=False)
    if hasattr(module, "_default_hermes_root_memo"):
        monkeypatch.setattr(module, "_default_hermes_root_memo", None)
    return module.get_default_hermes_root()


@pytest.mark.parametrize("exists", [False, True], ids=["absent", "present"])
@pytest.mark.parametrize("value", ORACLE_CASES)
def test_root_agrees_with_installed_hermes(tmp_path, monkeypatch, value, exists):
    hermes_constants = pytest.importorskip("hermes_constants")
    if exists and value:
        (tmp_path / value).mkdir(parents=True, exist_ok=True)
    env = {"HERMES_HOME": f"{tmp_path}/{value}"} if value else {}
    assert root_of(tmp_path, env) == _hermes_root(hermes_constants, monkeypatch, tmp_path, env)


@pytest.mark.parametrize("suffix", ["", *SUFFIXES])
@pytest.mark.parametrize(
    "value", [*ORACLE_CASES, ".hermes-canary/profiles/x", "~/opt/data", "$HT_BASE/profiles/x"]
)
def test_root_agrees_with_the_forks_newer_hermes(tmp_path, monkeypatch, value, suffix):
    hermes_constants = _load_hv31_constants()
    monkeypatch.setenv("HT_BASE", str(tmp_path / "base"))
    env = {"HERMES_DATA_DIR_SUFFIX": suffix} if suffix else {}
    if value:
        env["HERMES_HOME"] = value if value[0] in "~$" else f"{tmp_path}/{value}"
    expected_root = _hermes_root(hermes_constants, monkeypatch, tmp_path, env)  # also sets HOME for "~"
    assert root_of(tmp_path, env) == expected_root


@pytest.mark.parametrize("suffix", ["", *SUFFIXES])
def test_default_home_agrees_with_the_forks_newer_hermes(tmp_path, monkeypatch, suffix):
    hermes_constants = _load_hv31_constants()
    env = {"HERMES_DATA_DIR_SUFFIX": suffix} if suffix else {}
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HERMES_DATA_DIR_SUFFIX", suffix)
    hermes_default = hermes_constants._get_platform_default_hermes_home()
    assert platform_default_home(env, platform=sys.platform, user_home=tmp_path) == hermes_default


# --- Windows ------------------------------------------------------------------------------------------


def test_windows_default_is_localappdata_hermes(tmp_path):
    local = tmp_path / "AppDataLocal"
    env = {"LOCALAPPDATA": str(local)}
    assert platform_default_home(env, platform=WINDOWS, user_home=tmp_path / "user") == local / "hermes"


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_windows_suffix_is_appended_with_no_separator(tmp_path, suffix):
    local = tmp_path / "AppDataLocal"
    env = {"LOCALAPPDATA": str(local), "HERMES_DATA_DIR_SUFFIX": suffix}
    assert (
        platform_default_home(env, platform=WINDOWS, user_home=tmp_path / "user") == local / f"hermes{suffix}"
    )


@pytest.mark.parametrize("localappdata", [None, "", "   "], ids=["unset", "empty", "blank"])
@pytest.mark.parametrize("suffix", ["", "-canary"])
def test_windows_without_localappdata_falls_back_to_user_appdata_local(tmp_path, localappdata, suffix):
    env = {} if localappdata is None else {"LOCALAPPDATA": localappdata}
    if suffix:
        env["HERMES_DATA_DIR_SUFFIX"] = suffix
    home = platform_default_home(env, platform=WINDOWS, user_home=tmp_path)
    assert home == tmp_path / "AppData" / "Local" / f"hermes{suffix}"


def test_windows_uses_legacy_dot_hermes_when_localappdata_hermes_does_not_exist(tmp_path):
    user = tmp_path / "user"
    legacy = make_home(user / ".hermes", "coder")
    local = tmp_path / "AppDataLocal"
    local.mkdir()
    env = {"LOCALAPPDATA": str(local)}
    assert platform_default_home(env, platform=WINDOWS, user_home=user) == legacy
    discovery = run(user, env, platform=WINDOWS)
    assert discovery.homes == [(legacy, "default")]
    assert found(discovery) == expected(legacy, "coder")


def test_windows_legacy_fallback_applies_without_localappdata_too(tmp_path):
    legacy = make_home(tmp_path / ".hermes")
    assert platform_default_home({}, platform=WINDOWS, user_home=tmp_path) == legacy


def test_windows_prefers_localappdata_hermes_when_it_exists(tmp_path):
    user = tmp_path / "user"
    make_home(user / ".hermes", "legacy")
    native = make_home(tmp_path / "AppDataLocal" / "hermes", "coder")
    env = {"LOCALAPPDATA": str(tmp_path / "AppDataLocal")}
    assert platform_default_home(env, platform=WINDOWS, user_home=user) == native
    discovery = run(user, env, platform=WINDOWS)
    assert discovery.homes == [(native, "default")]
    assert found(discovery) == expected(native, "coder")


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_windows_never_falls_back_to_legacy_when_a_suffix_is_set(tmp_path, suffix):
    user = tmp_path / "user"
    make_home(user / ".hermes", "legacy")
    make_home(user / f".hermes{suffix}", "legacy")
    local = tmp_path / "AppDataLocal"
    env = {"LOCALAPPDATA": str(local), "HERMES_DATA_DIR_SUFFIX": suffix}
    assert platform_default_home(env, platform=WINDOWS, user_home=user) == local / f"hermes{suffix}"
    discovery = run(user, env, platform=WINDOWS)
    assert discovery.homes == [(local / f"hermes{suffix}", "default")]
    assert discovery.stores == []


def test_windows_hermes_home_inside_the_native_home_keeps_it_as_root(tmp_path):
    native = make_home(tmp_path / "AppDataLocal" / "hermes", "coder", "writer")
    env = {"LOCALAPPDATA": str(tmp_path / "AppDataLocal"), "HERMES_HOME": str(native / "profiles" / "coder")}
    discovery = run(tmp_path / "user", env, platform=WINDOWS)
    assert discovery.homes == [(native, "HERMES_HOME")]
    assert found(discovery) == expected(native, "coder", "writer")


# --- stores: root and profiles ------------------------------------------------------------------------


def test_root_store_is_the_default_profile(tmp_path):
    home = make_home(tmp_path / "h")
    [store] = run(tmp_path, homes=[home]).stores
    assert store == StoreLocation(home / DATABASE_NAME, DEFAULT_PROFILE, home, "--home")
    assert store.label == DEFAULT_PROFILE


@pytest.mark.parametrize("name", ["coder", "my-profile", "work.2", "with space", "Ünïcode", "default"])
def test_a_profile_is_named_after_its_directory(tmp_path, name):
    home = make_home(tmp_path / "h", name, root_db=False)
    [store] = run(tmp_path, homes=[home]).stores
    profile_dir = home / "profiles" / name
    assert store == StoreLocation(profile_dir / DATABASE_NAME, name, profile_dir, "--home")
    assert store.label == name


def test_every_profile_with_a_store_is_listed_and_nothing_else(tmp_path):
    home = make_home(tmp_path / "h", "alpha", "beta", "gamma")
    (home / "profiles" / "empty").mkdir()  # a profile that never wrote a store
    # A state.db that is not a file is handed to the reader, which names it; see the next test.
    (home / "profiles" / "dir-db" / DATABASE_NAME).mkdir(parents=True)
    (home / "profiles" / "stray.db").touch()  # a file, not a profile directory
    (home / "profiles" / "notes.txt").write_text("not a profile")
    (home / "profiles" / ".deleted" / "old").mkdir(parents=True)  # Hermes' profile tombstones
    (home / "profiles" / ".deleted" / DATABASE_NAME).touch()
    (home / "profiles" / ".hidden").mkdir()
    (home / "profiles" / ".hidden" / DATABASE_NAME).touch()
    (home / "profiles" / "alpha" / "profiles" / "nested").mkdir(parents=True)  # profiles do not nest
    (home / "profiles" / "alpha" / "profiles" / "nested" / DATABASE_NAME).touch()
    (home / "other.db").touch()
    (home / "sessions").mkdir()
    (home / "sessions" / DATABASE_NAME).touch()
    discovery = run(tmp_path, homes=[home])
    dir_db = ("dir-db", home / "profiles" / "dir-db" / DATABASE_NAME)
    assert found(discovery) == expected(home, "alpha", "beta", "gamma") | {dir_db}
    assert discovery.notes == []


def test_a_state_db_that_is_not_a_file_is_handed_to_the_reader(tmp_path):
    """Locate never opens a file: a directory named state.db is a candidate the store layer rejects aloud."""
    home = make_home(tmp_path / "h")
    (home / "profiles" / "odd" / DATABASE_NAME).mkdir(parents=True)
    discovery = run(tmp_path, homes=[home])
    assert ("odd", home / "profiles" / "odd" / DATABASE_NAME) in found(discovery)


def test_the_root_store_comes_first(tmp_path):
    home = make_home(tmp_path / "h", "alpha", "beta")
    assert run(tmp_path, homes=[home]).stores[0].profile == DEFAULT_PROFILE


def test_a_home_without_a_root_store_still_lists_its_profiles(tmp_path):
    home = make_home(tmp_path / "h", "coder", root_db=False)
    assert found(run(tmp_path, homes=[home])) == expected(home, "coder", root_db=False)


def test_a_home_without_profiles_lists_only_its_root_store(tmp_path):
    home = make_home(tmp_path / "h")
    assert found(run(tmp_path, homes=[home])) == expected(home)


def test_profiles_as_a_file_is_not_an_error(tmp_path):
    home = make_home(tmp_path / "h")
    (home / "profiles").write_text("not a directory")
    discovery = run(tmp_path, homes=[home])
    assert found(discovery) == expected(home)
    assert discovery.notes == []


def test_a_symlinked_profile_living_elsewhere_is_listed_under_its_link_name(tmp_path):
    home = make_home(tmp_path / "h", "coder")
    outside = make_home(tmp_path / "elsewhere" / "shared-profile")
    (home / "profiles" / "shared").symlink_to(outside)
    discovery = run(tmp_path, homes=[home])
    assert found(discovery) == expected(home, "coder", "shared")
    assert discovery.notes == []


def test_a_symlinked_state_db_is_listed(tmp_path):
    home = make_home(tmp_path / "h", root_db=False)
    real = tmp_path / "disk" / "real.db"
    real.parent.mkdir()
    real.touch()
    (home / DATABASE_NAME).symlink_to(real)
    assert found(run(tmp_path, homes=[home])) == {(DEFAULT_PROFILE, home / DATABASE_NAME)}


def test_a_dangling_state_db_symlink_is_not_a_store(tmp_path):
    home = make_home(tmp_path / "h", root_db=False)
    (home / DATABASE_NAME).symlink_to(tmp_path / "gone.db")
    discovery = run(tmp_path, homes=[home])
    assert discovery.stores == []


# --- container volumes --------------------------------------------------------------------------------


def make_volume(path: Path, *profiles: str) -> Path:
    """A Docker/Podman named volume directory; the Hermes home is its ``_data``."""
    make_home(path / "_data", *profiles)
    return path


def test_a_volume_directory_stands_for_its_data_directory(tmp_path):
    volume = make_volume(tmp_path / "hermes-data", "coder")
    assert volume_data_root(volume) == volume / "_data"
    assert volume_data_root(volume / "_data") == volume / "_data"


def test_a_directory_with_its_own_store_is_not_redirected_to_data(tmp_path):
    home = make_volume(tmp_path / "odd-home")
    (home / DATABASE_NAME).touch()
    assert volume_data_root(home) == home


def test_a_directory_without_data_is_itself(tmp_path):
    assert volume_data_root(tmp_path) == tmp_path
    (tmp_path / "_data").write_text("a file, not a directory")
    assert volume_data_root(tmp_path) == tmp_path


@pytest.mark.parametrize("via", ["--home", "--home _data", "TRAIL_HERMES_HOME"])
def test_a_volume_given_as_a_home_reads_its_data_directory(tmp_path, via):
    volume = make_volume(tmp_path / "volumes" / "hermes_data", "coder")
    data = volume / "_data"
    if via == "--home":
        discovery = run(tmp_path, homes=[volume])
    elif via == "--home _data":
        discovery = run(tmp_path, homes=[data])
    else:
        discovery = run(tmp_path, {"TRAIL_HERMES_HOME": str(volume)})
    origin = via.split()[0]
    assert discovery.homes == [(data, origin)]
    assert found(discovery) == expected(data, "coder")
    assert all(store.home in {data, data / "profiles" / "coder"} for store in discovery.stores)


@pytest.mark.parametrize("via", ["--db", "TRAIL_HERMES_DB"])
def test_a_volume_given_as_a_database_pins_its_data_store(tmp_path, via):
    volume = make_volume(tmp_path / "hermes_data", "coder")
    discovery = (
        run(tmp_path, dbs=[volume]) if via == "--db" else run(tmp_path, {"TRAIL_HERMES_DB": str(volume)})
    )
    assert discovery.stores == [
        StoreLocation(volume / "_data" / DATABASE_NAME, DEFAULT_PROFILE, volume / "_data", via)
    ]


def test_user_container_volumes_are_read_beside_the_default(tmp_path):
    default = make_home(tmp_path / ".hermes")
    volumes = tmp_path / ".local" / "share" / "containers" / "storage" / "volumes"
    hermes_volume = make_volume(volumes / "my-Hermes-vol", "coder")
    make_volume(volumes / "postgres")  # not a Hermes volume
    (volumes / "hermes-no-data").mkdir()  # no _data: nothing to read
    discovery = run(tmp_path, include_volumes=True)
    assert discovery.homes == [(default, "default"), (hermes_volume / "_data", "container volume")]
    assert found(discovery) == expected(default) | expected(hermes_volume / "_data", "coder")


def test_system_container_volumes_are_read_beside_the_default(tmp_path, monkeypatch):
    docker = tmp_path / "var" / "lib" / "docker" / "volumes"
    podman = tmp_path / "var" / "lib" / "containers" / "storage" / "volumes"
    monkeypatch.setattr(locate, "_VOLUME_ROOTS", (docker, podman))
    first = make_volume(docker / "hermes_home")
    second = make_volume(podman / "hermes-agent")
    make_volume(docker / "redis")
    discovery = run(tmp_path / "user", include_volumes=True)
    assert discovery.homes[1:] == [
        (first / "_data", "container volume"),
        (second / "_data", "container volume"),
    ]
    assert found(discovery) == expected(first / "_data") | expected(second / "_data")
    assert discovery.notes == []  # the missing default home is not worth a note


@pytest.mark.parametrize("override", ["--home", "TRAIL_HERMES_HOME"])
def test_container_volumes_are_not_added_when_a_home_is_named(tmp_path, override):
    volumes = tmp_path / ".local" / "share" / "containers" / "storage" / "volumes"
    make_volume(volumes / "hermes")
    home = make_home(tmp_path / "h")
    if override == "--home":
        discovery = run(tmp_path, homes=[home], include_volumes=True)
    else:
        discovery = run(tmp_path, {"TRAIL_HERMES_HOME": str(home)}, include_volumes=True)
    assert discovery.homes == [(home, override)]


def test_container_volumes_are_skipped_when_asked(tmp_path):
    make_volume(tmp_path / ".local" / "share" / "containers" / "storage" / "volumes" / "hermes")
    assert run(tmp_path, include_volumes=False).homes == [(tmp_path / ".hermes", "default")]


# --- overrides: TRAIL_HERMES_HOME ---------------------------------------------------------------------


def test_trail_hermes_home_wins_over_hermes_home(tmp_path):
    hermes = make_home(tmp_path / "hermes-home", "a")
    trail = make_home(tmp_path / "trail-home", "b")
    discovery = run(tmp_path, {"HERMES_HOME": str(hermes), "TRAIL_HERMES_HOME": str(trail)})
    assert discovery.homes == [(trail, "TRAIL_HERMES_HOME")]
    assert found(discovery) == expected(trail, "b")
    assert {store.origin for store in discovery.stores} == {"TRAIL_HERMES_HOME"}


@pytest.mark.parametrize(("value", "root"), ROOT_CASES)
def test_trail_hermes_home_follows_the_hermes_home_rules(tmp_path, value, root):
    env = {"TRAIL_HERMES_HOME": f"{tmp_path}/{value}", "HERMES_HOME": str(tmp_path / "ignored")}
    assert resolve_roots(env, user_home=tmp_path, platform=POSIX, include_volumes=False) == [
        (tmp_path / root, "TRAIL_HERMES_HOME")
    ]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_trail_hermes_home_is_never_suffixed(tmp_path, suffix):
    env = {"TRAIL_HERMES_HOME": str(tmp_path / "data"), "HERMES_DATA_DIR_SUFFIX": suffix}
    assert root_of(tmp_path, env) == tmp_path / "data"


@pytest.mark.parametrize(
    ("value", "root"), [("~/data", "data"), ("~/.hermes/profiles/x", ".hermes"), ("$HT_BASE", "base")]
)
def test_trail_hermes_home_is_expanded(tmp_path, monkeypatch, value, root):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HT_BASE", str(tmp_path / "base"))
    assert root_of(tmp_path, {"TRAIL_HERMES_HOME": value}) == tmp_path / root


def test_trail_hermes_home_takes_several_paths(tmp_path):
    first = make_home(tmp_path / "one", "a")
    second = make_home(tmp_path / "two", "b")
    env = {"TRAIL_HERMES_HOME": os.pathsep.join(["", str(first), " ", str(second), ""])}
    discovery = run(tmp_path, env)
    assert discovery.homes == [(first, "TRAIL_HERMES_HOME"), (second, "TRAIL_HERMES_HOME")]
    assert found(discovery) == expected(first, "a") | expected(second, "b")


def test_a_blank_trail_hermes_home_is_ignored(tmp_path):
    hermes = make_home(tmp_path / "hermes-home")
    assert run(tmp_path, {"TRAIL_HERMES_HOME": "  ", "HERMES_HOME": str(hermes)}).homes == [
        (hermes, "HERMES_HOME")
    ]


# --- overrides: --home --------------------------------------------------------------------------------


def test_home_parameter_wins_over_every_home_variable(tmp_path):
    make_home(tmp_path / ".hermes", "default-home")
    hermes = make_home(tmp_path / "hermes-home", "a")
    trail = make_home(tmp_path / "trail-home", "b")
    named = make_home(tmp_path / "named", "c")
    env = {"HERMES_HOME": str(hermes), "TRAIL_HERMES_HOME": str(trail)}
    discovery = run(tmp_path, env, homes=[named])
    assert discovery.homes == [(named, "--home")]
    assert found(discovery) == expected(named, "c")
    assert {store.origin for store in discovery.stores} == {"--home"}


@pytest.mark.parametrize(("value", "root"), ROOT_CASES)
def test_home_parameter_follows_the_hermes_home_rules(tmp_path, value, root):
    roots = resolve_roots({}, homes=[f"{tmp_path}/{value}"], user_home=tmp_path, platform=POSIX)
    assert roots == [(tmp_path / root, "--home")]


def test_home_parameter_takes_paths_and_strings_and_several_homes(tmp_path):
    first = make_home(tmp_path / "one", "a")
    second = make_home(tmp_path / "two", "b")
    discovery = run(tmp_path, homes=[first, str(second)])
    assert discovery.homes == [(first, "--home"), (second, "--home")]
    assert found(discovery) == expected(first, "a") | expected(second, "b")


def test_home_parameter_is_expanded(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HT_BASE", str(tmp_path / "base"))
    assert resolve_roots({}, homes=["~/data", "$HT_BASE/profiles/x"], user_home=tmp_path, platform=POSIX) == [
        (tmp_path / "data", "--home"),
        (tmp_path / "base", "--home"),
    ]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_home_parameter_is_never_suffixed(tmp_path, suffix):
    roots = resolve_roots(
        {"HERMES_DATA_DIR_SUFFIX": suffix}, homes=[tmp_path / "data"], user_home=tmp_path, platform=POSIX
    )
    assert roots == [(tmp_path / "data", "--home")]


# --- overrides: TRAIL_HERMES_PROFILES_ROOT ------------------------------------------------------------


def test_profiles_root_override_replaces_the_homes_profiles_directory(tmp_path):
    home = make_home(tmp_path / "h", "ignored")
    profiles = tmp_path / "elsewhere" / "profiles"
    for name in ("alpha", "beta"):
        (profiles / name).mkdir(parents=True)
        (profiles / name / DATABASE_NAME).touch()
    (profiles / "empty").mkdir()
    discovery = run(tmp_path, {"TRAIL_HERMES_PROFILES_ROOT": str(profiles)}, homes=[home])
    assert found(discovery) == {
        (DEFAULT_PROFILE, home / DATABASE_NAME),
        ("alpha", profiles / "alpha" / DATABASE_NAME),
        ("beta", profiles / "beta" / DATABASE_NAME),
    }
    by_profile = {store.profile: store for store in discovery.stores}
    assert by_profile["alpha"].home == profiles / "alpha"


def test_profiles_root_override_applies_to_the_default_home(tmp_path):
    default = make_home(tmp_path / ".hermes", "ignored")
    profiles = make_home(tmp_path / "p", "coder", root_db=False) / "profiles"
    discovery = run(tmp_path, {"TRAIL_HERMES_PROFILES_ROOT": str(profiles)})
    assert found(discovery) == {
        (DEFAULT_PROFILE, default / DATABASE_NAME),
        ("coder", profiles / "coder" / DATABASE_NAME),
    }


def test_profiles_root_override_is_expanded_and_stripped(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    home = make_home(tmp_path / "h")
    profiles = make_home(tmp_path / "p", "coder", root_db=False) / "profiles"
    discovery = run(tmp_path, {"TRAIL_HERMES_PROFILES_ROOT": " ~/p/profiles "}, homes=[home])
    assert found(discovery) == expected(home) | {("coder", profiles / "coder" / DATABASE_NAME)}


def test_a_missing_profiles_root_override_lists_no_profiles(tmp_path):
    home = make_home(tmp_path / "h", "ignored")
    discovery = run(tmp_path, {"TRAIL_HERMES_PROFILES_ROOT": str(tmp_path / "nowhere")}, homes=[home])
    assert found(discovery) == expected(home)


# --- overrides: TRAIL_HERMES_DB and --db --------------------------------------------------------------


def test_trail_hermes_db_pins_stores_and_reads_no_home(tmp_path):
    make_home(tmp_path / ".hermes", "coder")
    hermes = make_home(tmp_path / "hermes-home", "a")
    pinned = make_home(tmp_path / "pinned", "writer")
    env = {
        "TRAIL_HERMES_DB": str(pinned / "profiles" / "writer" / DATABASE_NAME),
        "HERMES_HOME": str(hermes),
        "TRAIL_HERMES_HOME": str(hermes),
    }
    discovery = run(tmp_path, env)
    writer = pinned / "profiles" / "writer"
    assert discovery.stores == [StoreLocation(writer / DATABASE_NAME, "writer", writer, "TRAIL_HERMES_DB")]
    assert discovery.homes == []


def test_trail_hermes_db_is_separated_by_pathsep(tmp_path):
    one = make_home(tmp_path / "one", "coder")
    loose = tmp_path / "backups" / "copy.db"
    loose.parent.mkdir()
    loose.touch()
    value = os.pathsep.join(
        ["", str(one / DATABASE_NAME), "  ", str(one / "profiles" / "coder" / DATABASE_NAME), str(loose), ""]
    )
    discovery = run(tmp_path, {"TRAIL_HERMES_DB": value})
    assert [(store.profile, store.path, store.home, store.origin) for store in discovery.stores] == [
        (DEFAULT_PROFILE, one / DATABASE_NAME, one, "TRAIL_HERMES_DB"),
        ("coder", one / "profiles" / "coder" / DATABASE_NAME, one / "profiles" / "coder", "TRAIL_HERMES_DB"),
        (DEFAULT_PROFILE, loose, loose.parent, "TRAIL_HERMES_DB"),
    ]
    assert discovery.notes == []


def test_db_parameter_wins_over_trail_hermes_db(tmp_path):
    env_db = make_home(tmp_path / "env") / DATABASE_NAME
    flag_db = make_home(tmp_path / "flag") / DATABASE_NAME
    discovery = run(tmp_path, {"TRAIL_HERMES_DB": str(env_db)}, dbs=[flag_db])
    assert discovery.stores == [StoreLocation(flag_db, DEFAULT_PROFILE, flag_db.parent, "--db")]


def test_db_parameter_wins_over_homes(tmp_path):
    home = make_home(tmp_path / "h", "coder")
    flag_db = make_home(tmp_path / "flag") / DATABASE_NAME
    discovery = run(tmp_path, {"HERMES_HOME": str(home)}, homes=[home], dbs=[str(flag_db)])
    assert found(discovery) == {(DEFAULT_PROFILE, flag_db)}
    assert discovery.homes == []


def test_home_parameter_wins_over_trail_hermes_db(tmp_path):
    home = make_home(tmp_path / "h", "coder")
    env_db = make_home(tmp_path / "env") / DATABASE_NAME
    discovery = run(tmp_path, {"TRAIL_HERMES_DB": str(env_db)}, homes=[home])
    assert discovery.homes == [(home, "--home")]
    assert found(discovery) == expected(home, "coder")
    assert {store.origin for store in discovery.stores} == {"--home"}


def pin(tmp_path: Path, via: str, *paths: Path | str) -> Discovery:
    """``paths`` named as ``--db`` values, or joined into ``TRAIL_HERMES_DB``."""
    if via == "--db":
        return run(tmp_path, dbs=list(paths))
    return run(tmp_path, {"TRAIL_HERMES_DB": os.pathsep.join(str(path) for path in paths)})


@pytest.mark.parametrize("via", ["--db", "TRAIL_HERMES_DB"])
def test_a_pinned_home_directory_means_its_state_db(tmp_path, via):
    home = make_home(tmp_path / "h", "coder")
    coder = home / "profiles" / "coder"
    discovery = pin(tmp_path, via, home, coder)
    assert discovery.stores == [
        StoreLocation(home / DATABASE_NAME, DEFAULT_PROFILE, home, via),
        StoreLocation(coder / DATABASE_NAME, "coder", coder, via),
    ]
    assert discovery.notes == []


@pytest.mark.parametrize("via", ["--db", "TRAIL_HERMES_DB"])
def test_a_missing_pinned_database_is_noted_and_the_rest_are_kept(tmp_path, via):
    kept = make_home(tmp_path / "kept") / DATABASE_NAME
    missing = tmp_path / "gone" / DATABASE_NAME
    empty_home = tmp_path / "empty-home"  # a directory without a state.db
    empty_home.mkdir()
    discovery = pin(tmp_path, via, missing, kept, empty_home)
    assert found(discovery) == {(DEFAULT_PROFILE, kept)}
    assert [(note.path, note.reason) for note in discovery.notes] == [
        (str(missing), "no such file"),
        (str(empty_home / DATABASE_NAME), "no such file"),
    ]


@pytest.mark.parametrize(
    "spelling",
    ["the same path", "the directory and the file", "a dot segment", "a symlink beside it"],
)
def test_a_database_pinned_twice_is_listed_once(tmp_path, spelling):
    home = make_home(tmp_path / "h")
    db = home / DATABASE_NAME
    if spelling == "the same path":
        second: Path | str = str(db)
    elif spelling == "the directory and the file":
        second = home
    elif spelling == "a dot segment":
        second = f"{home}/./{DATABASE_NAME}"
    else:
        second = tmp_path / "link.db"
        second.symlink_to(db)
    for via in ("--db", "TRAIL_HERMES_DB"):
        discovery = pin(tmp_path, via, db, second)
        assert discovery.stores == [StoreLocation(db, DEFAULT_PROFILE, home, via)]
        assert discovery.notes == []


@pytest.mark.parametrize("via", ["--db", "TRAIL_HERMES_DB"])
def test_a_pinned_symlink_to_a_store_is_listed(tmp_path, via):
    coder = make_home(tmp_path / "h", "coder") / "profiles" / "coder"
    link = tmp_path / "links" / "current.db"
    link.parent.mkdir()
    link.symlink_to(coder / DATABASE_NAME)
    discovery = pin(tmp_path, via, link)
    # Judged by where the link lies, as every pinned file is; the link itself is the path read.
    assert discovery.stores == [StoreLocation(link, DEFAULT_PROFILE, link.parent, via)]
    assert discovery.notes == []


def test_a_pinned_database_keeps_its_own_file_name(tmp_path):
    copy = tmp_path / "backups" / "2024-01-01.sqlite"
    copy.parent.mkdir()
    copy.touch()
    assert run(tmp_path, dbs=[copy]).stores == [StoreLocation(copy, DEFAULT_PROFILE, copy.parent, "--db")]


@pytest.mark.parametrize("via", ["--db", "TRAIL_HERMES_DB"])
def test_pinned_databases_are_expanded(tmp_path, monkeypatch, via):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HT_BASE", str(tmp_path / "base"))
    home = make_home(tmp_path / "h")
    base = make_home(tmp_path / "base", "coder")
    discovery = pin(tmp_path, via, f"~/h/{DATABASE_NAME}", "$HT_BASE/profiles/coder")
    assert found(discovery) == {
        (DEFAULT_PROFILE, home / DATABASE_NAME),
        ("coder", base / "profiles" / "coder" / DATABASE_NAME),
    }


@pytest.mark.parametrize(
    ("file", "profile", "home"),
    [
        ("h/state.db", DEFAULT_PROFILE, "h"),
        ("h/profiles/coder/state.db", "coder", "h/profiles/coder"),
        ("h/profiles/state.db", DEFAULT_PROFILE, "h/profiles"),
        ("h/profiles/coder/sub/state.db", DEFAULT_PROFILE, "h/profiles/coder/sub"),
        ("profiles/x/state.db", "x", "profiles/x"),
        ("h/profiles/coder/other.db", "coder", "h/profiles/coder"),
    ],
)
def test_profile_of_a_pinned_file_is_judged_by_where_it_lies(tmp_path, file, profile, home):
    assert profile_of_file(tmp_path / file) == (profile, tmp_path / home)


def test_a_note_reads_as_path_and_reason():
    assert str(Note("/x/state.db", "no such file")) == "/x/state.db: no such file"


@pytest.mark.parametrize("via", ["--home", "HERMES_HOME", "TRAIL_HERMES_HOME"])
def test_a_named_home_that_does_not_exist_is_noted(tmp_path, via):
    missing = tmp_path / "nowhere"
    discovery = run(tmp_path, homes=[missing]) if via == "--home" else run(tmp_path, {via: str(missing)})
    assert discovery.homes == [(missing, via)]
    assert discovery.stores == []
    assert [(note.path, note.reason) for note in discovery.notes] == [(str(missing), "no such directory")]


# --- the same store reached twice ---------------------------------------------------------------------


@pytest.mark.parametrize("absolute", [False, True], ids=["relative-link", "absolute-link"])
def test_a_profile_symlinked_to_another_profile_is_listed_once(tmp_path, absolute):
    home = make_home(tmp_path / "h", "coder")
    profiles = home / "profiles"
    # "alias" sorts before "coder", yet the real directory is walked first and keeps its name.
    (profiles / "alias").symlink_to(profiles / "coder" if absolute else "coder")
    discovery = run(tmp_path, homes=[home])
    assert [(store.profile, store.path) for store in discovery.stores] == [
        (DEFAULT_PROFILE, home / DATABASE_NAME),
        ("coder", profiles / "coder" / DATABASE_NAME),
    ]


def test_a_root_store_symlinked_into_a_profile_is_listed_once(tmp_path):
    home = make_home(tmp_path / "h")
    mirror = home / "profiles" / "mirror"
    mirror.mkdir(parents=True)
    (mirror / DATABASE_NAME).symlink_to(home / DATABASE_NAME)
    discovery = run(tmp_path, homes=[home])
    assert [(store.profile, store.path) for store in discovery.stores] == [
        (DEFAULT_PROFILE, home / DATABASE_NAME)
    ]


def test_a_profile_of_one_home_linked_from_another_home_is_listed_once(tmp_path):
    first = make_home(tmp_path / "one", "coder")
    second = make_home(tmp_path / "two", "writer")
    (second / "profiles" / "borrowed").symlink_to(first / "profiles" / "coder")
    discovery = run(tmp_path, homes=[first, second])
    paths = [store.path for store in discovery.stores]
    assert len(paths) == len(set(paths)) == 4
    assert found(discovery) == expected(first, "coder") | expected(second, "writer")


@pytest.mark.parametrize("spelling", ["the same path", "a symlink to it", "a trailing slash"])
def test_a_home_named_twice_is_read_once(tmp_path, spelling):
    home = make_home(tmp_path / "h", "coder")
    if spelling == "the same path":
        again: Path | str = home
    elif spelling == "a symlink to it":
        again = tmp_path / "h-link"
        again.symlink_to(home)
    else:
        again = f"{home}/"
    discovery = run(tmp_path, homes=[home, again])
    assert discovery.homes == [(home, "--home")]
    assert [(store.profile, store.path) for store in discovery.stores] == [
        (DEFAULT_PROFILE, home / DATABASE_NAME),
        ("coder", home / "profiles" / "coder" / DATABASE_NAME),
    ]


# --- symlink loops: noted, never raised -----------------------------------------------------------------


def make_loop(link: Path, shape: str) -> None:
    """Make ``link`` a loop: to itself (``self``), or through a second link beside it (``pair``)."""
    if shape == "self":
        link.symlink_to(link.name)
    else:
        partner = link.with_name(f"{link.name}.partner")
        partner.symlink_to(link.name)
        link.symlink_to(partner.name)


def reasons(discovery: Discovery) -> dict[str, str]:
    return {note.path: note.reason for note in discovery.notes}


@pytest.mark.parametrize("via", ["--home", "HERMES_HOME", "TRAIL_HERMES_HOME", "--home through the loop"])
def test_a_looping_home_symlink_is_noted_not_raised(tmp_path, via):
    loop = tmp_path / "loop"
    make_loop(loop, "self")
    other = make_home(tmp_path / "other", "coder")
    named = loop
    if via == "--home":
        discovery = run(tmp_path, homes=[loop, other])
    elif via == "--home through the loop":
        named = loop / "data"
        discovery = run(tmp_path, homes=[named, other])
    elif via == "TRAIL_HERMES_HOME":
        discovery = run(tmp_path, {"TRAIL_HERMES_HOME": os.pathsep.join([str(loop), str(other)])})
    else:  # HERMES_HOME names one home: the other is a container volume read beside it
        volumes = tmp_path / ".local" / "share" / "containers" / "storage" / "volumes"
        other = make_volume(volumes / "hermes", "coder") / "_data"
        discovery = run(tmp_path, {"HERMES_HOME": str(loop)}, include_volumes=True)
    assert found(discovery) == expected(other, "coder")
    assert noted(discovery) == {str(named)}
    if named == loop:
        assert "symlink loop" in reasons(discovery)[str(loop)]


@pytest.mark.parametrize("shape", ["self", "pair"])
def test_a_looping_profiles_root_override_is_noted(tmp_path, shape):
    home = make_home(tmp_path / "h", "ignored")
    other = make_home(tmp_path / "other", "ignored-too")
    loop = tmp_path / "profiles-loop"
    make_loop(loop, shape)
    discovery = run(tmp_path, {"TRAIL_HERMES_PROFILES_ROOT": str(loop)}, homes=[home, other])
    assert found(discovery) == expected(home) | expected(other)
    assert noted(discovery) == {str(loop)}
    assert all("symlink loop" in note.reason for note in discovery.notes)


@pytest.mark.parametrize("shape", ["self", "pair"])
@pytest.mark.parametrize("where", ["root", "profile"])
def test_a_looping_state_db_in_a_home_is_noted(tmp_path, where, shape):
    home = make_home(tmp_path / "h", "alpha", "writer", root_db=where == "profile")
    directory = home if where == "root" else home / "profiles" / "coder"
    directory.mkdir(parents=True, exist_ok=True)
    db = directory / DATABASE_NAME
    make_loop(db, shape)
    discovery = run(tmp_path, homes=[home])
    assert found(discovery) == expected(home, "alpha", "writer", root_db=where == "profile")
    assert noted(discovery) == {str(db)}
    assert "symlink loop" in reasons(discovery)[str(db)]


@pytest.mark.parametrize("shape", ["self", "pair"])
@pytest.mark.parametrize("via", ["--db", "--db directory", "TRAIL_HERMES_DB"])
def test_a_pinned_looping_state_db_is_noted_and_passed_over(tmp_path, via, shape):
    looped = make_home(tmp_path / "looped", root_db=False)
    db = looped / DATABASE_NAME
    make_loop(db, shape)
    good = make_home(tmp_path / "good") / DATABASE_NAME
    discovery = pin(tmp_path, via.split()[0], looped if via == "--db directory" else db, good)
    assert found(discovery) == {(DEFAULT_PROFILE, good)}
    assert noted(discovery) == {str(db)}
    assert "symlink loop" in reasons(discovery)[str(db)]


# Profile entries that are links leading back into (or above) the directories being walked; the value is
# the link's target as written, None for the link's own absolute path.
PROFILE_LOOPS = [
    pytest.param({"loop": ".."}, id="profile-to-its-home"),
    pytest.param({"loop": "."}, id="profile-to-profiles"),
    pytest.param({"loop": "../profiles"}, id="profile-to-profiles-via-parent"),
    pytest.param({"up": "../.."}, id="profile-above-its-home"),
    pytest.param({"self": "self"}, id="profile-to-itself"),
    pytest.param({"self": None}, id="absolute-self-link"),
    pytest.param({"ping": "pong", "pong": "ping"}, id="two-profiles-to-each-other"),
]


@pytest.mark.parametrize("links", PROFILE_LOOPS)
def test_a_looping_profile_symlink_is_noted_and_passed_over(tmp_path, links):
    home = make_home(tmp_path / "h", "coder", "writer")
    profiles = home / "profiles"
    for name, target in links.items():
        (profiles / name).symlink_to(profiles / name if target is None else target)
    discovery = run(tmp_path, homes=[home])
    assert [(store.profile, store.path) for store in discovery.stores] == [
        (DEFAULT_PROFILE, home / DATABASE_NAME),
        ("coder", profiles / "coder" / DATABASE_NAME),
        ("writer", profiles / "writer" / DATABASE_NAME),
    ]
    assert noted(discovery) == {str(profiles / name) for name in links}


@pytest.mark.parametrize("where", ["root", "profile"])
def test_a_dangling_state_db_symlink_is_noted_and_the_walk_goes_on(tmp_path, where):
    home = make_home(tmp_path / "h", "writer", root_db=where == "profile")
    directory = home if where == "root" else home / "profiles" / "coder"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / DATABASE_NAME).symlink_to(tmp_path / "gone.db")
    discovery = run(tmp_path, homes=[home])
    assert found(discovery) == expected(home, "writer", root_db=where == "profile")
    assert noted(discovery) == {str(directory / DATABASE_NAME)}


# --- unreadable directories: noted, never raised --------------------------------------------------------

NOBODY = 65534
# Run by an unprivileged child: discover() as the JSON request in argv[1] asks, printed back as JSON.
_DISCOVER_IN_CHILD = """
import importlib.util, json, sys
from pathlib import Path

request = json.loads(sys.argv[1])
# This checkout's sources, copied where this user can read them (the checkout and its venv may be behind a
# private directory); the locate layer needs nothing beyond the standard library.
sys.path.insert(0, request["src"])
from hermes_trail.hermes import locate

assert locate.__file__.startswith(request["src"]), locate.__file__
locate._VOLUME_ROOTS = ()
discovery = locate.discover(
    request["env"],
    homes=request["homes"],
    dbs=request["dbs"],
    platform="linux",
    user_home=Path(request["user_home"]),
    include_volumes=request["include_volumes"],
)
print(json.dumps({
    "homes": [[str(path), origin] for path, origin in discovery.homes],
    "stores": [[str(s.path), s.profile, s.home and str(s.home), s.origin] for s in discovery.stores],
    "notes": [[note.path, note.reason] for note in discovery.notes],
}))
"""


@pytest.fixture
def open_base():
    """A world-traversable directory to build in: pytest's tmp_path may be closed to other users."""
    base = Path(tempfile.mkdtemp(prefix="trail-locate-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def _as_nobody() -> list[str]:
    if shutil.which("setpriv"):
        return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    if shutil.which("runuser"):
        return ["runuser", "-u", "nobody", "--"]
    pytest.skip(
        "running as root, for whom chmod 000 denies nothing, and neither setpriv nor runuser is here "
        "to run the check as an unprivileged user"
    )


def _python_for_nobody(command: list[str], base: Path) -> str:
    """An interpreter uid 65534 can start and that reads ``base``: this one, else the one it links to."""
    tried = []
    for python in dict.fromkeys([sys.executable, os.path.realpath(sys.executable), sys._base_executable]):
        probe = subprocess.run(
            [*command, python, "-c", "import os, sys; os.listdir(sys.argv[1])", str(base)],
            capture_output=True,
            text=True,
            cwd=base,
            check=False,
        )
        if probe.returncode == 0:
            return python
        tried.append(f"{python}: {probe.stderr.strip()[-200:]}")
    pytest.skip(f"uid {NOBODY} can run no Python here to check as ({'; '.join(tried)})")


def _discover_as_nobody(base: Path, request: dict) -> Discovery:
    command = _as_nobody()
    python = _python_for_nobody(command, base)
    src = base / ".child"
    package = Path(locate.__file__).parents[1]  # src/hermes_trail
    shutil.copytree(
        package,
        src / package.name,
        ignore=lambda d, names: [
            n for n in names if n == "__pycache__" or not (n.endswith(".py") or Path(d, n).is_dir())
        ],
    )
    request = {**request, "src": str(src)}
    child = subprocess.run(
        [*command, python, "-c", _DISCOVER_IN_CHILD, json.dumps(request)],
        capture_output=True,
        text=True,
        cwd=base,
        check=False,
    )
    assert child.returncode == 0, child.stderr
    answer = json.loads(child.stdout)
    return Discovery(
        homes=[(Path(path), origin) for path, origin in answer["homes"]],
        stores=[
            StoreLocation(Path(path), profile, home and Path(home), origin)
            for path, profile, home, origin in answer["stores"]
        ],
        notes=[Note(path, reason) for path, reason in answer["notes"]],
    )


def discover_locked_out(
    base: Path,
    locked: Sequence[Path],
    env: dict[str, str] | None = None,
    *,
    homes: Sequence[Path] = (),
    dbs: Sequence[Path] = (),
    user_home: Path | None = None,
    include_volumes: bool = False,
) -> Discovery:
    """``discover`` by a user the ``locked`` directories (mode 000) deny; a child as uid 65534 for root."""
    user_home = base if user_home is None else user_home
    modes = {path: stat.S_IMODE(path.stat().st_mode) for path in locked}
    try:
        for path in locked:
            path.chmod(0)
        if os.geteuid() != 0:
            return run(user_home, env, homes=homes, dbs=dbs, include_volumes=include_volumes)
        request = {
            "env": env or {},
            "homes": [str(home) for home in homes],
            "dbs": [str(db) for db in dbs],
            "user_home": str(user_home),
            "include_volumes": include_volumes,
        }
        return _discover_as_nobody(base, request)
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def assert_denied(discovery: Discovery, path: Path) -> None:
    """``path``, and nothing else, was passed over because permission was denied."""
    denied = [(note.path, "permission denied" in note.reason) for note in discovery.notes]
    assert denied == [(str(path), True)]


def test_an_unreadable_profiles_directory_is_noted(open_base):
    home = make_home(open_base / "h", "coder")
    other = make_home(open_base / "other", "writer")
    discovery = discover_locked_out(open_base, [home / "profiles"], homes=[home, other])
    assert found(discovery) == expected(home) | expected(other, "writer")
    assert_denied(discovery, home / "profiles")


def test_an_unreadable_profile_is_noted_and_its_siblings_are_read(open_base):
    home = make_home(open_base / "h", "alpha", "coder", "writer")
    coder = home / "profiles" / "coder"
    discovery = discover_locked_out(open_base, [coder], homes=[home])
    assert found(discovery) == expected(home, "alpha", "writer")
    assert_denied(discovery, coder)


def test_an_unreadable_profiles_root_override_is_noted(open_base):
    home = make_home(open_base / "h", "ignored")
    profiles = make_home(open_base / "p", "coder", root_db=False) / "profiles"
    env = {"TRAIL_HERMES_PROFILES_ROOT": str(profiles)}
    discovery = discover_locked_out(open_base, [profiles], env, homes=[home])
    assert found(discovery) == expected(home)
    assert_denied(discovery, profiles)


def user_volume(user_home: Path, *profiles: str) -> Path:
    """A Podman user volume holding a Hermes home, read beside Hermes' own home; its ``_data``."""
    volumes = user_home / ".local" / "share" / "containers" / "storage" / "volumes"
    return make_volume(volumes / "hermes-vol", *profiles) / "_data"


def test_an_unreadable_default_home_is_noted(open_base):
    user = open_base / "user"
    default = make_home(user / ".hermes", "coder")
    data = user_volume(user, "writer")
    discovery = discover_locked_out(open_base, [default], user_home=user, include_volumes=True)
    assert discovery.homes == [(default, "default"), (data, "container volume")]
    assert found(discovery) == expected(data, "writer")
    assert_denied(discovery, default)


def test_an_unreadable_hermes_home_is_noted(open_base):
    user = open_base / "user"
    hermes = make_home(open_base / "hermes-home", "coder")
    data = user_volume(user, "writer")
    env = {"HERMES_HOME": str(hermes)}
    discovery = discover_locked_out(open_base, [hermes], env, user_home=user, include_volumes=True)
    assert discovery.homes == [(hermes, "HERMES_HOME"), (data, "container volume")]
    assert found(discovery) == expected(data, "writer")
    assert_denied(discovery, hermes)


@pytest.mark.parametrize("via", ["--home", "TRAIL_HERMES_HOME", "--db", "--db directory", "TRAIL_HERMES_DB"])
def test_an_unreadable_named_home_or_database_is_noted_not_raised(open_base, via):
    locked = make_home(open_base / "locked", "coder")
    good = make_home(open_base / "good", "writer")
    if via == "--home":
        discovery = discover_locked_out(open_base, [locked], homes=[locked, good])
    elif via == "TRAIL_HERMES_HOME":
        env = {"TRAIL_HERMES_HOME": os.pathsep.join([str(locked), str(good)])}
        discovery = discover_locked_out(open_base, [locked], env)
    elif via == "TRAIL_HERMES_DB":
        env = {"TRAIL_HERMES_DB": os.pathsep.join([str(locked / DATABASE_NAME), str(good / DATABASE_NAME)])}
        discovery = discover_locked_out(open_base, [locked], env)
    else:
        named = locked if via == "--db directory" else locked / DATABASE_NAME
        discovery = discover_locked_out(open_base, [locked], dbs=[named, good / DATABASE_NAME])
    if via in ("--home", "TRAIL_HERMES_HOME"):
        assert found(discovery) == expected(good, "writer")
        assert_denied(discovery, locked)
    else:  # the named file inside the locked directory is what cannot be reached
        assert found(discovery) == {(DEFAULT_PROFILE, good / DATABASE_NAME)}
        assert_denied(discovery, locked / DATABASE_NAME)


def test_an_unreadable_directory_among_several_homes_does_not_hide_the_others(open_base):
    homes = [make_home(open_base / name, f"{name}-profile") for name in ("one", "two", "three")]
    discovery = discover_locked_out(open_base, [homes[1]], homes=homes)
    assert [origin for _, origin in discovery.homes] == ["--home"] * 3
    assert found(discovery) == expected(homes[0], "one-profile") | expected(homes[2], "three-profile")
    assert_denied(discovery, homes[1])


# --- the process environment ---------------------------------------------------------------------------


def test_discover_reads_os_environ_when_no_env_is_given(tmp_path, monkeypatch):
    home = make_home(tmp_path / "from-environ", "coder")
    monkeypatch.setenv("HERMES_HOME", str(home))
    discovery = discover(user_home=tmp_path, platform=POSIX, include_volumes=False)
    assert discovery.homes == [(home, "HERMES_HOME")]
    assert found(discovery) == expected(home, "coder")


# --- side files ---------------------------------------------------------------------------------------


def _side_home(home: Path) -> Path:
    """Every side file Hermes keeps, as empty files (locate only lists), and the credentials beside them."""
    for rel in (
        "state-snapshots/20261130-080044-a/state.db",
        "state-snapshots/20261130-080044-a/.env",
        "state-snapshots/notes.txt",
        "sessions/s1.jsonl",
        "sessions/s1.json",
        "sessions/.tmp.jsonl",
        ".hermes_history",
        "cron/output/job1/2026-11-30_08-00-00.md",
        "cron/output/job1/.output_x.tmp",
        "response_store.db",
        "config.yaml",
        "pairing/discord-approved.json",
        "pairing/discord-pending.json",
        "pairing/_rate_limits.json",
        "platforms/pairing/slack-approved.json",
        "pastes/pending.json",
        ".env",
        "auth.json",
    ):
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    return home


def test_side_files_of_a_home_and_never_a_credential(tmp_path):
    home = _side_home(make_home(tmp_path / ".hermes"))
    files = locate.side_files(home, "default")
    listed = [(f.kind, f.path.relative_to(home).as_posix(), f.name) for f in files]
    assert listed == [
        ("snapshot", "state-snapshots/20261130-080044-a/state.db", "20261130-080044-a"),
        ("divert", "sessions/s1.jsonl", "s1"),
        ("prompt_history", ".hermes_history", ""),
        ("cron_run", "cron/output/job1/2026-11-30_08-00-00.md", "job1"),
        ("response_store", "response_store.db", ""),
        ("config", "config.yaml", ""),
        ("pairing", "pairing/discord-approved.json", "discord"),
        ("pairing", "platforms/pairing/slack-approved.json", "slack"),
        ("pastes", "pastes/pending.json", ""),
    ]


def test_every_home_form_has_its_side_files(tmp_path):
    """The root, each profile (a whole home), and a container volume's ``_data``."""
    root = _side_home(make_home(tmp_path / ".hermes", "work"))
    _side_home(root / "profiles" / "work")
    (root / "profiles" / "bare").mkdir()  # a profile with no state.db still has a home
    volume = make_volume(tmp_path / "volumes" / "hermes-data")
    _side_home(volume / "_data")
    discovery = run(tmp_path, homes=[root, volume])
    homes = locate.homes_of(discovery)
    assert [(p.relative_to(tmp_path).as_posix(), profile) for p, profile in homes] == [
        (".hermes", "default"),
        (".hermes/profiles/work", "work"),
        ("volumes/hermes-data/_data", "default"),
        (".hermes/profiles/bare", "bare"),
    ]
    for home, profile in homes[:3]:
        kinds = {f.kind for f in locate.side_files(home, profile)}
        assert kinds == {
            "snapshot",
            "divert",
            "prompt_history",
            "cron_run",
            "response_store",
            "config",
            "pairing",
            "pastes",
        }


def test_trajectory_files_in_project_directories(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "trajectory_samples.jsonl").touch()
    (tmp_path / "a" / "failed_trajectories.jsonl").touch()
    a = str(tmp_path / "a")
    found = locate.project_side_files([a, str(tmp_path / "missing"), "", a], {str(tmp_path / "a"): "work"})
    assert [(f.kind, f.path.name, f.profile) for f in found] == [
        ("trajectory", "trajectory_samples.jsonl", "work"),
        ("trajectory", "failed_trajectories.jsonl", "work"),
    ]


# --- PostgreSQL stores: config.yaml's sessiondb, --pg and TRAIL_HERMES_PG_DSN ---------------------------
PG_CONFIG = "sessiondb:\n  provider: postgresql\n  postgresql:\n    dsn: {dsn}\n"


def pg_stores(discovery: Discovery) -> list[tuple[str, str, str]]:
    return [(s.profile, s.where, s.origin) for s in discovery.stores if s.kind == "postgresql"]


def test_a_profile_config_naming_postgres_adds_that_store_beside_its_state_db(tmp_path):
    home = make_home(tmp_path / ".hermes", "work", "play")
    (home / "profiles" / "work" / "config.yaml").write_text(PG_CONFIG.format(dsn="postgresql://w:pw@db/work"))
    discovery = run(tmp_path)
    assert found(discovery) >= expected(home, "work", "play")
    assert pg_stores(discovery) == [("work", "postgresql://w:***@db/work", "config.yaml")]
    location = next(s for s in discovery.stores if s.kind == "postgresql")
    assert location.dsn == "postgresql://w:pw@db/work" and location.path is None
    assert location.key == location.where and "pw" not in repr(location)
    assert location.home == home / "profiles" / "work"


def test_profiles_sharing_one_database_read_it_once_as_the_default_profile(tmp_path):
    home = make_home(tmp_path / ".hermes", "work", "play")
    for profile in ("work", "play"):
        (home / "profiles" / profile / "config.yaml").write_text(
            PG_CONFIG.format(dsn="postgresql://db/shared")
        )
    assert pg_stores(run(tmp_path)) == [(DEFAULT_PROFILE, "postgresql://db/shared", "config.yaml")]


def test_a_config_that_cannot_be_followed_is_a_note(tmp_path):
    home = make_home(tmp_path / ".hermes")
    (home / "config.yaml").write_text(PG_CONFIG.format(dsn="${NOT_SET_HERE}"))
    discovery = run(tmp_path)
    assert pg_stores(discovery) == [] and found(discovery) == expected(home)
    (note,) = discovery.notes
    assert note.path == str(home / "config.yaml") and "${NOT_SET_HERE}" in note.reason


def test_pg_flags_and_variable_pin_as_db_does(tmp_path):
    home = make_home(tmp_path / ".hermes", "work")
    (home / "config.yaml").write_text(PG_CONFIG.format(dsn="postgresql://db/from-config"))
    env = {"TRAIL_HERMES_PG_DSN": "postgresql://u:pw@db/env", "TRAIL_HERMES_DB": str(home / DATABASE_NAME)}
    discovery = run(tmp_path, env)  # the two variables combine, and no home is walked
    assert found(discovery) == {(DEFAULT_PROFILE, home / DATABASE_NAME), (DEFAULT_PROFILE, None)}
    assert pg_stores(discovery) == [(DEFAULT_PROFILE, "postgresql://u:***@db/env", "TRAIL_HERMES_PG_DSN")]
    flagged = run(tmp_path, env, pgs=["postgresql://db/a", "postgresql://db/b", "postgresql://db/a"])
    assert [s.where for s in flagged.stores] == ["postgresql://db/a", "postgresql://db/b"]  # flags win
    assert {s.origin for s in flagged.stores} == {"--pg"}
    both = run(tmp_path, env, dbs=[home / "profiles" / "work" / DATABASE_NAME], pgs=["postgresql://db/a"])
    assert [(s.kind, s.profile) for s in both.stores] == [("sqlite", "work"), ("postgresql", DEFAULT_PROFILE)]
    assert locate.named_by_environment({"TRAIL_HERMES_PG_DSN": "x"})
    assert not locate.named_by_environment({"TRAIL_HERMES_PG_DSN": " "})
