"""Temporal expressions normalised against the session date (deterministic, English).

Why rules: a note-taker writes "on 2023-05-07" instead of "yesterday" so the fact stays
true when read a month later. The common spoken forms (relative days, weekdays, weeks,
months, years, "N days ago", explicit dates) cover most of what people say; anything
else is left as said and gets no ``TimeRef``.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from voxmem.extractors.schema import TimeRef

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(MONTHS)} | {"sept": 9}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "couple of": 2,
    "few": 3,
}
_NUM = r"(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple of|few)"
_PAST_HINT = re.compile(
    r"\b(was|were|went|did|had|got|made|saw|met|took|came|ran|ago|last|yesterday|\w+ed)\b", re.IGNORECASE
)
_MONTH_RE = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "rel_day",
        re.compile(
            r"\b(the day before yesterday|the day after tomorrow|yesterday|today|tonight|tomorrow|"
            r"this (?:morning|afternoon|evening))\b",
            re.I,
        ),
    ),
    ("ago", re.compile(rf"\b{_NUM} (day|week|month|year)s? ago\b", re.I)),
    ("in_n", re.compile(rf"\bin {_NUM} (day|week|month|year)s?\b", re.I)),
    (
        "rel_period",
        re.compile(r"\b(last|next|this|past|coming) (week(?:end)?|month|year|summer|winter)\b", re.I),
    ),
    (
        "weekday",
        re.compile(
            r"\b(?:(last|next|this|on|coming) )?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
            re.I,
        ),
    ),
    ("dmy", re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_MONTH_RE}(?:,? (\d{{4}}))?\b", re.I)),
    ("mdy", re.compile(rf"\b{_MONTH_RE} (\d{{1,2}})(?:st|nd|rd|th)?(?:,? (\d{{4}}))?\b", re.I)),
    ("month_year", re.compile(rf"\b(?:in )?{_MONTH_RE} (\d{{4}})\b", re.I)),
    ("year", re.compile(r"\b(?:in|since|back in) ((?:19|20)\d{2})\b", re.I)),
]


def _number(token: str) -> int:
    token = token.lower()
    return int(token) if token.isdigit() else _NUMBERS.get(token, 1)


def _add_months(day: date, months: int) -> date:
    month0 = day.month - 1 + months
    year = day.year + month0 // 12
    return date(year, month0 % 12 + 1, 1)


def _week(day: date) -> str:
    iso = day.isocalendar()
    return f"{iso[0]}-W{iso[1]:02d}"


def _month_num(token: str) -> int:
    token = token.lower()
    return _MONTH_ABBR.get(token[:4] if token.startswith("sept") else token[:3], 1)


def _resolve(kind: str, m: re.Match[str], ref: date, past: bool) -> tuple[str, str] | None:
    """(ISO value, granularity) for one match, or None when the match is not a time."""
    if kind == "rel_day":
        phrase = m.group(1).lower()
        offset = {
            "the day before yesterday": -2,
            "the day after tomorrow": 2,
            "yesterday": -1,
            "tomorrow": 1,
        }.get(phrase, 0)
        return (ref + timedelta(days=offset)).isoformat(), "day"
    if kind in ("ago", "in_n"):
        n = _number(m.group(1)) * (-1 if kind == "ago" else 1)
        unit = m.group(2).lower()
        if unit == "day":
            return (ref + timedelta(days=n)).isoformat(), "day"
        if unit == "week":
            return _week(ref + timedelta(weeks=n)), "week"
        if unit == "month":
            return _add_months(ref, n).strftime("%Y-%m"), "month"
        return str(ref.year + n), "year"
    if kind == "rel_period":
        which, unit = m.group(1).lower(), m.group(2).lower()
        step = {"last": -1, "past": -1, "next": 1, "coming": 1}.get(which, 0)
        if unit in ("week", "weekend"):
            base = ref + timedelta(weeks=step)
            if unit == "weekend":
                saturday = base + timedelta(
                    days=(5 - base.weekday()) % 7 if step >= 0 else 5 - base.weekday()
                )
                return saturday.isoformat(), "day"
            return _week(base), "week"
        if unit == "month":
            return _add_months(ref, step).strftime("%Y-%m"), "month"
        if unit == "year":
            return str(ref.year + step), "year"
        return str(ref.year + step if step else ref.year), "year"
    if kind == "weekday":
        which = (m.group(1) or "").lower()
        target = WEEKDAYS.index(m.group(2).lower())
        delta = target - ref.weekday()
        if which == "last" or (which in ("", "on") and past):
            delta = delta - 7 if delta >= 0 else delta
            if which == "last" and delta > -1:
                delta -= 7
        elif which == "next":
            delta = delta + 7 if delta <= 0 else delta
        elif which in ("coming", "this", "on", ""):
            delta = delta + 7 if delta < 0 else delta
        return (ref + timedelta(days=delta)).isoformat(), "day"
    if kind in ("dmy", "mdy"):
        if kind == "dmy":
            day_s, month_s, year_s = m.group(1), m.group(2), m.group(3)
        else:
            month_s, day_s, year_s = m.group(1), m.group(2), m.group(3)
        if month_s.lower() == "may" and kind == "mdy" and not year_s and len(day_s) > 2:
            return None
        year = int(year_s) if year_s else ref.year
        try:
            return date(year, _month_num(month_s), int(day_s)).isoformat(), "day"
        except ValueError:
            return None
    if kind == "month_year":
        return f"{int(m.group(2)):04d}-{_month_num(m.group(1)):02d}", "month"
    if kind == "year":
        return m.group(1), "year"
    return None


def normalise_times(text: str, reference: datetime | date) -> list[TimeRef]:
    """Every temporal expression of ``text`` with its ISO value, in order, without overlaps."""
    ref = reference.date() if isinstance(reference, datetime) else reference
    past = bool(_PAST_HINT.search(text))
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, TimeRef]] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            resolved = _resolve(kind, m, ref, past)
            if resolved is None:
                continue
            taken.append((m.start(), m.end()))
            found.append((m.start(), TimeRef(text=m.group(0), value=resolved[0], granularity=resolved[1])))
    return [ref_ for _, ref_ in sorted(found, key=lambda item: item[0])]
