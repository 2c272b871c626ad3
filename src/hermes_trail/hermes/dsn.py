"""PostgreSQL connection strings: recognised, built from Hermes' config fields, and shown without secrets.

A DSN is either a URI (``postgresql://user:secret@host:5432/hermes?sslmode=require``) or libpq's
``key=value`` form (``host=db user=hermes password=secret dbname=hermes``). Whatever trail prints, stores
in its index or puts in ``--json`` is the *shown* form: the password (in the user-info part, or a
``password`` parameter of either form) replaced by ``***``. Nothing here imports psycopg, so locating
stores costs no start-up time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

HIDDEN = "***"
URI_SCHEMES = ("postgresql", "postgres")
# libpq's key=value form: a key, '=', then a single-quoted value (with \' and \\ escapes) or a bare word.
_PAIR = re.compile(r"(?P<key>[A-Za-z_]+)\s*=\s*(?P<value>'(?:[^'\\]|\\.)*'|\S*)")
# Fields of a config section that libpq takes as they are (``dbname`` also answers to ``database``).
_FIELDS = (
    "host",
    "hostaddr",
    "port",
    "user",
    "password",
    "dbname",
    "sslmode",
    "options",
    "application_name",
    "connect_timeout",
    "sslrootcert",
    "sslcert",
    "sslkey",
    "target_session_attrs",
    "service",
)


def is_uri(dsn: str) -> bool:
    return dsn.strip().lower().startswith(tuple(f"{s}://" for s in URI_SCHEMES))


# Every keyword libpq's ``key=value`` form takes (PostgreSQL 17's list).
# fmt: off
_KEYWORDS = frozenset((
    "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth",
    "channel_binding", "connect_timeout", "client_encoding", "options", "application_name",
    "fallback_application_name", "keepalives", "keepalives_idle", "keepalives_interval",
    "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode", "requiressl",
    "sslcompression", "sslcert", "sslkey", "sslpassword", "sslcertmode", "sslrootcert", "sslcrl",
    "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version", "ssl_max_protocol_version",
    "krbsrvname", "gsslib", "gssdelegation", "service", "target_session_attrs", "load_balance_hosts",
    "sslnegotiation",
))
# fmt: on


def is_conninfo(text: str) -> bool:
    """Whether ``text`` is libpq's ``key=value`` form, each key one libpq takes: ``service=trail`` (a
    ``pg_service.conf`` entry) or ``user=trail`` (the rest from ``PG*`` variables) as much as ``host=db
    dbname=trail``. Not a file's path, even one with an ``=`` in its name."""
    text = text.strip()
    position, found = 0, False
    for pair in _PAIR.finditer(text):
        if text[position : pair.start()].strip() or pair["key"] not in _KEYWORDS:
            return False
        position, found = pair.end(), True
    return found and not text[position:].strip()


def shown(dsn: str) -> str:
    """The DSN with any password replaced by ``***``: safe for messages, JSON, the index and docs."""
    text = dsn.strip()
    if is_uri(text):
        return _shown_uri(text)
    return _PAIR.sub(lambda m: f"{m['key']}={HIDDEN}" if m["key"].lower() == "password" else m[0], text)


def _shown_uri(text: str) -> str:
    try:
        parts = urlsplit(text)
    except ValueError:
        return re.sub(r"(://[^:/@]*:)[^@]*@", rf"\1{HIDDEN}@", text)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hosts = netloc.rpartition("@")
        user, colon, _secret = userinfo.partition(":")
        netloc = f"{user}:{HIDDEN}@{hosts}" if colon else netloc
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(k.lower() == "password" for k, _ in pairs):
            query = urlencode([(k, HIDDEN if k.lower() == "password" else v) for k, v in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def secrets_of(dsn: str) -> list[str]:
    """The password literals in ``dsn``, so an error text that repeats one can be cleaned of it."""
    text = dsn.strip()
    found: list[str] = []
    if is_uri(text):
        try:
            parts = urlsplit(text)
        except ValueError:
            return found
        if parts.password:
            found.append(parts.password)
        found.extend(v for k, v in parse_qsl(parts.query) if k.lower() == "password" and v)
    else:
        for m in _PAIR.finditer(text):
            if m["key"].lower() == "password":
                value = m["value"]
                found.append(value[1:-1] if value.startswith("'") else value)
    return [s for s in found if s]


def scrub(message: str, dsn: str) -> str:
    """``message`` with every password of ``dsn`` in it replaced by ``***`` (a driver error may echo one)."""
    for secret in secrets_of(dsn):
        message = message.replace(secret, HIDDEN)
    return message


def from_fields(section: Mapping[str, Any]) -> str | None:
    """A URI from a config section's separate fields (``host``, ``port``, ``user``, ``password``,
    ``dbname`` or ``database``, ...); ``None`` when it names no database at all."""
    values = {k: str(section[k]) for k in _FIELDS if section.get(k) not in (None, "")}
    if "dbname" not in values and section.get("database") not in (None, ""):
        values["dbname"] = str(section["database"])
    if not values:
        return None
    user = quote(values.pop("user", ""), safe="")
    password = values.pop("password", None)
    host = values.pop("host", "")
    port = values.pop("port", "")
    dbname = quote(values.pop("dbname", ""), safe="")
    userinfo = user + (":" + quote(password, safe="") if password is not None else "")
    if host.startswith("/"):  # a Unix-socket directory goes in the query, where a URI allows slashes
        values["host"], host = host, ""
    netloc = (userinfo + "@" if userinfo else "") + host + (":" + port if port else "")
    query = urlencode(values)
    return f"postgresql://{netloc}/{dbname}" + (f"?{query}" if query else "")
