"""DSNs are shown without their password wherever trail prints or keeps them."""

from __future__ import annotations

import pytest

from hermes_trail.hermes.dsn import from_fields, is_uri, scrub, secrets_of, shown


@pytest.mark.parametrize(
    ("dsn", "expected"),
    [
        ("postgresql://hermes:s3cret@db.local:5432/hermes", "postgresql://hermes:***@db.local:5432/hermes"),
        ("postgres://hermes@db.local/hermes", "postgres://hermes@db.local/hermes"),
        (
            "postgresql://db.local/hermes?user=h&password=s3cret&sslmode=require",
            "postgresql://db.local/hermes?user=h&password=***&sslmode=require",
        ),
        ("postgresql://h:p%40ss@[::1]:5433/hermes", "postgresql://h:***@[::1]:5433/hermes"),
        ("host=db user=h password=s3cret dbname=hermes", "host=db user=h password=*** dbname=hermes"),
        ("host=db password = 'it\\'s a secret' dbname=x", "host=db password=*** dbname=x"),
        ("host=db dbname=hermes", "host=db dbname=hermes"),
    ],
)
def test_shown_hides_every_password(dsn, expected):
    assert shown(dsn) == expected
    for secret in secrets_of(dsn):
        assert secret not in shown(dsn)


def test_scrub_takes_a_password_out_of_any_message():
    dsn = "postgresql://hermes:s3cret@db/hermes"
    assert scrub('FATAL: password "s3cret" rejected', dsn) == 'FATAL: password "***" rejected'
    assert secrets_of("host=db password='a b'") == ["a b"]


def test_a_dsn_from_separate_fields():
    assert from_fields(
        {
            "host": "db",
            "port": 5433,
            "user": "hermes",
            "password": "p@ss",
            "database": "h",
            "sslmode": "require",
            "pool_size": 10,
        }
    ) == ("postgresql://hermes:p%40ss@db:5433/h?sslmode=require")
    assert from_fields({"host": "/var/run/postgresql", "dbname": "hermes"}) == (
        "postgresql:///hermes?host=%2Fvar%2Frun%2Fpostgresql"
    )
    assert from_fields({"pool_size": 10}) is None
    assert is_uri("POSTGRESQL://x") and not is_uri("host=x")
