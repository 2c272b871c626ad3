"""The time a question names: "what did we decide yesterday", "last week's deploy", 昨天的会议, "was habe ich
gestern gemacht". When a person asks about a time, the conversations held then are the ones meant.

Such words are no words to find: "yesterday" is rarely in the turn that answers, and when it is, it means the
day before *that* turn. So a question is read as its time (a window of local time, :func:`read`) and the
rest of its words. The search asks the rest within the window, then the whole question at any time, and
puts what the window found first (:func:`answered`): a time a question names about its subject ("last
night's restic snapshots", the nightly backup months ago) can mislead the window, never hide an answer.

A question whose other words ask for nothing in particular ("what did I work on yesterday", "我昨天做了什么")
asks what happened then: the window's conversations, newest first.

Times counted back from now are read, in English, Chinese, Japanese, German, French, Spanish, Italian,
Portuguese and Dutch. A month's
or a weekday's name, or a date ("March 14", "am 14. März"), in those languages, is most often the subject
("the trip in September", "the wifi expires Monday", "the 2026-11-24 log"): it is a time only in a question
that asks for nothing else ("what did I work on in November", "was habe ich am Montag gemacht").
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, ClassVar

from hermes_trail.index import cjk, stopwords
from hermes_trail.model import _Record

if TYPE_CHECKING:
    from hermes_trail.index.filters import SearchFilters
    from hermes_trail.index.results import SearchResult


class Window(_Record):
    """A time a question names, as a window of epoch seconds, and what the answer found in it."""

    _fields: ClassVar[tuple[str, ...]] = ("words", "since", "until", "rest", "listing", "within")
    __slots__ = _fields
    # The words that name it, as typed ("last week's", "昨天").
    words: str
    since: float
    until: float
    # The question without them: what is searched for within the window.
    rest: str
    # The rest asks for nothing in particular: the answer is the window's conversations, newest first.
    listing: bool
    # How many of the answer's conversations are from the window (first); set by :func:`answered`.
    within: int

    def __init__(
        self, words: str, since: float, until: float, rest: str, listing: bool = False, within: int = 0
    ) -> None:
        self.words = words
        self.since = since
        self.until = until
        self.rest = rest
        self.listing = listing
        self.within = within

    def narrowing(self, filters: SearchFilters) -> SearchFilters | None:
        """``filters`` kept to the window as well; ``None`` when the two leave no time at all (a
        ``--until`` before it)."""
        from hermes_trail.index.filters import SearchFilters

        since = self.since if filters.since is None else max(self.since, filters.since)
        until = self.until if filters.until is None else min(self.until, filters.until)
        if since >= until:
            return None
        values = filters.as_dict()
        values.update(since=since, until=until)
        return SearchFilters(**values)

    def said(self) -> str:
        """The window as a person reads it, in local time: ``Fri 4 Dec`` for a day, ``Mon 30 Nov – Sun 6
        Dec`` for whole days, ``Fri 4 Dec 18:00 – Sat 5 Dec 06:00`` otherwise."""
        start, end = datetime.fromtimestamp(self.since), datetime.fromtimestamp(self.until)
        if start.time() == end.time() == datetime.min.time():
            last = end - timedelta(days=1)  # a window of whole days ends at the midnight after its last
            return _day(start) if last.date() == start.date() else f"{_day(start)} – {_day(last)}"
        if end.date() == start.date():
            return f"{_day(start)} {start:%H:%M} – {end:%H:%M}"
        return f"{_day(start)} {start:%H:%M} – {_day(end)} {end:%H:%M}"

    def explained(self) -> str:
        """What the answer is, in a sentence: the terminal's and a recall page's line about the time."""
        named = re.sub("['\u2019]s$", "", self.words)
        since = re.match(_SINCE.replace("$", ""), named + " ", re.IGNORECASE) is not None  # "since Monday"
        if self.listing:
            if not self.within:
                return f"Nothing recorded {named} ({self.said()})."
            return f"Conversations {'' if since else 'of '}{named} ({self.said()}), the latest first."
        if not self.within:
            then = named if since else f"from {named}"
            return f"Nothing {then} ({self.said()}) has the words; showing other times."
        many = "conversation" if self.within == 1 else f"{self.within} conversations"
        return f"Read {named!r} as {self.said()}: the {many} from then first, then other times."


def _day(at: datetime) -> str:
    return f"{at:%a} {at.day} {at:%b}" + (f" {at.year}" if at.year != datetime.now().year else "")


# What a phrase names: its start and end, in local time.
_Span = tuple[datetime, datetime]


def _midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day)


def _days(first: date, count: int = 1) -> _Span:
    return _midnight(first), _midnight(first + timedelta(days=count))


def _part(day: date, part: str) -> _Span:
    """A part of a day: morning until noon, afternoon until six, evening from five, night from six to six."""
    start = _midnight(day)
    hours = {"morning": (0, 12), "afternoon": (12, 18), "evening": (17, 24), "night": (18, 30)}[part]
    return start + timedelta(hours=hours[0]), start + timedelta(hours=hours[1])


def _week(today: date, back: int) -> _Span:
    monday = today - timedelta(days=today.weekday() + 7 * back)
    return _days(monday, 7)


def _month(today: date, back: int) -> _Span:
    year, month = today.year, today.month - back
    while month < 1:
        year, month = year - 1, month + 12
    return _month_of(year, month)


def _month_of(year: int, month: int) -> _Span:
    after = (year + 1, 1) if month == 12 else (year, month + 1)
    return datetime(year, month, 1), datetime(*after, 1)


def _quarter_of(year: int, quarter: int) -> _Span:
    """The calendar quarter (1 to 4) of ``year``, whole."""
    start = _month_of(year, 3 * quarter - 2)[0]
    return start, _month_of(year, 3 * quarter)[1]


def _in_quarter(back: int) -> Reader:
    """The calendar quarter ``back`` quarters before this one ("this quarter", "last quarter")."""

    def read(found: re.Match[str], now: datetime) -> _Span:
        number = now.year * 4 + (now.month - 1) // 3 - back
        return _quarter_of(number // 4, number % 4 + 1)

    return read


def _named_quarter(found: re.Match[str], now: datetime) -> _Span | None:
    """The quarter named ("Q3", "Q3 2026"), in the year said, else the latest that has begun."""
    quarter = int(found.group(1))
    year = int(found.group(2)) if found.group(2) else now.year - (3 * quarter - 2 > now.month)
    return _quarter_of(year, quarter)


_UNITS = {"minute": 60.0, "hour": 3600.0, "day": 86400.0, "week": 7 * 86400.0, "month": 30 * 86400.0}


def _back(now: datetime, n: float, unit: str) -> _Span:
    """The last ``n`` units, until now."""
    return now - timedelta(seconds=n * _UNITS[unit]), now + timedelta(minutes=1)


def _ago(now: datetime, n: float, unit: str) -> _Span:
    """``n`` units ago: that day for days, else that time give or take one unit (people round: "an hour
    ago" may be forty minutes or two hours); "a few" units ago two to five back, "a couple" one to
    three."""
    if unit == "day" and n == int(n):
        return _days(now.date() - timedelta(days=int(n)))
    length = _UNITS[unit]
    if n != int(n):  # "a few", "a couple of": a range
        low, high = (2, 5) if n > 2 else (1, 3)
        return now - timedelta(seconds=high * length), now - timedelta(seconds=(low - 0.5) * length)
    middle = now - timedelta(seconds=n * length)
    return middle - timedelta(seconds=length), middle + timedelta(seconds=length)


_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "few": 3.5, "a few": 3.5, "couple": 2.5, "a couple": 2.5, "a couple of": 2.5,
    "couple of": 2.5,
    "ein": 1, "einem": 1, "einer": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "un": 1, "une": 1,
    "deux": 2, "trois": 3, "uno": 1, "una": 1, "dos": 2, "tres": 3,
    "due": 2, "tre": 3, "um": 1, "uma": 1, "dois": 2, "duas": 2, "três": 3, "een": 1, "twee": 2, "drie": 3,
    "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
    "几": 3.5,
}  # fmt: skip
_UNIT_WORDS = {
    "minute": "minute", "minutes": "minute", "mins": "minute", "hour": "hour", "hours": "hour",
    "day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month", "months": "month",
    "minuten": "minute", "stunde": "hour", "stunden": "hour", "tag": "day", "tagen": "day", "tage": "day",
    "woche": "week", "wochen": "week", "monat": "month", "monate": "month", "monaten": "month",
    "jour": "day", "jours": "day",
    "heure": "hour", "heures": "hour", "semaine": "week", "semaines": "week", "mois": "month",
    "hora": "hour", "horas": "hour", "día": "day", "dia": "day", "días": "day", "dias": "day",
    "semana": "week", "semanas": "week", "mes": "month", "meses": "month", "mês": "month",
    "minuti": "minute", "ora": "hour", "ore": "hour", "giorno": "day", "giorni": "day", "settimana": "week",
    "settimane": "week", "mese": "month", "mesi": "month", "minutos": "minute",
    "uur": "hour", "dag": "day", "dagen": "day", "weken": "week", "maand": "month", "maanden": "month",
    "分钟": "minute", "小时": "hour", "个小时": "hour", "天": "day", "日": "day", "周": "week",
    "星期": "week", "个星期": "week", "个月": "month", "月": "month",
    "분": "minute", "시간": "hour", "일": "day", "주": "week", "주일": "week", "개월": "month", "달": "month",
}  # fmt: skip


def _number(said: str) -> float:
    said = " ".join(said.lower().split())
    return float(said) if said.isdigit() else _NUMBERS[said]


# Words that make a phrase possessive or end it ("yesterday's", "today’s").
_S = r"(?:['\u2019]s)?\b"
_NUM = (
    r"(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|(?:a\s+)?few|(?:a\s+)?couple(?:\s+of)?)"
)
# A count said as one ("two", "a few"; not "a" alone: "last a week" is no phrase).
_COUNTED = r"(\d{1,3}|two|three|four|five|six|seven|eight|nine|ten|few|couple(?:\s+of)?)"
_NUM_DE = r"(\d{1,3}|einem|einer|zwei|drei|vier|fünf)"
_NUM_FR = r"(\d{1,3}|une?|deux|trois)"
_NUM_ES = r"(\d{1,3}|una?|dos|tres)"
_NUM_IT = r"(\d{1,3}|una?|due|tre)"
_NUM_PT = r"(\d{1,3}|uma?|dois|duas|três)"
_NUM_NL = r"(\d{1,3}|een|twee|drie)"
_NUM_ZH = r"(\d{1,3}|[一两二三四五六七八九十几])"
_UNIT = r"(minutes?|mins|hours?|days?|weeks?|months?)\b"

Reader = Callable[[re.Match[str], datetime], _Span]


def _on_day(back: int) -> Reader:
    """The whole day ``back`` days before today."""
    return lambda found, now: _days(now.date() - timedelta(days=back))


def _part_of(back: int, named: str | None = None) -> Reader:
    """A part of the day ``back`` days before today: ``named``, else the one the phrase says."""
    return lambda found, now: _part(now.date() - timedelta(days=back), named or found.group(1).lower())


def _in_week(back: int) -> Reader:
    """The calendar week (from Monday) ``back`` weeks before this one."""
    return lambda found, now: _week(now.date(), back)


def _in_month(back: int) -> Reader:
    """The calendar month ``back`` months before this one."""
    return lambda found, now: _month(now.date(), back)


def _counted_back(found: re.Match[str], now: datetime) -> _Span:
    """The last so many units until now ("the past 3 days", "最近三天")."""
    return _back(now, _number(found.group(1) or "1"), _UNIT_WORDS[found.group(2).lower()])


def _counted_ago(found: re.Match[str], now: datetime) -> _Span:
    """So many units ago ("2 days ago", "vor drei Tagen", "三天前")."""
    return _ago(now, _number(found.group(1)), _UNIT_WORDS[found.group(2).lower()])


def _last_weekday(found: re.Match[str], now: datetime) -> _Span:
    """The last day of that name before today ("last Friday", "지난 금요일")."""
    said = found.group(1).lower()
    return _before(now.date(), _WEEKDAY_NUMBERS[said] if said in _WEEKDAY_NUMBERS else _CJK_DAYS[said])


def _weekend(before_this: bool, further: int = 0) -> Reader:
    """The latest weekend begun (Saturday and Sunday, whole): the one under way on a Saturday or a Sunday,
    else the one just gone; ``before_this`` ("last weekend"), the one before it on a Saturday or Sunday;
    ``further`` weeks before that ("the weekend before last")."""

    def read(found: re.Match[str], now: datetime) -> _Span:
        today = now.date()
        saturday = today - timedelta(days=(today.weekday() - 5) % 7 + 7 * further)
        if before_this and today.weekday() >= 5:
            saturday -= timedelta(days=7)
        return _days(saturday, 2)

    return read


def _weekday_part(found: re.Match[str], now: datetime) -> _Span:
    """A part of the last day of that name before today ("last Tuesday morning")."""
    day = _before(now.date(), _WEEKDAY_NUMBERS[found.group(1).lower()])[0].date()
    return _part(day, found.group(2).lower())


def _named_year(found: re.Match[str], now: datetime) -> _Span:
    """The calendar year named: this one, or the last ("what did I do last year")."""
    year = now.year - (found.group(1).lower() == "last")
    return datetime(year, 1, 1), datetime(year + 1, 1, 1)


def _before(today: date, weekday: int) -> _Span:
    """The last day before ``today`` that is a ``weekday`` (0: Monday), whole."""
    return _days(today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1))


def _phrases() -> list[tuple[str, Reader]]:
    """Each phrase (a regular expression, case-insensitive) with what it names. The longer phrases first:
    "the day before yesterday" before "yesterday"."""
    night = _part_of(1, "night")
    morning = _part_of(0, "morning")
    last_weekend, weekend = _weekend(True), _weekend(False)
    return [
        # English
        (rf"\b(?:(?:on|over|during)\s+)?the\s+week-?end\s+before\s+last{_S}", _weekend(True, 1)),
        (rf"\b(?:(?:in|during)\s+)?the\s+week\s+before\s+last{_S}", _in_week(2)),
        (rf"\b(?:(?:in|during)\s+)?the\s+month\s+before\s+last{_S}", _in_month(2)),
        (rf"\blast\s+week-?end{_S}", last_weekend),
        (rf"\b(?:(?:over|during|on|at)\s+)?(?:the|this)\s+week-?end{_S}", weekend),
        (rf"\b(?:the\s+)?day\s+before\s+yesterday{_S}", _on_day(2)),
        (rf"\byesterday\s+(morning|afternoon|evening|night){_S}", _part_of(1)),
        (rf"\byesterday{_S}", _on_day(1)),
        (rf"\blast\s+night{_S}", night),
        (rf"\bthis\s+(morning|afternoon|evening){_S}", _part_of(0)),
        (rf"\btonight{_S}", _part_of(0, "evening")),
        (rf"\b(?:earlier\s+)?today{_S}", _on_day(0)),
        (rf"\b(?:(?:in|over|during)\s+)?the\s+(?:last|past)\s+{_NUM}?\s*{_UNIT}", _counted_back),
        (rf"\b(?:(?:in|over|during)\s+)?(?:the\s+)?past\s+{_NUM}?\s*{_UNIT}", _counted_back),
        (rf"\b{_NUM}\s+{_UNIT}\s+ago\b", _counted_ago),
        # "last two weeks" without its article: a count said ("last week" is the calendar week)
        (rf"\b(?:(?:in|over|during)\s+)?last\s+{_COUNTED}\s+{_UNIT}", _counted_back),
        (rf"\b(?:earlier\s+)?this\s+week{_S}", _in_week(0)),
        (rf"\blast\s+week{_S}", _in_week(1)),
        (rf"\b(?:earlier\s+)?this\s+month{_S}", _in_month(0)),
        (rf"\blast\s+month{_S}", _in_month(1)),
        (rf"\b(?:(?:in|during)\s+)?(?:this|the\s+current)\s+quarter{_S}", _in_quarter(0)),
        (
            rf"\b(?:(?:in|during)\s+)?(?:the\s+)?(?:last|previous|past)\s+quarter{_S}(?!\s+of\b)",
            _in_quarter(1),
        ),
        (r"\b(?:(?:im\s+)?(?:letzten|vorigen)|letztes|vorheriges)\s+quartal\b", _in_quarter(1)),
        (r"\b(?:(?:in\s+)?diesem|dieses)\s+quartal\b", _in_quarter(0)),
        (
            r"\b(?:le\s+)?trimestre\s+(?:dernier|pass[ée])\b|\b(?:el\s+)?(?:último|ultimo)\s+trimestre\b",
            _in_quarter(1),
        ),
        (r"\bce\s+trimestre\b|\beste\s+trimestre\b", _in_quarter(0)),
        (
            r"\blast\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\s+"
            rf"(morning|afternoon|evening|night){_S}",
            _weekday_part,
        ),
        (r"\blast\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)" + _S, _last_weekday),
        # German
        (r"\b(?:am\s+)?(?:letzten|letztes|vergangenen|vergangenes)\s+wochenende\b", last_weekend),
        (r"\b(?:am|übers|über\s+das|dieses)\s+wochenende\b", weekend),
        (r"\bvorgestern\b", _on_day(2)),
        (r"\bgestern\s+(?:abend|nacht)\b", night),
        (r"\bgestern\b", _on_day(1)),
        (r"\bheute\s+(?:morgen|früh|vormittag)\b", morning),
        (r"\bheute\b", _on_day(0)),
        (r"\bdiese\s+woche\b", _in_week(0)),
        (r"\b(?:letzte|letzten|letzter|vergangene|vergangenen)\s+woche\b", _in_week(1)),
        (r"\bdiesen\s+monat\b", _in_month(0)),
        (r"\b(?:letzten|letzter|vergangenen)\s+monat\b", _in_month(1)),
        (rf"\bvor\s+{_NUM_DE}\s+(tage?n?|wochen?|stunden?|monate?n?)\b", _counted_ago),
        (
            r"\b(?:am\s+)?(?:letzten|vergangenen)\s+(montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonnabend|"
            r"sonntag)\b",
            _last_weekday,
        ),
        # French ("hier" only in a French question: it is German for "here")
        (r"\b(?:le\s+)?week-?end\s+(?:dernier|passé|passe)\b", last_weekend),
        (r"\b(?:ce|le)\s+week-?end\b", weekend),
        (r"\bavant[-\s]hier\b", _on_day(2)),
        (r"\bhier\s+soir\b", night),
        (r"\bhier\b", _on_day(1)),
        (r"\baujourd['\u2019]hui\b", _on_day(0)),
        (r"\bcette\s+semaine\b", _in_week(0)),
        (r"\bla\s+semaine\s+(?:dernière|derniere|passée|passee)\b", _in_week(1)),
        (r"\ble\s+mois\s+(?:dernier|passé|passe)\b", _in_month(1)),
        (rf"\bil\s+y\s+a\s+{_NUM_FR}\s+(jours?|semaines?|heures?|mois)\b", _counted_ago),
        (r"\b(lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)\s+(?:dernier|passé)\b", _last_weekday),
        # Spanish
        (r"\b(?:el\s+)?fin\s+de\s+semana\s+pasado\b", last_weekend),
        (r"\b(?:el|este)\s+fin\s+de\s+semana\b", weekend),
        (r"\banteayer\b", _on_day(2)),
        (r"\banoche\b", night),
        (r"\bayer\b", _on_day(1)),
        (r"\bhoy\b", _on_day(0)),
        (r"\besta\s+semana\b", _in_week(0)),
        (r"\bla\s+semana\s+pasada\b", _in_week(1)),
        (r"\beste\s+mes\b", _in_month(0)),
        (r"\bel\s+mes\s+pasado\b", _in_month(1)),
        (rf"\bhace\s+{_NUM_ES}\s+(d[ií]as?|semanas?|horas?|mes(?:es)?)\b", _counted_ago),
        (
            r"\b(?:el\s+)?(lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo)\s+pasado\b",
            _last_weekday,
        ),
        # Italian
        (r"\b(?:lo\s+)?scorso\s+(?:fine\s+settimana|weekend)\b|\bfine\s+settimana\s+scorso\b", last_weekend),
        (r"\b(?:questo|il|nel)\s+(?:fine\s+settimana|weekend)\b", weekend),
        (r"\bl['\u2019]altro\s*ieri\b|\baltroieri\b", _on_day(2)),
        (r"\bieri\s+(?:sera|notte)\b|\bstanotte\b", night),
        (r"\bieri\b", _on_day(1)),
        (r"\bstamattina\b|\bstamani\b", morning),
        (r"\boggi\b", _on_day(0)),
        (r"\bquesta\s+settimana\b", _in_week(0)),
        (r"\b(?:la\s+)?settimana\s+scorsa\b", _in_week(1)),
        (r"\bquesto\s+mese\b", _in_month(0)),
        (r"\b(?:il\s+)?mese\s+scorso\b", _in_month(1)),
        (rf"\b{_NUM_IT}\s+(giorn[oi]|settiman[ae]|or[ae]|mes[ei]|minuti)\s+fa\b", _counted_ago),
        (
            r"\b(lunedì|lunedi|martedì|martedi|mercoledì|mercoledi|giovedì|giovedi|venerdì|venerdi|sabato|"
            r"domenica)\s+scors[oa]\b",
            _last_weekday,
        ),
        # Portuguese
        (r"\b(?:no\s+)?fim\s+de\s+semana\s+passado\b", last_weekend),
        (r"\b(?:no|neste|este)\s+fim\s+de\s+semana\b", weekend),
        (r"\banteontem\b", _on_day(2)),
        (r"\bontem\s+(?:à|a)\s+noite\b", night),
        (r"\bontem\b", _on_day(1)),
        (r"\b(?:hoje\s+de|esta)\s+manhã\b", morning),
        (r"\bhoje\b", _on_day(0)),
        (r"\b(?:a\s+)?semana\s+passada\b", _in_week(1)),
        (r"\beste\s+mês\b", _in_month(0)),
        (r"\b(?:o\s+)?mês\s+passado\b", _in_month(1)),
        (rf"\bhá\s+{_NUM_PT}\s+(dias?|semanas?|horas?|m[eê]s(?:es)?|minutos)\b", _counted_ago),
        (
            r"\b(?:n[oa]\s+)?(segunda-feira|terça-feira|terca-feira|quarta-feira|quinta-feira|sexta-feira|segunda|"
            r"terça|terca|quarta|quinta|sexta|sábado|sabado|domingo)\s+passad[oa]\b",
            _last_weekday,
        ),
        # Dutch
        (r"\b(?:vorig|afgelopen)\s+weekend\b", last_weekend),
        (r"\b(?:dit|het|in\s+het)\s+weekend\b", weekend),
        (r"\beergisteren\b", _on_day(2)),
        (r"\bgisteravond\b|\bgisteren\s*avond\b|\bvannacht\b", night),
        (r"\bgisteren\b", _on_day(1)),
        (r"\bvanochtend\b|\bvanmorgen\b", morning),
        (r"\bvandaag\b", _on_day(0)),
        (r"\bdeze\s+week\b", _in_week(0)),
        (r"\b(?:vorige|afgelopen)\s+week\b", _in_week(1)),
        (r"\bdeze\s+maand\b", _in_month(0)),
        (r"\b(?:vorige|afgelopen)\s+maand\b", _in_month(1)),
        (rf"\b{_NUM_NL}\s+(dagen|dag|weken|week|uur|maanden|maand|minuten)\s+geleden\b", _counted_ago),
        (
            r"\b(?:vorige|afgelopen)\s+(maandag|dinsdag|woensdag|donderdag|vrijdag|zaterdag|zondag)\b",
            _last_weekday,
        ),
        # Chinese, then Japanese (no spaces: no word boundaries)
        (r"上周末|上个周末|先週末", last_weekend),
        (r"这个周末|这周末|本周末|周末|今週末|週末", weekend),
        (r"前天", _on_day(2)),
        (r"昨晚|昨天晚上|昨夜", night),
        (r"昨天|昨日", _on_day(1)),
        (r"今早|今天早上|今朝", morning),
        (r"今天|今日", _on_day(0)),
        (r"这周|本周|这个星期|这星期|今週", _in_week(0)),
        (r"上周|上个星期|上星期|上个礼拜|先週", _in_week(1)),
        (r"这个月|本月|今月", _in_month(0)),
        (r"上个月|上月|先月", _in_month(1)),
        (rf"{_NUM_ZH}\s*(分钟|个小时|小时|天|个星期|周|个月)前", _counted_ago),
        (rf"(?:最近|过去)\s*{_NUM_ZH}\s*(分钟|个小时|小时|天|个星期|周|个月)", _counted_back),
        # Korean (a particle joined to the word: "어제는", "지난주에")
        (r"지난\s*주말", last_weekend),
        (r"이번\s*주말|주말", weekend),
        (r"그저께|그제", _on_day(2)),
        (r"어젯밤|어제\s*(?:밤|저녁)", night),
        (r"어제", _on_day(1)),
        (r"오늘\s*아침", morning),
        (r"오늘", _on_day(0)),
        (r"이번\s*주", _in_week(0)),
        (r"지난\s*주", _in_week(1)),
        (r"이번\s*달", _in_month(0)),
        (r"지난\s*달", _in_month(1)),
        (r"지난\s*([월화수목금토일])요일", _last_weekday),
        (r"(\d{1,3})\s*(분|시간|일|주일|주|개월|달)\s*전", _counted_ago),
    ]


# Words every phrase below holds one of (in English its unit or its part of the day, never "this", "last" or
# "past" alone, which "this error" has): most questions have none, and the phrases are neither compiled
# (3.4 ms of a command's start) nor searched.
_CUES = (
    "day", "night", "morning", "afternoon", "evening", "week", "month", "hour", "min", "ago", "quart",
    "trimestre",
    "gestern", "heute", "woche", "monat",
    "vor ", "hier", "aujourd", "semaine", "mois", "il y a", "ayer", "hoy", "anoche", "mes", "hace", "semana",
    "ieri", "oggi", "stanotte", "stamattina", "stamani", "settiman", " fa", "ontem", "hoje", "manhã",
    "mês", "há ", "letzt", "vergangen", "dernier", "passé", "pasado", "scors", "passad", "vorige",
    "afgelopen", "gister", "vandaag", "vannacht", "vanochtend", "vanmorgen", "maand", "geleden",
    "天", "日", "晚", "周", "星期", "礼拜", "月", "早", "週", "夜",
    "어제", "어젯", "오늘", "그제", "그저께", "지난", "이번", "주말", " 전",
)  # fmt: skip


@functools.cache
def _compiled() -> list[tuple[re.Pattern[str], Reader]]:
    return [(re.compile(pattern, re.IGNORECASE), reader) for pattern, reader in _phrases()]


# With a time named, words that ask for nothing in particular ("what did I work on", "做了什么"): the question
# asks what happened then. English, German, French, Spanish, Italian, Portuguese, Dutch; Chinese and Japanese
# below.
_ACTIVITY = frozenset((
    "work", "worked", "working", "do", "did", "done", "doing", "discuss", "discussed", "talk", "talked",
    "talking", "chat", "chatted", "chats", "happen", "happened", "happening", "ask", "asked", "say", "said",
    "up", "conversation", "conversations", "session", "sessions", "everything", "summary", "summarize",
    "summarise", "recap", "list", "show", "me", "going", "on", "go", "went", "get", "got", "hermes",
    "gemacht", "besprochen", "gearbeitet", "geredet", "gesprochen", "passiert", "los",
    "fait", "parlé", "parle", "discuté", "discute", "travaillé", "travaille", "passé", "passe",
    "hice", "hicimos", "hablamos", "hablé", "hable", "trabajé", "trabaje", "pasó", "paso",
    "fatto", "fatta", "parlato", "discusso", "lavorato", "successo", "fiz", "fizemos", "falamos",
    "trabalhei", "aconteceu", "gedaan", "besproken", "gewerkt", "gebeurd",
))  # fmt: skip
# The same in Chinese and Japanese, with their function words: what is left of a run without them.
_ACTIVITY_CJK = re.compile(
    r"做|干|聊|谈|讨论|说|问|对话|会话|事情?|工作|发生|都|啥|了|什么|我|们|的|吗|呢|一下|些|しました|何|話"
    r"|뭐|뭘|무엇을?|무슨|했어요?|했나요|했습니까|했지|했던|있었어요?|있었나요|일|작업|대화|얘기|이야기|내가|제가"
    r"|나는|저는|우리가?|에는|에|은|는|을|를|의"
)
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)?")


def asks_for_nothing(word: str) -> bool:
    """Whether ``word`` (not Chinese or Japanese) asks for nothing in particular: what happened ("chats",
    "discussed", "show"), not what about; a question of such words and a place's name asks for what
    happened there (``plan.naming_places``)."""
    return word.lower() in _ACTIVITY


def _asks_for_nothing(rest: str) -> bool:
    """Whether ``rest`` (a question without its time) asks only what happened: function words and
    activity words alone."""
    words = [part for word in _WORD.findall(rest) for part in re.split("['\u2019]", word) if part]
    for word in words:
        if cjk.has_cjk(word):
            if _ACTIVITY_CJK.sub("", word).strip(" ？?"):
                return False
            continue
        if asks_for_nothing(word) or stopwords.is_stopword(word) or word.isdigit():
            continue
        return False
    return True


def read(text: str, now: float | None = None) -> Window | None:
    """The time ``text`` names, counted back from ``now`` (epoch seconds; the clock by default) in local
    time, and the rest of its words; ``None`` when it names none. The first phrase found counts."""
    at = datetime.fromtimestamp(time.time() if now is None else now)
    lowered = text.lower()
    spanned = len(text) <= RANGE_CHARS and re.search(_RANGE_CUE, lowered) is not None
    if spanned and (ranged := _range(text, at)) is not None:
        return ranged
    if any(cue in lowered for cue in _CUES):
        for pattern, reader in _compiled():
            found = pattern.search(text)
            if found is None:
                continue
            if found.group(0).lower().startswith("hier") and stopwords.language(text) != "fr":
                continue
            rest, span, clock = _at_clock(_rest(text, found), reader(found, at))
            return _window(text, found, span, at, rest, _asks_for_nothing(rest), clock)
    if len(text) <= ALONE_CHARS and any(ch.isdigit() for ch in text) and (clocked := _clock_alone(text, at)):
        return clocked
    if len(text) > ALONE_CHARS or not _names_a_day(lowered):
        return None
    # A month's or a day's name, or a date, is most often the subject ("the trip in September", the
    # 2026-11-24 log): a time only in a question that asks for nothing else ("what did I do on Monday").
    for alone, named in _compiled_alone():
        found = alone.search(text)
        if found is None:
            continue
        day = named(found, at)
        if day is None:
            return None
        rest, span, clock = _at_clock(_rest(text, found), day)
        nothing_else = _asks_for_nothing(rest)
        # After "since" a name is a time beside any subject ("errors since Tuesday"), or alone.
        if _since(text, found) is None and (not rest or not nothing_else):
            return None
        return _window(text, found, span, at, rest, nothing_else, clock)
    return None


def span_of(text: str, now: float | None = None) -> tuple[float, float] | None:
    """The window ``text`` names when it is a time and nothing else: the value of an option
    (``--since yesterday``, ``--since "last week"``, ``--until monday``, ``--since "am 14. März"``), where a
    weekday's or a month's name alone is a time too. ``None`` when it is not one."""
    window = read(text, now)
    if window is not None:
        return (window.since, window.until) if not window.rest.strip() else None
    said = text.strip()
    if not said or not _names_a_day(said.lower()):
        return None
    at = datetime.fromtimestamp(time.time() if now is None else now)
    for alone, named in _compiled_alone():
        found = alone.fullmatch(said)
        if found is None:
            continue
        span = named(found, at)
        return (span[0].timestamp(), span[1].timestamp()) if span is not None else None
    return None


# A span between two times, each said as an option's value is (:func:`span_of`): "between Monday and
# Wednesday", "from March 3 to March 5", "zwischen Montag und Mittwoch", "von Montag bis Mittwoch", "du
# lundi au mercredi", "entre el lunes y el miércoles". Its words open and join it.
_RANGE_OPEN = r"between|from|zwischen|von|vom|entre|du|del|desde"
_RANGE_JOIN = r"and|to|until|till|through|und|bis|zum|et|au|y|al|hasta"
# Patterns as strings, compiled at their first use (``re``'s own cache): most questions name no span, and
# compiling at import costs every command's start.
_RANGE_CUE = rf"\b(?:{_RANGE_OPEN})\s.+\s(?:{_RANGE_JOIN})\s"
# The most words either end of a span is said in ("the 14th of March 2026"), and the longest question
# read for one (a pasted log or traceback is no question about a span of days).
RANGE_WORDS = 5
RANGE_CHARS = 200


def _said_span(said: str, now: float) -> tuple[float, float] | None:
    """:func:`span_of` of an end of a span, as written or without the marks after it ("Wednesday?")."""
    return span_of(said, now) or span_of(said.rstrip(",.?!"), now)


def _range(text: str, now: datetime) -> Window | None:
    """The span a question names between two times (:data:`_RANGE_CUE`), from the start of the first to
    the end of the second, and the rest of its words; ``None`` when its ends are no times ("from the shop
    to the warehouse") or the second comes before the first."""
    words = text.split()
    lowered = [w.lower().strip(",.?!¿¡") for w in words]
    stamp = now.timestamp()
    for first, word in enumerate(lowered):
        if not re.fullmatch(_RANGE_OPEN, word):
            continue
        for join in range(first + 2, min(first + 2 + RANGE_WORDS, len(words))):
            if not re.fullmatch(_RANGE_JOIN, lowered[join]):
                continue
            start = _said_span(" ".join(words[first + 1 : join]), stamp)
            if start is None:
                continue
            for last in range(min(join + RANGE_WORDS, len(words)), join, -1):
                end = _said_span(" ".join(words[join + 1 : last]), stamp)
                if end is None or end[1] <= start[0]:
                    continue
                rest = " ".join([*words[:first], *words[last:]])
                said = " ".join(words[first:last]).rstrip(",?!")
                return Window(said, start[0], end[1], rest, listing=_asks_for_nothing(rest))
    return None


# A time of day said with a day ("yesterday at 3pm", "gestern um 15 Uhr", "on Monday around 14:30"), with
# its half of the day or its minutes (a bare number is a count: "2 errors yesterday").
_CLOCK = (
    r"(?<![\w:.])(?:(?:at|around|about|um|gegen|vers|à|a\s+las|alle|om|às)\s+)?"
    r"(\d{1,2})(?:(?::|h)(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.|uhr|h)?(?![\w:])"
)
# The hours around a time of day said: "at 3pm" is 2 to 4 pm.
CLOCK_HOURS = 1


def _clock_alone(text: str, now: datetime) -> Window | None:
    """A time of day alone in a question that asks for nothing else ("what was I doing at 3pm"): the hours
    around it today, or yesterday when it has not come yet today; ``None`` otherwise (a subject beside it,
    "the deploy at 3pm", keeps its words)."""
    for back in (0, 1):
        rest, span, clock = _at_clock(text, _days(now.date() - timedelta(days=back)))
        if not clock or not rest or not _asks_for_nothing(rest):
            return None
        if span[0] <= now:
            return Window(clock, span[0].timestamp(), span[1].timestamp(), rest, listing=True)
    return None


def _at_clock(rest: str, span: _Span) -> tuple[str, _Span, str]:
    """``rest`` without a time of day it says, and ``span`` narrowed to the hours around it
    (:data:`CLOCK_HOURS`), when ``span`` is one day or part of one; else all as they were. The time's words
    are left out of what is searched for: "3pm" was a word missing from every turn."""
    start, end = span
    if end - start > timedelta(days=1):
        return rest, span, ""
    for found in re.finditer(_CLOCK, rest, re.IGNORECASE):
        hour, minute, half = int(found[1]), int(found[2] or 0), (found[3] or "").lower().replace(".", "")
        if not (found[2] or half) or minute > 59 or hour > (12 if half in ("am", "pm") else 23):
            continue
        hour = hour % 12 + (12 if half == "pm" else 0) if half in ("am", "pm") else hour
        midnight = start.replace(hour=0, minute=0, second=0, microsecond=0)
        said = midnight + timedelta(hours=hour, minutes=minute)
        around = timedelta(hours=CLOCK_HOURS)
        narrowed = (max(start, said - around), min(end, said + around))
        if narrowed[0] >= narrowed[1]:
            continue
        left = " ".join((rest[: found.start()] + " " + rest[found.end() :]).split())
        return left, narrowed, " ".join(found.group(0).split())
    return rest, span, ""


# A time said as where a span starts, until now ("since Monday", "seit gestern", "depuis hier").
_SINCE = r"(?:since|seit|depuis|desde|sinds|dal|dalla|dallo)\s+$"


def _since(text: str, found: re.Match[str]) -> re.Match[str] | None:
    """The "since" said before the time ``found`` names ("what changed since Monday" asks about Monday to
    now, not Monday alone), if any."""
    return re.search(_SINCE, text[: found.start()], re.IGNORECASE)


# A Korean particle joined to a time ("어제의", "지난주에", "오늘부터"): the time's, not a word to find.
_KO_PARTICLE = r"(?:에는|에서|에|의|은|는|도|부터|까지)(?![^\W\d_])"


def _rest(text: str, found: re.Match[str]) -> str:
    since = _since(text, found)
    after = text[found.end() :]
    if "\uac00" <= found.group(0)[-1:] <= "\ud7a3" and (particle := re.match(_KO_PARTICLE, after)):
        after = after[particle.end() :]
    rest = " ".join((text[: since.start() if since else found.start()] + " " + after).split())
    return re.sub(r"^(?:from|on|of|since|in|during)\s+|\s+(?:from|on|of|since|in|during)$", "", rest)


def _window(
    text: str, found: re.Match[str], span: _Span, now: datetime, rest: str, listing: bool, clock: str = ""
) -> Window:
    """The window ``found`` names, from its start until now when said after "since" (:func:`_since`), the
    hours around a time of day said with it (``clock``) when one was."""
    start, end = span
    words = found.group(0)
    if (since := _since(text, found)) is not None and start < now and not clock:
        end, words = now + timedelta(minutes=1), text[since.start() : found.end()]
    words = f"{words} {clock}" if clock else words
    return Window(" ".join(words.split()), start.timestamp(), end.timestamp(), rest, listing=listing)


# A question this long or longer is not read for a month's or a day's name alone (it says more than when).
ALONE_CHARS = 80
# Each month's names in the languages times are read in: English, German, French, Spanish, Italian,
# Portuguese, Dutch (with and without their accents, as people type them).
_MONTH_NAMES = (
    ("january", "januar", "janvier", "enero", "gennaio", "janeiro", "januari"),
    ("february", "februar", "février", "fevrier", "febrero", "febbraio", "fevereiro", "februari"),
    ("march", "märz", "maerz", "mars", "marzo", "março", "maart"),
    ("april", "avril", "abril", "aprile"),
    ("may", "mai", "mayo", "maggio", "maio", "mei"),
    ("june", "juni", "juin", "junio", "giugno", "junho"),
    ("july", "juli", "juillet", "julio", "luglio", "julho"),
    ("august", "août", "aout", "agosto", "augustus"),
    ("september", "septembre", "septiembre", "setiembre", "settembre", "setembro"),
    ("october", "oktober", "octobre", "octubre", "ottobre", "outubro"),
    ("november", "novembre", "noviembre", "novembro"),
    ("december", "dezember", "décembre", "decembre", "diciembre", "dicembre", "dezembro"),
)
_MONTHS = {name: number for number, names in enumerate(_MONTH_NAMES, 1) for name in names}
# Names of May that are words or names too ("may I", Mai, Mei): a month alone only after "in" ("in May").
_MAY_ALONE = frozenset(("may", "mai", "mei"))
# English short names, read only with a day ("Mar 14", "14 Sept"): alone they are words ("mar", "dec").
_SHORT_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10,
    "nov": 11, "dec": 12,
}  # fmt: skip
# Each weekday's names, Monday first, in the same languages (Portuguese with or without "-feira").
_WEEKDAY_NAMES = (
    ("monday", "montag", "lundi", "lunes", "lunedì", "lunedi", "segunda-feira", "segunda", "maandag"),
    ("tuesday", "dienstag", "mardi", "martes", "martedì", "martedi", "terça-feira", "terca-feira", "terça",
     "terca", "dinsdag"),
    ("wednesday", "mittwoch", "mercredi", "miércoles", "miercoles", "mercoledì", "mercoledi", "quarta-feira",
     "quarta", "woensdag"),
    ("thursday", "donnerstag", "jeudi", "jueves", "giovedì", "giovedi", "quinta-feira", "quinta",
     "donderdag"),
    ("friday", "freitag", "vendredi", "viernes", "venerdì", "venerdi", "sexta-feira", "sexta", "vrijdag"),
    ("saturday", "samstag", "sonnabend", "samedi", "sábado", "sabado", "sabato", "zaterdag"),
    ("sunday", "sonntag", "dimanche", "domingo", "domenica", "zondag"),
)  # fmt: skip
_WEEKDAY_NUMBERS = {name: number for number, names in enumerate(_WEEKDAY_NAMES) for name in names}


def _alternatives(names: Iterable[str]) -> str:
    """A regular expression's alternatives for ``names``, the longest first ("segunda-feira" before
    "segunda")."""
    return "|".join(sorted(map(re.escape, names), key=len, reverse=True))


def _named_month(found: re.Match[str], now: datetime) -> _Span | None:
    """The month named (November, 11月), in the year said, else the latest that has begun."""
    said = found.group(1).lower()
    month = _MONTHS[said] if said in _MONTHS else int(said)
    if not 1 <= month <= 12:
        return None
    year = int(found.group(2)) if found.lastindex and found.lastindex >= 2 and found.group(2) else None
    return _month_of(year or now.year - (month > now.month), month)


_CJK_DAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_CJK_DAYS.update({"월": 0, "화": 1, "수": 2, "목": 3, "금": 4, "토": 5, "일": 6})  # Korean's 월요일 ...


def _named_weekday(found: re.Match[str], now: datetime) -> _Span:
    """The last day of that name before today ("on Monday", 周一)."""
    said = found.group(1).lower()
    return _before(now.date(), _WEEKDAY_NUMBERS[said] if said in _WEEKDAY_NUMBERS else _CJK_DAYS[said])


def _dated(found: re.Match[str], now: datetime) -> _Span | None:
    """The day a date names (2026-11-24)."""
    try:
        return _days(date(int(found.group(1)), int(found.group(2)), int(found.group(3))))
    except ValueError:
        return None


def _day_of(month: int, day: int, year: int | None, now: datetime) -> _Span | None:
    """The day ``day`` of ``month``, in ``year``, else the latest that has begun ("March 14" in December is
    this year's, in February last year's); ``None`` for no such day (30 February)."""
    try:
        if year is not None:
            return _days(date(year, month, day))
        this_year = date(now.year, month, day)
        return _days(this_year if this_year <= now.date() else date(now.year - 1, month, day))
    except ValueError:
        return None


def _month_number(said: str) -> int:
    said = said.lower().rstrip(".")
    return _MONTHS[said] if said in _MONTHS else _SHORT_MONTHS[said]


def _month_then_day(found: re.Match[str], now: datetime) -> _Span | None:
    """A month's name and a day ("March 14", "Mar 14th, 2025")."""
    year = int(found.group(3)) if found.group(3) else None
    return _day_of(_month_number(found.group(1)), int(found.group(2)), year, now)


def _day_then_month(found: re.Match[str], now: datetime) -> _Span | None:
    """A day and a month's name ("14 March", "the 14th of March", "14. März", "el 14 de marzo")."""
    year = int(found.group(3)) if found.group(3) else None
    return _day_of(_month_number(found.group(2)), int(found.group(1)), year, now)


def _dotted(found: re.Match[str], now: datetime) -> _Span | None:
    """A day and a month in digits with their dots (14.3., 14.03.2026)."""
    year = int(found.group(3)) if found.group(3) else None
    return _day_of(int(found.group(2)), int(found.group(1)), year, now)


def _cjk_month_day(found: re.Match[str], now: datetime) -> _Span | None:
    """A month and a day in Chinese or Japanese (3月14日, 2026年3月14号)."""
    year = int(found.group(1)) if found.group(1) else None
    return _day_of(int(found.group(2)), int(found.group(3)), year, now)


# A month's or a weekday's name, or the marks a date is written with: most questions have none, and the
# patterns below are not compiled (3 ms of a command's start) nor searched. Whole words: "mai" is in
# "email", "mar" in "markdown".
_DAY_WORDS = frozenset((*_MONTHS, *_WEEKDAY_NUMBERS, *_SHORT_MONTHS, "year"))
_CJK_DAY_CUES = ("月", "周", "星期", "礼拜", "요일")


_DOTTED_DAY = r"\d\.\d{1,2}\."  # compiled at its first use, as _RANGE_CUE


def _names_a_day(lowered: str) -> bool:
    if any(cue in lowered for cue in _CJK_DAY_CUES):
        return True
    if "-" in lowered and any(ch.isdigit() for ch in lowered):  # a date (2026-11-24)
        return True
    if "." in lowered and re.search(_DOTTED_DAY, lowered):  # a day and a month with their dots (14.3.)
        return True
    if "q" in lowered and re.search(r"\bq[1-4]\b", lowered):  # a quarter (Q3)
        return True
    return not _DAY_WORDS.isdisjoint(re.findall(r"[^\W\d_]+(?:-feira)?", lowered))


@functools.cache
def _compiled_alone() -> list[tuple[re.Pattern[str], Callable[[re.Match[str], datetime], _Span | None]]]:
    months = _alternatives(m for m in _MONTHS if m not in _MAY_ALONE)
    any_month = _alternatives([*_MONTHS, *_SHORT_MONTHS])
    days = _alternatives(_WEEKDAY_NUMBERS)
    day = r"(\d{1,2})(?!\d)(?:st|nd|rd|th|er|\.|º)?"
    year = r"(?:,?\s+(?:de\s+)?(\d{4}))?"
    return [
        (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), _dated),
        # A day of a month, before the month alone: "March 14" is a day, not March.
        (re.compile(rf"\b({any_month})\.?\s+{day}{year}(?![\w:])", re.IGNORECASE), _month_then_day),
        (
            re.compile(rf"\b(?:the\s+)?{day}\s+(?:of\s+|de\s+)?({any_month})\b\.?{year}\b", re.IGNORECASE),
            _day_then_month,
        ),
        (re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号號]"), _cjk_month_day),
        # A day and a month in digits as German and Dutch write them, the month's dot said ("am 14.3.",
        # "14.03.2026"): "3.12" alone is a version.
        (re.compile(r"(?<![\w.])(\d{1,2})\.(\d{1,2})\.(\d{4})?(?![\w.])"), _dotted),
        (
            re.compile(rf"\b(?:in\s+|during\s+)?({months})(?:\s+(?:de\s+)?(\d{{4}}))?\b", re.IGNORECASE),
            _named_month,
        ),
        (re.compile(r"\b(?:in|during|im|en)\s+(may|mai|mei)(?:\s+(\d{4}))?\b", re.IGNORECASE), _named_month),
        (re.compile(rf"\b(?:on\s+)?({days})(?![\w-])", re.IGNORECASE), _named_weekday),
        (re.compile(r"(\d{1,2})\s*月份?"), _named_month),
        (re.compile(r"(?:周|星期|礼拜)([一二三四五六日天])"), _named_weekday),
        # A quarter ("in Q3", "Q3 2026"): the subject beside anything ("the Q3 roadmap"), as a month is
        (re.compile(r"\b(?:in\s+|during\s+)?q([1-4])(?:\s+(\d{4}))?\b", re.IGNORECASE), _named_quarter),
        # Korean ("월요일에": on Monday, its particle joined)
        (re.compile(r"([월화수목금토일])요일"), _named_weekday),
        # A year: the subject beside anything ("compared to last year"), a time only alone.
        (re.compile(r"\b(?:in\s+|during\s+)?(this|last)\s+year\b", re.IGNORECASE), _named_year),
    ]


