"""The time a question mentions, as a window a tool's time filter can take (pure string logic).

"What did Maria donate in December 2023?", "What painting did Melanie show on October 13, 2023?",
"What did John do the week before August 3, 2023?": the date names when the turn that answers it
was said (LoCoMo's questions name the session's date), so a search restricted to that window ranks
the few turns of those days instead of every turn on the topic. Only absolute dates are read
(a day with its year, a month with its year, a year): a relative time ("yesterday", "last week")
needs the moment the question was asked, which a stored conversation does not have.

The window is widened by :data:`SLACK_DAYS` on each side, and a day named after "before" reaches
back a week: the turn often tells, on the day named, what happened the days before it.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta

MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
MONTHS |= {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m}
_MONTH = r"(?P<{}>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b\.?"
_DAY_MONTH_YEAR = re.compile(
    r"\b(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?"
    + _MONTH.format("month")
    + r",?\s+(?P<year>(?:19|20)\d\d)\b",
    re.I,
)
_MONTH_DAY_YEAR = re.compile(
    r"\b" + _MONTH.format("month") + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year>(?:19|20)\d\d)\b",
    re.I,
)
_MONTH_YEAR = re.compile(r"\b" + _MONTH.format("month") + r",?\s+(?:of\s+)?(?P<year>(?:19|20)\d\d)\b", re.I)
_YEAR = re.compile(r"\b(?:in|during|of|since)\s+(?P<year>(?:19|20)\d\d)\b", re.I)
_BEFORE = re.compile(r"\bbefore\s*$", re.I)
_UP_TO = re.compile(r"\b(?:as\s+of|by|until|up\s+to)\s*$", re.I)
SLACK_DAYS = 1
BEFORE_DAYS = 7
# the months of the year's seasons (northern hemisphere, as the datasets here are)
SEASONS = {
    "spring": frozenset({3, 4, 5}),
    "summer": frozenset({6, 7, 8}),
    "autumn": frozenset({9, 10, 11}),
    "fall": frozenset({9, 10, 11}),
    "winter": frozenset({12, 1, 2}),
}
# a month by its full name ("in July", "July 2023", "5 July")
_NAMED_MONTH = re.compile(
    r"\b(?:(?P<pre>in|of|during|early|late|mid|since|last)\s+)?(?P<month>january|february|march|april|may"
    r"|june|july|august|september|october|november|december)\b",
    re.I,
)
_DAY_BEFORE = re.compile(r"\d\s$")
_DAY_AFTER = re.compile(r"\s*\d{1,2}\b")


def named_months(text: str, days: bool = True) -> list[tuple[int, int]]:
    """(offset, month number) of each month ``text`` names by its full name; "may" only after a
    preposition ("in May"; else it is the verb: "Nora may come"); without ``days``, not a day of a
    month ("5 July", "July 5"). Why one helper: a question's months (:func:`asked_months`) and the
    months a turn tells (``spans.told_months``) are read by the same rule."""
    out = []
    for m in _NAMED_MONTH.finditer(text):
        month = m.group("month").lower()
        if month == "may" and not m.group("pre"):
            continue
        if not days and (_DAY_BEFORE.search(text[: m.start("month")]) or _DAY_AFTER.match(text, m.end())):
            continue
        out.append((m.start(), MONTHS[month]))
    return out


# a season as a time: after a preposition or a determiner of time ("in the summer", "this fall",
# "over the winter") or with its year ("the summer of 2023"); not before a noun, where it is as
# often a kind of thing ("winter tyres", "a summer dress", "spring rolls") as a time, nor "fall"
# alone (the verb)
_SEASON = re.compile(
    r"\b(?:(?:in|during|over|through|this|last|next|that|early|late|mid)\s+(?:the\s+)?"
    r"(?P<season>spring|summer|autumn|fall|winter)\b"
    r"|(?P<of>spring|summer|autumn|fall|winter)\s+of\s+(?:19|20)\d\d\b)",
    re.I,
)


def asked_months(text: str) -> frozenset[int]:
    """The months a question names by a month or a season ("When did Nora go camping in July?" →
    {7}; "… in the summer?" → {6, 7, 8}); empty when it names none.

    Why: a person does the same thing on several occasions ("camping" in July and in October), and
    a question naming the month or season asks for the occasion in it, which the words alone do not
    pick: every occasion shares them. A day of a month ("before 5 July 2023") names a reference
    day, not the occasion's month, and is left out; so is a season before a noun ("On what day
    were the winter tyres bought?": paraphrases tune2 lost that answer when it counted)."""
    months = {month for _, month in named_months(text, days=False)}
    for m in _SEASON.finditer(text):
        months |= SEASONS[(m.group("season") or m.group("of")).lower()]
    return frozenset(months)


def mentioned_window(text: str) -> tuple[str | None, str] | None:
    """(from, to) as ISO-8601 UTC strings for the first absolute date the question names, or None;
    "as of / by / until <date>" has no start ("How many pets did Andrew have, as of September 2023?")."""
    for pattern, unit in ((_DAY_MONTH_YEAR, "day"), (_MONTH_DAY_YEAR, "day"), (_MONTH_YEAR, "month")):
        m = pattern.search(text)
        if m is None:
            continue
        year, month = int(m.group("year")), MONTHS[m.group("month").lower().rstrip(".")]
        if unit == "day":
            day = int(m.group("day"))
            if not 1 <= day <= calendar.monthrange(year, month)[1]:
                continue
            start = datetime(year, month, day, tzinfo=UTC)
            end = start + timedelta(days=1)
            if _BEFORE.search(text[: m.start()]):
                start -= timedelta(days=BEFORE_DAYS)
        else:
            start = datetime(year, month, 1, tzinfo=UTC)
            end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
        return _widened(None if _UP_TO.search(text[: m.start()]) else start, end)
    m = _YEAR.search(text)
    if m is not None:
        year = int(m.group("year"))
        return _widened(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))
    return None


def _widened(start: datetime | None, end: datetime) -> tuple[str | None, str]:
    slack = timedelta(days=SLACK_DAYS)
    return None if start is None else (start - slack).isoformat(), (
        end + slack - timedelta(seconds=1)
    ).isoformat()
