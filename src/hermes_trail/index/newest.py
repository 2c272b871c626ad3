"""The rule of the newest fact: when two conversations state the same fact, the later one that says it
changed ("moved", "now", "no longer") is the fact now and leads (:func:`newest_first`). What a question
is about is told by its rarest words, and a question asking how things stand now
(:func:`asks_present`) wants the newest fact even when fewer of its words name it. The local index and
the shared one apply it alike, each reading the texts and word counts its own way."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from itertools import pairwise
from typing import Any

from hermes_trail.index import cjk, plan, stopwords
from hermes_trail.index.fusion import RARE_CAP, SESSION_WEIGHT
from hermes_trail.index.results import Conversation

# A later conversation about the same thing supersedes the leading one (:func:`newest_first`) when it
# says a fact changed and stands at least this share as far out in meaning (or, where the meaning pass
# did not place both, answers the words at least this share as well); it is looked for among this many
# leading conversations.
SUPERSEDED_BAND = 0.4


SUPERSEDED_TOP = 8


# Words of a question a sentence saying a fact changed names to name that fact, its rarest among them or not.
NAMED_ALONE = 3


SUPERSEDED_MEANING = 0.4


# How many words beside the question's a turn saying a change shares with a turn of the leader naming the
# same word of the question, to name the leader's fact (``restates_lead`` in :func:`newest_first`): one
# is a neighbour ("the desk lamp" beside "the desk workstation"; on the recall benchmark's tuning
# questions, one lost seven questions about a commit moved off main, where "push" was the shared word).
RESTATED = 2


# A later conversation restating the leader's fact (``restated`` in :func:`newest_first`): given the
# question's words the leader has, the words the leader states its fact with and the leader's time, the
# later conversations of people (not cron runs, sub-agents, memory or skills) with a turn that has one of
# each, newest first (each index finds them its own way).
Restating = Callable[[list[str], list[str], float], list[Conversation]]
# At most this many of the leader's words a restating conversation is looked for by (its longest, then
# only those that are rare), read in its sentences of at most FACT_SENTENCE_WORDS words.
RESTATING_WORDS = 12
FACT_SENTENCE_WORDS = 30
# A question of one word is read on the leader's fact as its best turns state it, as a search shows it.
FACT_TURNS = 3


def newest_first(
    ordered: list[Conversation],
    terms: list[str],
    meaning: dict[tuple[str, str], float],
    answered: dict[tuple[str, str], float],
    texts: Callable[[list[int]], dict[int, tuple[str, str]]],
    counts: Callable[[list[str]], dict[str, int]],
    present: bool = False,
    now: bool = False,
    restating: Restating | None = None,
) -> list[Conversation]:
    """The leading conversation, unless a later one about the same thing superseded it: when two sessions
    state the same fact, the later one is the fact now (a meeting moved, a service moved host). The older
    one often says it in more of the query's words (it asked the question as the query does), so neither
    the words nor a bounded recency lift the later one.

    About the same thing: among the first :data:`SUPERSEDED_TOP` conversations, a later one that has the
    query's rarest word where it matched (what the query is about, not how it is put), is near the
    query in meaning (at least :data:`SUPERSEDED_MEANING` of the leader's standing, when the meaning pass
    ran) or answers its words nearly as well (:data:`SUPERSEDED_BAND` of the leader's score, both with every
    word when both have them), and says in a turn a person or the agent said that it changed ("moved",
    "now", "no longer", ...) naming a word the leader said the fact with, or has a person announce a change
    just before naming the fact
    (:func:`announces_change`), or names one of the question's rarer words in a turn with two words the
    leader states that fact with (``restates_lead``: the leader's fact in its own words), in at least as
    many of the query's words as the leader names in a change of its own ("backup retention is now 14
    daily, 8 weekly and 12 monthly snapshots" is not superseded by "a weekly envelope of 140 EUR instead of
    a monthly one"). The newest such conversation leads.
    Sessions people drove only, and the runs of one cron job: a cron run or a sub-agent reports a fact
    more than it states one, but a later run of the same job that says it changed is the fact now.
    ``present``: the question asks how things stand now (:func:`asks_present`); it is read by the words
    the leader shares with it (:func:`lead_holds`), as is a question whose rarest words the leader lacks
    (they say the work a message asks for, not the fact it depends on). Such a question led by a skill (a
    procedure, no fact of a day) is read on the conversations under it, and one promoted there leads.
    ``now``: the question says it asks how things stand now (:func:`asks_now`); when no later conversation
    superseded the leader, one nearer the question in meaning that says the fact changed, of a leader that
    says no change, leads (:func:`nearer_change`'s reading). A conversation promoted is read as the leader
    in turn: a fact changed twice leads with its latest change. ``restating``: how this index finds the
    later conversations of people with a turn that has a word of each of two lists (:data:`Restating`);
    with it, a question asking how things stand now that no conversation placed superseded takes a later
    one restating the leader's fact in the leader's own words and saying it changed (``restated``)."""
    if len(ordered) < 2:
        return ordered
    # Read again with each conversation promoted (below): nothing is asked of the index twice.
    texts, counts = _kept(texts), _kept(counts)
    if present and ordered[0].hits[0].session_kind == "skill":
        # A skill is a procedure, not a fact of a day: the conversations under it are read, and one that
        # superseded the fact they state leads it ("what weekday are shop production releases done on
        # now?": the release skill, then "deploys happen on Tuesdays", then "deploys move to Thursdays").
        rest = newest_first(ordered[1:], terms, meaning, answered, texts, counts, present, now, restating)
        return [ordered[0], *rest] if rest[0] is ordered[1] else [rest[0], ordered[0], *rest[1:]]
    lead = ordered[0]
    job = cron_job(lead.hits[0].session_id)
    if lead.hits[0].session_kind in SESSION_WEIGHT and job is None:
        return ordered
    newer = [
        c
        for c in ordered[1:SUPERSEDED_TOP]
        if _latest(c) > _latest(lead)
        and (
            cron_job(c.hits[0].session_id) == job
            if job is not None
            else c.hits[0].session_kind not in SESSION_WEIGHT
        )
    ]
    if not newer and not (now and (lead.store, lead.root) in meaning) and not (present and restating):
        # Nothing later, no nearer change to read (it needs the leader's meaning) and none to look for.
        return ordered
    asked = content_words(terms)
    said = texts([h.doc for c in [lead, *newer] for h in c.hits])
    typed = asked
    # A question of one word names a topic more than a fact (``names_fact``); read so until a change nearer
    # the question in meaning than the leader is looked for (``nearer_change``), where meaning tells.
    topic = len(typed) == 1 and not cjk.has_cjk(typed[0])

    def read(convs: list[Conversation]) -> None:
        """Read the texts of ``convs``' matching turns not read yet."""
        said.update(texts([h.doc for c in convs for h in c.hits if h.doc not in said]))

    def turn(hit: Any) -> tuple[str, str]:
        """A matching turn as read: its kind and its text in lower case."""
        return said.get(hit.doc, ("", ""))

    def turns(conv: Conversation) -> Iterator[tuple[str, str]]:
        """``conv``'s matching turns as read, in order (:func:`turn`)."""
        return (turn(h) for h in conv.hits)

    def stated(conv: Conversation) -> list[str]:
        """What a person or the agent said in ``conv``'s matching turns (not a tool's output)."""
        return [text for kind, text in turns(conv) if kind in STATED]

    @functools.cache
    def held_by_lead() -> list[str]:
        """The question's words the leader's matching turns have (:func:`lead_holds`; read once)."""
        return lead_holds(lead, typed, said)

    if present:
        # How things stand now: the fact is named by the words the leading conversation shares with the
        # question; the others say what to do with it ("add a custom domain and HTTPS to the blog on
        # wherever it's hosted now": the blog, hosted), and the rarest of them are not the fact's.
        held = held_by_lead()
        asked = held if len(held) >= 2 else asked
    # A sentence that says a fact changed names the fact: two of the query's words (all when it has
    # fewer), one of them among its rarest, or three of any with one of the rarer half among them (three of
    # its commonest, "renamed the branch, pushed it" for "push got rejected on the hotfix branch, someone
    # else pushed first?", name a topic). One word is a topic, not a fact ("the new
    # android gradle plugin needs jdk 17" beside a question on Android 13's notification permission). A
    # question asking how things stand now ("where does redis run now?") wants the newest fact: its
    # rarest word names it ("redis moved to ..."), or two of any with one of its rarest among them ("the
    # staging port is now 6432"; not "the mobile app's node version is now 20" of the react native version
    # the mobile app currently uses).
    rare, by_rarity, named, rarer = read_for_facts(asked, counts)
    if not rare:
        return ordered

    @functools.cache
    def lead_named(words: tuple[str, ...]) -> frozenset[str]:
        """Which of the question's ``words`` the leader names in what a person or the agent said in it."""
        stated_by_lead = stated(lead)
        return frozenset(w for w in words if any(names_word(text, w) for text in stated_by_lead))

    @functools.cache
    def lead_states_with(word: str) -> tuple[frozenset[str], frozenset[str]]:
        """The words the leader states ``word`` with in what a person or the agent said in its
        :data:`FACT_TURNS` best turns (:func:`fact_words` of their sentences of a fact's length naming it,
        as ``restated`` reads them), and the shapes of the values they state (:func:`value_shapes`)."""
        best = sorted(lead.hits, key=lambda h: h.score, reverse=True)[:FACT_TURNS]
        naming = " ".join(fact_sentences([text for kind, text in map(turn, best) if kind in STATED], [word]))
        return fact_words(naming, [word]), value_shapes(naming)

    def states_lead_topic(turn: list[str]) -> bool:
        """Whether a turn (cut into the sentences ``turn``) names the leader's fact of a one-word question:
        with a word the leader states it with beside that one, or a value of the same shape (a time
        for a time: "the standup moved to thursday 09:30" of "standup: tuesday 10:00")."""
        words, shapes = lead_states_with(typed[0])
        text = " ".join(turn)
        return bool(words.intersection(_WORD.findall(text)) or shapes.intersection(value_shapes(text)))

    def names_fact(sentence: str, turn: list[str]) -> bool:
        """Whether ``sentence`` (of a turn cut into the sentences ``turn``) names the fact asked about."""
        words = [w for w in asked if names_word(sentence, w)]
        # The leader's fact, named by a word the leader said it with: "the ssh-agent now starts as a systemd
        # user service ... once per login" names two of "reporting user pg login fails after pw rotation",
        # neither of which the conversation it would supersede said (its tool's output did: "for user").
        if (stated := lead_named(tuple(asked))) and not stated.intersection(words):
            return False
        if present:
            named_here = by_rarity[0] in words or (len(words) >= named and any(w in rare for w in words))
        else:
            named_here = (any(w in rare for w in words) and len(words) >= named) or (
                len(words) >= NAMED_ALONE and any(w in rarer for w in words)
            )
        # A question of one word names a topic more than a fact: a change names the leader's fact in a turn
        # stating it as the leader does (:func:`states_lead_topic`: "grafana now lives at ... behind sso;
        # monitor-01 is being decommissioned" of "grafana runs on monitor-01"), not "we resized loading_wh,
        # what size is it now?" of "try batch size 64", nor the nas's new address of a failing disk of it.
        # (Not a Chinese or Japanese word: its sentences are no words apart, "周会从下周起改到周四".)
        return named_here and (not topic or states_lead_topic(turn))

    def lead_states(word: str, words: frozenset[str]) -> bool:
        """Whether a sentence the leader states names ``word`` (of the question) with :data:`RESTATED` of
        ``words``; a turn lacking them is not cut into sentences."""
        for kind, text in turns(lead):
            if kind not in STATED or word not in text or sum(w in text for w in words) < RESTATED:
                continue
            for sentence in sentences(text):
                if (
                    names_word(sentence, word)
                    and len(words.intersection(_WORD.findall(sentence))) >= RESTATED
                ):
                    return True
        return False

    def restates_lead(sentence: str, cut: list[str]) -> bool:
        """Whether a sentence saying a change (of a turn cut in ``cut``) names one of the rarer half of the
        question's words in a turn with :data:`RESTATED` other words (:func:`fact_words`) the leader states
        it with: "training moved to the rented h100 box; the desk workstation is only for debug" of the
        leader's "training runs on the workstation's rtx a5000 under the desk" for "which machine do we
        train on these days". The fact the leader states, named in the leader's words where the question's
        are too few."""
        named_here = [w for w in rarer if names_word(sentence, w)]
        if not named_here:
            return False
        words = fact_words(" ".join(cut), asked)
        return len(words) >= RESTATED and any(lead_states(word, words) for word in named_here)

    def holds_rare(conv: Conversation) -> bool:
        """Whether ``conv``'s matching turns have one of the question's rarest words, in some form."""
        return any(_has(text, word) for _, text in turns(conv) for word in rare)

    def about(conv: Conversation) -> bool:  # one of the rarest words, or as many words as name a fact
        texts_of = [text for _, text in turns(conv)]
        return (
            holds_rare(conv)
            or any(sum(names_word(text, w) for w in asked) >= NAMED_ALONE for text in texts_of)
            or (
                conv is not lead
                and any(w in text for text in texts_of for w in rarer)
                and any(restates_lead(s, cut) for s, cut in changes(conv))
            )
        )

    def changes(conv: Conversation) -> Iterator[tuple[str, list[str]]]:
        """The sentences of what a person or the agent said in ``conv``'s matching turns that say something
        changed, in order, each with its turn's sentences. A turn with no word of change is not cut: a
        word of change lies inside one sentence (none holds a sentence's end), read there as in the turn."""
        for kind, text in turns(conv):
            if kind in STATED and says_change(text):
                cut = sentences(text)
                yield from ((s, cut) for s in clauses_named(cut, asked) if says_change(s))

    def names(sentence: str) -> int:
        """How many of the query's words ``sentence`` names (:func:`names_word`)."""
        return sum(names_word(sentence, w) for w in asked)

    def says_changed(conv: Conversation) -> bool:
        """A turn of ``conv`` that names what the query is about and says it changed, in at least as many
        of its words as any change the leader says itself (:func:`lead_says_more`; its words counted only
        once the fact is named)."""
        seen: list[str] = []
        most = -1  # not counted yet
        for sentence, cut in changes(conv):
            seen.append(sentence)
            if most < 0 and not (names_fact(sentence, cut) or restates_lead(sentence, cut)):
                continue
            most = max(names(s) for s in seen) if most < 0 else max(most, names(sentence))
            if not lead_says_more(most):
                return True
        if most < 0 and any(
            announces_change(cut, asked, functools.partial(names_fact, turn=cut))
            for kind, text in turns(conv)
            if kind == "prompt"
            for cut in [sentences(text)]
        ):
            return not lead_says_more(max((names(s) for s in seen), default=0))
        return False

    @functools.cache
    def lead_says_more(named: int) -> bool:
        """Whether the leader itself says a change in a sentence naming more than ``named`` of the query's
        words: then it is that fact's change. Its texts and sentences with fewer of the words are passed
        over unread (a word of change is looked for in few of them)."""
        if named >= len(asked):
            return False
        for kind, text in turns(lead):
            if kind not in STATED or sum(w in text for w in asked) <= named or not says_change(text):
                continue
            if any(names(s) > named and says_change(s) for s in clauses_named(sentences(text), asked)):
                return True
        return False

    def nearer_change(lead_z: float) -> Conversation | None:
        """Of a question asking how things stand now, the conversation nearer it in meaning than a leader
        that says no change, which says the fact changed (a person's or a cron job's, the nearest of them):
        "how do I reach jellyfin now" is led by the newest conversation naming Jellyfin, "how many movies
        are in jellyfin?", and "jellyfin is behind the proxy now, which port do i use?" is nearer, and
        older. A leader sharing one word with the question ("jellyfin") has it read by that word; ``lead_z``:
        the leader's standing in meaning."""
        nonlocal asked, rare, by_rarity, named, rarer, topic
        topic = False
        others = [
            c
            for c in ordered[1:SUPERSEDED_TOP]
            if c.hits[0].session_kind not in SESSION_WEIGHT or cron_job(c.hits[0].session_id) is not None
        ]
        read(others)
        if any(changes(lead)):
            return None
        if len(one := held_by_lead()) == 1:
            asked = one
            rare, by_rarity, named, rarer = read_for_facts(asked, counts)
        nearer = [
            c
            for c in others
            if (z := meaning.get((c.store, c.root))) is not None
            and z > lead_z
            and about(c)
            and says_changed(c)
        ]
        return max(nearer, key=lambda c: meaning[(c.store, c.root)], default=None)

    def restated() -> list[Conversation]:
        """Of a question asking how things stand now whose leader no conversation placed superseded: a
        later one that restates the leader's fact in the leader's own words (:data:`RESTATED` of the words
        its sentences naming the question's words state it with, :func:`fact_words`, and one of those
        question's words) and says it changed, placed near the question by its words or meaning or not
        placed at all. "Which machine is currently used for model training runs", led by "training runs on
        the workstation's rtx a5000 under the desk": "training moved to the rented h100 box; the desk
        workstation is only for debugging" shares one of its words and is far from it in meaning."""
        assert restating is not None
        if not (held := held_by_lead()):
            return []
        # The leader's fact: what its sentences naming the question's words state beside them.
        stating = fact_sentences(stated(lead), held)
        # The rarer ones (in fewer than RARE_CAP docs, the rarest first): a common word says little of a
        # fact, and an index of a million messages would look through every doc that has it. Of the
        # longest RESTATING_WORDS, each counted once (a long word is the rarer one as a rule).
        longest = sorted(fact_words(" ".join(stating), asked), key=lambda w: (-len(w), w))
        counted = counts(longest[:RESTATING_WORDS])
        facts = sorted((w for w, n in counted.items() if 0 < n < RARE_CAP), key=lambda w: (counted[w], w))
        if len(facts) < RESTATED:
            return []
        mine = (lead.store, lead.root)  # a later turn of the leader's own conversation supersedes nothing
        found = [c for c in restating(held, facts, _latest(lead)) if (c.store, c.root) != mine]
        read(found)

        def restates(conv: Conversation) -> bool:
            return len(set(_WORD.findall(" ".join(stated(conv)))).intersection(facts)) >= RESTATED

        restating_ones = [c for c in found if restates(c)][:SUPERSEDED_TOP]
        changed = [c for c in restating_ones if about(c) and says_changed(c)]
        for conv in changed:  # scored by another search: at most the leader's score, as this one's are
            best = max(h.score for h in conv.hits)
            if best > lead.score > 0:
                for hit in conv.hits:
                    hit.score *= lead.score / best
        return changed

    if not present and not holds_rare(lead) and 2 <= len(held := held_by_lead()) < len(typed):
        # The leader has none of the question's rarest words: they say the work asked for ("remind me a
        # day before the Hoffmann dinner and suggest a wine to bring"), the words it shares with the
        # question name the fact (the Hoffmann dinner), as in a question asking how things stand now.
        asked = held
        rare, by_rarity, named, rarer = read_for_facts(asked, counts)
        if not rare:
            return ordered
    if not about(lead):
        return ordered
    lead_z = meaning.get((lead.store, lead.root))
    later = []
    for conv in newer:
        z = meaning.get((conv.store, conv.root))
        # Near the query in meaning, or answering its words nearly as well as the leader.
        near = lead_z is not None and z is not None and z >= SUPERSEDED_MEANING * lead_z
        words, lead_words = answered.get((conv.store, conv.root)), answered.get((lead.store, lead.root))
        if words is not None and lead_words is not None:  # both have every word: compare how well
            near = near or words >= SUPERSEDED_BAND * lead_words
        else:
            near = near or conv.score >= SUPERSEDED_BAND * lead.score
        # A leader that itself says the fact changed, in more of the query's words than the later one's
        # change, is the change of that fact; the later one changed something else.
        if near and about(conv) and says_changed(conv):
            later.append(conv)
    if not later and now and lead_z is not None and (nearer := nearer_change(lead_z)) is not None:
        return [nearer, *(c for c in ordered if c is not nearer)]
    if not later and present and restating is not None:
        later = restated()
    if not later:
        return ordered
    newest = max(later, key=_latest)
    lead.superseded_by = newest.hits[0].session_id if newest.hits else None
    # The fact may have changed again since, in a conversation nearer the newer one than the leader: read
    # again with the newer one leading ("the blog is now hosted on github pages" after "now hosted on
    # cloudflare pages", which had moved it off netlify). Each reading leads with a later conversation.
    key = (newest.store, newest.root)
    promoted = [newest, *(c for c in ordered if (c.store, c.root) != key)]
    return newest_first(promoted, terms, meaning, answered, texts, counts, present, now, restating)


def fact_sentences(texts: list[str], words: list[str]) -> list[str]:
    """The sentences of ``texts`` naming one of ``words`` (:func:`names_word`) that are of a fact's length,
    :data:`FACT_SENTENCE_WORDS` words at most: a long one says many things, each word of which would be
    counted as the fact's. A text without any of the words is not cut."""
    return [
        sentence
        for text in texts
        if any(w in text for w in words)
        for sentence in sentences(text)
        if len(sentence.split()) <= FACT_SENTENCE_WORDS and any(names_word(sentence, w) for w in words)
    ]


def restating_query(held: list[str], facts: list[str]) -> str:
    """The query a restating conversation (``restated`` in :func:`newest_first`) is looked for by: one of
    the question's ``held`` words and one of the leader's ``facts``, each as written (quoted)."""

    def either(words: list[str]) -> str:
        return "(" + " OR ".join('"' + w.replace('"', "") + '"' for w in words) + ")"

    return f"{either(held)} {either(facts)}"


def later_of_people(found: list[Conversation], after: float) -> list[Conversation]:
    """Of the conversations ``found``, those of people (not a cron run, a sub-agent, memory or a skill)
    whose matching turns are later than ``after``, newest first: where a restating conversation is."""
    kept = [
        c
        for c in found
        if c.hits
        and c.hits[0].session_kind not in SESSION_WEIGHT
        and c.hits[0].origin == "session"
        and _latest(c) > after
    ]
    return sorted(kept, key=_latest, reverse=True)


class _Kept:
    """A look-up (a doc's text, a word's count) that asks only for the keys it was not asked before: the
    rule reads again with each conversation it promotes, mostly the same docs and words."""

    def __init__(self, look_up: Callable[[list[Any]], dict[Any, Any]]) -> None:
        self.look_up = look_up
        self.known: dict[Any, Any] = {}

    def __call__(self, keys: list[Any]) -> dict[Any, Any]:
        if wanted := [k for k in dict.fromkeys(keys) if k not in self.known]:
            self.known.update(self.look_up(wanted))
        return {k: self.known[k] for k in keys if k in self.known}


def _kept(look_up: Any) -> Any:
    return look_up if isinstance(look_up, _Kept) else _Kept(look_up)


def read_for_facts(
    asked: list[str], counts: Callable[[list[str]], dict[str, int]]
) -> tuple[list[str], list[str], int, list[str]]:
    """How :func:`newest_first` reads the question's content words ``asked``: its rarest (at least two),
    every one that matches rarest first (:func:`rare_words`), how many of them a sentence names to name a
    fact (two, or all when fewer), and the rarer half of those any doc has."""
    rare, by_rarity = rare_words(asked, counts)
    rare = rare if len(rare) >= 2 else by_rarity[:2]
    return rare, by_rarity, min(2, len(asked)), by_rarity[: max(2, (len(by_rarity) + 1) // 2)]


def lead_holds(lead: Conversation, asked: list[str], said: dict[int, tuple[str, str]]) -> list[str]:
    """The ``asked`` words the leading conversation's matching turns (their texts in ``said``) have, in
    some form (:func:`_has`)."""
    return [w for w in asked if any(_has(said.get(h.doc, ("", ""))[1], w) for h in lead.hits)]


# What a person or the agent said (where a change of a fact is stated), as opposed to a tool's output.
STATED = frozenset({"prompt", "reply", "summary"})


# Where one sentence ends: the change must be said of what the query is about, not beside it. Chinese and
# Japanese end a sentence with their own marks and no space after them (looked for in a text past ASCII).
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_SENTENCE_ANY = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])|\n+")


def sentences(text: str) -> list[str]:
    """``text`` cut into its sentences (:data:`_SENTENCE`)."""
    return (_SENTENCE if text.isascii() else _SENTENCE_ANY).split(text)


# A clause that refers back to the one before it ("...; it replaces the epoch 12 one").
_REFERS_BACK = re.compile(r"(?:it|this|that|they|these|which)\b")


def clauses_named(cut: list[str], asked: list[str]) -> list[str]:
    """The sentences ``cut``, a clause after a semicolon that refers back to the clause before it read with
    that clause, when it names none of the ``asked`` words or that clause names some too: in "new best
    checkpoint: epoch 31, val_acc 0.901; it replaces the epoch 12 one" the change is said of the best
    checkpoint. Not when only the later clause names them: "loading_wh is size large now; it goes back
    down in june" says nothing of a menu bar going down the page."""
    read: list[str] = []
    for part in cut:
        if (
            read
            and read[-1].endswith(";")
            and _REFERS_BACK.match(part)
            and (not any(names_word(part, w) for w in asked) or any(names_word(read[-1], w) for w in asked))
        ):
            read.append(read[-1] + " " + part)
        else:
            read.append(part)
    return read


def announces_change(cut: list[str], asked: list[str], names_fact: Callable[[str], bool]) -> bool:
    """Whether a person's prompt (its sentences ``cut``) says a change of something the question does not
    ask about and then, in its next sentence, names the fact it asks: "I changed the router. Write down the
    NAS IP address." is the NAS's address after the change. Not an agent's reply, whose sentences go on
    from one thing to the next ("loading_wh is size large now, for the backfill month; it goes back down
    in june" says nothing of a menu bar going down the page)."""
    return any(
        says_change(first) and not any(names_word(first, w) for w in asked) and names_fact(second)
        for first, second in pairwise(cut)
    )


# Words that say a fact changed: what a later session that supersedes an earlier one usually says. Not
# "new": it is mostly an adjective ("breaks on the new fonts"), which says nothing changed; nor "change(s)"
# and "update(s)", mostly nouns ("broke overnight without code changes", "the update"): only "changed" and
# "updated" say it, and not of files ("even when only Python files changed").
# The same in the other languages indexed (German, French, Spanish, Italian, Portuguese, Dutch; Chinese and
# Japanese, written without spaces, matched anywhere): a moved meeting or a migrated service said in any of
# them supersedes what was said before, as in English. The texts it is read in are in lower case.
# The words that say a fact changed, in the languages indexed: each a word or a phrase, as a pattern that
# starts with a letter. "now" is no change right after "right " or "just ", "changed" after "file(s) "
# (NOT_A_CHANGE).
CHANGE_WORDS = (
    "now",
    "no longer",
    "instead",
    "any ?more",
    "from now on",
    "switched",
    "bump(?:s|ed)",
    "changed",
    "updated",
    *(
        f"{start}(?:e|es|ed)"
        for start in ("mov", "migrat", "resiz", "replac", "renam", "postpon", "reschedul", "relocat")
    ),
    "pushed (?:back|to)",
    "brought forward",
    "upgraded",
    "downgraded",
    "swapped",
    "going forward",
    "reorg",
    "reorgani[sz]ation",
    "restructuring",
    # German
    "jetzt",
    "nicht mehr",
    "stattdessen",
    "ab sofort",
    "verschoben",
    "umgezogen",
    "verlegt",
    "geändert",
    "gewechselt",
    "migriert",
    "ersetzt",
    "umbenannt",
    "aktualisiert",
    # French
    "maintenant",
    "désormais",
    "dorénavant",
    "au lieu de",
    *(f"{start}ée?s?" for start in ("déplac", "migr", "remplac", "renomm", "chang", "modifi", "report")),
    "mise? à jour",
    # Spanish
    "ahora",
    "ya no",
    "en (?:lugar|vez) de",
    *(
        f"{start}[oa]s?"
        for start in ("movid", "trasladad", "migrad", "cambiad", "reemplazad", "renombrad", "actualizad")
    ),
    # Italian
    "adesso",
    "non più",
    "invece",
    *(f"{start}[oaie]" for start in ("spostat", "cambiat", "sostituit", "rinominat", "aggiornat")),
    # Portuguese
    "agora",
    "não mais",
    "em vez de",
    *(f"{start}[oa]s?" for start in ("alterad", "substituíd", "renomead", "atualizad", "adiad")),
    # Dutch
    "niet meer",
    "voortaan",
    "in plaats van",
    "verplaatst",
    "gewijzigd",
    "veranderd",
    "vervangen",
    "hernoemd",
    "bijgewerkt",
)
NOT_A_CHANGE: dict[str, tuple[str, ...]] = {"now": ("right ", "just "), "changed": ("files ", "file ")}


def by_first_letter(words: tuple[str, ...], not_after: dict[str, tuple[str, ...]]) -> str:
    """``words`` (patterns, each starting with a letter) as one pattern of whole words, grouped by their
    first letter: at a word's start the regex engine tries the few of its letter, not all ninety of them
    (five times faster on a turn). A word of ``not_after`` is none right after one of its words."""
    groups: dict[str, list[str]] = {}
    for word in words:
        # Looked behind from past the first letter: the words before it, and that letter.
        behind = "".join(f"(?<!{re.escape(before + word[0])})" for before in not_after.get(word, ()))
        groups.setdefault(word[0], []).append(behind + word[1:])
    return (
        r"\b(?:"
        + "|".join(f"{re.escape(first)}(?:{'|'.join(rests)})" for first, rests in groups.items())
        + r")\b"
    )


_CHANGED = re.compile(by_first_letter(CHANGE_WORDS, NOT_A_CHANGE))
_CHANGED_CJK = re.compile(
    r"改到|改成|改为|改在|换成|换到|搬到|迁移|迁到|变更|更改|现在|不再|推迟到|提前到|取代|替换|"
    r"変更|移行|移転|移動し|変わり|変わっ|今は|今後は|代わりに|切り替え|置き換え|延期"
)


def says_change(sentence: str) -> bool:
    """Whether ``sentence`` (lower case) has a word saying a fact changed (:data:`_CHANGED`); the Chinese
    and Japanese ones looked for only in a sentence past ASCII."""
    if _CHANGED.search(sentence) is not None:
        return True
    return not sentence.isascii() and _CHANGED_CJK.search(sentence) is not None


def about_terms(terms: list[str], text: str) -> list[str]:
    """The query's ``terms`` without the words of a phrase that says when in the question as written
    (``text``: "far" of "best checkpoint so far", "days" of "these days",
    :func:`stopwords.time_phrase_words`): what it is about, whose rarest words the rule of the newest fact
    reads. They stay in the match."""
    words = re.findall(r"[\w']+", text)
    when = {words[i].lower() for i in stopwords.time_phrase_words(words)}
    return [t for t in terms if t.lower() not in when] if when else terms


def content_words(terms: list[str]) -> list[str]:
    """The query's words (lower case, two characters or more, once each), its function words left out. A
    run of Chinese or Japanese is cut at its particles and question words, as a search reads it
    (``cjk.question_runs``): "定例会議はいつ" asks about 定例会議, which a sentence saying it changed
    names."""
    said = [w for t in terms for w in re.findall(r"\w{2,}", cjk.spaced(t).lower())]
    said = [part for w in said for part in (cjk.question_runs([w]) if cjk.has_cjk(w) else [w])]
    said = [w for w in said if len(w) > 1]
    return list(dict.fromkeys(w for w in said if not stopwords.is_stopword(w, said)))


_WORD = re.compile(r"[^\W\d_]{3,}")


# The shapes of values a fact is stated with (:func:`value_shapes`), each found and taken out of the text
# before the next is looked for (an address is no version). Not any number: a count, a size, a box's
# number are as many things as there are numbers.
_VALUE_SHAPES = (
    ("time", re.compile(r"(?<![\w.:])\d{1,2}(?::\d{2}\b|\s?[ap]\.?m\b)", re.IGNORECASE)),
    ("day", re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b", re.IGNORECASE)),
    ("date", re.compile(r"\b\d{4}-\d{2}-\d{2}\b")),
    ("address", re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b")),
    ("version", re.compile(r"\b\d+\.\d+(?:\.\d+)*\b")),
)


def value_shapes(text: str) -> frozenset[str]:
    """The shapes of the values ``text`` states (a time, a weekday, a date, an address, a version): what a
    change of a fact says in the same shape as the fact ("tuesday 10:00", then "thursday 09:30"), where its
    words differ."""
    shapes = set()
    for shape, pattern in _VALUE_SHAPES:
        text, found = pattern.subn(" ", text)
        if found:
            shapes.add(shape)
    return frozenset(shapes)


def fact_words(sentence: str, asked: list[str]) -> frozenset[str]:
    """The words of three letters or more ``sentence`` states a fact with, but the question's own
    (``asked``) and function words: what it names beside them."""
    prefixes = tuple(asked)
    found = {w for w in set(_WORD.findall(sentence)) if not w.startswith(prefixes)}
    return frozenset(w for w in found if not stopwords.is_stopword(w) and not _CHANGED.fullmatch(w))


# A question's word of this many letters or fewer names only itself or an inflection of it (at most
# INFLECTION letters more: "apps", "logs", "pips"), not a longer word it starts: "pip" in "the ml-pipeline
# now uses python 3.12" superseded the move from pip-tools to uv. A longer one starts what it names
# ("prod": production deploys).
SHORT_WORD = 3
INFLECTION = 3


def names_word(sentence: str, word: str) -> bool:
    """Whether ``sentence`` has ``word`` (lower case) where a word starts (``deploy`` in "deploys", not
    ``cache`` in "elasticache"; ``call`` in "on-call"), and not as a part of a name (``cache`` or ``shop``
    in "shop-cache.example.com", ``cache`` in "/var/cache", ``train`` in "train.py", ``gpu`` in
    "gpu-h100-02": a host named so is not the fact a question on caching or on a GPU's load asks about); a
    Chinese or Japanese word anywhere, as those have no spaces."""
    if cjk.has_cjk(word) or word not in sentence:  # (the second: most words are in no sentence, cheaply)
        return word in sentence
    pattern = r"(?<![\w./])" + re.escape(word)
    if len(word) <= SHORT_WORD:  # itself or an inflection of it, not a longer word it starts
        pattern += rf"(?![^\W\d_]{{{INFLECTION + 1}}})"
    for found in re.finditer(pattern, sentence):
        start = found.start()
        token = _TOKEN.search(sentence, sentence.rfind(" ", 0, start) + 1)
        if token is None or not _NAME_SEPARATOR.search(token[0].rstrip(".,;:!?)\"'")):
            return True  # a word, or one of a hyphenated one ("on-call"), not of a host's name or a path
    return False


def _has(text: str, word: str) -> bool:
    """Whether ``text`` has ``word`` anywhere, or another form of it where a word starts ("hosted" for
    ``hosting``: the same stem)."""
    if word in text:
        return True
    if cjk.has_cjk(word):  # no spaces to start a word at: found as written or not at all
        return False
    part = plan.title_part(word)
    if part == word:
        return False
    root = plan.stem(word)
    return any(
        plan.stem(found[0]) == root for found in re.finditer(r"(?<!\w)" + re.escape(part) + r"\w*", text)
    )


# A whitespace-delimited token, and what makes one a host's name or a path rather than a word.
_TOKEN = re.compile(r"\S+")


# A path or a dotted name ("/var/cache", "shop-cache.example.com"), or a name numbered after a hyphen as
# hosts and instances are ("cache-01", "gpu-h100-02").
_NAME_SEPARATOR = re.compile(r"[./]|-[^\W\d_]*\d")


# A question that asks how things stand now, in the languages indexed: it wants the newest fact.
_PRESENT = re.compile(
    r"\b(?:now|nowadays|currently|current|these days|at the moment|at present|still|any ?more|"
    r"jetzt|aktuell|derzeit|inzwischen|mittlerweile|noch|maintenant|actuellement|encore|ahora|actualmente|"
    r"todav[ií]a)\b|现在|目前|如今|現在|今は|いま",
    re.IGNORECASE,
)


# A question that asks where something is: a move changes that, so it wants the newest place as a question
# asking how things stand now does ("where does the shop's redis run" after "redis moved to elasticache").
# Not one asking where something was ("where did RandAugment get added", "where was the blog hosted
# before", "wo wurde ... gespeichert"): that is a past place or the place of a past change.
_WHERE = re.compile(
    r"\b(?:where|wo|où|dónde|donde|dove|onde|waar)\b(?!\s+(?:did|was|were|had|wurden?|war|waren|hatte)\b)"
    r"|哪里|哪儿|在哪|どこ",
    re.IGNORECASE,
)


def asks_now(typed: list[str]) -> bool:
    """Whether a question (its ``typed`` words) says it asks how things stand now ("how do I reach jellyfin
    now", "the current bootstrap servers"), not only where something is."""
    return _PRESENT.search(" ".join(typed)) is not None


def asks_present(typed: list[str]) -> bool:
    """Whether a question (its ``typed`` words) asks how things stand now ("where does redis run now?",
    "are we still on cloudflare pages?") or where something is (:data:`_WHERE`): the newest of the facts it
    names is wanted (:func:`newest_first`)."""
    said = " ".join(typed)
    return _PRESENT.search(said) is not None or _WHERE.search(said) is not None


# A cron run's session id: ``cron_<job id>_<YYYYmmdd_HHMMSS>``, as Hermes' scheduler names it.
_CRON_RUN = re.compile(r"^cron_(.+)_\d{8}_\d{6}$")


def cron_job(session_id: str) -> str | None:
    """The cron job a session is a run of (``None`` for any other session)."""
    run = _CRON_RUN.match(session_id)
    return run.group(1) if run else None


def rare_words(
    words: list[str], counts: Callable[[list[str]], dict[str, int]]
) -> tuple[list[str], list[str]]:
    """The rarest of the query's content ``words`` (:func:`content_words`): those matching at most twice
    as many docs as the rarest one, ``counts`` giving how many docs each is in (up to :data:`RARE_CAP`);
    and every one that matches, the rarest first."""
    counted = {w: min(n, RARE_CAP) for w, n in counts(words[:8]).items()}
    found = sorted((n, t) for t, n in counted.items() if n)
    if not found:
        return [], []
    least = found[0][0]
    return [t for n, t in found if n <= 2 * least], [t for _, t in found]


def _latest(conv: Conversation) -> float:
    """When the conversation's newest matching turn was (0 when none is dated)."""
    return max((h.time or 0.0 for h in conv.hits), default=0.0)
