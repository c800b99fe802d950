"""Reading a question without a model: its kind, quotes, named people, first person, time cues.

The heuristic planner and the graph-native answerer both need the same reading, so it
lives here once. Pure string logic: unit-tested without a database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from voxmem.ids import name_key
from voxmem.retrieval.text import content_words, words

_QUOTE = re.compile(
    r"[\"“”]([^\"“”]{2,200})[\"“”]|(?<![A-Za-z])'([^']{3,200})'(?![A-Za-z])|``\s*(.{2,200}?)\s*''"
)
_FIRST_PERSON = {"i", "me", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll"}
_SAY_VERBS = (
    r"(?:said|say|says|told|tell|asked|ask|mentioned|suggested|promised|wanted|requested|shouted|yelled"
    r"|spoke|talked)"
)
_WHO_SAID = re.compile(
    rf"^\s*(?:who|which\s+(?:character|person|one|participant)(?:\s+of\s+\w+)?)\s+{_SAY_VERBS}\b(?P<rest>.*)$"
    rf"|^\s*by\s+whom\s+(?:was|were|is|did)\s+(?P<by_rest>.*)$",
    re.I,
)
_WHOM = re.compile(
    r"\bwhom\b|\bwho\s+(?:was|were|is|did)\s+(?P<name>[\w .'-]+?)\s+"
    r"(?:talking|speaking|asking|telling|saying|addressing|referring|replying|answering|responding)\b"
    r"(?:\s+(?:to|at))?|\bto\s+whom\b"
    r"|\bwho\s+did\s+(?P<name2>[\w .'-]+?)\s+(?:ask|tell|thank|call|address)\b",
    re.I,
)
_SAID_TO = re.compile(
    rf"\bwhat\s+(?:did|does|has|had)\s+(?P<a>[\w .'-]+?)\s+{_SAY_VERBS}\s+(?:to\s+)?(?P<b>[\w .'-]+?)"
    r"(?:\s+(?:about|when|after|before|in|on|at|during)\b.*)?\s*\??$",
    re.I,
)
TIME_WORDS = {
    "when",
    "date",
    "time",
    "year",
    "month",
    "day",
    "ago",
    "before",
    "after",
    "since",
    "until",
    "first",
    "last",
    "recently",
    "latest",
    "yesterday",
    "week",
}
PREFERENCE_WORDS = {
    "like",
    "likes",
    "love",
    "loves",
    "prefer",
    "prefers",
    "favorite",
    "favourite",
    "hobby",
    "hobbies",
    "enjoy",
    "enjoys",
    "allergic",
    "allergy",
    "hate",
    "hates",
    "usually",
    "always",
    "job",
    "work",
    "works",
    "live",
    "lives",
    "married",
    "kids",
    "children",
    "pet",
    "pets",
}


@dataclass
class Reading:
    """What the planner and the answerer take from a question."""

    text: str
    kind: str  # 'who_said' | 'addressee' | 'said_to' | 'requests' | 'general'
    quote: str | None = None
    people: list[dict[str, Any]] = field(default_factory=list)  # participants named, in order
    first_person: bool = False
    temporal: bool = False
    preference: bool = False
    keywords: list[str] = field(default_factory=list)
    speaker: dict[str, Any] | None = None  # for addressee / said_to questions
    addressee: dict[str, Any] | None = None  # for said_to and "who told X ..." questions

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "quote": self.quote,
            "people": [p.get("name") for p in self.people],
            "first_person": self.first_person,
            "temporal": self.temporal,
            "preference": self.preference,
            "keywords": self.keywords,
            "speaker": (self.speaker or {}).get("name"),
            "addressee": (self.addressee or {}).get("name"),
        }


# "What did I ask for?", "What did Leo ask for?", "What did Maya request?" (also as an ASR may hear
# it: "Well, did I ask for it?"): the requester's own request turns answer it. Anchored at the
# start, so "When did Maya ask for the cake?" or "Which shop did Tom request it from?" are not it.
_REQUESTS = re.compile(
    r"^(?:(?:so|well|and|okay|ok)\W+)?(?:what\s+)?did\s+(?P<who>\w[\w.'’-]*(?:\s\w[\w.'’-]*){0,2}?)"
    r"\s+(?:ask\s+for|request)\b",
    re.I,
)


def _name_index(participants: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every full name, alias and first name (when unambiguous) → participant."""
    index: dict[str, dict[str, Any]] = {}
    firsts: dict[str, list[dict[str, Any]]] = {}
    for p in participants:
        names = [p.get("name") or "", *(p.get("aliases") or [])]
        for name in names:
            key = name_key(name)
            if key:
                index.setdefault(key, p)
                first = key.split()[0]
                if first != key:
                    firsts.setdefault(first, []).append(p)
    for first, owners in firsts.items():
        if first not in index and len({o["id"] for o in owners}) == 1:
            index[first] = owners[0]
    return index


