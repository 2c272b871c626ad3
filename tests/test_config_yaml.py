"""``config.yaml``: the flat ``command_allowlist`` Hermes' writer saves, and nothing else of the file."""

from __future__ import annotations

import hermesside as hs
from hermes_trail.hermes.sidefiles.config_yaml import parse_allowlist, read_allowlist, read_timezone, scalar


def test_hermes_allowlist_round_trips(tmp_path):
    patterns = ["recursive delete", "podman *", "it's: #x", "- dash", '"q"', "tab\there"]
    hs.run_plan(tmp_path / "home", [{"op": "allowlist", "patterns": patterns}], env={"HOME": str(tmp_path)})
    found, problem = read_allowlist(tmp_path / "home" / "config.yaml")
    assert problem is None and found.present and found.problem is None
    assert sorted(e for e, _ in found.entries) == sorted(patterns)


def test_other_shapes_stop_with_one_problem():
    """Hand-built: shapes Hermes' writer does not produce."""
    found = parse_allowlist(
        ["x: 1", "command_allowlist:", "- a  # why", "  # note", "", "- 'b'", "- {k: v}", "- c", "next: 2"]
    )
    assert found.entries == [("a", 3), ("b", 6)]
    assert found.problem == "- {k: v}: not a plain scalar" and found.problem_line == 7
    assert (
        parse_allowlist(["command_allowlist: [a, b]"]).problem
        == "command_allowlist: [a, b]: not a block list"
    )
    assert parse_allowlist(["command_allowlist: []"]).entries == []
    assert parse_allowlist(["other: 1"]).present is False
    assert (
        parse_allowlist(["command_allowlist:", "  nested: map"]).problem
        == "nested: map: not a '- <entry>' line"
    )
    assert (
        parse_allowlist(["command_allowlist:", "  - key: value"]).problem
        == "- key: value: a mapping, not a scalar"
    )


def test_scalars():
    assert scalar("'it''s'") == ("it's", None)
    assert scalar('"a\\tb\\u00e9"') == ("a\tb\u00e9", None)
    assert scalar("plain # comment") == ("plain", None)
    assert scalar("&anchor x")[0] is None and scalar('"open')[0] is None and scalar("'x'y'")[0] is None


def test_timezone(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("model: x\ntimezone: Asia/Kolkata\n")
    assert read_timezone(path) == "Asia/Kolkata"
    path.write_text("model: x\n")
    assert read_timezone(path) is None
