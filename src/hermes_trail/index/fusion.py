"""How the evidence of a search is weighed and fused into one order: what each kind of turn and session
weighs, how much each list of weak evidence counts (every word, any of them, meaning, titles, a
dictionary's readings), and the lifts a question's wording gives (a file it names, a profile, the asker
themselves, a conversation in another language). The local index and the shared one rank by these same
rules, so a question gets the same answer from either."""

from __future__ import annotations

import math
import re

from hermes_trail.index import cjk, query, stopwords
from hermes_trail.index.plan import project_words
from hermes_trail.index.results import Conversation, Hit

# How much a conversation of a profile the query names ("what did the bot say") is lifted.
PROFILE_BOOST = 0.5


# How much each kind of doc weighs: what a person typed or was told counts most.
KIND_WEIGHT = {
    "prompt": 1.3,
    "summary": 1.1,
    "reply": 1.0,
    "command": 1.0,
    "edit": 0.9,
    "blocked": 0.8,
    "notice": 0.6,
    "system": 0.6,
    "tool": 0.8,
    "memory": 1.0,
    "skill": 0.9,
}


# Sessions people did not drive themselves rank lower, not out.
SESSION_WEIGHT = {"cron": 0.55, "subagent": 0.7, "tool": 0.7}


# Newer beats older at equal relevance; at most this much (an updated fact must win over the stale one).
RECENCY_BOOST = 0.35


# A conversation's further matching turns add this share of their scores to its best one.
CORROBORATION = 0.15


# The weak evidence is fused by score (each list's scores against its best, :func:`evidence_of`), each list
# weighed: the conversations with every word, with any of them (scaled by how much of the query exists),
# the nearest in meaning, and those found by their titles alone.
STRICT_WEIGHT = 1.5


LEXICAL_WEIGHT = 1.0


# The meaning list's weight was 0.75 until a second set of questions written from the summaries alone
# (bench/recall's `fresh`) was scored: 0.86 answered two more of them first and no tuning question fewer
# (0.9: one path question fewer; 1.05: four tuning questions fewer).
SEMANTIC_WEIGHT = 0.86


# How far out of the crowd of every session (standard deviations above the mean of their standings) the
# nearest conversation in meaning must stand for its evidence to count more than any list's best
# (:func:`meaning_evidence`). Chosen on the recall benchmark's 593 tuning questions: 4.25 to 5.0 put
# 547-549 first against 545 (most of them questions across languages, whose conversations share no word
# with them), 4.0 and 5.5 545; none moved on the `tune` half at 1 (bench/recall/README.md).
MEANING_STANDOUT = 4.5


# The same list when every session in it stands by its gist (none has passages yet: a sync the vector stage
# has not caught up with): the static vectors read English only and know far less than the passages'
# model, so their standings weigh as all meaning did before (an English conversation near by its gist
# outweighed a Japanese one that has every word of the question through the dictionary).
GIST_WEIGHT = 0.75


# A question made only of paths, file names and dotted names is no sentence: the sentence model reads it
# as the topic of its parts (``tax/vat_rates.yaml``: taxes), which outweighed the conversation that has
# every part of it. Its meaning weighs this share of SEMANTIC_WEIGHT (:func:`meaning_weight`).
NAMES_MEANING_SHARE = 0.5


# A question asking for a file ("which file", "the DAG file", "どのファイル": :func:`asked_file_lift`) asks
# for a name, which the sentence model reads as the file's topic: a command's output listing the file among
# others ("List the DAGs", run again and again) stood nearer "churn report airflow dag schedule file" than
# the edit that wrote it. Its meaning weighs this share of SEMANTIC_WEIGHT (:func:`meaning_weight`). On the
# recall benchmark's 2,338 tuning questions, 0.5: four more first, none fewer; 0.35: four more, three fewer.
ASKED_FILE_MEANING_SHARE = 0.5


TITLE_WEIGHT = 1.2


# Hermes' memory entries and skills are what it chose to keep: their evidence counts this much more.
KNOWLEDGE_WEIGHT = 1.0


