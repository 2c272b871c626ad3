"""What ties a doc and a passage to its session in the shared index: checked once a statement by triggers,
where foreign keys checked it row by row.

A doc names its session by (``sess``, ``host``, ``fingerprint``) and a passage by (``sess``, ``host``): the
session's host, so a host's login cannot hang a row of its own on another host's session, and the
session's fingerprint, so a doc is of the session as it was pushed (a changed session is deleted with
its rows and inserted again). Foreign keys said so, and each row inserted ran their check: a query of its
own, over a fifth of the server's time in a push (297 µs of its CPU a doc on a two-core machine, 230
without). The
triggers here keep every rule a foreign key kept:

- an insert or update of docs or passages checks, once for the statement, that every row's key is a
  session's, and locks those sessions as a foreign key does (``FOR KEY SHARE``): a session deleted at the
  same time waits for the insert, or the insert fails. The error is a foreign key's
  (``foreign_key_violation``), so a client sees the same class;
- deleting sessions deletes their docs and passages (``ON DELETE CASCADE``), truncating them truncates
  them;
- a session's key may not change while rows name it (``NO ACTION``); trail never changes one.

They are made by every ``trail share --migrate`` where missing (:func:`statements`), replacing the foreign
keys: the rows and their answers are the same, so no schema version asks for them, and an earlier trail
pushes to and reads a database with them as before. A database migrated before still checks row by row
(:func:`by_row`), which a push and ``trail doctor`` say.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

# Each table whose rows name a session, with the columns that do, in the session's order (id, host,
# fingerprint).
NAMING = {"docs": ("sess", "host", "fingerprint"), "passages": ("sess", "host")}
_SESSION_COLUMNS = ("id", "host", "fingerprint")

# What a push and ``trail doctor`` say of a database that checks row by row, and what makes it check once
# a statement.
BY_ROW = "its docs' sessions are checked row by row (foreign keys), which takes a push about a quarter longer"
BY_STATEMENT = "trail share DSN --migrate  (once, by its administrator: a moment, nothing rewritten)"
# What ``--migrate`` says when it replaced them.
REPLACED = (
    "each pushed doc's session is now checked once a statement, not row by row: the same rules, and a push "
    "takes about a fifth less of the server's time"
)


def _check(schema: str, table: str) -> list[str]:
    """The function and triggers checking, once a statement, that every row inserted or updated in
    ``table`` names a session, locking those sessions (``FOR KEY SHARE``) as a foreign key's check does."""
    columns = NAMING[table]
    wanted = f"SELECT DISTINCT {', '.join(columns)} FROM added"
    on = " AND ".join(f"s.{s} = k.{c}" for s, c in zip(_SESSION_COLUMNS, columns, strict=False))
    key = ", ".join(columns)
    shown = ", ".join(f"k.{c}::text" for c in columns)
    function = f"{schema}.{table}_name_sessions"
    return [
        f"""CREATE OR REPLACE FUNCTION {function}() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
        DECLARE
            wanted bigint;
            locked bigint;
            missing text;
        BEGIN
            SELECT count(*) INTO wanted FROM ({wanted}) k;
            PERFORM 1 FROM {schema}.sessions s JOIN ({wanted}) k ON {on} FOR KEY SHARE OF s;
            GET DIAGNOSTICS locked = ROW_COUNT;
            IF locked < wanted THEN
                SELECT concat_ws(', ', {shown}) INTO missing FROM ({wanted}) k
                WHERE NOT EXISTS (SELECT 1 FROM {schema}.sessions s WHERE {on}) LIMIT 1;
                RAISE EXCEPTION 'insert or update on table "{table}" names no session'
                    USING ERRCODE = 'foreign_key_violation',
                    DETAIL = format('Key ({key})=(%s) is not present in table "sessions".', missing);
            END IF;
            RETURN NULL;
        END
        $fn$""",
        f"REVOKE ALL ON FUNCTION {function}() FROM PUBLIC",
        *(
            statement
            for event in ("insert", "update")
            for statement in (
                f"DROP TRIGGER IF EXISTS {table}_{event}_named ON {schema}.{table}",
                f"CREATE TRIGGER {table}_{event}_named AFTER {event.upper()} ON {schema}.{table} "
                f"REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION {function}()",
            )
        ),
    ]


