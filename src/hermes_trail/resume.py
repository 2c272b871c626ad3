"""The ``hermes`` command that reopens a session: ``hermes --resume <id>``, with what makes Hermes look in
the right store.

Hermes resumes only from the home it opens, so the command must make it open the home that holds the
session: ``-p <profile>`` for a profile's store; ``-p default`` for a root store when, without it, Hermes
would open another profile (a sticky ``active_profile``, or ``HERMES_HOME`` inside a profile); and
``HERMES_HOME=<home>`` for a store in a home that is not Hermes' own (another root, a backup, a
container volume). Each candidate is checked by working out which home that command would open
(:func:`hermes_trail.hermes.profiles.opened_home`), and the plainest one that opens the session's home
wins. A profile directory Hermes will not take by name, and a home no command can reach, are refused with
what to run instead. Hermes itself follows a compressed session forward to its live continuation.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from hermes_trail.errors import ResumeRefused, StoreUnreadable
from hermes_trail.hermes import locate, profiles
from hermes_trail.hermes.decode.retired import RETIRED_PREFIX, Retirement, retirement
from hermes_trail.model import Session, Store, _Frozen

if TYPE_CHECKING:
    from hermes_trail.history import History

HERMES = "hermes"


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class ResumePlan(_Frozen):
    """How to reopen one session.

    :param argv: the command, ``hermes`` first.
    :param env: variables to set for it (``HERMES_HOME``), empty when none is needed.
    :param home: the Hermes home that holds the session's store.
    """

    _fields: ClassVar[tuple[str, ...]] = ("session_id", "profile", "home", "argv", "env")
    __slots__ = _fields
    session_id: str
    profile: str
    home: Path
    argv: list[str]
    env: dict[str, str]

    def __init__(
        self, session_id: str, profile: str, home: Path, argv: list[str], env: dict[str, str] | None = None
    ) -> None:
        object.__setattr__(self, "session_id", session_id)
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "home", home)
        object.__setattr__(self, "argv", argv)
        object.__setattr__(self, "env", {} if env is None else env)

    @property
    def command(self) -> str:
        """The command as a POSIX shell line."""
        words = [f"{k}={shlex.quote(v)}" for k, v in self.env.items()] + [shlex.quote(a) for a in self.argv]
        return " ".join(words)


def _resume_args(session_id: str) -> list[str]:
    # An id that starts with "-" would be read as an option; "=" keeps it the flag's value.
    return [f"--resume={session_id}"] if session_id.startswith("-") else ["--resume", session_id]


def plan_resume(
    session_id: str,
    home: str | Path,
    profile: str,
    *,
    ref: str | None = None,
    env: Mapping[str, str] | None = None,
) -> ResumePlan:
    """The command that reopens ``session_id`` of the store in ``home`` (a profile's own home for a
    profile's store), whose profile is ``profile``.

    :param ref: how ``trail show`` names the session, for the refusal's pointer.
    :raises ResumeRefused: Hermes cannot be pointed at that store.
    """
    env = os.environ if env is None else env
    home = Path(home)
    show = f"trail show {shlex.quote(ref or session_id)}"
    if _in_demo(home):
        raise ResumeRefused(
            f"{session_id} is in the demo home bundled with hermes-trail, not in Hermes",
            f"replay it with: {show}",
        )
    # A directory profiles/default is a profile's store too, one Hermes never opens by name.
    named_default = home.name == locate.DEFAULT_PROFILE and home.parent.name == locate.PROFILES_DIR
    if profile != locate.DEFAULT_PROFILE or named_default:
        why = profiles.name_refusal(profile)
        if why is not None:
            raise ResumeRefused(
                f"Hermes cannot resume {session_id}: its profile {why}", f"replay it with: {show}"
            )
        candidates = [(["-p", profile], {}), ([], {"HERMES_HOME": str(home)})]
    else:
        candidates = [
            ([], {}),
            (["-p", "default"], {}),
            ([], {"HERMES_HOME": str(home)}),
            (["-p", "default"], {"HERMES_HOME": str(home)}),
        ]
    for flags, extra in candidates:
        opened = profiles.opened_home({**env, **extra}, flags[1] if flags else None)
        if opened is not None and profiles.same_dir(opened, home):
            return ResumePlan(session_id, profile, home, [HERMES, *flags, *_resume_args(session_id)], extra)
    raise ResumeRefused(
        f"Hermes cannot be pointed at {home}, which holds {session_id}", f"replay it with: {show}"
    )


def plan_by_profile(
    session_id: str, profile: str, *, ref: str | None = None, env: Mapping[str, str] | None = None
) -> ResumePlan:
    """The command for a session of a database store named without its home (``--pg``): Hermes finds the
    database through the profile's ``config.yaml``, so the profile is all there is to name.

    :raises ResumeRefused: Hermes takes no profile of that name.
    """
    env = os.environ if env is None else env
    flags = [] if profile == locate.DEFAULT_PROFILE else ["-p", profile]
    if flags and (why := profiles.name_refusal(profile)) is not None:
        raise ResumeRefused(
            f"Hermes cannot resume {session_id}: its profile {why}",
            f"replay it with: trail show {shlex.quote(ref or session_id)}",
        )
    home = profiles.opened_home(env, flags[1] if flags else None) or Path()
    return ResumePlan(session_id, profile, home, [HERMES, *flags, *_resume_args(session_id)])


def plan_for(session: Session, env: Mapping[str, str] | None = None) -> ResumePlan:
    """:func:`plan_resume` for a session of the model.

    :raises ResumeRefused: also for a recovered session: Hermes resumes only what its live store holds.
    """
    store = session.store
    found = session.recovered
    if found is not None:
        what = f"snapshot {found.snapshot}" if found.kind == "snapshot" else f"its divert file {found.path}"
        raise ResumeRefused(
            f"Hermes cannot resume {session.id}: it is gone from its live state.db (deleted, "
            f"pruned or lost) and only {what} still holds it",
            f"replay it with: trail show {shlex.quote(session.ref)}",
        )
    if store.home:
        return plan_resume(session.id, Path(store.home), store.profile, ref=session.ref, env=env)
    if store.kind != "sqlite":
        return plan_by_profile(session.id, store.profile, ref=session.ref, env=env)
    return plan_resume(session.id, Path(store.path).parent, store.profile, ref=session.ref, env=env)


def resume_line(session_id: str, store_key: str | Path, profile: str) -> str:
    """The command line for a session of the store ``store_key`` (a file's resolved path, or a database's
    DSN), or an empty string when Hermes cannot reopen it (what a search hit shows). Inside
    :func:`many_lines`, the way into each store is found once (it is the same for all its sessions)."""
    key = (str(store_key), profile)
    if _WAYS is not None and key in _WAYS:
        way = _WAYS[key]
        if way is None:
            return ""
        flags, extra = way
        return ResumePlan(
            session_id, profile, Path(), [HERMES, *flags, *_resume_args(session_id)], extra
        ).command
    try:
        if not Path(store_key).is_absolute():  # a database: the key is its DSN, not a file
            plan = plan_by_profile(session_id, profile)
        else:
            plan = plan_resume(session_id, Path(store_key).parent, profile)
    except ResumeRefused:
        if _WAYS is not None:
            _WAYS[key] = None
        return ""
    if _WAYS is not None:
        _WAYS[key] = (plan.argv[1 : len(plan.argv) - len(_resume_args(session_id))], dict(plan.env))
    return plan.command


# The ways into stores found inside ``many_lines`` (store key, profile) -> (flags, env), None if refused.
_WAYS: dict[tuple[str, str], tuple[list[str], dict[str, str]] | None] | None = None


@contextmanager
def many_lines() -> Iterator[None]:
    """A scope in which :func:`resume_line` finds the way into each store once: a page of search hits
    asks it for many sessions of a few stores (each finding reads Hermes' profile settings)."""
    global _WAYS
    outer, _WAYS = _WAYS, {} if _WAYS is None else _WAYS
    try:
        yield
    finally:
        _WAYS = outer


def _in_demo(home: Path) -> bool:
    from hermes_trail.demo import demo_home

    demo = demo_home()
    return profiles.same_dir(home, demo) or any(profiles.same_dir(p, demo) for p in home.parents[:3])


def find_retired(history: History, query: str) -> list[tuple[Store, Retirement]]:
    """Deletion fences for the session ``query`` names (an id or its start) in each store of ``history``:
    what tells a deleted session from one that never was."""
    from hermes_trail.history import split_ref

    store_name, bare = split_ref(query, {s.name for s in history.stores})
    found: list[tuple[Store, Retirement]] = []
    for store in history.stores:
        if store_name and store.name != store_name:
            continue
        try:
            rows = history.reader(store).meta_rows(RETIRED_PREFIX + bare)
        except StoreUnreadable:
            continue
        found.extend((store, r) for r in map(retirement, rows) if r is not None)
    return found
