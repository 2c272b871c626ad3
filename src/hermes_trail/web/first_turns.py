"""A replay's first turns decoded from the first rows of its session, for the page's first answer.

The replay page asks for the first turns, then for the whole view. Reading and decoding a session of
thousands of rows whole takes tenths of a second, so the first answer decodes only its first rows (by
``messages.id``, as every read does) when no later row can change the turns that answer shows:

* A row kept aside is changed by rows after it: a compaction's summary archives it and marks its copies,
  schema 31's superseded rows are told by a later row's ``message_uid``. A session with any inactive row
  is read whole; the store's count of them (``Session.row_stats``) says so without reading them. Without
  one, nothing was archived or copied, and compaction marks only summaries, each from its own row (and
  clears the compressor's stubs in a session holding one: a continuation's handoff, or a transcript
  Hermes rewrote whole, has its summary among its first rows, which are read).
* A call's result pairs to it only until the next prompt (``pair_results``), and its duration comes from
  its results: rows are read until a prompt follows the last first turn with a call, twice as many each
  time, up to :data:`MOST_ROWS`.
* Everything else of a turn is its own row's (``read_conversation``).

A session with a divert file (its lines are merged among the rows), a recovered one (read from its copy)
or one in a store other than SQLite is read whole. What only every row tells (the counts, the active time,
the compactions, model switches and strays) is left out of such an answer (``session_view``'s
``counted``); the page shows it, and draws again any first turn the whole view shows otherwise, when the
whole view comes.
"""

from __future__ import annotations

import copy

from hermes_trail.errors import StoreUnreadable
from hermes_trail.export.view import cut_head, replay_order
from hermes_trail.hermes import locate
from hermes_trail.hermes.store import SqliteStore
from hermes_trail.history import History
from hermes_trail.model import Session

# Rows read per first turn asked for, at first: a replay shows about two turns for every three rows.
ROWS_PER_TURN = 4
# Past this many rows the session is read whole: its first turns are one long run of calls.
MOST_ROWS = 2_000
# The first ``?`` rows of a session by id: the ids through the index on ``session_id`` (which holds
# them), then those rows, so SQLite never sorts the session's whole rows to keep a few.
_FIRST_ROWS = (
    "SELECT * FROM messages WHERE id IN "
    "(SELECT id FROM messages WHERE session_id = ? ORDER BY id LIMIT ?) ORDER BY id"
)


def _settled(probe: Session, head: int) -> bool:
    """Whether the decoded rows hold the first ``head`` turns and no unread row can pair with their calls:
    a prompt follows the last of them with a call (every turn, when the rows hold fewer)."""
    first = cut_head(replay_order(probe), head)
    if sum(1 for _, hidden in first if not hidden) < head:
        return False
    calls = [turn.source_row for turn, _ in first if turn.tool_calls]
    if not calls:
        return True
    return any(t.role == "user" and t.source_row > calls[-1] for t in probe.turns)


def first_rows(history: History, session: Session, head: int) -> Session | None:
    """A copy of ``session`` with only its first rows decoded, enough for its first ``head`` turns as the
    whole session shows them (see the module docstring); ``None`` when it is to be read whole.

    ``session`` is found in ``history`` and not loaded; its family is linked first (the copy keeps it).
    """
    from hermes_trail.hermes.decode import usage
    from hermes_trail.hermes.decode.conversation import read_conversation

    stats = session.row_stats
    if session.loaded or session.recovered is not None or stats is None or stats[2]:
        return None
    count = stats[0]
    limit = head * ROWS_PER_TURN
    if count <= limit:  # small: the whole is as quick
        return None
    reader = history.reader(session.store)
    if not isinstance(reader, SqliteStore) or locate.divert_file(session.store.home, session.id) is not None:
        return None
    columns = reader.columns("messages")
    while limit < count and limit <= MOST_ROWS:
        try:
            rows = reader.rows(_FIRST_ROWS, (session.id, limit))
        except StoreUnreadable:  # the whole read says why
            return None
        probe = copy.copy(session)
        read_conversation(probe, rows, columns)
        if _settled(probe, head):
            if reader.has_table("session_model_usage"):  # one small table: the header's figures
                probe.model_usage = usage.model_usage(reader.model_usage_rows(session.id))
            return probe
        limit *= 2
    return None
