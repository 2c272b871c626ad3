"""A Hermes home for the stats, export and web tests, written through Hermes' own ``SessionDB``.

Besides the ``hermesdb.coding`` session (a failing then passing ``pytest``, a file read and a patch), it
holds content that is hostile to whatever shows it: a prompt carrying a ``<script>``, a reply carrying an
``<img>`` that would load from the network and a Markdown image, terminal escape sequences in a command's
output, and a secret in a command. Also: a command the user denied, a rewind, a model switch marker, a
continuation child (its parent ended by compression), known and unknown costs, and a session in the
profile ``work``.
"""

from __future__ import annotations

from pathlib import Path

import hermesdb as h

HOSTILE_ID = "20261105_090000_bad0c0"
DENIED_ID = "20261106_090000_de0001"
PARENT_ID = "20261107_090000_aaa001"
CHILD_ID = "20261107_100000_aaa002"
REWIND_ID = "20261108_090000_feed01"
WORK_ID = "20261109_090000_0b0b01"
CODING_ID = h.CODING_ID
DAY = 86400
# The secret a test looks for: redacted everywhere unless asked not to be.
SECRET = "sk-proj-" + "Zx9" * 12 + "Qw"
SCRIPT = "<script>window.__pwned = 1; document.title = 'pwned'</script>"
IMG = '<img src="http://127.0.0.9:9/pixel.png" onerror="window.__pwned = 2">'
MD_IMAGE = "![tracker](http://127.0.0.9:9/md.png)"
ANSI = "\x1b[31mred alert\x1b[0m \x1b]0;title\x07done"


def hostile() -> h.SessionSpec:
    t = h.T0 + 4 * DAY
    messages = [
        h.user(f"Render this please: {SCRIPT} and {MD_IMAGE}", timestamp=t),
        h.assistant(f"Here it is {IMG} — <b>bold</b> & more.", timestamp=t + 5),
        h.user("Now deploy with the key.", timestamp=t + 60),
        h.assistant(
            "",
            h.call("call_h1", "terminal", command=f"OPENAI_API_KEY={SECRET} ./deploy.sh"),
            timestamp=t + 65,
            reasoning="I will run the deploy script with the key inline.",
        ),
        h.tool("call_h1", "terminal", {"output": ANSI, "exit_code": 0, "error": None}, timestamp=t + 67),
        h.assistant("Deployed.", timestamp=t + 70),
    ]
    return h.SessionSpec(
        HOSTILE_ID,
        messages,
        title="Hostile <script>alert(1)</script> title",
        started_at=t,
        ended_at=t + 80,
        cwd="/home/dev/web",
        tokens={
            "input_tokens": 500,
            "output_tokens": 50,
            "estimated_cost_usd": 0.25,
            "cost_status": "estimated",
            "cost_source": "provider_models_api",
        },
    )


def denied() -> h.SessionSpec:
    t = h.T0 + 5 * DAY
    blocked = {
        "output": "",
        "exit_code": -1,
        "status": "blocked",
        "error": "BLOCKED: User denied this command. Do NOT retry this command.",
    }
    messages = [
        h.user("Make the build directory world-writable.", timestamp=t),
        h.assistant("", h.call("call_d1", "terminal", command="chmod -R 777 build"), timestamp=t + 5),
        h.tool("call_d1", "terminal", blocked, timestamp=t + 30),
        h.assistant("You denied it, so nothing changed.", timestamp=t + 31),
    ]
    return h.SessionSpec(DENIED_ID, messages, started_at=t, ended_at=t + 40)


def rewound() -> h.SessionSpec:
    t = h.T0 + 7 * DAY
    messages = [
        h.user("Pick a number.", timestamp=t),
        h.assistant("Seven.", timestamp=t + 1),
        h.user("Double it.", timestamp=t + 2),
        h.assistant("Fourteen.", timestamp=t + 3),
        h.user("Triple it instead.", timestamp=t + 4),
        h.assistant("Twenty-one.", timestamp=t + 5),
    ]
    # Rewinding to "Double it." deactivates it and what followed; Hermes then appends the new turn, so the
    # spec writes the rewound pair first and the replacement after (see write_home below).
    return h.SessionSpec(REWIND_ID, messages[:4], started_at=t, ended_at=t + 10, rewind_to=2)


def write_home(root: Path) -> Path:
    """The home: the default store and the ``work`` profile."""
    t = h.T0 + 6 * DAY
    parent = h.chat(
        PARENT_ID,
        ("Summarise the plan.", "Step one, step two."),
        start=t,
        title="The plan",
        end_reason="compression",
    )
    child = h.chat(
        CHILD_ID,
        ("Carry on.", "Step three."),
        start=t + 3600,
        parent_session_id=PARENT_ID,
        title="The plan #2",
    )
    switch = h.user(
        "[System: The active model for this chat has changed to big-model via provider acme. "
        "From this point forward, answer as big-model.]",
        timestamp=t + 3700,
    )
    child.messages.insert(2, switch)
    home = h.write_home(
        root,
        [h.coding(CODING_ID, start=h.T0 + 3600), hostile(), denied(), parent, child, rewound()],
        profiles={
            "work": [
                h.chat(
                    WORK_ID,
                    ("Standup notes?", "Three items."),
                    start=h.T0 + 8 * DAY,
                    tokens={"input_tokens": 100, "output_tokens": 10},
                )
            ]
        },
    )
    # The rewind's replacement turn, appended after the rewind as Hermes appends it.
    store = home / "state.db"
    with h.hermes_env(home):
        db = h.session_db(store)
        try:
            base = h.T0 + 7 * DAY
            db.append_message(REWIND_ID, "user", "Triple it instead.", timestamp=base + 4)
            db.append_message(REWIND_ID, "assistant", "Twenty-one.", timestamp=base + 5)
        finally:
            db.close()
    return home
