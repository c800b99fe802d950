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