def _sessions(schema: str, tables: tuple[str, ...]) -> list[str]:
    """The sessions' triggers: deleting (or truncating) sessions takes the rows naming them with them, and
    a session's key does not change while rows name it."""
    deleted = "\n".join(f"DELETE FROM {schema}.{t} r USING gone g WHERE r.sess = g.id;" for t in tables)
    truncated = ", ".join(f"{schema}.{t}" for t in tables)
    named = " OR ".join(
        f"EXISTS (SELECT 1 FROM {schema}.{t} r WHERE "
        + " AND ".join(f"r.{c} = OLD.{s}" for s, c in zip(_SESSION_COLUMNS, NAMING[t], strict=False))
        + ")"
        for t in tables
    )
    changed = " OR ".join(f"OLD.{c} IS DISTINCT FROM NEW.{c}" for c in _SESSION_COLUMNS)
    return [
        f"""CREATE OR REPLACE FUNCTION {schema}.sessions_take_their_rows() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
        BEGIN
            IF TG_OP = 'TRUNCATE' THEN
                TRUNCATE {truncated};
            ELSE
                {deleted}
            END IF;
            RETURN NULL;
        END
        $fn$""",
        f"""CREATE OR REPLACE FUNCTION {schema}.sessions_keep_their_keys() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
        BEGIN
            IF {named} THEN
                RAISE EXCEPTION 'update on table "sessions" changes the key of a session rows name'
                    USING ERRCODE = 'foreign_key_violation',
                    DETAIL = format('Key (id, host, fingerprint)=(%s, %s, %s) is still named.',
                                    OLD.id, OLD.host, OLD.fingerprint);
            END IF;
            RETURN NULL;
        END
        $fn$""",
        f"REVOKE ALL ON FUNCTION {schema}.sessions_take_their_rows() FROM PUBLIC",
        f"REVOKE ALL ON FUNCTION {schema}.sessions_keep_their_keys() FROM PUBLIC",
        f"DROP TRIGGER IF EXISTS sessions_deleted ON {schema}.sessions",
        f"CREATE TRIGGER sessions_deleted AFTER DELETE ON {schema}.sessions REFERENCING OLD TABLE AS gone "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {schema}.sessions_take_their_rows()",
        f"DROP TRIGGER IF EXISTS sessions_truncated ON {schema}.sessions",
        f"CREATE TRIGGER sessions_truncated AFTER TRUNCATE ON {schema}.sessions "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {schema}.sessions_take_their_rows()",
        f"DROP TRIGGER IF EXISTS sessions_rekeyed ON {schema}.sessions",
        f"CREATE TRIGGER sessions_rekeyed AFTER UPDATE OF {', '.join(_SESSION_COLUMNS)} "
        f"ON {schema}.sessions FOR EACH ROW WHEN ({changed}) "
        f"EXECUTE FUNCTION {schema}.sessions_keep_their_keys()",
    ]


def _foreign_keys_dropped(schema: str, table: str) -> str:
    """The foreign keys ``table`` had to the sessions, dropped (whatever the server named them)."""
    return f"""DO $do$ DECLARE name text; BEGIN
        FOR name IN SELECT conname FROM pg_constraint
                    WHERE conrelid = '{schema}.{table}'::regclass AND contype = 'f'
                    AND confrelid = '{schema}.sessions'::regclass LOOP
            EXECUTE format('ALTER TABLE {schema}.{table} DROP CONSTRAINT %I', name);
        END LOOP;
    END $do$"""


def statements(schema: str, passages: bool) -> list[str]:
    """Every statement making the checks, for the docs and (when the database holds them) the passages;
    each can run again."""
    tables = ("docs", "passages") if passages else ("docs",)
    made = [statement for table in tables for statement in _check(schema, table)]
    return [*made, *_sessions(schema, tables), *(_foreign_keys_dropped(schema, t) for t in tables)]


def by_row(conn: psycopg.Connection[Any], schema: str) -> bool:
    """Whether a table's rows still name their sessions by a foreign key (a database migrated by an
    earlier trail)."""
    found = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE contype = 'f' AND confrelid = %s::regclass)",
        (f"{schema}.sessions",),
    ).fetchone()
    return bool(found and found[0])
