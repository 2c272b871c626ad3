"""Opening the shared database: one place where a DSN becomes a connection, so its password never reaches
a message, an error or ``--json`` (only :func:`hermes_trail.hermes.dsn.shown` forms are kept).

TLS settings (``sslmode``, ``sslrootcert``, ``sslcert``, ``sslkey``) are libpq's: they pass through in the
DSN as they are, and so do libpq's ``PG*`` variables (``PGSSLMODE``, ``PGPASSFILE``).

A managed PostgreSQL is often reached through a connection pooler in transaction mode (PgBouncer,
Supabase's Supavisor, Neon's pooled endpoint): each transaction, or each statement outside one, may run on
another server connection, shared with other clients. So nothing here keeps state in a server session
between transactions: no statement is prepared on the server (:func:`connect`), a push's lock and staging
tables live in a transaction (``push.py``), and a search's settings are ``SET LOCAL``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from hermes_trail.errors import TrailError
from hermes_trail.hermes import dsn as dsns

if TYPE_CHECKING:
    import psycopg

# A fleet database is across a network: a connection that cannot be made in this long is reported.
CONNECT_TIMEOUT_SECONDS = 10
# A connection kept between questions (``trail mcp --fleet``, the Hermes plugin) crosses NATs and firewalls
# that forget a connection idle for some minutes; some then drop its packets without a word, and the next
# question on it waited for TCP to give up: about a quarter of an hour on Linux, every later question
# queued behind it. TCP keepalives every 30 s keep it known to them, and packets of a question left
# unacknowledged for 30 s end it (``tcp_user_timeout``, libpq's, in milliseconds), so the question is
# asked again on a new connection (``service.Trail``) or fails in under a minute. A DSN's own settings win.
KEEPALIVE = {
    "keepalives": "1",
    "keepalives_idle": "30",
    "keepalives_interval": "10",
    "keepalives_count": "3",
    "tcp_user_timeout": "30000",
}


# A push and a migration are work the user asked for, each statement bounded by its batch (a thousand docs,
# a chunk of deletions) or by the migration's own steps; a push cut short resumes at the same batch, which a
# statement limit would cut again at every push. So the server's ``statement_timeout`` and ``lock_timeout``
# (a managed service's default, or an administrator's for the database or a login) are lifted for their
# transactions, and waiting for another push of the same host or another migration is waiting one's turn.
# Their transactions hold the host's lock and its rows' locks, so the server probes their client as the
# client probes the server (:data:`KEEPALIVE`), and gives up on what it sent when the client has not
# acknowledged it for 30 s: a machine gone from the network mid-push (a laptop's lid closed) left them open
# until the server's TCP gave up, two hours and more with Linux's defaults for an idle connection (a quarter
# of an hour with an answer in flight), every later push of that host waiting behind them; the server now
# ends them within about a minute.
# Only ``SET LOCAL``'s kind (``set_config(..., true)``): a session's setting would go, through a pooler in
# transaction mode, to another client. A search keeps the limits.
_UNBOUNDED = (
    "SELECT set_config('statement_timeout', '0', true), set_config('lock_timeout', '0', true), "
    "set_config('tcp_keepalives_idle', '30', true), set_config('tcp_keepalives_interval', '10', true), "
    "set_config('tcp_keepalives_count', '3', true), set_config('tcp_user_timeout', '30000', true)"
)


def unbounded(conn: psycopg.Connection[Any], idle: bool = False) -> None:
    """Lift the server's statement and lock time limits for the transaction ``conn`` is in (and, with
    ``idle``, its limit on a transaction left idle: the host's push lock is held by one idle while the
    writers work), and have the server probe the client meanwhile: a push's and a migration's work
    (:data:`_UNBOUNDED`)."""
    idling = ", set_config('idle_in_transaction_session_timeout', '0', true)" if idle else ""
    conn.execute(_UNBOUNDED + idling)


def psycopg_pipelines() -> bool:
    """Whether psycopg's libpq has pipeline mode (libpq 14 and later)."""
    import psycopg

    return bool(psycopg.Pipeline.is_supported())