def find_people(text: str, participants: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """Participants named in ``text`` with the word position where each first appears."""
    index = _name_index(participants)
    tokens = [name_key(w) for w in re.findall(r"[\w'-]+", text)]
    tokens = [t[:-2] if t.endswith("'s") else t for t in tokens]
    found: dict[str, tuple[int, dict[str, Any]]] = {}
    longest = max((len(k.split()) for k in index), default=1)
    for i in range(len(tokens)):
        for n in range(min(longest, len(tokens) - i), 0, -1):
            key = " ".join(tokens[i : i + n])
            person = index.get(key)
            if person is not None:
                found.setdefault(person["id"], (i, person))
                break
    return sorted(found.values(), key=lambda item: item[0])


def _person_in(fragment: str | None, participants: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not fragment:
        return None
    people = find_people(fragment, participants)
    return people[0][1] if people else None


def read_question(
    text: str, participants: list[dict[str, Any]], asker: dict[str, Any] | None = None
) -> Reading:
    """Classify the question and pull out quotes, people, first person and time cues."""
    toks = set(words(text))
    people = [p for _, p in find_people(text, participants)]
    quote_match = _QUOTE.search(text)
    quote = next(g for g in quote_match.groups() if g).strip() if quote_match else None
    first_person = bool(toks & _FIRST_PERSON)
    reading = Reading(
        text=text,
        kind="general",
        quote=quote,
        people=people,
        first_person=first_person,
        temporal=bool(toks & TIME_WORDS),
        preference=bool(toks & PREFERENCE_WORDS),
        keywords=content_words(text),
    )
    me = asker if (first_person and asker) else None

    said_to = _SAID_TO.search(text)
    who_said = _WHO_SAID.search(text)
    whom = None if who_said else _WHOM.search(text)
    if said_to:
        a = _person_in(said_to.group("a"), participants) or (
            me if said_to.group("a").lower() == "i" else None
        )
        b = _person_in(said_to.group("b"), participants) or (
            me if said_to.group("b").lower() in {"me", "i"} else None
        )
        if a and b:
            reading.kind, reading.speaker, reading.addressee = "said_to", a, b
            return reading
    if whom:
        name = whom.group("name") or whom.group("name2")
        speaker = _person_in(name, participants)
        if speaker is None and name and name.strip().lower() == "i":
            speaker = me
        reading.kind, reading.speaker = "addressee", speaker
        return reading
    # whitespace collapsed first: the pattern then cannot backtrack over long runs of spaces
    requests = None if (who_said or quote) else _REQUESTS.search(" ".join(text.split()))
    if requests:
        who = requests.group("who").strip()
        requester = me if who.lower() == "i" else _person_in(who, participants)
        if requester is not None:
            reading.kind, reading.speaker = "requests", requester
            return reading
    if who_said:
        rest = who_said.group("rest")
        if rest is None:  # "By whom was Ross told to count faster?" → "Ross told to count faster"
            rest = re.sub(rf"^\s*([\w'-]+)\s+{_SAY_VERBS}\b", r"\1", who_said.group("by_rest"), flags=re.I)
        reading.kind = "who_said"
        # "Who told Ross to count faster?" → Ross is the addressee, "count faster" the quote
        lead = find_people(rest, participants)
        if lead and lead[0][0] <= 1:
            reading.addressee = lead[0][1]
        if reading.quote is None:
            rest_words = [w for w in re.findall(r"[\w'-]+", rest)]
            if reading.addressee is not None and rest_words:
                rest_words = rest_words[1:]
            drop = {"to", "that", "about", "me", "us", "him", "her", "the", "phrase", "words", "word"}
            while rest_words and rest_words[0].lower() in drop:
                rest_words = rest_words[1:]
            reading.quote = " ".join(rest_words) or None
    elif quote is not None:
        reading.kind = "who_said" if re.match(r"^\s*who\b", text, re.I) else "general"
    return reading
