"""Each rule in one place (issue 16): what the CLI, the web, the MCP server and the timeline share is the
same function, and no module imports one that imports it back."""

from __future__ import annotations

import ast
from pathlib import Path

from hermes_trail.hermes.decode.tools import call_subject
from hermes_trail.listing import SessionFilter
from hermes_trail.model import ToolCall
from hermes_trail.timeline import rows
from hermes_trail.web.app import Filters

SRC = Path(__file__).parents[1] / "src"


def _imports() -> dict[str, set[str]]:
    """Each hermes_trail module's imports of other hermes_trail modules, at module level and inside
    functions alike (a lazy import is still a dependency), TYPE_CHECKING blocks left out."""
    modules = {}
    for path in SRC.rglob("*.py"):
        name = ".".join(path.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")
        modules[name] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        skip = {
            id(n)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for n in ast.walk(node)
        }
        for node in ast.walk(tree):
            if id(node) in skip or not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                target = full if full in modules else node.module
                if target in modules and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    return graph


def test_no_two_modules_import_each_other():
    graph = _imports()
    pairs = sorted(
        {tuple(sorted((a, b))) for a, deps in graph.items() for b in deps if a in graph.get(b, ())}
    )
    assert pairs == [], pairs


def test_a_project_filter_means_the_same_in_the_cli_and_the_web(hermes_home):
    from hermes_trail.history import open_history

    with open_history(homes=[hermes_home]) as history:
        projects = {s.project for s in history.sessions}
        ends = {p.rstrip("/").rsplit("/", 1)[-1] for p in projects} | {p[1:4] for p in projects}
        assert projects
        for wanted in sorted(projects | ends):
            cli = [s.id for s in history.sessions if SessionFilter(project=wanted).accepts(s)]
            web = [s.id for s in history.sessions if Filters(project=wanted).accepts(s)]
            assert cli == web, wanted
        assert any(SessionFilter(project="project").accepts(s) for s in history.sessions), "a path's end"


def test_a_calls_subject_is_the_same_in_the_replay_and_the_timeline():
    call = ToolCall(
        "c1", ("c1",), "web_extract", '{"query": "q"}', {"query": "q", "url": "https://x", "command": ""}
    )
    assert call_subject(call) == rows.call_subject(call) == "https://x"
    bare = ToolCall("c2", ("c2",), "todo", '{"items": []}', {"items": []})
    assert call_subject(bare) is None and rows.call_subject(bare) == '{"items": []}'


def test_the_web_and_the_mcp_server_share_one_loopback_and_token_rule():
    from hermes_trail import loopback
    from hermes_trail.mcp import address
    from hermes_trail.web import server

    assert address.is_loopback is loopback.is_loopback and server.is_loopback is loopback.is_loopback
    assert server.new_token is loopback.new_token and len(loopback.new_token()) >= loopback.MIN_TOKEN_CHARS
    assert (
        loopback.is_loopback("[::1]")
        and loopback.is_loopback("LOCALHOST")
        and not loopback.is_loopback("0.0.0.0")
    )


def test_each_question_is_described_once_for_the_cli_and_the_mcp_tools():
    """The command line's options and the MCP tools' schemas are made from one declaration
    (questions.py): the same words, the same least value, for every argument both take."""
    import typer

    from hermes_trail.cli.commands import app, command_function
    from hermes_trail.mcp.tools import TOOLS
    from hermes_trail.questions import QUESTIONS

    group = typer.main.get_command(app)
    compared = 0
    assert set(TOOLS) == {name for name, q in QUESTIONS.items() if q.tool}
    assert not QUESTIONS["stats"].tool and not QUESTIONS["export"].tool  # a person's questions
    for name, question in QUESTIONS.items():
        if not question.tool:
            continue
        schema = TOOLS[name].schema["properties"]
        assert TOOLS[name].description == question.description
        command = group.get_command(None, question.cli_command)
        assert command is not None and command_function(question.cli_command) is not None
        for param in command.params:
            if param.name in schema:
                said = question.help(param.name)
                assert schema[param.name]["description"] == said, param.name
                assert param.help.startswith(said), param.name  # a person may be told a little more
                least = getattr(param.type, "min", None)
                if least is not None:
                    assert least == schema[param.name]["minimum"], (name, param.name)
                compared += 1
    assert compared >= 25
