"""Short answers without a model: what shape of answer a question wants, and that span of a sentence.

Why: "When did Leo go to the dentist?" wants a date, "How many kids does she have?" a number,
"Where does Tom work?" a place, "Did she like it?" yes or no; answering with the whole turn
buries the answer (and an ASR-heard "yesterday" means nothing later). Pure string logic,
unit-tested without a database. When no span of the wanted shape is found, the caller keeps
the sentence: a short answer is never invented.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import date, timedelta

from voxmem.extractors.offline.temporal import MONTHS, normalise_times
from voxmem.retrieval.when import named_months

_WANTS = (
    ("time", re.compile(r"^\W*(?:at\s+)?what\s+time\b|^\W*when\b.*\bwhat\s+time\b", re.I)),
    (
        "date",
        re.compile(
            r"^\W*(?:when|(?:(?:on|in|during)\s+)?(?:what|which)\s+(?:date|day|year|month|week)"
            r"|how\s+long\s+ago)\b",
            re.I,
        ),
    ),
    (
        "number",
        re.compile(
            r"^\W*how\s+(?:many|much|old|often|long|warm|cold|hot|far|tall|big|heavy|high|fast)\b"
            r"|^\W*(?:what|which)\s+(?:number|amount|age|temperature)\b",
            re.I,
        ),
    ),
    (
        "place",
        re.compile(r"^\W*where\b|^\W*(?:in\s+)?(?:what|which)\s+(?:city|country|town|place|state)\b", re.I),
    ),
    (
        "yesno",
        # not "would / could / might …": a hypothetical asks for a judgement, not a fact in a turn
        re.compile(r"^\W*(?:did|does|do|is|was|are|were|has|have|had)\s+\w", re.I),
    ),
)

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_EXPLICIT_DATE = re.compile(
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?:,?\s+\d{{4}})?|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
    rf"|{_MONTH}\s+\d{{4}}|(?:19|20)\d{{2}})\b",
    re.I,
)
_WEEKDAYS = [
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
]  # fmt: skip
_TIME_NAMES = {*_WEEKDAYS, *MONTHS}
_NUMBER_WORDS = [
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred",
]  # fmt: skip
_SMALL = {w: i + 1 for i, w in enumerate(_NUMBER_WORDS[:10])}
# weekday abbreviations people type or say ("last Fri", "next Tues")
_WEEKDAY_SHORT = {"mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday",
                  "thu": "thursday", "thur": "thursday", "thurs": "thursday", "fri": "friday",
                  "sat": "saturday", "sun": "sunday"}  # fmt: skip
_RELATIVE = re.compile(
    r"\b(?:(?P<last>last|past|this|next)\s+(?P<unit>week|weekend|month|year|"
    + "|".join(_WEEKDAYS + sorted(_WEEKDAY_SHORT, key=len, reverse=True))
    + r"|night|summer|winter|spring|fall|autumn)"
    r"|(?P<n>\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of|few"
    r"|several)\s+(?P<unit2>day|week|month|year)s?\s+ago"
    r"|(?P<day>yesterday|today|tonight|tomorrow|last\s+night))\b",
    re.I,
)
_CLOCK = re.compile(r"\b(?:\d{1,2}(?::\d{2})?\s*(?:a\.?m\b\.?|p\.?m\b\.?)|\d{1,2}:\d{2}|noon|midnight)", re.I)
# "at nine", "at 10", "at ten thirty": an hour said after "at" (looked for only without a clock time)
_AT_HOUR = re.compile(
    r"\bat\s+((?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})"
    r"(?:\s+(?:o'clock|thirty|fifteen|forty-five))?)\b",
    re.I,
)
_NUMBER_WORD = "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))  # "eighteen" before "eight"
_NUMBER = re.compile(
    rf"\b(?P<num>\d+(?:[.,]\d+)?|(?:{_NUMBER_WORD})(?:[\s-](?:{_NUMBER_WORD}))*)\b(?P<unit>\s+[a-z]+)?",
    re.I,
)
_PLACE = re.compile(
    r"\b(?:in|at|to|from|near|into)\s+(?P<place>(?:the\s+)?(?:[A-Z][\w'-]+)(?:\s+(?:of\s+)?[A-Z][\w'-]+)*)"
    r"|\b(?P<spot>(?:in|at|on|under|behind|inside|near|next\s+to)\s+(?:the|my|your|his|her|our|their)\s+[a-z]+"
    r"(?:\s+(?:next\s+to|near|behind|under|by)\s+(?:the|my|your|his|her|our|their)\s+[a-z]+)?)"
)
_WEEKDAY = re.compile(
    r"\b(?:" + "|".join(_WEEKDAYS) + r")(?:\s+(?:morning|afternoon|evening|night))?"
    r"(?:\s+at\s+(?:\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?|one|two|three|four|five|six|seven|eight|nine|ten"
    r"|eleven|twelve|noon))?",
    re.I,
)
_NEGATION = re.compile(r"\b(?:not|never|no|n't|didn't|don't|doesn't|wasn't|isn't|haven't|hasn't)\b", re.I)


# "What activities does Ana do?", "What books has Ben read?", "What do Ana and Ben have in common?",
# "What has Ana painted?": the answer is gathered from several turns, not read from one
_LIST = re.compile(
    r"\b(?:both|in\s+common|all\s+the|ways|kinds\s+of|types\s+of)\b"
    r"|^\W*(?:what|which)\s+(?:[a-z+-]+\s+)?[a-z]+(?<!s)s\s+(?:has|have|does|do|did|are|were)\b"
    r"|^\W*what\s+(?:has|have)\s+[A-Z][\w'-]*(?:\s+and\s+[A-Z][\w'-]*)?\s+[a-z]+ed\b",
    re.I,
)


def wants_list(question: str) -> bool:
    """Whether a question asks for several things gathered over time (a plural kind, "both", "in
    common", a present perfect "what has Ana painted?"), not for one fact."""
    return wanted_shape(question) is None and bool(_LIST.search(question))


def wanted_shape(question: str) -> str | None:
    """'date' | 'time' | 'number' | 'place' | 'yesno' or None (a free-text answer)."""
    for shape, pattern in _WANTS:
        if pattern.search(question):
            return shape
    return None


def _date_parts(text: str) -> list[frozenset[str]]:
    """Each explicit date of ``text`` as the set of what it names: its day number, its month's
    first three letters and its year ("16 March, 2023" → {16, mar, 2023}; "2023" → {2023})."""
    parts = []
    for match in _EXPLICIT_DATE.finditer(text):
        words = re.findall(r"[a-z]+|\d+", match.group().lower())
        parts.append(
            frozenset(
                w[:3] if w.isalpha() else str(int(w)) for w in words if w not in ("st", "nd", "rd", "th")
            )
        )
    return parts


def coarser_date(answer: str, draft: str) -> bool:
    """Whether ``answer`` dates something only more coarsely than ``draft`` does: each of its
    explicit dates is a strict part of one of the draft's ("2023" or "March 2023" against "said on
    16 March 2023") and none is as precise. Why: asked "When did …?" with a draft quoting the turn
    and the day it was said, the 1.5B model shortened the day to its year (LoCoMo dev "2023" for
    gold "16 March, 2023"); a shorter date is a less precise one, not a better one."""
    said, drafted = _date_parts(answer), _date_parts(draft)
    return bool(said) and all(any(a < d for d in drafted) for a in said)


def day_of(ts: str | None) -> date | None:
    """The calendar day of an ISO timestamp, or None when there is none or it does not parse."""
    try:
        return date.fromisoformat(ts[:10]) if ts else None
    except ValueError:
        return None


def spoken_date(day: date) -> str:
    """How people say a date: "6 April 2026"."""
    return f"{day.day} {day.strftime('%B')} {day.year}"


def relative_date(sentence: str, said: date | None) -> str | None:
    """A relative time in ``sentence`` as said, with its calendar reading given the day it was
    said: "yesterday" → "yesterday (6 April 2026)", "last week" → "last week (the week before
    7 April 2026)", "two years ago" → "two years ago (2024)", "last Fri" → "last Fri (the Friday
    before 7 April 2026)"; None without one or without a day.

    Why both: the words are what the person said (and what a reader of the transcript would
    answer), the calendar reading is what they mean once the day has passed."""
    found = _relative(sentence, said)
    if found is None:
        return None
    match, when = found
    return f"{' '.join(match.group(0).split())} ({when})"


def with_dates(text: str, said: date | None) -> str:
    """``text`` with every relative time phrase followed by its calendar reading, given the day it
    was said: "Went there yesterday, and last year too" → "Went there yesterday (6 April 2026),
    and last year (2025) too". A phrase already followed by a parenthesis is left as it is.

    Why: a reader shown the turn and the day it was said must still do the calendar arithmetic,
    which the small local models get wrong (asked "When did they go to the festival?" with
    "last year" said on 13 October 2023, the 1.5B model answered "13 October 2023"); done here,
    the date is in the text the model copies from."""
    if said is None:
        return text
    out, last = [], 0
    for match in _RELATIVE.finditer(text):
        if text[match.end() :].lstrip().startswith("("):
            continue
        found = _relative(match.group(0), said)
        if found is None:
            continue
        out += [text[last : match.end()], f" ({found[1]})"]
        last = match.end()
    return "".join(out) + text[last:]


def _relative(sentence: str, said: date | None) -> tuple[re.Match[str], str] | None:
    """The first relative time phrase in ``sentence`` and its calendar reading."""
    match = _RELATIVE.search(sentence)
    if not match or said is None:
        return None
    if match.group("day"):
        word = " ".join(match.group("day").lower().split())
        offset = {"yesterday": -1, "last night": -1, "tomorrow": 1}.get(word, 0)
        return match, spoken_date(said + timedelta(days=offset))
    if match.group("unit2"):
        raw = " ".join(match.group("n").lower().split())
        vague = raw in ("a few", "a couple of", "few", "several")
        n = (
            int(raw)
            if raw.isdigit()
            else _SMALL.get(raw, 1 if raw in ("a", "an") else 2 if "couple" in raw else 3)
        )
        unit = match.group("unit2").lower()
        if vague:
            return match, (f"before {said.year}" if unit == "year" else f"before {spoken_date(said)}")
        if unit == "day":
            return match, spoken_date(said - timedelta(days=n))
        if unit == "year":
            return match, str(said.year - n)
        if unit == "month":
            month = (said.month - 1 - n) % 12
            year = said.year + (said.month - 1 - n) // 12
            return match, f"{MONTHS[month].capitalize()} {year}"
        return match, f"{n} week{'s' if n > 1 else ''} before {spoken_date(said)}"
    which, unit = match.group("last").lower(), match.group("unit").lower()
    unit = _WEEKDAY_SHORT.get(unit, unit)
    if unit == "year":
        return match, str(said.year + {"last": -1, "past": -1, "next": 1}.get(which, 0))
    if unit == "night" and which == "last":
        return match, spoken_date(said - timedelta(days=1))
    if unit == "month":
        # "last month" / "this month" / "next month" name the month
        step = {"last": -1, "past": -1, "next": 1}.get(which, 0)
        index = said.month - 1 + step
        return match, f"{MONTHS[index % 12].capitalize()} {said.year + index // 12}"
    where = {"last": "before", "past": "before", "next": "after", "this": "of"}[which]
    noun = unit.capitalize() if unit in _WEEKDAYS else unit
    reading = f"the {noun} {where} {spoken_date(said)}"
    if unit in _WEEKDAYS and which != "this":
        # the calendar day too: "last Friday" said on Sunday 23 July 2023 is 21 July 2023 (the
        # nearest such weekday before, or after for "next"), so a reader asked "when" need not
        # count days, and an answer dated by the day ("21 July 2023") is found as well
        step = _WEEKDAYS.index(unit) - said.weekday()
        step = -(-step % 7 or 7) if where == "before" else step % 7 or 7
        reading += f", {spoken_date(said + timedelta(days=step))}"
    return match, reading


def told_months(text: str, said: date, past: bool = False) -> frozenset[int] | None:
    """The months of the times ``text`` tells, read against the day it was said ("yesterday" said
    on 12 October → {10}; "last weekend" said on Monday 14 July → {7}; "in July" said in August →
    {7}); None when it tells no time. With ``past`` (the question asks when something happened), a
    time after the day it was said is a plan, not the occasion, and is left out, as is a month
    named without a year that is still ahead ("We're going camping in July" said in March): a
    text telling only such times tells no occasion (empty).

    Why: the months of :func:`voxmem.retrieval.when.asked_months` are matched against these, so
    "When did Nora go camping in July?" picks the occasion told in July, not the plan for July
    told in March nor the trip told in October; a week counts in the months of its Monday and
    Sunday, a year in none."""
    months: set[int] = set()
    taken: list[tuple[int, int]] = []
    tells = False
    for ref in normalise_times(text, said):
        at = text.find(ref.text)
        taken.append((at, at + len(ref.text)))
        if ref.granularity == "day":
            day = date.fromisoformat(ref.value)
            days = [day]
        elif ref.granularity == "week":
            year, week = ref.value.split("-W")
            days = [date.fromisocalendar(int(year), int(week), d) for d in (1, 7)]
        elif ref.granularity == "month":
            days = [date(int(ref.value[:4]), int(ref.value[5:7]), 1)]
        else:
            continue
        tells = True
        months |= {d.month for d in days if not (past and d > said)}
    for at, month in named_months(text):  # a month said without its day ("in July")
        if any(start <= at < end for start, end in taken):
            continue
        tells = True
        if not (past and month > said.month):
            months.add(month)
    return frozenset(months) if tells else None


# a clock time right after a day ("tomorrow at 8:30", "tonight at nine"): part of the answer
_THEN_AT = re.compile(
    r"^\s*(?:at\s+)?(?:\d{1,2}(?::\d{2})?\s*(?:a\.?m\b\.?|p\.?m\b\.?)|\d{1,2}:\d{2}|noon|midnight"
    r"|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})\s+o'clock)"
    r"|^\s*at\s+(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})\b",
    re.I,
)


def named_places(sentence: str, people: Collection[str]) -> list[str]:
    """Capitalised names after "in / at / to / from …" that are not people ("to Rachel" is not a
    place: a where-question is never answered with a person's name) nor a month or weekday ("in
    May", "from Monday" are times)."""
    out = []
    for m in _PLACE.finditer(sentence):
        place = m.group("place")
        named = {w.lower() for w in place.split() if w.lower() != "the"} if place else set()
        if named and not named <= set(people) and not named <= _TIME_NAMES:
            out.append(place)
    return out


def place_phrase(sentence: str, people: Collection[str] = ()) -> str | None:
    """A named place, else a spot ("in the garage next to the bikes"). Why only for replies: a
    sentence that matched the question is quoted whole when it names no place (a spot phrase in
    it is as likely to be a different place), but a reply to a where-question is its answer.
    ``people``: lower-case words of people's names, never a place."""
    named = named_places(sentence, people)
    return (
        named[0]
        if named
        else next((m.group("spot") for m in _PLACE.finditer(sentence) if m.group("spot")), None)
    )


def short_span(
    shape: str | None, sentence: str, said: date | None, people: Collection[str] = ()
) -> str | None:
    """The part of ``sentence`` a question of ``shape`` asks for, or None when there is none
    (``people``: lower-case words of people's names, which are never a place)."""
    if shape == "date":
        explicit = _EXPLICIT_DATE.search(sentence)
        if explicit:
            return explicit.group(0)
        relative = _relative(sentence, said)
        if relative:
            match, when = relative
            clock = _THEN_AT.match(sentence[match.end() :])
            said_as = sentence[match.start() : match.end() + (clock.end() if clock else 0)]
            return f"{' '.join(said_as.split())} ({when})"
        day = _WEEKDAY.search(sentence)  # "on Thursday at ten": a plan, said by its weekday
        return " ".join(day.group(0).split()) if day else None
    if shape == "time":
        clock = _CLOCK.search(sentence)
        if clock:
            return clock.group(0).strip()
        hour = _AT_HOUR.search(sentence)
        return hour.group(1) if hour else None
    if shape == "number":
        number = _NUMBER.search(sentence)
        return (number.group("num") + (number.group("unit") or "")).strip() if number else None
    if shape == "place":
        return next(iter(named_places(sentence, people)), None)
    if shape == "yesno":
        return "No" if _NEGATION.search(sentence) else "Yes"
    return None