# A question about the asker ("how do I like answers laid out", :func:`stopwords.speaks_of_self`): what
# Hermes keeps about the user (``USER.md``) is where that is written, so its evidence counts this much more.
PERSON_WEIGHT = 2.0


# The same question's world: Hermes' own notes (``MEMORY.md``: the asker's machines, projects and ways of
# working, "The laptop is a ThinkPad ... running Fedora 40") count this much more, less than what it keeps
# about the person. Not a skill: "which hashtag do I use" asks a procedure no more for its "I".
WORLD_WEIGHT = 1.3


# Conversations found only when any term may match weigh this much less than those with every term.
RELAXED_WEIGHT = 0.3


# A Chinese or Japanese question's words read as English (the search's ``_translated``): a dictionary's
# readings are looser than the words typed (several senses each), so their list weighs less than the
# question's own.
TRANSLATED_WEIGHT = 0.6


# How much an edit of the file a query names weighs more than the other turns that matched it.
EDIT_LIFT = 1.6


# How much an edit weighs more in a question that asks for a file ("which file", "the theme colors file",
# :func:`asked_file_lift`): the edit that wrote it is the answer, where a prompt or a command's output
# listing the file by the question's words is not. Chosen on the recall benchmark's 942 tuning questions:
# 1.6 and 2.0 put one and two more first, 2.5 three, none fewer (bench/recall/README.md).
ASKED_FILE_LIFT = 2.5


# A question's word for a file, in the languages indexed (Italian says "file" too); not a file's size
# ("the resulting file sizes" asks how large, not which file).
_ASKS_FILE = re.compile(
    r"\b(?:files?|datei(?:en)?|fichiers?|archivos?|ficheiros?|arquivos?|bestand(?:en)?)\b(?!\s+sizes?\b)|文件|ファイル",
    re.IGNORECASE,
)


# A question asking where something was put, in the languages indexed ("where did RandAugment get added",
# "where did we put the redirects", "which module", "dónde guardé"), asks for a file as well: two more
# questions of the recall benchmark first, none fewer, on its 2,338 tuning questions. A host is not asked
# this way ("where does redis run now" is no question for a file).
_ASKS_PLACE = re.compile(
    r"\bwhere\b[^?.!;]{0,80}?\b(?:added|put|saved|stored|kept|lives?|defined|written|created|placed)\b"
    r"|\bwhich (?:module|script|config)\b"
    r"|\bd[oó]nde\b[^?]{0,40}\b(?:guard[eéóa]\w*|a[ñn]ad\w+)\b"
    r"|\bwo\b[^?]{0,40}\b(?:gespeichert|abgelegt|hinzugef\w+)\b"
    r"|\bo[uù]\b[^?]{0,40}\b(?:enregistr\w+|ajout\w+|rang\w+)\b",
    re.IGNORECASE,
)


def asked_file_lift(text: str) -> float:
    """How much an edit's evidence counts in a search for ``text``: :data:`ASKED_FILE_LIFT` when the
    question asks for a file, else 1."""
    return ASKED_FILE_LIFT if _ASKS_FILE.search(text) or _ASKS_PLACE.search(text) else 1.0


def kind_weight(kind: str, edit_lift: float = 1.0) -> float:
    """How much a hit of ``kind`` weighs (:data:`KIND_WEIGHT`; 0.8 for a kind not listed), an edit
    ``edit_lift`` times more (:func:`asked_file_lift`): the local index and the shared one score alike."""
    weight = KIND_WEIGHT.get(kind, 0.8)
    return weight * edit_lift if kind == "edit" else weight


# A term that names a file: a path, or a name with an extension.
_FILE_LIKE = re.compile(r"[/\\]|\w\.[A-Za-z][A-Za-z0-9]{0,7}$")


# How much more the meaning of a conversation held in another language than the question counts. The
# sentence model places a question nearer to every passage in its own language: 1.2 until the recall
# benchmark's questions across languages were tripled (its `fresh` and `engineer` sets); on all 593 tuning
# questions 1.4 answered four more first and none fewer, 1.5 one fewer than that, 2.0 lost six questions in
# the same language as their conversation (bench/recall/README.md).
CROSS_LINGUAL_LIFT = 1.4


