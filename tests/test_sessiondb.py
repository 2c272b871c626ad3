"""A home's ``config.yaml`` ``sessiondb`` section (RFC #23717) names the PostgreSQL store it writes to."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_trail.hermes.sessiondb import read_dotenv, read_setting

RFC_CONFIG = """\
model:
  default: anthropic/claude-sonnet-4
sessiondb:
  provider: postgresql
  postgresql:
    dsn: {dsn}
    pool_size: 10
    max_overflow: 5
"""


def write(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(text)
    return home


def test_no_config_or_no_section_or_sqlite_is_no_postgres_store(tmp_path):
    assert read_setting(tmp_path, {}) is None
    assert read_setting(write(tmp_path / "a", "model:\n  default: x\n"), {}) is None
    assert read_setting(write(tmp_path / "b", "sessiondb:\n  provider: sqlite\n"), {}) is None
    assert read_setting(write(tmp_path / "c", "sessiondb: {}\n"), {}) is None


def test_the_rfc_layout_gives_its_dsn(tmp_path):
    setting = read_setting(write(tmp_path, RFC_CONFIG.format(dsn="postgresql://h:pw@db:5432/hermes")), {})
    assert setting is not None and setting.problem is None
    assert setting.dsn == "postgresql://h:pw@db:5432/hermes"
    assert "pw" not in repr(setting)


@pytest.mark.parametrize(
    ("section", "dsn"),
    [
        ("  provider: postgres\n  dsn: host=db dbname=hermes\n", "host=db dbname=hermes"),
        ("  provider: PostgreSQL\n  url: postgresql://db/hermes\n", "postgresql://db/hermes"),
        (
            "  provider: postgresql\n  postgresql:\n    host: db\n    port: 5433\n    user: h\n"
            "    database: hermes\n",
            "postgresql://h@db:5433/hermes",
        ),
        ("  {provider: postgresql, postgresql: {dsn: 'postgresql://db/x'}}\n", "postgresql://db/x"),
    ],
)
def test_other_spellings_of_the_section(tmp_path, section, dsn):
    if section.lstrip().startswith("{"):
        text = "sessiondb: " + section.strip() + "\n"
    else:
        text = "sessiondb:\n" + section
    setting = read_setting(write(tmp_path, text), {})
    assert setting is not None and setting.dsn == dsn


def test_env_references_resolve_from_the_environment_then_the_homes_dotenv(tmp_path):
    home = write(tmp_path, RFC_CONFIG.format(dsn="${HERMES_PG_DSN}"))
    setting = read_setting(home, {"HERMES_PG_DSN": "postgresql://from-env/h"})
    assert setting is not None and setting.dsn == "postgresql://from-env/h"
    (home / ".env").write_text(
        "# secrets\nOPENAI_API_KEY=sk-x\nexport HERMES_PG_DSN='postgresql://from-dotenv/h'\n"
    )
    setting = read_setting(home, {})
    assert setting is not None and setting.dsn == "postgresql://from-dotenv/h"


def test_an_unresolved_reference_is_a_problem_not_a_guess(tmp_path):
    setting = read_setting(write(tmp_path, RFC_CONFIG.format(dsn="postgresql://h:${PG_PASSWORD}@db/h")), {})
    assert setting is not None and setting.dsn is None
    assert setting.problem == (
        "sessiondb DSN refers to ${PG_PASSWORD}, not set here (set it, or name the "
        "store with --pg or TRAIL_HERMES_PG_DSN)"
    )


def test_unknown_provider_missing_dsn_and_broken_yaml_are_problems(tmp_path):
    mysql = read_setting(write(tmp_path / "a", "sessiondb:\n  provider: mysql\n"), {})
    assert mysql is not None
    assert mysql.problem == "sessiondb.provider 'mysql' is not one trail reads (sqlite, postgresql)"
    empty = read_setting(write(tmp_path / "b", "sessiondb:\n  provider: postgresql\n"), {})
    assert empty is not None
    assert empty.problem == "sessiondb.provider is postgresql but no dsn or connection fields"
    broken = read_setting(write(tmp_path / "c", "sessiondb:\n  provider: [postgresql\n"), {})
    assert broken is not None and broken.problem is not None and broken.problem.startswith("cannot be parsed")


def test_dotenv_lines(tmp_path):
    path = tmp_path / ".env"
    path.write_text('A=1\nexport B="two words"\nC=3 # note\n#D=4\nbad line\nE=\n')
    assert read_dotenv(path) == {"A": "1", "B": "two words", "C": "3", "E": ""}
    assert read_dotenv(tmp_path / "missing") == {}