def answered(
    text: str,
    filters: SearchFilters,
    search: Callable[[str, SearchFilters], SearchResult],
    listing: Callable[[SearchFilters], SearchResult],
    limit: int,
    now: float | None = None,
) -> SearchResult:
    """The answer to ``text``: ``search(text, filters)`` when it names no time. Else what ``search`` finds
    of the rest of its words within that time first ("yesterday" is rarely in the turn that answers), then
    what it finds of the whole question at any time, as before times were read (the conversations not
    already there; not asked when the time fills the answer), up to ``limit``; or, when the rest asks for
    nothing in particular, the time's conversations (``listing``). The time's words are never said
    missing. ``result.when`` says which time, and how many conversations came from it."""
    window = read(text, now)
    if window is None:
        return search(text, filters)
    narrowed = window.narrowing(filters)
    if narrowed is None:  # the options leave none of that time: the question as it was typed
        return search(text, filters)
    if window.listing:
        result = listing(narrowed)
        result.query = text
        window.within = len(result.conversations)
        result.when = window
        return result
    inside = search(window.rest, narrowed)
    # The meaning and title passes weigh whole sessions, whatever their time: of what they found, only
    # the turns of that time are the window's. Hermes' memory and skills are no turns: their time is
    # their file's, when it last changed, not when anything in them was said.
    held = []
    for conv in inside.conversations:
        conv.hits = [h for h in conv.hits if h.origin == "session" and _within(h.time, window)]
        if conv.hits:
            held.append(conv)
    if len(held) >= limit:  # the window fills the answer: nothing of other times would be shown
        inside.conversations = held[:limit]
        inside.query = text
        window.within = limit
        inside.when = window
        return inside
    # At any time, the question as typed: a time it names about its subject ("last night's restic
    # snapshots": the nightly backup) is part of what it asks, as it was before times were read.
    everywhere = search(text, filters)
    named = {_bare(word) for word in window.words.split()}
    everywhere.missing = [word for word in everywhere.missing if _bare(word) not in named]
    keys = {(c.store, c.root) for c in held}
    merged = held + [c for c in everywhere.conversations if (c.store, c.root) not in keys]
    everywhere.conversations = merged[:limit]
    everywhere.seconds += inside.seconds
    window.within = min(len(held), limit)
    everywhere.when = window
    return everywhere


def _bare(word: str) -> str:
    """A word as a time's words are compared: lower case, without a possessive."""
    return re.sub("['\u2019]s$", "", word.lower())


def _within(at: float | None, window: Window) -> bool:
    return at is not None and window.since <= at < window.until