def pipelined(conn: psycopg.Connection[Any]) -> contextlib.AbstractContextManager[Any]:
    """The statements of the block sent at once, their answers read at its end (psycopg's pipeline): one
    round trip for them all, which a server far away makes worth it; one by one where libpq has no
    pipeline. A transaction in it is begun and ended by statements (``conn.transaction()`` waits on each
    of its own)."""
    return conn.pipeline() if psycopg_pipelines() else contextlib.nullcontext()


# A statement and its parameters.
Statement = tuple[str, Sequence[Any] | None]


def rows_after(
    conn: psycopg.Connection[Any], first: Sequence[Statement], sql: str, params: Sequence[Any] | None
) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` in a transaction of its own, after ``first`` (the settings made for it,
    ``SET LOCAL``'s kind): its statements sent at once, one round trip, rolled back when one fails (psycopg's
    ``transaction()`` waits on each of its own: four round trips for a setting and a query). Where ``conn``
    is in a caller's transaction already, or libpq has no pipeline, in ``transaction()`` (a savepoint inside
    the caller's)."""
    from psycopg.pq import TransactionStatus

    if conn.info.transaction_status != TransactionStatus.IDLE or not psycopg_pipelines():
        with conn.transaction():
            for statement, args in first:
                conn.execute(statement, args)
            return conn.execute(sql, params).fetchall()
    with rolled_back_on_failure(conn), pipelined(conn):
        conn.execute("BEGIN")
        for statement, args in first:
            conn.execute(statement, args)
        found = conn.execute(sql, params)
        conn.execute("COMMIT")
    return found.fetchall()


@contextlib.contextmanager
def rolled_back_on_failure(conn: psycopg.Connection[Any]) -> Iterator[None]:
    """For a transaction the block begins and ends by statements (which a pipeline holds, where
    ``conn.transaction()`` waits on each of its own): rolled back when anything in the block fails, the
    failure raised on."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):  # a connection the server ended has no transaction to end
            conn.execute("ROLLBACK")
        raise


class FleetError(TrailError):
    """The shared index could not be reached, is not migrated, or refused what was asked. The message
    names the database by its shown DSN (password as ``***``)."""


def first_line(exc: BaseException) -> str:
    """A driver error's first line: what a person needs, without the server's context lines."""
    text = str(exc).strip()
    return text.splitlines()[0].strip() if text else type(exc).__name__


def clean(exc: BaseException, dsn: str) -> str:
    """A driver error as one line with every password of ``dsn`` replaced (libpq may echo the DSN)."""
    return dsns.scrub(first_line(exc), dsn)


def is_fleet_dsn(value: str) -> bool:
    """Whether ``value`` names a PostgreSQL database (a ``postgresql://`` URI or libpq's ``key=value``,
    ``service=`` of ``pg_service.conf`` included), not a local index's path."""
    return dsns.is_uri(value) or dsns.is_conninfo(value)


def connect(dsn: str) -> psycopg.Connection[Any]:
    """An autocommit connection to the shared database (transactions are opened where they are needed).

    :raises FleetError: psycopg is missing, the DSN is not one, or the server cannot be reached.
    """
    shown = dsns.shown(dsn)
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - a dependency of hermes-trail
        raise FleetError(f"{shown}: psycopg is not installed (pip install 'psycopg[binary]')") from exc
    try:
        given = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as exc:
        raise FleetError(f"{shown}: not a valid PostgreSQL DSN ({clean(exc, dsn)})") from exc
    extra: dict[str, Any] = {}
    if "connect_timeout" not in given:
        extra["connect_timeout"] = CONNECT_TIMEOUT_SECONDS
    if "application_name" not in given:
        extra["application_name"] = "hermes-trail fleet"
    extra.update({key: value for key, value in KEEPALIVE.items() if key not in given})
    try:
        # No statement prepared on the server (psycopg prepares one run five times): through a pooler in
        # transaction mode the next run may reach a server connection that never prepared it ("prepared
        # statement does not exist"), or one where another client's statement has its name.
        return psycopg.connect(dsn, autocommit=True, prepare_threshold=None, **extra)
    except psycopg.Error as exc:
        raise FleetError(f"{shown}: cannot connect ({clean(exc, dsn)})") from exc
