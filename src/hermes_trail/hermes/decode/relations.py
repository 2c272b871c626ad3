"""How a session relates to its parent, and the continuation chains a store's sessions form.

Hermes keeps one link between sessions, ``sessions.parent_session_id``, and tells what it means from the
child's row and its parent's. :func:`classify` follows Hermes' predicates (``hermes_state.py`` of
hermes-agent 0.19.0, schema 22, and their successors in ``hermes_state_common.py``,
``hermes_state_messages.py`` and ``hermes_state_compression.py`` at schema 31), first rule that holds:

1. ``tool``: the child's source is ``tool`` (``_is_explicit_fork_child_row`` checks it first).
2. A marker in the child's ``model_config`` that names the parent: ``_branched_from`` is a ``branch``,
   ``_delegate_from`` a ``delegate``, ``_reset_from`` a ``reset``. A marker counts only when it names
   ``parent_session_id``: a compression continuation inherits its parent's ``model_config`` whole, markers
   included, so a marker naming another row was inherited and says nothing about this link (the binding
   of ``_is_explicit_fork_child_row`` and ``_non_continuation_child_sql``).
3. ``delegate``: the child's source is ``subagent``, unless its parent is a sub-agent that ended
   ``compression``, whose continuation it is (the one rule of the reference Go reader's ``Classify`` that
   is not Hermes'; Hermes tags every sub-agent with ``_delegate_from`` since its schema 16 anyway).
4. ``continuation``: the parent ended ``compression`` (``_is_compression_child_row``).
5. ``branch``, before the marker existed: the parent ended ``branched`` no later than the child started
   (``_BRANCH_CHILD_SQL``).
6. ``reset``, before the marker existed: the parent ended at a reset boundary (:data:`RESET_END_REASONS`,
   ``_RESET_END_REASONS``) and the child rides the parent's exact, non-empty ``session_key``
   (``_legacy_reset_child_sql``).
7. ``delegate``: every other child, as ``_ephemeral_child_sql`` takes it for a sub-agent run (and Hermes'
   schema 16 migration stamped such rows ``_delegate_from``).

A parent id that names no row of the store (a parent deleted with foreign keys off, a damaged store) is
read the way Hermes reads it: no parent end can be seen, so rules 4 to 6 cannot hold (their ``EXISTS``
finds no parent), and the child is what its markers and source say, else a ``delegate``; the link is
named in the session's ``problems``. ``marked`` is true when the child's own row (a marker or its source,
rules 1 to 3) told the relation, false when it was inferred from the parent's end.

:func:`link` sets every session's relation, its ``children`` (``(relation, child id)`` in start order) and
its continuation ``chain``. A chain is one conversation carried across compressions, root to tip: from
the session up through its ``continuation`` links to the root, then down from the session through the
earliest-started continuation child at each step, as ``get_compression_lineage`` walks it. For a session
on that path this is Hermes' lineage exactly; a session in no chain has the chain ``[its id]``, as Hermes
answers. Two deliberate differences: a compressed branch (or reset or sub-agent) child heads its own
chain, where Hermes' lineage returns a fork child alone before looking at its continuations; and a
second continuation of one parent (a rotation race) gets its own path from the root, where Hermes
returns it alone. (Hermes' resume target, ``get_compression_tip``, prefers a sibling that is still
compressing or open over the earliest one; the two agree but in a race.)

``parent_session_id`` links that close a cycle are damaged data Hermes' writers refuse (its foreign key
wants the parent first, and ``SessionDB.import_sessions`` drops the closing edge and keeps the rest);
here too the cycle's earliest-started member is read as a root, with a problem saying why, so every
session is reachable from a root and no walk loops.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from hermes_trail.hermes.decode.toolcalls import json_type
from hermes_trail.model import Session

ROOT = "root"
CONTINUATION = "continuation"
BRANCH = "branch"
RESET = "reset"
DELEGATE = "delegate"
TOOL = "tool"

MARKER_BRANCH = "_branched_from"
MARKER_DELEGATE = "_delegate_from"
MARKER_RESET = "_reset_from"
# The markers in the order rule 2 reads them: a row naming its parent in two is damaged; the first wins.
_MARKERS = ((MARKER_BRANCH, BRANCH), (MARKER_DELEGATE, DELEGATE), (MARKER_RESET, RESET))

# hermes_state_common._RESET_END_REASONS: the ends a legacy reset child follows.
RESET_END_REASONS = frozenset(
    {"session_reset", "session_switch", "idle", "daily", "suspended", "resume_pending_expired"}
)
END_COMPRESSION = "compression"
END_BRANCHED = "branched"
SOURCE_SUBAGENT = "subagent"
SOURCE_TOOL = "tool"


def json_object(value: Any, column: str) -> tuple[dict[str, Any], str | None]:
    """A JSON-object text cell (``model_config``, ``origin_json``) as a dict, tolerant as Hermes is.

    NULL and blank text are ``{}`` with no problem; text that is not JSON, or JSON that is not an object,
    is ``{}`` and the problem with it (Hermes' ``_parse_model_config`` reads both as ``{}``).
    """
    if isinstance(value, dict):  # a store whose driver decodes JSON columns itself
        return value, None
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}, None
    if not isinstance(value, str):
        return {}, f"{column} is a {type(value).__name__}, not JSON text"
    try:
        parsed = json.loads(value)
    except ValueError:
        return {}, f"{column} is not valid JSON"
    if not isinstance(parsed, dict):
        return {}, f"{column} is a JSON {json_type(parsed)}, not an object"
    return parsed, None


def model_config(session: Session) -> dict[str, Any]:
    """The session's ``model_config`` as a dict; ``{}`` when it holds none (decoding notes why)."""
    return json_object(session.raw.get("model_config"), "model_config")[0]


def _marked_relation(session: Session) -> str | None:
    """Rules 1 and 2: the relation the child's source or a marker naming its parent tells."""
    if session.source == SOURCE_TOOL:
        return TOOL
    config = model_config(session)
    for marker, relation in _MARKERS:
        if config.get(marker) == session.parent_id:
            return relation
    return None


def _not_after(earlier: datetime | None, later: datetime | None) -> bool:
    return earlier is not None and later is not None and earlier <= later


def _session_key(session: Session) -> str | None:
    key = session.raw.get("session_key")
    return key if isinstance(key, str) and key else None


def classify(session: Session, parent: Session | None) -> tuple[str, bool]:
    """``(relation, marked)`` of a session to the row its ``parent_session_id`` names.

    :param parent: that row, or ``None`` when the store holds none (a dangling parent id).
    :returns: ``root`` for a session with no parent id, else ``continuation``, ``branch``, ``reset``,
        ``delegate`` or ``tool`` by the rules in this module's docstring; ``marked`` says the child's own
        row told it.
    """
    if not session.parent_id:
        return ROOT, False
    marked = _marked_relation(session)
    if marked is not None:
        return marked, True
    if session.source == SOURCE_SUBAGENT and not (
        parent is not None and parent.source == SOURCE_SUBAGENT and parent.end_reason == END_COMPRESSION
    ):
        return DELEGATE, True
    if parent is None:
        return DELEGATE, False
    if parent.end_reason == END_COMPRESSION:
        return CONTINUATION, False
    if parent.end_reason == END_BRANCHED and _not_after(parent.ended_at, session.started_at):
        return BRANCH, False
    key = _session_key(session)
    if parent.end_reason in RESET_END_REASONS and key is not None and key == _session_key(parent):
        return RESET, False
    return DELEGATE, False


def _cycle_members(sessions: list[Session], by_id: dict[str, Session]) -> list[list[Session]]:
    """Each cycle of ``parent_session_id`` links, as its members in link order."""
    state: dict[str, int] = {}  # 1: on the walk being followed, 2: done
    cycles: list[list[Session]] = []
    for start in sessions:
        walk: list[Session] = []
        current: Session | None = start
        while current is not None and current.id not in state:
            state[current.id] = 1
            walk.append(current)
            current = by_id.get(current.parent_id) if current.parent_id else None
        if current is not None and state[current.id] == 1:
            cycles.append(walk[walk.index(current) :])
        for member in walk:
            state[member.id] = 2
    return cycles


def _start_key(order: dict[str, int]) -> Any:
    def key(session: Session) -> tuple[bool, float, int]:
        started = session.started_at
        return (started is None, started.timestamp() if started else 0.0, order[session.id])

    return key


def link(sessions: list[Session]) -> None:
    """Set every session's ``relation``, ``relation_marked``, ``children`` and ``chain`` within one store.

    :param sessions: every session of one store (ids are unique within a store only).
    """
    by_id = {s.id: s for s in sessions}
    order = {s.id: i for i, s in enumerate(sessions)}
    start_key = _start_key(order)
    parent_of: dict[str, Session] = {}
    for session in sessions:
        session.children, session.chain = [], []
        parent = by_id.get(session.parent_id) if session.parent_id else None
        session.relation, session.relation_marked = classify(session, parent)
        if parent is not None:
            parent_of[session.id] = parent
        elif session.parent_id:
            session.problems.append(f"parent_session_id {session.parent_id!r} names no session of this store")
    for cycle in _cycle_members(sessions, by_id):
        cut = min(cycle, key=start_key)
        loop = " → ".join(m.id for m in cycle[cycle.index(cut) :] + cycle[: cycle.index(cut)])
        cut.problems.append(
            f"parent_session_id {cut.parent_id!r} closes a cycle ({loop} → {cut.id}); read as a root"
        )
        cut.relation, cut.relation_marked = ROOT, False
        del parent_of[cut.id]

    first_continuation: dict[str, Session] = {}
    for session in sorted(sessions, key=start_key):
        parent = parent_of.get(session.id)
        if parent is None:
            continue
        parent.children.append((session.relation or DELEGATE, session.id))
        if session.relation == CONTINUATION:
            first_continuation.setdefault(parent.id, session)

    def down_from(session: Session, chain: list[str]) -> list[str]:
        seen = set(chain)
        current = session
        while (child := first_continuation.get(current.id)) is not None and child.id not in seen:
            chain.append(child.id)
            seen.add(child.id)
            current = child
        return chain

    heads = [s for s in sessions if not (s.relation == CONTINUATION and s.id in parent_of)]
    for head in heads:  # each head's main path is one chain, shared by every session on it
        path = down_from(head, [head.id])
        for sid in path:
            by_id[sid].chain = list(path)
    for session in sessions:  # a later sibling continuation, off every main path: its own way up and down
        if session.chain:
            continue
        up: list[str] = []
        current = session
        while current.relation == CONTINUATION and current.id in parent_of:
            current = parent_of[current.id]
            up.append(current.id)
        session.chain = down_from(session, [*reversed(up), session.id])
    _inherit_projects(sessions, parent_of, start_key)


# Relations whose child works where its parent worked: a continuation carries the same conversation on, and
# a sub-agent runs in its parent's workspace. Hermes often records no cwd on either.
_SAME_WORKSPACE = frozenset({CONTINUATION, DELEGATE})


def _inherit_projects(sessions: list[Session], parent_of: dict[str, Session], start_key: Any) -> None:
    """A continuation or sub-agent with no workspace of its own belongs to its parent's project, so a
    conversation is not split across a project and the generic bucket."""
    for session in sorted(sessions, key=start_key):  # parents start first, so they are settled first
        parent = parent_of.get(session.id)
        if parent is None or session.relation not in _SAME_WORKSPACE:
            continue
        if not (session.cwd or "").strip() and not (session.git_repo_root or "").strip():
            session.project, session.worktree = parent.project, parent.worktree
