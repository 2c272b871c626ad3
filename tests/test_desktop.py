"""The desktop app's ``connections.json``, never with a secret (hand-built: the Electron app writes it)."""

from __future__ import annotations

import json

from hermes_trail.hermes import locate
from hermes_trail.hermes.sidefiles.desktop import read_connections

TOKEN = "tok-DO-NOT-PRINT"


def test_connections_without_credentials(tmp_path):
    path = tmp_path / "connections.json"
    path.write_text(
        json.dumps(
            {
                "version": 2,
                "connections": [
                    {"id": "local", "kind": "local", "label": "This device"},
                    {
                        "id": "c",
                        "kind": "cloud",
                        "label": "Cloud",
                        "url": "https://x.test",
                        "org": "acme",
                        "name": "prod",
                        "token": {"encoding": "plain", "value": TOKEN},
                        "headers": {"H": {"encoding": "plain", "value": TOKEN}},
                    },
                    {"id": "s", "kind": "ssh", "label": "Box", "host": "h.test", "port": 22, "keyPath": "/k"},
                    ["not", TOKEN],
                ],
                "quarantined": [{"reason": "bad url", "entry": {"token": TOKEN}}, TOKEN],
            }
        )
    )
    registry, strays = read_connections(path)
    assert [(c.kind, c.where) for c in registry.connections] == [
        ("local", "-"),
        ("cloud", "https://x.test"),
        ("ssh", "h.test:22"),
    ]
    assert registry.quarantined == ["bad url"]
    assert [s.reason for s in strays] == [
        "unparseable record 4 (not an object)",
        "unparseable record quarantined 2 (not an object with a reason)",
    ]
    assert TOKEN not in repr(registry) and TOKEN not in repr(strays)


def test_located_under_the_user_config_dir(tmp_path):
    base = tmp_path / ".config" / "Hermes-canary"
    base.mkdir(parents=True)
    (base / "connections.json").write_text("{}")
    (base / "connection.json").write_text("{}")
    found = locate.desktop_side_files(
        {"HERMES_DATA_DIR_SUFFIX": "-canary"}, platform="linux", user_home=tmp_path
    )
    assert [f.path for f in found] == [base / "connections.json"]
    mac = tmp_path / "Library" / "Application Support" / "Hermes"
    mac.mkdir(parents=True)
    (mac / "connections.json").write_text("{}")
    assert (
        locate.desktop_side_files({}, platform="darwin", user_home=tmp_path)[0].path
        == mac / "connections.json"
    )
    assert locate.desktop_side_files({"HERMES_DESKTOP_USER_DATA_DIR": str(base)}, user_home=tmp_path)