# How strongly the share of the query a conversation covers weighs its any-word score.
COVERAGE_POWER = 2


# How many of the query's words (bigrams, for a Chinese or Japanese question) its coverage counts: a
# question put in everyday words runs to nine or ten, and its topic often comes last ("... after swapping
# out the old date library"); counting only the first eight left "library" out.
COVERAGE_TERMS = 12


COVERAGE_BIGRAMS = 24

# How far a word's docs are counted to tell how rare it is (:func:`rarity`, the rule of the newest fact): a
# word in more says little, whatever the index.
RARE_CAP = 200


def rarity(total: int, docs: int) -> float:
    """How much a word of the question weighs in the share of it a conversation covers: how rare it is in
    the whole index of ``total`` docs, ``docs`` of which have it (counted up to :data:`RARE_CAP`). The
    local and the shared index weigh it alike; the local one counted it among the docs between the first
    and the last it found, which the shared index, whose doc ids follow each host's pushes, cannot."""
    return math.log1p(total / (1.0 + min(docs, RARE_CAP)))


def language_lifts(said: list[str], text: str) -> list[float]:
    """How much each conversation's meaning counts, given what it said (its nearest turn): more
    (:data:`CROSS_LINGUAL_LIFT`) for one held in another language than the question ``text``. Words cannot
    meet across languages, so such a conversation never has the word evidence the others add to their
    meaning; its meaning is all the evidence there can be. The shared index weighs its meaning pass so too."""
    if not CROSS_LINGUAL_LIFT:
        return [1.0] * len(said)
    asked = stopwords.language(text)
    return [CROSS_LINGUAL_LIFT if one and stopwords.language(one) != asked else 1.0 for one in said]


def lift_edits(hits: list[Hit], terms: list[str]) -> None:
    """A query naming a file asks, most of the time, where that file was changed: an edit of a path that
    ends with the named one outweighs a prompt or a reply that mentions it (:data:`EDIT_LIFT`)."""
    named = [t.strip().lstrip("~.").lstrip("/").replace("\\", "/") for t in terms if _FILE_LIKE.search(t)]
    named = [n for n in named if n]
    if not named:
        return
    for hit in hits:
        if hit.kind == "edit" and hit.path and any(hit.path.endswith(n) for n in named):
            hit.score *= EDIT_LIFT


def meaning_weight(typed: list[str], dropped: list[str]) -> float:
    """How much the meaning pass weighs for a question of the words ``typed``: :data:`SEMANTIC_WEIGHT`, a
    share of it (:data:`NAMES_MEANING_SHARE`) when every word but the function words (``dropped``) is a path
    or a name (what the trigram index is for), which the sentence model reads as a topic, not as what it
    names; another share (:data:`ASKED_FILE_MEANING_SHARE`) when it asks for a file."""
    names = [w for w in typed if w and w not in dropped]
    if names and all(query.leaf_needs_trigram(query.Term(w)) and not cjk.has_cjk(w) for w in names):
        return SEMANTIC_WEIGHT * NAMES_MEANING_SHARE
    if _ASKS_FILE.search(" ".join(typed)):
        return SEMANTIC_WEIGHT * ASKED_FILE_MEANING_SHARE
    return SEMANTIC_WEIGHT


def lift_profiles(
    ordered: list[Conversation],
    profiles: list[str],
    sources: list[str] | None = None,
    projects: list[str] | None = None,
) -> None:
    """A query that names a profile (``work``, ``bot``), or with a word no text has a front end
    (``discord``) or a project's directory (``billing`` for ``~/work/billing-service``): its conversations
    first, at equal evidence (:data:`PROFILE_BOOST`), sorted again. The local index and the shared one
    lift alike."""
    if not profiles and not sources and not projects:
        return
    named = frozenset(projects or ())
    for conv in ordered:
        if not conv.hits:
            continue
        first = conv.hits[0]
        in_project = bool(named) and not named.isdisjoint(project_words(first.project))
        if first.profile in profiles or first.source in (sources or ()) or in_project:
            for hit in conv.hits:
                hit.score *= 1.0 + PROFILE_BOOST
    ordered.sort(key=lambda c: conversation_score(c.hits), reverse=True)


