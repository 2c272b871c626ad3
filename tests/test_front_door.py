"""One front door (issue 16): every question of ``questions.py`` that has a ``trail`` command is asked
through ``service.Trail``, and the command's options are made from the question's declaration. Checked here
for each question: every argument the declaration gives the command line is an option (or the argument) of
its command, with the declared help, bounds and default; and the command's ``--json`` answer is Trail's
typed answer, on a home written by Hermes' own ``SessionDB``."""

from __future__ import annotations

import inspect
import json
import typing
from pathlib import Path
from typing import Any

import pytest

from hermes_trail.cli import params
from hermes_trail.cli.registry import COMMANDS, command_function
from hermes_trail.questions import QUESTIONS, Param, Question
from hermesdb import CHAT_ID, CODING_ID, WORK_ID

pytest.importorskip("hermes_state")

ASKED = [q for q in QUESTIONS.values() if q.cli_command in COMMANDS]


def declared(question: Question) -> dict[str, tuple[Any, inspect.Parameter]]:
    """The command's parameters by name: the Option or Argument in its annotation, and the parameter."""
    func = command_function(question.cli_command)
    hints = typing.get_type_hints(func, include_extras=True)
    out = {}
    for param in inspect.signature(func).parameters.values():
        extras = typing.get_args(hints[param.name])[1:]
        found = [e for e in extras if isinstance(e, params.Option | params.Argument)]
        out[param.name] = (found[0] if found else None, param)
    return out


def test_every_question_has_its_command():
    assert {q.name for q in ASKED} == set(QUESTIONS)
    assert {q.name for q in ASKED} >= {"recall", "search", "fix", "blame", "how", "show", "sessions"}
    assert {"stats", "export"} <= set(QUESTIONS)
    assert QUESTIONS["sessions"].cli_command == "list"


@pytest.mark.parametrize("question", ASKED, ids=lambda q: q.name)
def test_each_declared_argument_is_an_option_with_its_words_bounds_and_default(question: Question):
    options = declared(question)
    for p in question.params:
        if p.cli is None:  # an agent's paging: not on the command line
            assert p.name not in options, p.name
            continue
        declaration, parameter = options[p.name]
        assert declaration is not None, p.name
        assert declaration.settings.get("help") == p.cli_help, p.name
        assert declaration.settings["help"].startswith(p.help)  # a person may be told a little more
        if p.name in question.required:
            assert isinstance(declaration, params.Argument), p.name
            continue
        assert isinstance(declaration, params.Option), p.name
        assert declaration.decls[0] == "--" + p.name.replace("_", "-"), p.name
        least, most = p.cli_bounds
        assert declaration.settings.get("min") == least, p.name
        assert declaration.settings.get("max") == most, p.name
        assert parameter.default == p.cli_default, p.name


@pytest.mark.parametrize("question", ASKED, ids=lambda q: q.name)
def test_typer_builds_the_same_options(question: Question):
    """What ``--help`` shows and click enforces: the declared help and bounds."""
    import typer

    from hermes_trail.cli.typer_app import app

    command = typer.main.get_command(app).get_command(None, question.cli_command)  # type: ignore[attr-defined]
    built = {param.name: param for param in command.params}
    for p in question.params:
        if p.cli is None:
            continue
        param = built[p.name]
        if p.name not in question.required:
            assert param.help == p.cli_help, p.name
        if p.kind == "count":
            least, most = p.cli_bounds
            assert getattr(param.type, "min", None) == least and getattr(param.type, "max", None) == most


def test_a_bound_the_declaration_gives_the_command_line_is_enforced(trail_here, hermes_home, tmp_path):
    most = QUESTIONS["recall"].param("limit").cli_bounds[1]
    assert most is not None
    done = trail_here("recall", "x", "-n", most + 1, "--home", hermes_home, "--index", tmp_path / "i.db")
    assert done.returncode == 2 and "--limit" in done.stderr