def conversation_score(hits: list[Hit]) -> float:
    """The best hit, plus a little for each further distinct turn: a conversation that matches in several
    places is more likely the one meant than one lucky turn."""
    scores = sorted((h.score for h in hits), reverse=True)
    return scores[0] + CORROBORATION * sum(scores[1:6]) if scores else 0.0


def evidence_of(
    ranked: list[Conversation], scores: list[float], weight: float
) -> list[tuple[Conversation, float]]:
    """One list of weak evidence as contributions to the fusion: each conversation's score against the
    list's best, times the list's weight. Scores against their own list's best, because the lists' scales
    (BM25 of some of the words, standing in meaning) are not comparable; but within a list, how far the
    first stands above the others is evidence too (a meaning far nearer than the next one's), which ranks
    alone would lose."""
    top = max(scores, default=0.0)
    if top <= 0:
        return [(conv, weight / (1.0 + rank)) for rank, conv in enumerate(ranked)]
    return [(conv, weight * max(score, 0.0) / top) for conv, score in zip(ranked, scores, strict=True)]


def meaning_evidence(
    ranked: list[Conversation], standings: list[float], weight: float
) -> list[tuple[Conversation, float]]:
    """The meaning list's evidence (:func:`evidence_of`), against :data:`MEANING_STANDOUT` rather than its
    best when its best stands out further: a conversation far nearer the question than the crowd of every
    session is the likeliest answer of all, where any list's best, however weak (one common word of the
    question), counts 1."""
    top = max(standings, default=0.0)
    if top > MEANING_STANDOUT:
        weight *= top / MEANING_STANDOUT
    return evidence_of(ranked, standings, weight)


def fused(
    pool: list[tuple[Conversation, float]], floor: float, about_user: bool = False
) -> list[Conversation]:
    """The weak-evidence conversations in one order, by the sum of their evidence in each list (every
    word, any of the words, meaning, titles), scored below ``floor`` in that order. With ``about_user``
    (the question speaks of the asker), what Hermes keeps about the user weighs :data:`PERSON_WEIGHT` and
    its own notes :data:`WORLD_WEIGHT`.
    A conversation with no evidence in any list is left out: one the meaning pass offered no nearer the
    query than the crowd of sessions (a haiku beside "how did we fix the flaky test", among six) is no
    answer, and was listed after the answers as if it were one."""
    strength: dict[tuple[str, str], float] = {}
    merged: dict[tuple[str, str], Conversation] = {}
    for conv, contribution in pool:
        key = (conv.store, conv.root)
        lift = _knowledge_lift(conv, about_user)
        strength[key] = strength.get(key, 0.0) + contribution * lift
        if key in merged:
            seen = {h.doc for h in merged[key].hits}
            merged[key].hits.extend(h for h in conv.hits if h.doc not in seen)
        else:
            merged[key] = conv
    out = []
    top = max(strength.values(), default=1.0) or 1.0
    # Ties in the order of the conversations' ids (a session's starts with when it began), not of the lists:
    # the shared index, whose lists come in another order, ranks them as the local one does.
    for key in sorted(strength, key=lambda k: (-strength[k], k[1], k[0])):
        if strength[key] <= 0:
            break  # the rest have no evidence either (in order)
        conv = merged[key]
        target = floor * RELAXED_WEIGHT * strength[key] / top
        best = max((h.score for h in conv.hits), default=0.0)
        for hit in conv.hits:
            hit.score = target * (hit.score / best if best > 0 else 1.0)
        conv.hits.sort(key=lambda h: h.score, reverse=True)
        out.append(conv)
    return out


def _knowledge_lift(conv: Conversation, about_user: bool) -> float:
    """How much a conversation's evidence counts for being what Hermes chose to keep (1 for a session)."""
    head = conv.hits[0] if conv.hits else None
    if head is None or head.session_kind not in ("memory", "skill"):
        return 1.0
    if about_user and head.session_kind == "memory":
        return KNOWLEDGE_WEIGHT * (PERSON_WEIGHT if head.session_id == "USER.md" else WORLD_WEIGHT)
    return KNOWLEDGE_WEIGHT