# -- the command's answer is Trail's -------------------------------------------------------------------


@pytest.fixture
def door(hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The CLI (in this process) and a ``Trail`` over the same home and index; the meaning pass computed
    here by both, so neither depends on a server."""
    from hermes_trail.service import Trail

    monkeypatch.setenv("TRAIL_MEANING_SERVER", "0")
    index = tmp_path / "index.db"
    return Trail(index=index, homes=(hermes_home,)), ["--home", str(hermes_home), "--index", str(index)]


def _json(done: Any) -> Any:
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def _limit(question: str) -> int:
    default = QUESTIONS[question].param("limit").cli_default
    assert isinstance(default, int)
    return default


def test_search_answers_as_trail_does(door, trail_here):
    from hermes_trail.serialize import search_json

    trail, where = door
    for query, options in (("pytest", []), ("standup", ["--profile", "work"])):
        said = _json(trail_here("search", query, "--json", *options, *where))
        kwargs: dict[str, Any] = {"profile": options[1]} if options else {}
        typed = search_json(trail.search_result(query, limit=_limit("search"), **kwargs))
        said.pop("seconds"), typed.pop("seconds")
        assert said == typed and said["conversations"]
    assert said["conversations"][0]["hits"][0]["session_id"] == WORK_ID


def test_recall_answers_as_trail_does(door, trail_here):
    trail, where = door
    said = _json(trail_here("recall", "tests fail", "--json", *where))
    assert said["page"] and said["page"] == trail.recall_page("tests fail", budget=said["budget"])


def test_fix_answers_as_trail_does(door, trail_here):
    from hermes_trail.serialize import record_json

    trail, where = door
    said = _json(trail_here("fix", "1 failed, 3 passed", "--json", *where))
    assert said == record_json(trail.fix_report("1 failed, 3 passed", limit=_limit("fix")))


def test_blame_and_how_answer_as_trail_does(door, trail_here):
    from hermes_trail.serialize import record_json

    trail, where = door
    said = _json(trail_here("blame", "app.py", "--json", *where))
    edits = trail.blame_edits("app.py", limit=_limit("blame"))
    assert said == {"path": "app.py", "edits": record_json(edits), "near": []} and edits
    assert {e.session_id for e in edits} == {CODING_ID}
    said = _json(trail_here("how", "pytest", "--json", *where))
    commands = trail.how_commands("pytest", limit=_limit("how"))
    assert said == {"what": "pytest", "commands": record_json(commands)} and commands


def test_show_answers_as_trail_does(door, trail_here):
    from hermes_trail.serialize import transcript_json

    trail, where = door
    said = _json(trail_here("show", CODING_ID, "--json", *where[:2]))
    with trail.open_history(catalog=False) as history, trail.finder(history) as finder:
        replay = trail.replay(finder, CODING_ID)
        assert said == transcript_json(replay.session) and replay.chain == [replay.session]


@pytest.mark.parametrize("options", [[], ["--profile", "work"], ["--project", "project"], ["-n", "0"]])
def test_list_answers_as_trail_does(door, trail_here, options):
    from hermes_trail.serialize import session_json

    trail, where = door
    said = _json(trail_here("list", "--json", *options, *where[:2]))
    limit = int(options[1]) if options[:1] == ["-n"] else _limit("sessions")
    asked = {options[0].lstrip("-"): options[1]} if options and options[0] != "-n" else {}
    with trail.open_history(catalog=trail.catalog_for(asked.get("project"), limit)) as history:
        listing = trail.listing(history, limit=limit, **asked)
        assert said["sessions"] == [session_json(s) for s in listing.sessions] and said["sessions"]
        assert said["total"] == listing.matched and listing.unknown is None


@pytest.mark.parametrize(
    "options", [[], ["--by", "profile"], ["--profile", "work"], ["--since", "2016-01-01", "--budget", "0"]]
)
def test_stats_answers_as_trail_does(door, trail_here, options):
    from hermes_trail.serialize import stats_json

    trail, where = door
    done = trail_here("stats", "--json", *options, *where[:2])
    assert done.returncode in (0, 4), done.stderr
    said = json.loads(done.stdout)
    asked = dict(zip((o.lstrip("-") for o in options[::2]), options[1::2], strict=True))
    budget = asked.pop("budget", None)
    typed = stats_json(trail.stats_report(**asked), None if budget is None else float(budget))
    assert said == typed and said["overall"]["sessions"]
    assert said == trail.stats(**asked) | {"budget": said["budget"]}
    assert done.returncode == (4 if budget is not None and said["budget"]["over"] else 0)


def test_stats_refuses_what_it_cannot_read_in_its_words(trail_here, tmp_path):
    """A wrong argument is said before any store is read: a store that is no database is never opened
    (else trail would say it skipped it)."""
    garbage = tmp_path / "state.db"
    garbage.write_bytes(b"not a database" * 100)
    for options, said in (
        (["--by", "planet"], "by 'planet': one of project, model"),
        (["--since", "soonish"], "soonish"),
    ):
        done = trail_here("stats", *options, "--db", garbage)
        assert done.returncode == 1 and said in done.stderr, done.stderr
        assert "skipped" not in done.stderr and "Traceback" not in done.stderr
    assert "skipped" in trail_here("stats", "--db", garbage).stderr  # (which it does when it reads it)


@pytest.mark.parametrize("fmt", ["md", "jsonl"])
def test_export_writes_what_trail_exports(door, trail_here, fmt):
    trail, where = door
    done = trail_here("export", CODING_ID, "-f", fmt, *where[:2])
    assert done.returncode == 0, done.stderr
    exported = trail.export(CODING_ID, format=fmt)
    assert done.stdout == exported["text"] and exported["session_id"] == CODING_ID
    assert exported["name"].endswith("." + fmt)


def test_the_json_for_a_model_is_the_typed_answer_budgeted(door):
    """The agent's answers are wrappers over the same reading: the typed answer, redacted and cut."""
    from hermes_trail.serialize import record_json
    from hermes_trail.service import clip

    trail, _ = door
    assert trail.blame("app.py")["edits"] == clip(record_json(trail.blame_edits("app.py", limit=20)))
    assert trail.how("pytest")["commands"] == clip(record_json(trail.how_commands("pytest", limit=10)))
    ids = [s["id"] for s in trail.sessions()["sessions"]]
    with trail.open_history() as history:
        assert ids == [s.id for s in trail.listing(history, limit=20).sessions]
    assert CHAT_ID in ids and WORK_ID in ids


def test_the_quick_path_reads_the_generated_options_without_typer():
    """Options made from the declaration stay readable by the quick command-line reader."""
    for name, argv in (
        ("search", ["x", "-n", "3", "--include-rewound"]),
        ("recall", ["x", "--limit", "3"]),
        ("fix", ["boom", "-n", "2"]),
        ("blame", ["a.py", "--include-rewound"]),
        ("how", ["deploy", "--project", "api"]),
        ("show", ["abc"]),
        ("list", ["-n", "0"]),
        ("stats", ["--by", "day", "--estimate", "--since", "7d"]),
    ):
        assert params.parse(command_function(name), argv) is not None, name


def test_param_cli_view():
    """What a ``Cli`` changes, and what it keeps."""
    from hermes_trail.questions import Cli

    kept = Param("limit", "count", "Rows.", 5, most=20)
    assert (kept.cli_default, kept.cli_bounds, kept.cli_help) == (5, (1, 20), "Rows.")
    more = Param("limit", "count", "Rows.", 5, most=20, cli=Cli(default=50, most=None, note="0: all."))
    assert (more.cli_default, more.cli_bounds, more.cli_help) == (50, (1, None), "Rows. 0: all.")
    assert Param("q", "text", "Words.").cli_bounds == (None, None)
