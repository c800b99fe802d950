"""Answers from retained evidence: graph-native, extractive, or by an LLM; else "not in memory".

Why three answerers: attribution questions (who said…, to whom…) have exact answers in
the graph (``SPEAKS`` / ``ADDRESSES``), so no model may paraphrase them; the rest get an
offline extractive answer (the best-supported sentence) unless an LLM is configured.
Every answer carries its evidence (message ids with speaker, addressees, session, time),
the trace of rounds and the scope applied, and says "not in memory" rather than guess.
"""

from __future__ import annotations

import json
import math
import re
import weakref
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from typing import Any

import numpy as np

from voxmem.retrieval.agent import AgentResult
from voxmem.retrieval.fusion import FusedEvidence
from voxmem.retrieval.llm_reader import (
    ATTRIBUTION_KINDS,
    SHOWN,
    LLMReader,
    Outcome,
    question_keys,
    rarity,
    said_weight,
    unlabelled,
    word_keys,
)
from voxmem.retrieval.question import Reading, asked_about, asks_for_person, find_people
from voxmem.retrieval.spans import (
    coarser_date,
    day_of,
    named_places,
    place_phrase,
    short_span,
    spoken_date,
    told_months,
    wanted_shape,
    wants_list,
)
from voxmem.retrieval.text import (
    DETERMINERS,
    SENTENCE_BREAK,
    STAGE_DIRECTION,
    content_words,
    narration,
    normalise,
    only_asked,
    split_sentences,
    stem,
    words,
)
from voxmem.retrieval.when import asked_months
from voxmem.stopwords import QUESTION_STOP_WORDS

NOT_IN_MEMORY = "not in memory"


@dataclass
class Answer:
    question: str
    answer: str
    supported: bool
    answerer: str  # 'graph' | 'extractive' | 'llm' | 'none'
    evidence: list[dict[str, Any]]
    used: list[str] = field(default_factory=list)  # evidence ids the answer rests on
    trace: list[dict[str, Any]] = field(default_factory=list)
    scope: dict[str, Any] = field(default_factory=dict)
    policy: str = ""
    reading: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "supported": self.supported,
            "answerer": self.answerer,
            "used": self.used,
            "evidence": self.evidence,
            "trace": self.trace,
            "scope": self.scope,
            "policy": self.policy,
            "reading": self.reading,
            "notes": self.notes,
        }


# Labels the system gives people it cannot name yet: a benchmark pseudonym ("person-3f2a1c"), a
# voice or participant id ("p_2b1c…", "spk-…"). An answer never uses one when a name is known.
_PSEUDONYM = re.compile(r"^(?:person|speaker|voice|spk|p|unknown)[-_][0-9a-z]{3,}$", re.I)


def _label(person: dict[str, Any] | None) -> str:
    """A person's name, or an honest label for a voice nobody has named yet."""
    if not person:
        return "someone unknown"
    names = [person.get("name") or "", *(person.get("aliases") or [])]
    real = next((n for n in names if n and not _PSEUDONYM.match(n.strip())), None)
    if real:
        return real
    return f"an unnamed voice ({person.get('id', '?')})"


def _line(entry: FusedEvidence, text: str | None = None) -> str:
    """How an answer quotes a turn, or ``text`` (a part of it): "Speaker: text" ("text" alone when
    the speaker is unknown), and a stage direction (:func:`~voxmem.retrieval.text.narration`) as
    "(stage direction) text". Why: its label (FriendsQA's "#NOTE#", a transcript's narrator) said
    nothing, and "#NOTE#: ( Ross and Susan both angrily leave …" presents it as someone's words."""
    told = (entry.evidence.text if text is None else text).strip()
    if narration(entry.evidence.text):
        return f"{STAGE_DIRECTION} {told}"
    return f"{_label(entry.evidence.speaker)}: {told}" if entry.evidence.speaker else told


def _names(people: list[dict[str, Any]]) -> str:
    names = [_label(p) for p in people if p]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _overlap(needle: list[str], said: list[str], irregular: bool = True) -> float:
    """Share of the needle's content words (by stem: :func:`~voxmem.retrieval.text.stem`) among
    the words ``said``."""
    if not needle:
        return 0.0
    here = {stem(w, irregular) for w in said}
    stems = {stem(w, irregular) for w in needle}
    return len(stems & here) / len(stems)


class Meaning:
    """How well a turn matches a described utterance: shared words (by stem) or, through the
    sentence embeddings, the same meaning in other words ("phone the plumber" ~ "I'll call the
    plumber"). Without an embedder only words count."""

    # MiniLM cosines: unrelated sentences sit near 0.1, paraphrases of one request near 0.6+
    floor, span = 0.2, 0.5

    def __init__(self, embed: Any = None) -> None:
        self.embed = embed

    def _cosines(self, query: str, texts: list[str]) -> list[float]:
        if self.embed is None or not texts or not query.strip():
            return [0.0] * len(texts)
        if hasattr(self.embed, "prime"):
            self.embed.prime([query, *texts])
        q = np.asarray(self.embed(query), dtype=float)
        out = []
        for text in texts:
            v = np.asarray(self.embed(text), dtype=float)
            denom = float(np.linalg.norm(q) * np.linalg.norm(v)) or 1.0
            out.append(float(q @ v) / denom)
        return out

    def closeness(self, query: str, texts: list[str]) -> list[float]:
        """The meaning part of :meth:`scores` alone (0 below ``floor``, 1 from ``floor + span``)."""
        return [min(1.0, max(0.0, (c - self.floor) / self.span)) for c in self._cosines(query, texts)]

    def scores(self, query: str, texts: list[str]) -> list[float]:
        needle = content_words(query)
        return [
            max(_overlap(needle, content_words(text)), close)
            for text, close in zip(texts, self.closeness(query, texts), strict=True)
        ]


_REQUEST_FORM = re.compile(
    r"\b(?:can|could|would|will)\s+(?:we|you|i|someone)\b|\bplease\b|\bi(?:['’]d| would) like\b|"
    r"\bi(?:\s+(?:really|always|just|only|still))?\s+(?:want|need)\b|\bi['’]d\s+rather\b|\blet's\b|\bmay i\b",
    re.I,
)
# Taking a task on: "Sure, I'll call the plumber.", "I can do it.", "Leave it to me."
_COMMIT_FORM = re.compile(
    r"\b(?:i['’]ll|i will|i can|i['’]m going to|i am going to|let me|leave it to me|will do|no problem"
    r"|sure|okay|of course|i['’]d be happy)\b",
    re.I,
)


_FIRST_PERSON_TURN = re.compile(r"\b(?:i|i['’]m|i['’]ve|i['’]ll|i['’]d|we|we['’]re|we['’]ve|my|our)\b", re.I)


def is_request(text: str) -> bool:
    """A turn phrased as a request ("Can we have pizza on Friday?", "Could you …", "I'd like …")."""
    return bool(_REQUEST_FORM.search(text))


def _act_fit(act: str, text: str) -> float:
    """Bonus for a turn of the kind a who-question asks about: a request for "who asked …", a
    first-person commitment (and not a request) for "who agreed / offered …"."""
    request = is_request(text)
    if act == "request":
        return 0.15 if request else -0.1
    if act == "commit":
        if _COMMIT_FORM.search(text) and not request:
            return 0.15
        return -0.2 if request else 0.0
    return 0.0


class GraphAnswerer:
    """Who said…, to whom…, what A said to B, what X asked for: read from SPEAKS / ADDRESSES on
    the evidence turns. The turn a question describes is found by meaning (:class:`Meaning`) among
    the retained evidence, which the retrieval already ranked by embeddings and BM25."""

    name = "graph"
    min_match = 0.5
    window = 15

    def __init__(self, embed: Any = None) -> None:
        self.meaning = Meaning(embed)

    def answer(self, result: AgentResult) -> tuple[str, list[str]] | None:
        reading = result.reading
        evidence = result.evidence
        if reading.kind == "who_said" and reading.quote:
            return self._who_said(result)
        if reading.kind == "addressee":
            return self._addressee(reading, evidence)
        if reading.kind == "requests" and reading.speaker:
            return self._requests(reading, evidence)
        if reading.kind == "said_to":
            turns = [e for e in evidence if "said_to" in e.tools][:3]
            if not turns:
                return None
            said = "; ".join(f'"{e.evidence.text}"' for e in turns)
            return f"{_label(reading.speaker)} said to {_label(reading.addressee)}: {said}", [
                e.id for e in turns
            ]
        return None

    def _who_said(self, result: AgentResult) -> tuple[str, list[str]] | None:
        """The speaker of the turn that best matches what the question says was said or done; for
        a stage direction (:func:`~voxmem.retrieval.text.narration`), whose label said nothing, the
        one person its best-matching sentence names (:func:`named_doer`: "Who slammed the door?" /
        "( Ross storms out , slamming the door . )" is Ross), else the next best turn."""
        reading, evidence = result.reading, result.evidence
        pool = [e for e in evidence[: self.window] if e.evidence.speaker is not None]
        if not pool:
            return None
        matches = self.meaning.scores(reading.quote or "", [e.evidence.text for e in pool])
        ranked: list[tuple[float, int, FusedEvidence]] = []
        for rank, (entry, match) in enumerate(zip(pool, matches, strict=True)):
            if match < self.min_match:
                continue
            told = narration(entry.evidence.text)  # tells a doing in the third person
            if reading.act == "did" and not told and not _FIRST_PERSON_TURN.search(entry.evidence.text):
                continue  # "Who performed at the party?" is not whoever talked about the party
            score = match + _act_fit(reading.act, entry.evidence.text) + 0.05 * (1 - rank / self.window)
            if reading.addressee:
                addressed = any(a.get("id") == reading.addressee["id"] for a in entry.evidence.addressees)
                score += 0.15 if addressed else -0.15
                if _speaker_id(entry) == reading.addressee["id"]:
                    continue  # "Who asked Peter to …" is never answered by Peter
            ranked.append((score, -rank, entry))
        for _, _, entry in sorted(ranked, key=lambda x: (x[0], x[1]), reverse=True):
            if not narration(entry.evidence.text):
                return _label(entry.evidence.speaker), [entry.id]
            sentences = split_sentences(entry.evidence.text)
            fit = self.meaning.scores(reading.quote or "", sentences)
            doer = named_doer(sentences[max(range(len(sentences)), key=lambda i: fit[i])], entry, result)
            if doer is not None:
                return _label(doer), [entry.id]
        return None

    def _requests(self, reading: Reading, evidence: list[FusedEvidence]) -> tuple[str, list[str]] | None:
        """What a person asked for: their own turns (SPEAKS) that are phrased as requests."""
        requester = (reading.speaker or {}).get("id")
        mine = [
            e
            for e in evidence[:20]
            if requester and _speaker_id(e) == requester and is_request(e.evidence.text)
        ][:3]
        if not mine:
            return None
        quoted = "; ".join(f'"{e.evidence.text.strip()}"' for e in mine)
        return f"{_label(reading.speaker)} asked: {quoted}", [e.id for e in mine]

    def _addressee(self, reading: Reading, evidence: list[FusedEvidence]) -> tuple[str, list[str]] | None:
        pool = [
            e
            for e in evidence[: self.window]
            if e.evidence.addressees and not (reading.speaker and _speaker_id(e) != reading.speaker["id"])
        ]
        if not pool:
            return None
        name_words = (
            set((reading.speaker or {}).get("name", "").lower().split()) if reading.speaker else set()
        )
        described = reading.quote or " ".join(w for w in reading.keywords if w not in name_words)
        if not content_words(described):
            entry = pool[0]
            return _names(entry.evidence.addressees), [entry.id]
        matches = self.meaning.scores(described, [e.evidence.text for e in pool])
        scored = [
            (m + 0.05 * (1 - rank / self.window), e)
            for rank, (e, m) in enumerate(zip(pool, matches, strict=True))
            if m >= 0.3
        ]
        if not scored:
            return None
        entry = max(scored, key=lambda item: item[0])[1]
        return _names(entry.evidence.addressees), [entry.id]


_DATE = re.compile(
    r"\b(\d{4}|\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\s+\d{1,2}|yesterday|today|tomorrow|"
    r"last\s+\w+|next\s+\w+|ago)\b",
    re.I,
)


def _mentions(person: dict[str, Any]) -> list[str]:
    """How a sentence may name a person: full name, first name, aliases (normalised)."""
    names = [person.get("name") or "", *(person.get("aliases") or [])]
    first = (person.get("name") or "").split()[:1]
    return [n for n in {normalise(x) for x in [*names, *first]} if n]


_GREETING = (
    r"(?:hey|hi|hello|thanks|thank\s+you|wow|oh|yes|yeah|yep|no|sure|ok|okay|aw+|congrats|sorry|great)"
)


def _vocative_only(sentence: str, mention: str) -> bool:
    """Whether every time ``mention`` occurs in ``sentence`` it addresses that person ("Thanks,
    Caroline!", "Caroline, could you …", "… for you, Caroline.") rather than speaking about them:
    a mention is not an address, and an address says nothing about the person."""
    name = re.escape(mention)
    text = " ".join(sentence.split())
    hits = list(re.finditer(rf"\b{name}\b", text, re.I))
    if not hits:
        return False
    for hit in hits:
        before, after = text[: hit.start()].rstrip(), text[hit.end() :].lstrip()
        opening = re.fullmatch(rf"(?:\W*{_GREETING})?\W*", before, re.I) is not None
        closing = before.endswith(",") and (not after or after[0] in ".!?,")
        if not ((opening and (not after or after[0] in ",!.?")) or closing):
            return False
    return True


def _about(entry: FusedEvidence, sentence: str, ids: set[str], mentions: list[str]) -> bool:
    """Whether a sentence is by one of the people (participant id) or speaks about one of them
    (names them other than by addressing them)."""
    if _speaker_id(entry) in ids:
        return True
    padded = f" {normalise(sentence)} "
    return any(f" {m} " in padded and not _vocative_only(sentence, m) for m in mentions)


_TO_YOU = re.compile(r"\b(?:you|your|yours|ya|u|yourself)\b", re.I)
_YOUR = re.compile(r"\byour\s+(\w+)(?:\s+(\w+))?", re.I)


def _listeners_things(sentence: str) -> set[str]:
    """Stems of what a sentence says belongs to the listener ("your store", "your new job")."""
    return {stem(w) for m in _YOUR.finditer(sentence) for w in m.groups() if w}


_SELF = re.compile(
    r"\b(?:i|i['’](?:m|ve|ll|d)|me|my|mine|myself|we|we['’](?:re|ve|ll|d)|us|our|ours|ourselves)\b", re.I
)
_THIRD = re.compile(r"\b(?:he|she|him|his|her|hers|they|them|their|theirs)\b", re.I)
_CAPITALISED = re.compile(r"\b[A-Z][a-z]{2,}\b")
_HELLO = re.compile(
    r"^\W*(?:hey|hi|hiya|hello|heya|yo|dear|good\s+(?:morning|afternoon|evening)|morning)\b", re.I
)


# A chat statement that drops its subject "I": it opens with a verb of what its speaker did ("Been
# busy", "Went hiking", "Just finished the course"), and does not ask ("Got any plans?" does)
_DROPPED_I = re.compile(
    r"^\W*(?:(?:also|just|still|finally|recently)\s+)?(?:been|went|got|started|finished|had|took|made|tried"
    r"|spent|bought|found|saw|joined|signed|picked|learned|learnt|visited|booked)\b(?![^.!]*\?\W*$)",
    re.I,
)


# First-person frames that speak of the listener, not of the speaker: "I hope you're okay", "I
# think you can do it", "let me know", "I'm so proud of you"
_PHATIC = re.compile(
    r"\b(?:i\s+(?:really\s+|just\s+|totally\s+|do\s+)?(?:hope|think|bet|guess|know|agree|believe|wish|mean"
    r"|can['’]?t\s+wait|love\s+(?:that|it|this|how|your))|i['’]m\s+(?:so\s+|really\s+|just\s+)?"
    r"(?:glad|happy|proud|sorry|sure|here|excited|thrilled|impressed)|let\s+me\s+know|tell\s+me|show\s+me)\b",
    re.I,
)


def _to_listener(sentence: str, entry: FusedEvidence) -> bool:
    """Whether a sentence is about its speaker's listener: it says nothing of the speaker (no I,
    me, my, we …) and speaks to the listener ("you", or their name as an address: "That race
    sounds great, Mel!"), or its whole turn does and says nothing of the speaker beyond frames like
    "I hope" or "let me know" ("Sorry to hear that. I hope you're okay. Pottery is a great way to
    relax.") and the sentence names no third person (he, she, they …). Why: "What did Ana realise
    after her race?" is not answered by Ana praising her friend's race; a turn that speaks of its
    speaker too ("Been busy. Started the gym last week. How about you?") keeps its sentences
    without a subject. Only for a turn with one addressee: with several, or none recorded, who
    "you" is is not known. A statement opening with a verb and no subject drops its "I" ("Been
    reading that book you recommended and painting to keep busy.": LoCoMo's Melanie, about herself,
    not about Caroline, who only recommended the book)."""
    if len(entry.evidence.addressees) != 1 or _SELF.search(sentence) or _DROPPED_I.match(sentence):
        return False
    if _addresses(sentence, entry):
        return True
    turn = entry.evidence.text
    if _THIRD.search(sentence) or _SELF.search(_PHATIC.sub(" ", turn)):
        return False  # "Look, she put her hand on his knee!" is about them, not the listener
    return any(_addresses(s, entry) for s in SENTENCE_BREAK.split(turn))


def _addresses(sentence: str, entry: FusedEvidence) -> bool:
    """Whether a sentence speaks to the listener: "you", or their name (or its short form) as an
    address ("Wow, Mel, that's huge!"); a greeting ("Hey Cara, …") opens a turn, whatever follows."""
    if _TO_YOU.search(sentence):
        return True
    if _HELLO.match(sentence):
        return False
    listeners = [m for a in entry.evidence.addressees for m in _mentions(a)]
    short = [
        w.lower()
        for w in _CAPITALISED.findall(sentence)
        if any(m.split()[0].startswith(w.lower()) for m in listeners if m)
    ]
    return any(_vocative_only(sentence, m) for m in {*listeners, *short})


def _names_any(sentence: str, mentions: list[str]) -> bool:
    padded = f" {normalise(sentence)} "
    return any(f" {m} " in padded for m in mentions)


_ASKING = re.compile(
    r"^(?:(?:hey|hi|so|and|but|oh|well|wow|ok|okay|also|btw|then)\b[\s,!.]*|[A-Za-z][\w'-]*\s*,\s*)?"
    r"(?:what|what's|whats|how|how's|hows|why|where|when|who|whom|which|whose|do|does|did|is|are|was|were"
    r"|can|could|would|will|should|shall|may|have|has|had|any|anything|got|you|ya|u)\b",
    re.I,
)


_ABOUT_ASKING = re.compile(r"\b(?:ask|asks|asked|asking|wonder\w*|question\w*|inquir\w*|enquir\w*)\b", re.I)


# A question said as a fragment that continues what was just said: it opens with a preposition
# or "or" ("For walking or running?", "Or the blue one?", "Since when?") and has no clause of its own
_ELLIPTIC = re.compile(
    r"^(?:for|or|with|from|about|since|to|at|in|on|by)(?:\s+[\w'’-]+){0,4}\s*\?+$",
    re.I,
)


def _asks(sentence: str) -> bool:
    """Whether a sentence asks (so it is no evidence of its own content): it ends in a question
    mark and opens like a question ("What got you into running?", "Caroline, do you …?", "You
    play any instruments?") or is a short fragment opening with a preposition ("For walking or
    running?": no statement of the speaker's running). A statement with a tag ("… refers to the
    wheel, right?") or a request after it ("I need the original file, can you send it?") still
    states something."""
    text = sentence.strip().strip("\"'`“”‘’ ")
    return text.rstrip().endswith("?") and bool(_ASKING.match(text) or _ELLIPTIC.match(text))


# Verbs of saying, advising and wanting. "What does nbx909 suggest?", "What did Tom say?", "What
# does Ana want?": when nothing but such a verb is left of a question about a person, the verb is
# the act of speaking itself, so any of that person's turns may answer (none need repeat it).
_ADVISING = (
    "suggest", "suggests", "suggested", "suggestion", "recommend", "recommended", "advise",
    "advised", "advice", "propose", "proposed", "tell", "tells", "told", "offer", "offered",
)  # fmt: skip
_WANTING = ("want", "wants", "wanted", "need", "needs", "needed")
_SAYING = (
    "say", "says", "said", "mention", "mentioned", "think", "thinks", "thought", "ask", "asks", "asked",
    "know", "wonder", "wondered", "reply", "replied", "answer", "answered", "respond", "responded",
)  # fmt: skip
_SPEECH_STEMS = {stem(w) for w in (*_ADVISING, *_WANTING, *_SAYING)}
# verbs that ask for what someone said, whoever it was about ("What does the janitor claim?")
_CLAIMING = (
    "claim", "claims", "claimed", "insist", "insists", "insisted", "explain", "explains", "explained",
    "admit", "admits", "admitted", "remind", "reminds", "reminded", "warn", "warns", "warned", "accuse",
    "accuses", "accused", "announce", "announces", "announced", "shout", "shouts", "shouted", "yell",
    "yells", "yelled", "joke", "jokes", "joked", "complain", "complains", "complained", "call", "calls",
    "called", "promise", "promises", "promised", "describe", "describes", "described",
)  # fmt: skip
_SAID_STEMS = {stem(w) for w in (*_ADVISING, *_SAYING, *_CLAIMING)}
# a turn that tells the listener what to do: "try spore", "you should reinstall", "maybe use sudo"
_DIRECTIVE = re.compile(
    r"^\W*(?:(?:just|then|so|ok|okay|well)\W+)?(?:try|use|run|install|check|type|open|read|see|do|make|go|add|put"
    r"|set|edit|remove|please|maybe|perhaps)\b|\b(?:you\s+(?:should|could|can|need\s+to|must|might\s+want"
    r"|have\s+to|may\s+want)|i\s+(?:suggest|recommend|would)|why\s+not|how\s+about|try)\b",
    re.I,
)


# "What drink …", "Which cuisine …", "What kind of dance piece …": the kind of thing asked for.
_ASKED_KIND = re.compile(
    r"^\W*(?:(?:on|in|at|for|to|from|with|by|about)\s+)?(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?"
    r"(?P<kind>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*)?)(?:\s+(?P<next>[a-z][a-z'-]*))?",
    re.I,
)
# What ends the noun phrase of "What kind of dance piece did …", "What book series is …": a
# question's auxiliary or copula. A word after the noun that is none of these is the question's own
# verb ("Which song motivates Caroline …?", "Which team won …?"): the noun alone is the kind.
_AUXILIARY = {
    "is", "are", "was", "were", "did", "does", "do", "has", "have", "had", "can", "could", "would",
    "will", "should", "might", "may", "must", "am",
}  # fmt: skip
_NOT_A_KIND = {
    "is", "are", "was", "were", "did", "does", "do", "has", "have", "had", "can", "could", "would", "will",
    "should", "might", "may", "must", "of", "else", "one", "ones", "time", "day", "date", "year", "month",
    "week", "kind", "kinds", "type", "types", "sort", "thing", "things", "way", "ways", "reason", "the", "a",
    "an", "his", "her", "their", "my", "your", "our", "its", "he", "she", "they", "i", "you", "we", "it",
    "number", "amount", "age", "happened", "made", "makes", "make", "caused",
}  # fmt: skip


def asked_kind(question: str, names: set[str]) -> list[str]:
    """The word naming the kind of thing a what/which-question asks for ("What drink does Peter
    like?" → ["drink"]; "What kind of dance piece did …" → ["piece"]), else []."""
    match = _ASKED_KIND.match(question)
    if not match:
        return []
    said = match.group("kind").lower().split()
    if len(said) == 2 and match.group("next") and match.group("next").lower() not in _AUXILIARY:
        said = said[:1]  # "Which song motivates Caroline …": "motivates" is the verb, not the noun's head
    kind: list[str] = []
    for word in said:
        if word in _NOT_A_KIND or word in names:
            break
        kind.append(_folded(word))
    return kind[-1:]  # the head of the noun phrase: a dance *piece*, a temporary *job*


def _folded(word: str) -> str:
    folded = content_words(word)
    return folded[0] if folded else word


class WordVectors:
    """Single words embedded by the sentence embedder (normalised, memoised per embedder across
    questions). Why one helper: the asked kind (:class:`KindFit`) and the question's words said
    otherwise (:class:`NearWords`) both weigh words, not sentences, and embed the same candidate
    words. Why across questions: a conversation's words recur from one question to the next, and
    the embedder's own cache (512 texts, shared with queries and sentences) drops them; single
    words were 3 of every 4 texts a LoCoMo question embedded (fourth pass)."""

    memo_size = 20_000  # words kept per embedder (384 float32 each: ~30 MB at most)

    def __init__(self, embed: Any = None) -> None:
        self.embed = embed
        self._vectors: dict[str, np.ndarray] = _word_memo(embed)

    def prime(self, words_: list[str]) -> None:
        missing = sorted({w for w in words_ if w not in self._vectors})
        if self.embed is not None and hasattr(self.embed, "prime") and missing:
            self.embed.prime(missing)  # one batch; then kept here, before the embedder's cache drops them
            for word in missing:
                self.vector(word)

    def vector(self, word: str) -> np.ndarray:
        if word not in self._vectors:
            if len(self._vectors) >= self.memo_size:
                self._vectors.clear()
            v = np.asarray(self.embed(word), dtype=np.float32)
            self._vectors[word] = v / (float(np.linalg.norm(v)) or 1.0)
        return self._vectors[word]

    def cosine(self, a: str, b: str) -> float:
        return float(self.vector(a) @ self.vector(b))


_WORD_MEMOS: weakref.WeakKeyDictionary[Any, dict[str, np.ndarray]] = weakref.WeakKeyDictionary()


def _word_memo(embed: Any) -> dict[str, np.ndarray]:
    """The word vectors of one embedder, kept while the embedder lives (a fresh dict for none or
    for an embedder that cannot be weakly referenced)."""
    if embed is None:
        return {}
    try:
        return _WORD_MEMOS.setdefault(embed, {})
    except TypeError:
        return {}


class KindFit:
    """How well a sentence holds a thing of the asked kind: the kind's word itself (by stem), or a
    word whose embedding is close to it ("coffee" for a drink, "Mexican food" for a cuisine).
    Why: "What drink does Peter like best?" must not be answered by "the music I like best"."""

    # MiniLM single-word cosines: a kind and its members sit near 0.5-0.8, unrelated words near 0.2-0.4
    floor, span = 0.4, 0.25

    def __init__(self, kind: list[str], embed: Any = None, vectors: WordVectors | None = None) -> None:
        self.kind = kind
        self.stems = {stem(w) for w in kind}
        self.vectors = vectors or WordVectors(embed)

    def prime(self, sentences: list[str]) -> None:
        if self.kind:
            self.vectors.prime([*self.kind, *(w for s in sentences for w in content_words(s))])

    def __call__(self, sentence: str) -> float:
        here = content_words(sentence)
        if self.stems & {stem(w) for w in here}:
            return 1.0
        if self.vectors.embed is None or not here:
            return 0.0
        best = max(self.vectors.cosine(k, w) for k in self.kind for w in here)
        return min(1.0, max(0.0, (best - self.floor) / self.span))


class NearWords:
    """A question's word said in another form or another word of the same sense ("choice" /
    "choose", "bought" / "purchase", "lately" / "recently", "job" / "work"): how much of the word
    a sentence holds, 0-1, by the closest of its words. Why: the crude stem meets "watering" and
    "water" but not "choice" and "choose", and the answering sentence then shares too few of the
    question's words to answer (abstained with the answer in the top turn)."""

    # MiniLM single-word cosines: inflections and synonyms sit at 0.77-0.95 (dance/dancing 0.95,
    # choice/choose 0.87, take/took 0.85, buy/bought 0.82, job/work 0.78); related words of another
    # sense lower (son/boy 0.76, dog/cat 0.66, dinner/lunch 0.64, agreed/disagree 0.60)
    floor, span = 0.76, 0.1

    def __init__(self, wanted: list[str], vectors: WordVectors) -> None:
        self.wanted = wanted
        self.vectors = vectors

    def prime(self, sentences: list[str]) -> None:
        if self.wanted:
            self.vectors.prime([*self.wanted, *(w for s in sentences for w in content_words(s))])

    def held(self, word: str, sentence_words: list[str]) -> float:
        """How much of ``word`` the sentence holds in other words (0 without an embedder)."""
        if self.vectors.embed is None or not sentence_words:
            return 0.0
        best = max(self.vectors.cosine(word, w) for w in sentence_words)
        return min(1.0, max(0.0, (best - self.floor) / self.span))


# Kinds of things people are asked about, in families whose members answer one another's
# questions ("What food …" ← "an Italian dish"). Only used to tell that an answer names *another*
# kind outright ("Which drink is Peter's favourite?" → "Mexican food"): MiniLM cannot say it
# ("drink" ~ "Mexican food" 0.36 by :class:`KindFit`, ~ "hot chocolate" 0.03, "book" ~ any title
# 0), so an embedding threshold would either pass the wrong kind or reject right answers. Words
# of several kinds ("genre", "series", "show") are in none: on all LoCoMo they made "What genre is
# the novel …" and "What is John's favorite book series?" look answered by another kind.
_KIND_FAMILIES: tuple[frozenset[str], ...] = tuple(
    frozenset(family)
    for family in (
        ("food", "foods", "cuisine", "cuisines", "dish", "dishes", "meal", "meals", "dessert", "desserts",
         "snack", "snacks", "fruit", "fruits", "breakfast", "lunch", "dinner"),
        ("drink", "drinks", "beverage", "beverages"),
        ("music", "song", "songs", "band", "bands", "album", "albums", "singer", "singers"),
        ("movie", "movies", "film", "films"),
        ("book", "books", "novel", "novels", "author", "authors"),
        ("sport", "sports"),
        ("game", "games"),
        ("color", "colors"),
        ("animal", "animals", "pet", "pets"),
        ("city", "cities", "country", "countries"),
        ("instrument", "instruments"),
        ("temperature", "temperatures", "degrees"),
    )
)  # fmt: skip
# A quoted turn names many things ("… a photo of sheet music"): only its sentences saying what is
# liked best are read for another kind
_SHORT_ANSWER = 8
_PREFERS = re.compile(r"\b(?:favou?rites?|prefer\w*|(?:like|love)\s+(?:\w+\s+)?best)\b", re.I)
# "What is Peter's favourite drink?", "Sophie's preferred temperature": the kind after the word
_FAVOURED = re.compile(r"\b(?:favou?rite|preferred)\s+(?P<kind>[a-z]+)", re.I)


# Things of one kind a question asks about by name, a family a line: a turn about another member
# and never about the asked one answers another question ("What is Jon's favourite style of
# painting?" is not answered by his favourite dance). Word embeddings cannot say it: MiniLM puts
# painting ~ dance at 0.38, below painting ~ style (0.40), and Barcelona ~ Rome at 0.45.
# One family a string, members apart by spaces; a member "a/b/…" is one thing by several words
# ("draw" a self-portrait she "painted" is no sibling)
_SIBLING_FAMILIES = (
    "paint/paints/painting/paintings/painted/painter/draw/draws/drawing/drawings/drew/sketch/sketches/"
    "sketching dance/dances/dancing/danced/dancer/dancers pottery/ceramics sculpture/sculptures/sculpting"
    " photography poetry/poem/poems singing knitting sewing woodworking calligraphy baking gardening",
    "tennis soccer/football basketball baseball golf hockey volleyball rugby swimming cycling/biking"
    " skiing surfing snowboarding yoga",
    "guitar/guitars piano/pianos violin/violins drums cello flute saxophone trumpet ukulele",
    "dog/dogs/puppy/puppies cat/cats/kitten/kittens hamster/hamsters rabbit/rabbits/bunny parrot/parrots"
    " horse/horses turtle/turtles",
)
_SIBLING_OF: dict[str, tuple[int, str]] = {
    word: (family, member)
    for family, members in enumerate(_SIBLING_FAMILIES)
    for member in members.split()
    for word in member.split("/")
}


def _things(text: str) -> set[tuple[int, str]]:
    """The (family, member) things of :data:`_SIBLING_FAMILIES` a text speaks of."""
    return {_SIBLING_OF[w] for w in (x.split("'")[0] for x in words(text)) if w in _SIBLING_OF}


def _another_of_kind(things: set[tuple[int, str]], places: set[str], told: str, people: set[str]) -> bool:
    """Whether ``told`` (a turn, with the reply it gets) speaks of another thing of the kind the
    question names and never of that thing: another member of its family ("dance" for
    "painting"), or another named place ("to Rome" for "a trip to Barcelona"). Why: the question's
    other words ("favourite style", "take a trip") then match a turn on another subject, which is
    how a question about something never said is answered (LoCoMo's adversarial questions swap
    exactly that word); a turn that names neither the asked thing nor a sibling (a pronoun, a
    nickname) is not judged."""
    here = _things(told)
    for family, member in things:
        if (family, member) not in here and any(f == family and (f, m) not in things for f, m in here):
            return True
    if not places:
        return False
    said = set(words(told))
    missing = [p for p in places if not set(p.split()) <= said]
    return bool(missing) and bool({p.lower() for p in named_places(told, people)} - places)


def named_kind(question: str, names: set[str]) -> str | None:
    """The kind of thing a question asks for: :func:`asked_kind`, or the noun after "favourite" /
    "preferred" anywhere in it ("What is Peter's favourite drink?" names no kind after "what")."""
    kind = asked_kind(question, names)
    if kind:
        return kind[0]
    match = _FAVOURED.search(question)
    word = match.group("kind").lower() if match else ""
    return _folded(word) if word and word not in _NOT_A_KIND and word not in names else None


# what joins the asked kind to the words that tell which one ("a room on a high floor", "a table by
# the window", "a house with a garden")
_PLACING = {"on", "in", "at", "by", "near", "with", "without", "facing", "overlooking", "from", "of"}
_TOKEN = re.compile(r"[A-Za-z0-9][\w'’-]*")


def whole_phrase(question: str, answer: str, lines: list[str], names: set[str]) -> str:
    """A short answer cut inside a noun phrase of its line, grown to the phrase as the line says it:
    - the asked kind (:func:`named_kind`, the word or one of its family, :data:`_KIND_FAMILIES`)
      right after it: "Mexican" → "Mexican food" ("Which cuisine is my favorite?", line "we'd have
      Mexican food every night");
    - the one describing word between a determiner and it: "spreadsheet" → "detailed spreadsheet"
      ("I want a detailed spreadsheet");
    - the asked kind joined to it by a preposition before it: "high floor" → "room on a high floor"
      ("what room should you give me", line "I always want a room on a high floor").
    Else the answer as it is; a list, a verdict, or an answer of more than four words too.

    Why: the 1.5B model, asked for "the line's own words that answer", cuts the phrase short, most
    often by the noun the question already names ("Mexican" for a cuisine) or by the word that
    tells which one ("spreadsheet" for "a detailed spreadsheet"): on the household tuning sets
    three of the LLM path's six losses to the offline reader (docs/retrieval.md, "Twentieth LLM
    pass"). Growing only adds the line's own adjacent words, so an answer that held the gold still
    holds it."""
    said = answer.strip()
    if not said or len(words(said)) > 4 or "," in said or _BARE_VERDICT.fullmatch(said):
        return answer
    kind = named_kind(question, names)
    family = next((f for f in _KIND_FAMILIES if kind in f), frozenset({kind})) if kind else frozenset()
    fits = {stem(w) for w in family}
    if fits & {stem(w) for w in content_words(said)}:
        fits = set()  # the answer names the kind already
    here = _as_said(said)
    found = next((m for m in (here.search(line) for line in lines) if m is not None), None)
    grown = _grown(found.string, found.start(), found.end(), fits) if found else None
    return grown or answer


# what says where a thing is relative to a place ("at the airport", "on the couch", "from the vent")
_LOCATIVE = frozenset(
    {"at", "in", "on", "to", "from", "into", "onto", "under", "behind", "inside", "outside", "near", "by"}
    | {"beside", "above", "below", "over", "across", "through", "towards", "toward", "around", "off"}
)
_WHERE = re.compile(r"^\W*where\b", re.I)


def placed(question: str, answer: str, lines: list[str]) -> str:
    """For a where-question, a bare place cut from its line with the preposition that places it
    there, as the line says it: "airport" → "at the airport" (line "I am supposed to pick up a
    friend at the airport"), "couch" → "on the couch". Else the answer as it is; one of more than
    four words, a list, or one that opens with such a word already, too.

    Why: the preposition is part of the answer to "where" ("on the couch" and "under the couch" are
    two places), and the 1.5B model, asked for "the line's own words that answer", keeps the noun
    alone. On the multi-party sets, whose golds are spans of the line, that lost right drafts:
    FriendsQA "Where does Rachel say she is supposed to be?" → "airport" for gold "at the airport"
    (docs/retrieval.md, "Twenty-first LLM pass"). Only the line's own adjacent words are added, so
    an answer that held the gold still holds it."""
    said = answer.strip()
    tokens = words(said)
    if not _WHERE.match(question) or not tokens or len(tokens) > 4 or "," in said:
        return answer
    if tokens[0].lower() in _LOCATIVE:
        return answer
    here = _as_said(said)
    for line in lines:
        for found in here.finditer(line):
            for n in (2, 1):  # "at the airport", "at home"
                before = _words_before(line, found.start(), n)
                said_before = [t.group().lower() for t in before]
                if said_before and said_before[0] in _LOCATIVE and (n == 1 or said_before[1] in DETERMINERS):
                    return line[before[0].start() : found.end()]
    return answer


def _as_said(said: str) -> re.Pattern[str]:
    """``said`` as a whole phrase of a line, in any case: not inside a longer word ("air" is not in
    "airport"). :func:`whole_phrase` and :func:`placed` find the model's answer in its line by it."""
    return re.compile(rf"(?<![\w'’-]){re.escape(said)}(?![\w'’-])", re.I)


def _words_before(line: str, start: int, n: int) -> list[re.Match[str]]:
    """The ``n`` words of ``line`` right before ``start``, when only single spaces stand between
    them and it; else []."""
    before = list(_TOKEN.finditer(line, 0, start))[-n:]
    if len(before) < n or not re.fullmatch(rf"(?:[\w'’-]+ ){{{n}}}", line[before[0].start() : start]):
        return []
    return before


def _grown(line: str, start: int, end: int, fits: set[str]) -> str | None:
    """``line[start:end]`` grown to its noun phrase by the rules of :func:`whole_phrase`, or None."""
    after = _TOKEN.match(line, end + 1) if line[end : end + 1] == " " else None
    if after is not None and stem(after.group().lower()) in fits:
        return f"{line[start:end]} {after.group()}"
    for n in (3, 2):  # "room on a high floor", "room on high floor"
        found = _words_before(line, start, n)
        before = [t.group().lower() for t in found]
        if (
            before
            and stem(before[0]) in fits
            and before[1] in _PLACING
            and (n == 2 or before[2] in DETERMINERS)
        ):
            return line[found[0].start() : end]
    found = _words_before(line, start, 2)
    before = [t.group().lower() for t in found]
    if before and before[0] in DETERMINERS and before[1] not in QUESTION_STOP_WORDS:
        return line[found[1].start() : end]  # the describing word after the determiner
    return None


def off_kind(question: str, answer: str, names: set[str]) -> str | None:
    """The other kind an answer names when the question asks for a kind of one family
    (:data:`_KIND_FAMILIES`) and the answer says nothing of that family but names one of another
    ("Which drink is Peter's favourite?" → "Mexican food": "food"); else None (also when the
    asked kind is in no family: "What book …" is answered by a title, which names no kind)."""
    kind = named_kind(question, names)
    family = next((f for f in _KIND_FAMILIES if kind in f), None)
    if family is None:
        return None
    answer = unlabelled(answer)
    if len(words(answer)) > _SHORT_ANSWER:  # a quoted turn: only where it says what is liked best
        answer = " ".join(x for x in SENTENCE_BREAK.split(answer) if _PREFERS.search(x))
    said = set(content_words(answer))
    if said & family:
        return None
    other = sorted(w for f in _KIND_FAMILIES if f is not family for w in said & f)
    return other[0] if other else None


# A question about a preference that changed asks for the old one ("What did Sophie drink before
# hot chocolate?", "Which food did Ben like best before he changed his mind?", "Which drink did
# Lucy give up?", "Which drink did Ben switch away from?", "Which room did Maya ask for last
# time?": the last three, without their marker, were answered with the new value on the LLM path)...
_PAST_ASKED = re.compile(
    r"\b(?:before|earlier|used\s+to|use\s+to|old|previous(?:ly)?|former(?:ly)?|originally|at\s+first"
    r"|in\s+the\s+past|stop(?:ped|s)?|quit|gave\s+up|giv(?:e|es|ing)\s+up|no\s+longer|any\s?more|changed"
    r"|switched|switch(?:es|ing)?\s+(?:away\s+)?from|last\s+time)\b",
    re.I,
)
# ... and a turn telling of the change marks each value: "I used to love Greek food, but now my
# favourite is Italian food"; "I don't drink orange juice any more, my favourite now is hot chocolate"
_PAST_SAID = re.compile(
    r"\b(?:used\s+to|previously|formerly|originally|at\s+first|any\s?more|no\s+longer|stopped|quit"
    r"|gave\s+up|switched\s+from|back\s+then)\b",
    re.I,
)
_NOW_SAID = re.compile(r"\b(?:now|nowadays|these\s+days|currently|at\s+the\s+moment|lately)\b", re.I)
_CLAUSE = re.compile(r"[.;!?,]|\s[-–—]\s|\bbut\b|\bwhereas\b", re.I)


def when_held(answer: str, turns: list[str]) -> tuple[str | None, bool]:
    """Whether the clause of ``turns`` that holds the answer's words tells of a past preference
    ("past": "I used to love Greek food"), the current one ("now": "but now my favourite is
    Italian food") or neither (None), and whether those turns mark a current value anywhere."""
    said = {stem(w) for w in content_words(answer)}
    clauses = [c for t in turns for c in _CLAUSE.split(t) if c and c.strip()]
    marked_now = any(_NOW_SAID.search(c) for c in clauses)
    holding = [c for c in clauses if said and said <= {stem(w) for w in content_words(c)}]
    for clause in holding:
        if _PAST_SAID.search(clause):
            return "past", marked_now
        if _NOW_SAID.search(clause):
            return "now", marked_now
    return None, marked_now


def wrong_time(question: str, answer: str, turns: list[str]) -> str | None:
    """Why an answer about a preference that changed is the other value, or None: the question
    asks about the past and the answer is the one said as current, or it asks about today (no
    past marker) and the answer is the one said as past while the turns also say what it is now."""
    held, marked_now = when_held(answer, turns)
    if _PAST_ASKED.search(question):
        now = held == "now"
        return "the question asks about the past; the answer is what was said to hold now" if now else None
    if held == "past" and marked_now:
        return "the answer is what was said to hold before; the question asks about now"
    return None


def _speech_fit(topic: set[str], sentence: str) -> float:
    """Bonus for a turn of the kind a speech-verb question asks about: a directive for "what did X
    suggest / tell …", a request for "what does X want / need", a question for "what did X ask"."""
    if topic & {stem(w) for w in _ADVISING}:
        return 0.1 if _DIRECTIVE.search(sentence) else 0.0
    if topic & {stem(w) for w in _WANTING}:
        return 0.1 if is_request(sentence) else 0.0
    if topic & {stem(w) for w in ("ask", "asks", "asked", "wonder", "wondered")}:
        return 0.1 if sentence.rstrip().endswith("?") else 0.0
    return 0.0


# A person telling what they like, want or need: "For me it's always green tea", "I prefer the
# window seat", "Friday mornings work best for me", "now I'd rather have a quiet room"
_STATES_LIKING = re.compile(
    r"\b(?:favou?rites?|prefer\w*|(?:i|we)\s+(?:\w+\s+)?(?:like|love|enjoy|want|need|adore)|always"
    r"|works?\s+best|i['’]d\s+rather|can['’]?t\s+stand|hate|into)\b",
    re.I,
)
# Asking the memory to act on the asker's taste: "Get me a drink I like", "Book me a seat", "Put
# on something for me", "Schedule it at a time that suits me", "Make up my bed the usual way"
_APPLIED = re.compile(
    r"\b(?:get|bring|fetch|grab|order|make|play|put|book|reserve|find|give|set|schedule|prepare|pick"
    r"|choose|send|cook)\b.*\b(?:me|my|i)\b|\bfor\s+me\b|\bsuits?\s+me\b|\b(?:my|the)\s+usual\b",
    re.I,
)
# A turn telling that a liking changed: "I've switched", "I used to …, but now …", "I'm tired of
# country music, these days …", "now I'd rather have …"
_CHANGED = re.compile(
    rf"{_PAST_SAID.pattern}|{_NOW_SAID.pattern}|\b(?:switched|changed\s+my\s+mind|tired\s+of|sick\s+of"
    r"|rather|instead)\b",
    re.I,
)
# "Is ginger ale still her favourite?", "Does Jack really use foam pillows?": a yes/no question
# asking whether a value holds, whose answer must say what holds instead
_STILL = re.compile(r"\b(?:still|really|actually|any\s?more|these\s+days|nowadays|now)\b", re.I)
_LIKING_WORDS = {
    stem(w)
    for w in (
        "favourite",
        "favorite",
        "like",
        "love",
        "prefer",
        "always",
        "want",
        "need",
        "now",
        "these",
        "days",
        "enjoy",
        "best",
        "really",
        "actually",
    )
}


# Words of a question about someone's taste beyond ``question.PREFERENCE_WORDS``: "What's Olivia's
# taste in music?", "What is Ben drinking now?", "Which slot suits Maya?", "What's my top food?"
_LIKING_ASKED = re.compile(
    r"\b(?:wants?|needs?|rather|taste|into|top|go-?to|suits?|happy\s+with|current(?:ly)?|nowadays"
    r"|these\s+days|usual(?:ly)?|drink\w*|eat\w*|listen\w*)\b",
    re.I,
)


def asks_liking(reading: Reading) -> bool:
    """Whether a question asks what someone likes, wants or needs, or asks the memory to act on
    it ("Could you get me a drink I like?", "Play something for me")."""
    return reading.preference or bool(_APPLIED.search(reading.text) or _LIKING_ASKED.search(reading.text))


_OPENING_NAME = re.compile(
    r"^\W*(?:(?:oh|well|so|yes|no|and|but|actually|honestly|i\s+think)\W+)*([A-Za-z]+)\s+(\w+)", re.I
)


def _opens_with_other(sentence: str, others: set[str]) -> bool:
    """Whether a sentence opens by telling about someone else ("Jack needs foam pillows, I remember
    that.", "Oh, Sam loves hot chocolate"): by the speaker, but about that person's taste. Not an
    address ("Jack, could you …") nor a shared subject ("Mel and I love hiking")."""
    match = _OPENING_NAME.match(sentence)
    if match is None:
        return False
    return match.group(1).lower() in others and match.group(2).lower() not in ("and", "or")


# How a yes/no answer about a liking opens, before the turn that says what holds
VERDICTS = ("Yes — ", "No — ")


def _verdict(sentence: str, turn: str, question: str, names: set[str]) -> str:
    """Yes or No for a yes/no question about a liking answered by ``sentence`` of ``turn``: No when
    it negates; when the question asks whether something still holds and the turn tells of a
    change; or when the sentence holds less than two thirds of the question's own words for the
    value ("Does Lucy like hip hop?" answered by "the music I like best is old rock and roll";
    "Does Peter like the aisle seat?" by "I always want a window seat")."""
    if short_span("yesno", sentence, None) == "No":
        return "No"
    if _STILL.search(question) and _CHANGED.search(turn):
        return "No"
    value = {stem(w) for w in content_words(question) if w not in names} - _LIKING_WORDS
    held = value & {stem(w) for w in content_words(sentence)}
    return "No" if value and 3 * len(held) < 2 * len(value) else "Yes"


class ExtractiveAnswerer:
    """Offline: the evidence sentence sharing the most (rarity-weighted, stemmed) question words,
    helped by its meaning (sentence embeddings) when an embedder is given.

    Below ``min_support`` the evidence does not support an answer, and the answer is "not in
    memory". A question wanting a date, time, number, place or yes/no is answered with that
    span of the sentence (:mod:`voxmem.retrieval.spans`); otherwise a turn of at most
    ``max_turn_chars`` is quoted whole. A question naming people is answered only from their
    turns or sentences that name them; a first-person question by a recognised asker ("Where do
    I work?") only from the asker's own turns.
    """

    name = "extractive"
    min_support = 0.4
    max_turn_chars = 240
    semantic_weight = 0.35
    shape_margin = 0.1  # how much less support a sentence holding the wanted span may have
    reply_margin = 0.0  # how much better a question must match than any statement to answer by its reply
    kind_weight = 0.15  # support moved by holding (or not) a thing of the asked kind ("What drink …")
    cause_weight = 0.2  # support added to a sentence giving a reason when the question asks why
    rank_weight = 0.05  # support moved by retrieval's own score of the turn, relative to the top one's
    list_turns = 3  # a list question ("What has Ana painted?") gathers from up to this many turns
    list_floor = 1.0  # … each supported at least this share of ``min_support``
    list_deeper = 2  # … and from up to this many more turns ranked below the top ones
    own_liking = 0.1  # support added to a person's own statement of a liking when asked what they like
    liking_word_weight = 0.3  # share of its weight a word like "like" keeps in a question about a taste
    liking_floor = 0.25  # MiniLM cosine a liking must reach to answer when no words are shared
    top = 10  # evidence entries read for every question
    deep = 30  # … and for a span of the asked shape when the top ones hold none
    event_match = 0.5  # how well a turn must tell the event of "What did X do when <event>?"
    event_reach = 4  # … and within how many turns after it X's answering turn must come

    def __init__(self, embed: Any = None) -> None:
        self.meaning = Meaning(embed)

    def answer(self, result: AgentResult) -> tuple[str, list[str]] | None:
        """The answer from the top ``top`` evidence entries; when the question asks for a date,
        time, number or place and that answer holds no such span (or there is none), the answer
        from the top ``deep`` entries if that one holds it. Why: the turn holding the answer often
        ranks 11-30 behind turns sharing the question's words; reading that deep for every
        question lets those turns outvote the better-ranked ones and answers questions the
        memory cannot (LoCoMo dev, all 304 q: 0.391 -> 0.388 at 30 for all), so only a deeper
        answer of the asked shape replaces the first reading. (A thing of the asked kind, "What
        drink …", was tried as a trigger too: held-out LoCoMo adversarial questions then found
        "passions" and "activities" deeper that the memory never said of the person asked about.)"""
        # a list question gathers its items from as deep as a deeper reading would go
        first = self._told(result, self.top, self.deep if wants_list(result.reading.text) else 0)
        after = self._next_turn(result, first)
        if after is not None:
            return after
        spans = wanted_shape(result.reading.text) in ("date", "time", "number", "place")
        if (first is None or not first[2]) and len(result.evidence) > self.top and spans:
            deeper = self._told(result, self.deep)
            if deeper is not None and deeper[2]:
                return deeper[0], deeper[1]
        return (first[0], first[1]) if first is not None else None

    def _next_turn(
        self, result: AgentResult, first: tuple[str, list[str], bool] | None
    ) -> tuple[str, list[str]] | None:
        """For "What did Chandler do when his boss kept slapping his butt?" (``Reading.event``): the
        doer's next turn after the turn that tells the event, when the reader found none or quoted
        the event's own turn back. The event's turn is the top-``deep`` turn closest to it
        (:class:`Meaning`, at least ``event_match``); the doer's turn must follow it within
        ``event_reach`` turns of the session and be in the evidence."""
        reading = result.reading
        doer = (reading.doer or {}).get("id")
        evidence = result.evidence[: self.deep]
        if not reading.event or doer is None or not evidence:
            return None
        told = [f"{_label(e.evidence.speaker)}: {e.evidence.text}" for e in evidence]
        fit = self.meaning.scores(reading.event, told)
        best = max(range(len(evidence)), key=lambda i: (fit[i], -i))
        event = evidence[best]
        if fit[best] < self.event_match or (first is not None and event.id not in first[1]):
            return None
        later = [
            e
            for e in evidence
            if e.evidence.session == event.evidence.session
            and 0 < e.evidence.idx - event.evidence.idx <= self.event_reach
            and _speaker_id(e) == doer
        ]
        if not later:
            return None
        turn = min(later, key=lambda e: e.evidence.idx)
        return _line(turn), [turn.id, event.id]

    def _told(self, result: AgentResult, top: int, gather: int = 0) -> tuple[str, list[str], bool] | None:
        """:meth:`_read` from the teller's own turns when the question names one ("How did Ross tell
        Chandler to …?", ``Reading.teller``), else (or when none of theirs answers) from all. The
        teller's turns are read down to ``deep``: kept to one speaker, the deeper ones cannot
        outvote the question's answer with other people's words (the reason :meth:`answer` reads
        only ``top`` otherwise), and the teller's telling often ranks below turns that repeat the
        question's words ("Where does Rachel say she is supposed to be?", FriendsQA: rank 12)."""
        told = self._read(result, max(top, self.deep), gather, teller=True) if result.reading.teller else None
        return told if told is not None else self._read(result, top, gather)

    def _read(
        self, result: AgentResult, top: int, gather: int = 0, teller: bool = False
    ) -> tuple[str, list[str], bool] | None:
        """(answer, evidence ids, whether it is of the asked shape) from the top ``top`` entries; a
        list question also gathers further items from the top ``gather`` (which never answer by
        themselves nor change how the top ones are weighed); with ``teller``, only sentences the
        question's teller spoke answer."""
        reading = result.reading
        told_by = (reading.teller or {}).get("id") if teller else None
        wanted = [w for w in reading.keywords]
        if reading.claimant:  # their turns never answer, so their name is no word to find
            claimant_words = _name_words([reading.claimant])
            wanted = [w for w in wanted if w not in claimant_words] or wanted
        if not wanted or not result.evidence:
            return None
        candidates: list[tuple[str, FusedEvidence]] = []
        for entry in result.evidence[: max(top, gather)]:
            for sentence in SENTENCE_BREAK.split(entry.evidence.text):
                if sentence.strip():
                    candidates.append((sentence.strip(), entry))
            for supporting in entry.support:
                candidates.append((supporting.get("text", ""), entry))
        reserve = {e.id for e in result.evidence[top:gather]}  # only gathered from
        stems = {w: stem(w) for w in wanted}
        read = [sentence for sentence, entry in candidates if entry.id not in reserve]
        df = Counter(s for sentence in read for s in {stem(w) for w in content_words(sentence)})
        n = len(read)
        # A question about named people is answered only from what they said or what names them:
        # "What is Grace's favourite food?" must not be answered by Lucy's favourite food.
        # A first-person question ("What's my favourite drink?") is about the asker: their turns
        # answer it, not the same generic turn for every asker.
        people = asked_about(reading, result.scope.asker, result.scope.asker_name)
        named_ids: set[str] = {p["id"] for p in people if p.get("id")}
        # the people whose things the question asks about by a possessive ("Carl's xorg.conf")
        owners = {
            p["id"]
            for p in people
            if p.get("id")
            and any(re.search(rf"\b{re.escape(m)}['’]s\b", reading.text, re.I) for m in _mentions(p))
        }
        mentions = [m for p in people for m in _mentions(p)]
        likes = bool(named_ids) and asks_liking(reading)
        # whether they say anything of their own taste here (then that outweighs hearsay)
        own_say = likes and any(
            _speaker_id(entry) in named_ids and _STATES_LIKING.search(sentence)
            for sentence, entry in candidates
        )
        weight = {w: math.log(1 + n / (1 + df.get(stems[w], 0))) for w in wanted}
        if own_say:
            # "like", "favourite", "want" say that a taste is asked about, not which: every
            # statement of one holds them ("Give Daniel the aisle seat, that's what they like")
            weight = {
                w: v * (self.liking_word_weight if stems[w] in _LIKING_WORDS else 1.0)
                for w, v in weight.items()
            }
        total = sum(weight.values()) or 1.0
        # the question's words and each sentence's closeness in meaning, once: a sentence's word
        # share is taken below, after it is known whether its irregular verbs count
        needle = content_words(reading.text)
        closeness = self.meaning.closeness(reading.text, [c[0] for c in candidates])
        name_words = _name_words(people)
        name_stems = {stem(w) for w in name_words}
        topic = {stems[w] for w in wanted} - name_stems
        speech_only = bool(named_ids) and topic <= _SPEECH_STEMS
        kind = asked_kind(reading.text, name_words)
        vectors = WordVectors(self.meaning.embed)
        kind_fit = KindFit(kind, vectors=vectors)
        # a name's identity is the point ("Barcelona" is not "Rome", 0.8 apart): only common words
        capitalised = {w.lower() for w in re.findall(r"(?<![.?!]\s)(?<!^)\b[A-Z]\w+", reading.text)}
        near = NearWords([w for w in wanted if stems[w] in topic and w not in capitalised], vectors)
        # the things the question names by kind or place: a turn on a sibling of theirs is no answer
        asked_things = _things(" ".join(w for w in wanted if stems[w] in topic))
        people_words = _people_words(result)
        # "to Joanna's" is her home: a person's, never matched against another place
        asked_places = {
            p.lower()
            for p in named_places(reading.text, people_words)
            if p.lower().split("'")[0] not in people_words
        }

        def own_words(sentence: str) -> set[str]:
            return {stem(w) for w in content_words(sentence)}

        turns = {(e.evidence.session, e.evidence.idx): e for e in result.evidence}
        top_score = max(e.score for e in result.evidence) or 1.0
        claimant = (reading.claimant or {}).get("id")
        strangers = _people_words(result) - set(mentions) - {w for m in mentions for w in m.split()}
        # "What did Jon say / think about …": what he says to his listener counts too
        said_by = bool({stem(w) for w in words(reading.text)} & _SAID_STEMS)
        # "What did nbx909 ask?": then the questions people asked are the evidence
        about_asking = bool(_ABOUT_ASKING.search(reading.text))
        why = bool(_WHY.search(reading.text))
        # "When did Nora go camping in July?": the occasion told in July, not another one
        asked = asked_months(reading.text) if wanted_shape(reading.text) == "date" else frozenset()
        past = _PAST_WHEN.match(reading.text) is not None
        month_stems = {stems[w] for w in wanted if asked_months(f"in {w}")}
        best: tuple[float, int, str, FusedEvidence] | None = None
        replied: tuple[float, int, str, FusedEvidence] | None = None  # best question's reply
        scored: list[tuple[float, int, str, FusedEvidence]] = []
        statements: list[tuple[float, int, str, FusedEvidence]] = []  # the scored ones that ask nothing
        raw: dict[int, float] = {}  # support before the asked kind's preference, by candidate
        # Who may answer is settled first, and only the words of the sentences that may are
        # embedded for the asked kind and the words said otherwise: embedding every candidate's
        # words cost ~0.4 s a question on 2 cores (fourth pass, LoCoMo dev, cold).
        admitted: list[
            tuple[int, str, FusedEvidence, float, bool, FusedEvidence | None, set[str], bool, bool]
        ] = []
        for rank, ((sentence, entry), close) in enumerate(zip(candidates, closeness, strict=True)):
            words_said = content_words(sentence)
            words_here = {stem(w) for w in words_said}
            # A verb met only in its irregular form counts when it is all the question asks besides
            # the people ("What did Kworth find?" / "i have found it: …": the thing found is asked
            # for) or the sentence answers a question put to its speaker; otherwise "How does Richard
            # think about the article?" is answered by "I thought of a thing." (held-out, eighth pass)
            alone = _verbs_alone(wanted, stems, topic, words_said, words_here)
            irregular = not (alone and not topic <= alone and not _replies_to_question(entry, turns))
            if not irregular:
                words_here -= alone
            sem = max(_overlap(needle, words_said, irregular), close)  # as Meaning.scores, irregular or not
            # A question states nothing ("What got you into running?"); its answer is the reply,
            # which must then be by or about the people asked about.
            # a question put to the listener ("What got you into running?") is about them
            # as is one about others ("How did they handle it?"); "were we bad parents?" is not
            asks = (
                _asks(sentence)
                and bool(_TO_YOU.search(sentence) or not _SELF.search(sentence))
                and not about_asking
            )
            reply = _reply(entry, turns) if asks else None
            if reply is not None and all(_asks(x) for x in split_sentences(reply.evidence.text)):
                reply = None  # a reply that only asks back ("Which one is Bonnie?") answers nothing
            told = entry.evidence.text + (f" {reply.evidence.text}" if reply is not None else "")
            if (asked_things or asked_places) and _another_of_kind(
                asked_things, asked_places, told, people_words
            ):
                continue  # "a trip to Barcelona" is not answered by the trip to Rome
            if claimant and claimant in (_speaker_id(entry), _speaker_id(reply)):
                continue  # "Lucy said Olivia likes rock: is that right?" is not settled by Lucy
            if told_by and _speaker_id(reply or entry) != told_by:
                continue  # "How did Ross tell Chandler to …?" is answered by Ross's words
            if asked:
                if not _in_months(sentence, entry, asked, past):
                    continue  # camping "in July": not the trip told in October, nor the plan told in March
                words_here |= month_stems  # its time says the month the question names
            # the speaker's name counts as present in their own turn (a question's: the replier's),
            # and the listener's in a turn spoken to them: "What book did Ana recommend to Ben?"
            # names Ben as the one told, which her turn to him need not say ("Yep, Ben!" does,
            # and said nothing of a book)
            turn = (reply or entry).evidence
            for person in (turn.speaker, *turn.addressees):
                if person:
                    words_here |= {stem(w) for w in content_words(person.get("name") or "")}
            # "What did X suggest?": X's own statement is the act the verb names
            spoken = speech_only and not asks and _speaker_id(entry) in named_ids
            if spoken:
                words_here |= topic
            if asks:
                if people and (reply is None or not _about(reply, reply.evidence.text, named_ids, mentions)):
                    continue
            elif people and not _about(entry, sentence, named_ids, mentions):
                continue
            speaker_asked = _speaker_id(entry) in named_ids
            listeners = speaker_asked and topic & _listeners_things(sentence)
            if (
                listeners
                and reply is None
                and not _names_any(sentence, mentions)
                and not owners - {_speaker_id(entry)}
            ):
                # "Your store looks great" by Jon is about Gina's store, not his; but when the
                # question gives the thing to someone else it names ("When did Dirk use Carl's
                # xorg.conf?"), Dirk's "I used your xorg.conf" may well be about it
                continue
            to_named = any(a.get("id") in named_ids for a in entry.evidence.addressees)
            if speaker_asked and not (asks or said_by or to_named) and _to_listener(sentence, entry):
                continue  # "That race sounds great, Mel!" by Ana is about Mel's race
            admitted.append((rank, sentence, entry, sem, asks, reply, words_here, spoken, speaker_asked))
        kind_fit.prime([x[1] for x in admitted])
        near.prime([x[1] for x in admitted])
        for rank, sentence, entry, sem, asks, reply, words_here, spoken, speaker_asked in admitted:
            # the question's words the sentence says otherwise ("choice" / "I choose openfire")
            sentence_words = content_words(sentence)
            otherwise = {
                w: near.held(w, sentence_words)
                for w in near.wanted
                if stems[w] not in words_here and not spoken
            }
            if not (own_words(sentence) & topic) and sem < 0.5 and not spoken and not any(otherwise.values()):
                continue  # only a name in common ("Thanks, Gina!") is no evidence about Gina
            if speaker_asked and _opens_with_other(sentence, strangers):
                continue  # "Jack needs foam pillows, I remember that." by Maya is about Jack
            support = sum(weight[w] for w in wanted if stems[w] in words_here) / total
            support += sum(weight[w] * held for w, held in otherwise.items()) / total
            support = (1 - self.semantic_weight) * support + self.semantic_weight * sem
            if spoken:
                support += _speech_fit(topic, sentence)
            if likes:
                # what Daniel says he likes, before what others say of him (when he says any)
                own = speaker_asked and _STATES_LIKING.search(sentence)
                hearsay = not speaker_asked and own_say
                support += self.own_liking if own else -self.own_liking if hearsay else 0.0
            if reading.temporal and _DATE.search(sentence):
                support += 0.1
            raw[rank] = support
            if entry.id in reserve:
                if not asks:
                    statements.append((support, rank, sentence, entry))
                continue
            if kind:  # the kind picks among supported sentences; it never makes one supported
                support += self.kind_weight * (kind_fit(sentence) - 0.5)
            # … and so does retrieval's fused score (dense and SPLADE terms over the speaker-aware
            # passage, the reply's neighbours), which weighs the whole turn and its speaker, where the
            # words above weigh one sentence: of two sentences sharing the question's words as well,
            # the turn retrieval ranked first ("We all agreed, my son's name is Jamie" against a
            # later "bad time to say the wrong name, huh Ross?")
            support += self.rank_weight * entry.score / top_score
            if why and _CAUSE.search(sentence):  # … as a reason does for a why-question
                support += self.cause_weight
            key = (support, -rank)
            scored.append((support, rank, sentence, entry))
            if not asks:
                statements.append((support, rank, sentence, entry))
            if asks:
                if reply is not None and (replied is None or key > (replied[0], -replied[1])):
                    replied = (support, rank, reply.evidence.text, reply)
                continue
            if best is None or key > (best[0], -best[1]):
                best = (support, rank, sentence, entry)
        if replied is not None and (best is None or replied[0] > best[0] + self.reply_margin):
            best = replied
        # the liking read by meaning alone is held to the asked thing as the words' reading is: Jon's
        # "contemporary is my top pick" (a dance) is no answer to his favourite style of painting
        likable = [
            (sentence, entry)
            for sentence, entry in candidates
            if not (asked_things or asked_places)
            or not _another_of_kind(asked_things, asked_places, entry.evidence.text, people_words)
        ]
        if best is None or raw[best[1]] < self.min_support:
            best = self._liking(result, likable, named_ids, strangers) if likes else None
            if best is None:
                return None
        elif own_say and _speaker_id(best[3]) not in named_ids:
            # hearsay ("Give Daniel the aisle seat, that's what they like") yields to the person's
            # own word on that taste, when they gave one ("I prefer the window seat")
            best = self._liking(result, likable, named_ids, strangers) or best
        if likes and not _PAST_ASKED.search(reading.text) and wanted_shape(reading.text) != "date":
            deep = [(x, e) for e in result.evidence[: self.deep] for x in split_sentences(e.evidence.text)]
            best = _latest_change(best, deep)
        shaped = self._shaped(reading.text, scored, result.evidence, _people_words(result))
        if shaped is not None:
            return shaped[0], shaped[1], True
        _, _, sentence, entry = best
        matched = sentence
        if sentence == entry.evidence.text:  # a reply: what it states, not what it asks back
            stated = [x for x in SENTENCE_BREAK.split(sentence) if x.strip() and not _asks(x)]
            sentence = " ".join(stated) or sentence
        said = day_of(entry.evidence.ts)
        shape = wanted_shape(reading.text)
        if shape == "yesno" and likes:
            # "Is ginger ale still Lucy's favourite?": "No — Lucy: … my favourite now is black
            # coffee.", not a bare "No" that leaves out what holds instead
            verdict = _verdict(sentence, entry.evidence.text, reading.text, name_words)
            quoted = _line(entry)
            if _CHANGED.search(entry.evidence.text) and said is not None:
                quoted += f" (said on {spoken_date(said)})"
            return f"{VERDICTS[verdict == 'No']}{quoted}", [entry.id], True
        span = short_span(shape, sentence, said, _people_words(result))
        if span is None and shape == "date":
            span = _dated_nearby(
                sentence, entry.evidence.text, said, _PAST_WHEN.match(reading.text) is not None
            )
        if span is not None:
            return span, [entry.id], True
        # Nothing dated in or next to the sentence: the day it was said is all memory knows, and
        # it is not the day of the event ("I wait an hour and a half when I call support"), so
        # the sentence is quoted with that day rather than the day alone.
        # (a stage direction tells what happened that day; nobody said it)
        on = "on" if narration(entry.evidence.text) else "said on"
        when = f" ({on} {spoken_date(said)})" if shape == "date" and said is not None else ""
        if sentence in entry.evidence.text and len(entry.evidence.text) <= self.max_turn_chars:
            # A short spoken turn is quoted whole: its answer often sits in the sentence next to
            # the one that matches the question ("For me it's always green tea. That's my
            # favourite drink.").
            sentence = _without_asides(entry.evidence.text.strip(), sentence, _people_words(result))
        else:
            # a long turn: the matching sentence and the one after it, which often completes it
            # ("I took my kids to a pottery workshop. We all made our own pots.")
            sentence = (why and _with_cause(sentence, entry.evidence.text)) or _with_next(
                sentence, entry.evidence.text
            )
        fits = shape is None  # a quoted sentence holds no span of the asked shape
        doer = named_doer(matched, entry, result) if reading.kind != "addressee" else None
        if doer is not None:
            # "Who startled Chandler by sitting in Monica's seat?" / "… startled to see Joey sitting
            # in Monica's seat": the person asked for is the one the line names, not its teller
            return _label(doer), [entry.id], True
        text = _line(entry, sentence)
        reason = _reason_after(entry, turns, topic) if why and not _CAUSE.search(sentence) else None
        if reason is not None:  # "I stopped cycling." … "The road works made it dangerous, that's why."
            return f"{text} … {reason.evidence.text.strip()}", [entry.id, reason.id], fits
        listing = bool(named_ids) and wants_list(reading.text)
        followed = _followed_up(entry, turns) if not why else None
        if followed is not None and not listing:
            # "Just got some new shoes!" / "For walking or running?" / "These are for running."
            said_more = _line(followed, _stated(followed))
            return f"{text}{when} … {said_more}", [entry.id, followed.id], fits  # the day it was said stays
        # not for a who-question: the speaker is what it asks, and a line repeating its words
        # still tells it ("Who thinks the hallway is too dark?" / Leo: "I think the hallway is
        # too dark."); the next person's reply would name a second person
        restated = (
            not why
            and not asks_for_person(reading)
            and _restates(matched, reading.text, _people_words(result))
        )
        answered = _reply(entry, turns) if restated else None
        if answered is not None and shape != "yesno" and not listing and _stated(answered):
            # "What is alcatel usb speedtouch?" / "it's a alcatel usb speedtouch" / "probably a badly
            # ported driver, then.": a line saying only the question's own words is where it was
            # raised; what it asks is told in the reply
            said_more = _line(answered, _stated(answered))
            return f"{text}{when} … {said_more}", [entry.id, answered.id], fits
        if listing:
            # "What has Ana painted?": the items sit in several of her turns, each on its own topic
            floor = self.min_support * self.list_floor
            others = [
                x
                for x in statements
                if raw[x[1]] >= floor and x[3].id != entry.id and own_words(x[2]) & topic
            ]
            more = _gathered([x for x in others if x[3].id not in reserve], named_ids, self.list_turns - 1)
            # turns ranked below the top ones add items after theirs, never in their place
            deeper = _gathered([x for x in others if x[3].id in reserve], named_ids, self.list_deeper)
            parts = [(text, [entry.id]), *(x for x in (more, deeper) if x is not None)]
            if len(parts) > 1:
                return "; ".join(p[0] for p in parts), [i for p in parts for i in p[1]], fits
        return text + when, [entry.id], fits

    def _liking(
        self,
        result: AgentResult,
        candidates: list[tuple[str, FusedEvidence]],
        people: set[str],
        others: set[str],
    ) -> tuple[float, int, str, FusedEvidence] | None:
        """For a question about what someone likes that shares too few words with any turn ("Grab
        me a drink, you know the one I like", "Play something I'd enjoy"): that person's own
        statement of a liking closest in meaning to the question, if close enough
        (``liking_floor``, MiniLM cosine) and of the asked shape when that is a number or a date
        ("How warm …"; "Where does Daniel like to sit?" is answered by a seat, not a place).
        Why: the asker's words are not the turn's ("For me it's always ginger ale"), but the
        person has said few such things, and meaning picks among them."""
        shape = wanted_shape(result.reading.text)
        pool = [
            (rank, sentence, entry)
            for rank, (sentence, entry) in enumerate(candidates)
            if _speaker_id(entry) in people
            and _STATES_LIKING.search(sentence)
            and not _asks(sentence)
            and not _opens_with_other(sentence, others)
            and (shape not in ("number", "date") or short_span(shape, sentence, None))
        ]
        cosines = self.meaning._cosines(result.reading.text, [sentence for _, sentence, _ in pool])
        ranked = sorted(zip(cosines, pool, strict=True), key=lambda item: (-item[0], item[1][0]))
        if not ranked or ranked[0][0] < self.liking_floor:
            return None
        cosine, (rank, sentence, entry) = ranked[0]
        return cosine, rank, sentence, entry

    def _shaped(
        self,
        question: str,
        scored: list[tuple[float, int, str, FusedEvidence]],
        evidence: list[FusedEvidence],
        people: set[str],
    ) -> tuple[str, list[str]] | None:
        """For a place, number or time question: the best supported sentence that holds such a
        span, or whose reply does (a question's answer sits in the next turn: "Can I borrow your
        old boots?" / "Sure, they are in the garage.")."""
        shape = wanted_shape(question)
        if shape not in ("place", "number", "time") or not scored:
            return None
        by_turn = {(e.evidence.session, e.evidence.idx): e for e in evidence}
        ranked_scores = sorted(scored, key=lambda s: (-s[0], s[1]))
        floor = max(self.min_support, ranked_scores[0][0] - self.shape_margin)
        for support, _, sentence, entry in ranked_scores:
            if support < floor:
                break
            span = short_span(shape, sentence, None, people)
            if span is not None:
                return span, [entry.id]
            reply = _next_turn(entry, by_turn)
            if sentence.rstrip().endswith("?") and reply is not None:
                text = reply.evidence.text
                span = place_phrase(text, people) if shape == "place" else short_span(shape, text, None)
                if span is not None:
                    return span, [entry.id, reply.id]
        return None


def _latest_change(
    best: tuple[float, int, str, FusedEvidence], candidates: list[tuple[str, FusedEvidence]]
) -> tuple[float, int, str, FusedEvidence]:
    """The same speaker's later sentence telling that the liking ``best`` states changed, sharing
    its words ("For me it's always ginger ale." → "I don't drink ginger ale any more, my favourite
    now is black coffee."), else ``best``. Why: a question about today is answered by the latest
    word on it; the earlier turn usually matches the question's words better."""
    _, _, sentence, entry = best
    speaker = _speaker_id(entry)
    held = {stem(w) for w in content_words(sentence)} - _LIKING_WORDS
    latest = best
    if not _STATES_LIKING.search(sentence):
        return best
    for rank, (other, later) in enumerate(candidates):
        if (
            _speaker_id(later) == speaker
            and _STATES_LIKING.search(other)
            and (later.evidence.ts or "") > (latest[3].evidence.ts or "")
            and _CHANGED.search(other)
            and held & {stem(w) for w in content_words(other)}
        ):
            latest = (best[0], rank, other, later)
    return latest


def _in_months(sentence: str, entry: FusedEvidence, months: frozenset[int], past: bool) -> bool:
    """Whether the occasion ``sentence`` tells falls in ``months``: by the times it tells, else
    those of its turn (the time often sits in the next sentence: "I went camping! It was
    freezing last weekend."), else the day the turn was said (what happened is mostly told when
    it happened); a sentence telling only a plan tells no occasion; a turn of unknown day is not
    judged. See :func:`told_months`."""
    said = day_of(entry.evidence.ts)
    if said is None:
        return True
    told = told_months(sentence, said, past)
    told = told_months(entry.evidence.text, said, past) if told is None else told
    return bool((frozenset({said.month}) if told is None else told) & months)


def named_doer(sentence: str, entry: FusedEvidence, result: AgentResult) -> dict[str, Any] | None:
    """For a who-question (:func:`~voxmem.retrieval.question.asks_for_person`) answered by
    ``sentence`` of ``entry``: the one person the sentence names besides the question's people
    and its speaker, when it tells of them in the third person, else None.

    Why: a who-question wants a person, and the reader otherwise quotes the line, whose speaker is
    not the one asked for when the line tells what someone else did ("Who startled Chandler by
    sitting in Monica's seat?" / "Chandler turns … and is startled to see Joey sitting in Monica's
    seat."). The person is answered by their name as memory knows it (the speakers and addressees
    of the evidence: "Joey Tribbiani", not the line's "Joey"), as an attribution answer is. Not
    when the sentence speaks in the first person ("I told Joey I'd be late": its speaker is the
    likelier doer, and quoting the line keeps them), when the name only addresses its bearer
    ("Joey, the plates are broken": the listener, not the doer), or when it names two or more
    others (which of them is asked for is the sentence's grammar, not read here). A stage
    direction (:func:`~voxmem.retrieval.text.narration`) has no first person: its "we" is the
    viewer's ("( We see Ross and Bonnie laughing . )"), so it names its doer all the same."""
    told = narration(entry.evidence.text)
    if not asks_for_person(result.reading) or (_FIRST_PERSON_TURN.search(sentence) and not told):
        return None
    known: dict[str, dict[str, Any]] = {}
    for e in result.evidence:
        for person in (e.evidence.speaker, *e.evidence.addressees):
            if person and person.get("id") and re.search(r"[A-Za-z]", person.get("name") or ""):
                known.setdefault(person["id"], person)
    asked = {p.get("id") for p in result.reading.people} | {_speaker_id(entry)}
    named = []
    for _, person in find_people(sentence, list(known.values())):
        said = [m for m in _mentions(person) if _names_any(sentence, [m])]
        if person["id"] not in asked and not (said and all(_vocative_only(sentence, m) for m in said)):
            named.append(person)
    return named[0] if len(named) == 1 else None


def _speaker_id(entry: FusedEvidence | None) -> str | None:
    """The id of the person who spoke an evidence turn (None when unknown or no turn)."""
    return (entry.evidence.speaker or {}).get("id") if entry is not None else None


def _gathered(
    stated: list[tuple[float, int, str, FusedEvidence]], people: set[str], turns: int
) -> tuple[str, list[str]] | None:
    """The best supported sentence of each of up to ``turns`` turns by the people asked about,
    best first ("Ana: I painted a horse last month; Ana: Our latest is a sunset."), or None when
    none does. Why: a list gathered over time sits in several turns, each naming one item, where
    the reader otherwise quotes one turn."""
    chosen: list[tuple[str, FusedEvidence]] = []
    seen: set[str] = set()
    for _, _, sentence, entry in sorted(stated, key=lambda x: (-x[0], x[1])):
        if entry.id in seen or _speaker_id(entry) not in people:
            continue
        seen.add(entry.id)
        chosen.append((sentence, entry))
        if len(chosen) == turns:
            break
    if not chosen:
        return None
    text = "; ".join(_line(e, sentence) for sentence, e in chosen)
    return text, [e.id for _, e in chosen]


def _name_words(people: list[dict[str, Any]]) -> set[str]:
    """The content words of the names and aliases of ``people`` (a question's kind word is never
    one of them: "What is Rose's favourite colour?" asks for a colour, not a rose)."""
    return {w for p in people for w in content_words(" ".join(_mentions(p)))}


def _people_words(result: AgentResult) -> set[str]:
    """Lower-case words of the names of everyone in the evidence (speakers, addressees) and the
    question: a span that is only such words names a person, not a place."""
    people = [*result.reading.people]
    for entry in result.evidence:
        people += [entry.evidence.speaker or {}, *entry.evidence.addressees]
    return {w for p in people for m in _mentions(p) for w in m.split()}


def _verbs_alone(
    wanted: list[str], stems: dict[str, str], topic: set[str], said: list[str], here: set[str]
) -> set[str]:
    """The question's words a sentence meets only through an irregular form ("think" / "thought",
    :data:`~voxmem.extractors.offline.lexicon.IRREGULAR_PAST`) when it meets none of the question's
    other words (names aside) at all, else the empty set. ``said``: the sentence's content words;
    ``here``: their stems (:func:`~voxmem.retrieval.text.stem`), as the caller has them."""
    plain = {stem(w, irregular=False) for w in said}
    met = {stems[w] for w in wanted if stems[w] in topic and stems[w] in here}
    alone = {stems[w] for w in wanted if stems[w] in met and stem(w, irregular=False) not in plain}
    return alone if alone == met else set()


def _replies_to_question(entry: FusedEvidence, turns: dict[tuple[str, int], FusedEvidence]) -> bool:
    """Whether the turn before this one (in the evidence) is someone else's and asks something: this
    one answers it, and refers back to it rather than repeating its words ("You went out with a guy
    in the Navy?" / "Yeah, I met him when I was playing guitar in the park.")."""
    before = _next_turn(entry, turns, -1)
    if before is None or _speaker_id(before) in (None, _speaker_id(entry)):
        return False
    return any(_asks(x) for x in split_sentences(before.evidence.text))


# A listener's question that asks only for a detail the turn before left out: a fragment opening
# with a preposition or "or" (:data:`_ELLIPTIC`: "For walking or running?") or a question word with
# at most two words after it ("Which one?", "Where to?", "How long?")
_DETAIL_ASKED = re.compile(r"^(?:which|what|where|when|how|who|whom)(?:\s+[\w'’-]+){0,2}\s*\?+$", re.I)


def _followed_up(entry: FusedEvidence, turns: dict[tuple[str, int], FusedEvidence]) -> FusedEvidence | None:
    """The speaker's next turn when the listener's turn between asks for a detail of this one (a
    fragment, :data:`_ELLIPTIC` / :data:`_DETAIL_ASKED`, or a question about what it told:
    :func:`_asks_about`) and that turn answers it with a statement ("Just got some new shoes, too!" /
    "Love that colour! For walking or running?" / "These are for running."), else None; both turns
    in the evidence."""
    speaker = _speaker_id(entry)
    asking = _reply(entry, turns) if speaker is not None else None  # the listener's turn
    if asking is None:
        return None
    answer = _next_turn(asking, turns)
    if answer is None or _speaker_id(answer) != speaker:
        return None
    last = (split_sentences(asking.evidence.text) or [""])[-1].strip()
    if not (_ELLIPTIC.match(last) or _DETAIL_ASKED.match(last) or _asks_about(last, entry, asking)):
        return None
    return answer if any(not _asks(x) for x in split_sentences(answer.evidence.text)) else None


def _asks_about(question: str, entry: FusedEvidence, asking: FusedEvidence) -> bool:
    """Whether the listener's ``question`` asks about what ``entry`` told: it ends in a question
    mark and shares a word (by stem, the two speakers' names aside) with the told turn. Why: the
    listener asks for the detail in their own words, not in a fragment ("You went out with a guy in
    the Navy?" after "that guy I went out with, who's in the Navy"; "What dance were you doing?"
    after "I used to compete in a few dance competitions … my team won first place"), and the
    speaker's answer ("Yeah, I met him when …", "We did a contemporary piece called …") is what the
    told turn left out; a question about something else ("Did you ride it to work yet?" after "I
    got a new bike") shares no word with it."""
    if not question.rstrip().endswith("?"):
        return False
    names = _name_words([p for p in (entry.evidence.speaker, asking.evidence.speaker) if p])
    asked = {stem(w) for w in content_words(question) if w not in names}
    told = {stem(w) for w in content_words(entry.evidence.text) if w not in names}
    return bool(asked & told)


def _stated(entry: FusedEvidence) -> str:
    """What a turn states: its sentences that are not questions (a follow-up or a reply quoted
    after the matched line tells, it does not ask back)."""
    return " ".join(x for x in split_sentences(entry.evidence.text) if not _asks(x)).strip()


def _restates(sentence: str, question: str, people: set[str]) -> bool:
    """Whether a sentence says nothing but the question's own words (:func:`only_asked`):
    "it's a alcatel usb speedtouch" for "What is alcatel usb speedtouch?". It holds nothing the
    question does not already know, so it cannot be what the question asks for. People's names
    are set aside: a line is matched in a turn said to or by someone, and "Tom: it's a speedtouch"
    still says nothing new when the question does not name Tom."""
    return only_asked(sentence, question, ignore=people)


def _reply(entry: FusedEvidence, turns: dict[tuple[str, int], FusedEvidence]) -> FusedEvidence | None:
    """The next turn of the same session, among the evidence, when someone else says it: the
    answer to a question ("What motivated you?" / "My own journey and the support I got.")."""
    nxt = _next_turn(entry, turns)
    if nxt is None:
        return None
    asker, replier = _speaker_id(entry), _speaker_id(nxt)
    return nxt if replier and replier != asker else None


def _next_turn(
    entry: FusedEvidence, turns: dict[tuple[str, int], FusedEvidence], step: int = 1
) -> FusedEvidence | None:
    """The turn ``step`` places after this one in its session (before it, when negative), if the
    evidence holds it: the one lookup of a line's neighbour turn."""
    return turns.get((entry.evidence.session, entry.evidence.idx + step))


_ASIDE_WORDS = {
    "hey", "hi", "hello", "thanks", "thank", "wow", "oh", "yes", "yeah", "yep", "no", "sure", "ok", "okay",
    "aw", "aww", "congrats", "sorry", "haha", "lol", "hmm", "um", "uh",
}  # fmt: skip


def _without_asides(turn: str, matched: str, people: set[str]) -> str:
    """A turn quoted whole without the sentences that say nothing but a greeting or thanks to the
    listener ("Thanks, Melanie.", "Yes, Caroline!", "Hey Gina!"): a short answer is asked for, and
    the turn is quoted whole only because its answer may sit next to the matching sentence, which
    those never hold. Questions back to the listener stay: on all LoCoMo, dropping them lost
    "What language does Tim know besides German?" ("… any good resources for learning Spanish?")."""
    sentences = split_sentences(turn)
    kept = [x for x in sentences if x == matched or not set(words(x)) <= _ASIDE_WORDS | people]
    return " ".join(kept) or turn


def _with_next(sentence: str, turn: str) -> str:
    """``sentence`` and the statement that follows it in ``turn`` (if any)."""
    sentences = split_sentences(turn)
    if sentence not in sentences:
        return sentence
    here = sentences.index(sentence)
    following = sentences[here + 1] if here + 1 < len(sentences) else None
    return f"{sentence} {following}" if following and not _asks(following) else sentence


# A question asking for a reason, and a sentence giving one ("… because I grew up by the sea",
# "… 'cause they help", "that's why", "so that …", "the reason is …")
_WHY = re.compile(
    r"\b(?:why|how\s+come|for\s+what\s+reasons?|what(?:\s+(?:is|was|are|were)|['’]s)\s+(?:\w+['’]s\s+|the\s+"
    r"|their\s+|his\s+|her\s+)?reasons?|what\s+(?:made|makes|caused|causes)\b)",
    re.I,
)
_CAUSE = re.compile(
    r"\b(?:because|b/c|cuz|coz|since|so\s+that|due\s+to|thanks\s+to|the\s+reason|that['’]s\s+why|which\s+is\s+why"
    r"|in\s+order\s+to)\b|['’]cause\b",
    re.I,
)


def _with_cause(sentence: str, turn: str) -> str | None:
    """For a why-question answered from a long turn: ``sentence`` with the nearest sentence that
    gives a reason (the next, the one before, or the one after next), in the turn's order, when
    ``sentence`` gives none ("I have to sleep on this side." + "Sounds silly." + "It's because I
    grew up by the sea."); else None. Why: the sentence sharing the question's words restates
    what is asked; the reason sits beside it."""
    sentences = split_sentences(turn)
    if sentence not in sentences or _CAUSE.search(sentence):
        return None
    here = sentences.index(sentence)
    for other in (here + 1, here - 1, here + 2):
        if 0 <= other < len(sentences) and _CAUSE.search(sentences[other]):
            return " ".join(sentences[min(here, other) : max(here, other) + 1])
    return None


# a reason told of what was just said: "… that's why", "Because …", "It's because …", "so …"
_REASON_BACK = re.compile(
    r"^\W*(?:well\W+)?(?:because|['’]?cause|since|so|it['’]s\s+because|mainly\s+because)\b"
    r"|\b(?:that|this)(?:['’]s|\s+is|\s+was)\s+(?:why|the\s+reason)\b|\bwhich\s+is\s+why\b",
    re.I,
)


def _reason_after(
    entry: FusedEvidence, turns: dict[tuple[str, int], FusedEvidence], topic: set[str]
) -> FusedEvidence | None:
    """The same speaker's turn among the next two of the session (in the evidence) that gives a
    reason for what they said, else None: it shares a word of the question's topic (stems) or
    refers back ("… that's why", "Because …"). Why: a reason is often told a turn later, after
    the listener reacts ("I stopped cycling to work." / "Really?" / "The road works made it too
    dangerous, that's why."), and shares few of the question's words; a reason for something
    else ("I skipped the gym because my knee hurts") is neither."""
    for step in (1, 2):
        later = _next_turn(entry, turns, step)
        if later is None or _speaker_id(later) != _speaker_id(entry):
            continue
        text = later.evidence.text
        shares = topic & {stem(w) for w in content_words(text)}
        if _CAUSE.search(text) and (shares or _REASON_BACK.search(text)):
            return later
    return None


_PAST_WHEN = re.compile(r"\s*when\s+(?:did|was|were|had|has|have)\b", re.I)
_AHEAD = re.compile(r"^(?:next|tomorrow|tonight)\b", re.I)


def _dated_nearby(sentence: str, turn: str, said: date | None, past: bool = False) -> str | None:
    """The date said in the same turn as the matching sentence, nearest sentence first: the
    time often sits next to the event ("My friends are my rocks. Here's a pic from when we
    met up last week!"). For a question about the past (``past``: "When did …") a time ahead
    ("next month", "tomorrow") is skipped: it dates a plan told beside the event, not the event
    ("I'm expanding my studio's social media. I'm also hosting a competition next month." for
    "When did Jon start expanding …?", LoCoMo dev); the turn is then quoted with its day."""
    sentences = split_sentences(turn)
    if sentence not in sentences:
        return None
    here = sentences.index(sentence)
    for other in sorted(range(len(sentences)), key=lambda i: (abs(i - here), i)):
        if other != here and not _asks(sentences[other]):
            span = short_span("date", sentences[other], said)
            if span is not None and not (past and _AHEAD.match(span)):
                return span
    return None


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a model reply (tolerates code fences and chatter), or None."""
    text = re.sub(r"```(?:json)?", "", text)
    start = text.find("{")
    while start != -1:
        depth = 0
        for end in range(start, len(text)):
            if text[end] == "{":
                depth += 1
            elif text[end] == "}":
                depth -= 1
                if depth == 0:
                    try:
                        value = json.loads(text[start : end + 1])
                    except json.JSONDecodeError:
                        break
                    return value if isinstance(value, dict) else None
        start = text.find("{", start + 1)
    return None


def _draft_kind(result: AgentResult, draft: str, embed: Any = None) -> float | None:
    """How well the offline draft holds a thing of the kind a what/which-question asks for
    (:class:`KindFit`, 0-1; "What drink does Peter like best?" drafted from "Peter: the music I
    like best is classical music." → 0), or None when the question names no kind."""
    kind = asked_kind(result.reading.text, _name_words(result.reading.people))
    if not kind:
        return None
    said = unlabelled(draft)
    fit = KindFit(kind, embed)
    fit.prime([said])
    return fit(said)


# MiniLM word cosines are loose ("drink" ~ "ginger ale" 0.41, ~ "Mexican food" 0.36, ~ "music" 0),
# so a draft is "off the kind" only when clearly unrelated and "of the kind" only when clearly so
OFF_KIND, OF_KIND = 0.2, 0.5


def _rests_on_asked(result: AgentResult, chosen: tuple[str, list[str]]) -> bool:
    """Whether an LLM answer about named people (or the asker, :func:`asked_about`) rests on a turn
    by them, about them (naming them other than as an address), or spoken to them about them
    ("Your painting of the lake is lovely" to Ana) -- the rule the extractive reader keeps; their
    own questions to the listener and what they call the listener's ("your store") are not about
    them (asked "How is Jon's store doing?", the model answered from Jon's "What gave you the idea
    to start the online store?" to Gina). Judged
    on the cited sentences that hold the answer's words, or on the whole cited turns when none
    does (a yes/no answer). Why: asked "What did Melanie make for a local church?", the small
    model answers from Caroline's turn about her own painting; asked "Which drink is Peter's
    favourite?", from another person's "black coffee"."""
    people = asked_about(result.reading, result.scope.asker, result.scope.asker_name)
    if not people:
        return True
    ids = {p["id"] for p in people if p.get("id")}
    mentions = [m for p in people for m in _mentions(p)]
    said = {stem(w) for w in content_words(chosen[0])}
    # the claimant's own turns settle nothing ("Lucy said Olivia likes rock: is that right?")
    claimant = (result.reading.claimant or {}).get("id")
    cited = [
        e for e in result.evidence if e.id in chosen[1] and (claimant is None or _speaker_id(e) != claimant)
    ]
    pieces = [(s, e) for e in cited for s in SENTENCE_BREAK.split(e.evidence.text) if s.strip()]
    pieces += [(str(x.get("text", "")), e) for e in cited for x in e.support]
    holding = [(s, e) for s, e in pieces if said & {stem(w) for w in content_words(s)}] or pieces

    def about(sentence: str, entry: FusedEvidence) -> bool:
        by_them = _speaker_id(entry) in ids
        if by_them and (_asks(sentence) or said & _listeners_things(sentence)):
            # their question to the listener, or the listener's thing ("How is your store going?"
            # for "How is Jon's store doing?"): about the listener, unless it names them too
            return _names_any(sentence, mentions) and not all(_vocative_only(sentence, m) for m in mentions)
        # spoken to them about them ("Your painting is lovely"), not only to them by name: "Alice,
        # let's take that offline" says nothing of Alice, yet passed as about her, so an answer
        # "offline" to how Alice wants her updates rested on it
        to_them = any(a.get("id") in ids for a in entry.evidence.addressees) and _TO_YOU.search(sentence)
        return _about(entry, sentence, ids, mentions) or bool(to_them and _to_listener(sentence, entry))

    return any(about(s, e) for s, e in holding)


def _asked_phrase(question: str, names: set[str]) -> list[str]:
    """The words of a what/which-question's wh-phrase up to the head of the noun it asks for
    ("What kind of dance piece did Jon's team …" → what, kind, of, dance, piece): what the answer
    is, not what the question takes as given. A question without one gives []."""
    match = _ASKED_KIND.match(question)
    head = asked_kind(question, names)
    if not match or not head:
        return []
    said = match.group("kind").split()
    end = next((i for i, w in enumerate(said) if _folded(w.lower()) == head[0]), len(said) - 1)
    return words(question[: match.start("kind")]) + [w.lower() for w in said[: end + 1]]


# the premise's best statement by someone else must say at least this many times as much of it as
# the line the answer rests on (rarity-weighted words, ``_premise_owner``)
PREMISE_ELSEWHERE = 2.0


def _premise_owner(result: AgentResult, chosen: tuple[str, list[str]]) -> str | None:
    """The person whose statement says the question's premise, when that is someone other than
    the people asked about and the line the answer rests on says much less of it; else None.

    The premise is what the question takes as given: its words (rarity-weighted among the turns
    an answer shows, ``SHOWN``, as ``llm_reader.layout`` weighs them) without the names of the
    people asked about and without its wh-phrase ("What kind of dance piece …": the thing asked
    for). A statement owns it when its speaker is not asked about and it does not name them; the
    asked people own it when one of their statements (or one naming them) says as much of it.
    Questions ("What dance were you doing?") state nothing and own nothing.

    Why: LoCoMo's adversarial questions move one person's event to another ("What kind of dance
    piece did Jon's team perform to win first place?": it was Gina's team). With no offline draft
    the 1.5B model answered from a line of the asked person's that shares one word with the
    question (Jon's "Finishing up choreography to perform at a nearby festival"), and it passed
    ``_rests_on_asked`` because the line is his; Gina's "my team won first place at a regionals"
    says most of the premise (docs/retrieval.md, "Nineteenth LLM pass"). A right answer from the
    asked person's own line keeps the premise there ("What kind of professional experience did
    Gina get accepted for …?" → Gina's "I just got accepted for a fashion internship", and no
    one else says "accepted")."""
    people = asked_about(result.reading, result.scope.asker, result.scope.asker_name)
    if not people:
        return None
    ids = {p["id"] for p in people if p.get("id")}
    mentions = [m for p in people for m in _mentions(p)]
    given = word_keys(" ".join(_asked_phrase(result.reading.text, _name_words(result.reading.people))))
    premise = question_keys(result, people) - given
    pool = result.evidence[:SHOWN] + [e for e in result.evidence[SHOWN:] if e.id in chosen[1]]
    if not premise or not pool:
        return None
    weight = rarity(premise, [e.evidence.text for e in pool])
    total = sum(weight.values())

    def share(sentence: str) -> float:
        return said_weight(sentence, weight) / total

    source = max(
        (share(s) for e in pool if e.id in chosen[1] for s in split_sentences(e.evidence.text)), default=0.0
    )
    stated = [(share(s), s, e) for e in pool for s in split_sentences(e.evidence.text) if not _asks(s)]
    own = max((x for x, s, e in stated if _about(e, s, ids, mentions)), default=0.0)
    others = [(x, e) for x, s, e in stated if not _about(e, s, ids, mentions)]
    best, by = max(others, key=lambda o: o[0], default=(0.0, None))
    if by is None or best <= own or best < PREMISE_ELSEWHERE * source:
        return None
    return _label(by.evidence.speaker)


def _texts(result: AgentResult, ids: list[str]) -> list[str]:
    """The text of the evidence turns an answer rests on."""
    return [e.evidence.text for e in result.evidence if e.id in ids]


# a question whose answer may be a person without asking "who": "Which of us …?", "What is the
# name of …?", "Which user …?"
_PERSON_WANTED = re.compile(
    r"\b(?:who|whom|whose|name|names|named|nick|nickname|user|username|someone|somebody|anyone)\b"
    r"|\bwhich\s+(?:of\s+(?:us|you|them)|one|person|people|character|participant|speaker|guy|man|woman)\b",
    re.I,
)


def _only_a_person(result: AgentResult, answer: str) -> bool:
    """Whether an answer is nothing but the name of a person of the evidence (a speaker or an
    addressee of a retrieved turn, or a person the question names) while the question does not
    ask for a person (:func:`asks_for_person`, or a word of :data:`_PERSON_WANTED`).

    Why: on the multi-party sets a line is laid out as ``[n] speaker -> addressees: text`` and
    chat lines often open with the addressee's nick, and the 1.5B model copies that label as the
    thing asked for: Molweni "What version fixed dns issues with some routers?" → "Linux_Galore",
    the line's speaker (docs/retrieval.md, "Twenty-first LLM pass"). A name is no version, place or
    reason; the offline draft, which quotes the line, stands."""
    if asks_for_person(result.reading) or _PERSON_WANTED.search(result.reading.text):
        return False
    said = normalise(answer.strip().strip("\"'\u201c\u201d.!?,:;@<>"))
    if not said:
        return False
    people = [*result.reading.people]
    for entry in result.evidence:
        people += [entry.evidence.speaker or {}, *entry.evidence.addressees]
    named = [str(p["name"]) for p in people if p and p.get("name") and not str(p["name"]).startswith("#")]
    return said in {normalise(n) for n in named} | {normalise(n.split()[0]) for n in named}


_BARE_VERDICT = re.compile(r"\W*(?:(?:likely\s+)?(?:yes|no))\W*", re.I)


def _judged(
    result: AgentResult,
    outcome: Outcome,
    fallback: tuple[str, list[str]] | None,
    embed: Any,
) -> tuple[tuple[str, list[str]] | None, str, str]:
    """The LLM's reading against the offline draft (``fallback``, None when the offline reader
    found nothing): (answer, answerer, note).

    - An answer that is only a person's name to a question that does not ask for a person
      (:func:`_only_a_person`) is dropped: the draft stands, or nothing.
    - An answer about named people that rests on no turn by or about them (:func:`_rests_on_asked`)
      is dropped: the draft stands, or nothing.
    - Without a draft, an answer to a question whose premise another person's statement says
      (:func:`_premise_owner`: "What kind of dance piece did Jon's team perform …?", Gina's team
      won) is dropped: it rests on a line of the asked person's that does not say the premise.
    - The small local models abstain on answers their evidence holds (the demo's plumber and
      boots questions, run to run), so an abstention stands only when the draft holds nothing of
      the kind asked for: the draft is then the best-matching sentence on another thing, as for a
      question the memory cannot answer ("What drink does Peter like best?" → his music).
    - A draft that holds a thing of the asked kind stands when the model answers from other turns
      only: asked "Which drink was Sophie's favourite earlier?" with the draft "For me it's always
      orange juice, that's my favourite drink.", the 1.5B model answered her new favourite from
      another line. The model may still shorten or correct the draft from the draft's own turn.
    - For a when-question, an answer dating only more coarsely than the draft (its year for the
      draft's "said on 16 March 2023", :func:`spans.coarser_date`) loses to the draft."""
    if outcome.chosen is not None and _only_a_person(result, outcome.chosen[0]):
        why = "the LLM answered with a person's name; the question does not ask who"
        return fallback, "extractive" if fallback else "none", why
    if outcome.chosen is not None and not _rests_on_asked(result, outcome.chosen):
        who = _names(asked_about(result.reading, result.scope.asker, result.scope.asker_name))
        why = f"the LLM's answer rests on no turn by or about {who}"
        return fallback, "extractive" if fallback else "none", why
    owner = _premise_owner(result, outcome.chosen) if outcome.chosen and fallback is None else None
    if owner is not None:
        who = _names(asked_about(result.reading, result.scope.asker, result.scope.asker_name))
        return None, "none", f"the question's premise is {owner}'s, not {who}'s: the LLM's answer dropped"
    if outcome.chosen is not None:
        stale = wrong_time(result.reading.text, outcome.chosen[0], _texts(result, outcome.chosen[1]))
        if stale is not None:
            question = result.reading.text
            keep = fallback and wrong_time(question, fallback[0], _texts(result, fallback[1])) is None
            return (fallback, "extractive", stale) if keep else (None, "none", stale)
    if outcome.chosen and _BARE_VERDICT.fullmatch(outcome.chosen[0]) and asks_liking(result.reading):
        # asked whether a taste holds, "No" alone leaves out what does: the draft says it ("No —
        # Lucy: … my favourite now is black coffee."), or the LLM's verdict opens the draft's turn,
        # else the turn it cited ("Should you play rock for me?" → "No — Olivia: the music I like
        # best is hip hop.")
        if fallback is not None and fallback[0].startswith(VERDICTS):
            why = "the LLM answered only yes or no; the offline draft says what holds"
            return fallback, "extractive", why
        cited = next((e for e in result.evidence if e.id in outcome.chosen[1]), None)
        said = fallback
        if said is None and cited is not None:
            said = (_line(cited), [cited.id])
        if said is not None:
            verdict = outcome.chosen[0].strip(" .!").capitalize()
            return (
                (f"{verdict} — {said[0]}", said[1]),
                "llm",
                "the LLM's yes or no, with the turn saying what holds",
            )
    if fallback is None:
        return outcome.chosen, "llm", ""
    if (
        outcome.chosen
        and wanted_shape(result.reading.text) == "date"
        and coarser_date(outcome.chosen[0], fallback[0])
    ):
        return fallback, "extractive", "the LLM's date is less precise than the offline draft's"
    fit = _draft_kind(result, fallback[0], embed)
    if outcome.chosen is None:
        if fit is not None and fit < OFF_KIND:
            return None, "llm", "the LLM abstained and the offline draft holds nothing of the asked kind"
        return fallback, "extractive", "the LLM abstained; the offline extractive reader found an answer"
    if fit is not None and fit >= OF_KIND and not set(outcome.chosen[1]) & set(fallback[1]):
        why = "the offline draft holds the asked kind; the LLM answered from other turns"
        return fallback, "extractive", why
    return outcome.chosen, "llm", ""


def _second_hop(result: AgentResult, embed: Any, notes: list[str]) -> tuple[AgentResult, list[str]]:
    """A two-hop question ("What music does the person who agreed to check the tyres like?") as
    the question about the person its first hop names (``Reading.hop``, answered from SPEAKS like
    any who-question), with the id of the turn that named them; a question without a hop as it
    is. Why: read whole, the question's best match is the first hop's own turn ("Sure, I'll check
    the tyre pressure"), which says nothing of what its speaker likes. An unresolved hop leaves
    the whole question to the readers, as before."""
    reading = result.reading
    if reading.hop is None:
        return result, []
    found = GraphAnswerer(embed).answer(replace(result, reading=reading.hop))
    turn = next((e for e in result.evidence if found and e.id == found[1][0]), None)
    person = turn.evidence.speaker if turn is not None else None
    if turn is None or not person:
        notes.append(f"the person described ({reading.hop.quote!r}) was not found; the question read whole")
        whole = replace(reading, hop=None, keywords=content_words(reading.text))
        return replace(result, reading=whole), []
    notes.append(f"first hop: {_label(person)} said {turn.evidence.text.strip()!r}")
    text = (reading.hop.rest or "{}").format(_label(person))
    about = replace(reading, text=text, hop=None, people=[person], first_person=False, kind="general")
    return replace(result, reading=about), [turn.id]


def _carries(result: AgentResult, ids: list[str], embed: Any) -> bool:
    """Whether a turn the LLM picked for an attribution question carries what the question
    describes: a shared content word (by stem) or the same meaning (:class:`Meaning` above 0).

    Why: the model may pick the turn, never invent the person, and a person read off a turn
    that has nothing to do with the question is an invented answer all the same ("Who asked for
    pizza?" answered with the speaker of "I moved my client call to Friday"). The bar is the
    lowest :class:`Meaning` draws: unrelated turns score 0 (MiniLM cosine below its floor and no
    shared word), so a paraphrase the offline match missed at its own bar still gets through. The
    people the question names are not what it describes (they are who it is about)."""
    names = _name_words(result.reading.people)
    described = [w for w in content_words(result.reading.quote or result.reading.text) if w not in names]
    if not described:  # "Who was Tom talking to?" describes no utterance: any turn of Tom's will do
        return True
    texts = [e.evidence.text for e in result.evidence if e.id in ids]
    return bool(texts) and max(Meaning(embed).scores(" ".join(described), texts)) > 0


def compose(
    result: AgentResult, llm: LLMReader | None = None, max_evidence: int = SHOWN, embed: Any = None
) -> Answer:
    """Graph-native first for attribution questions, then the LLM if configured, else extractive.

    ``embed`` (text → vector, e.g. the service's query-embedding cache) lets the offline readers
    match the utterance a question describes by meaning, not only by shared words.
    """
    chosen: tuple[str, list[str]] | None = None
    fallback: tuple[str, list[str]] | None = None  # the offline answer, the LLM's draft
    answerer = "none"
    notes: list[str] = []
    result, hop = _second_hop(result, embed, notes)
    graph = GraphAnswerer(embed).answer(result)
    if graph is not None:
        chosen, answerer = graph, "graph"
    elif (
        result.reading.kind in ("who_said", "addressee", "said_to", "requests")
        and result.reading.act != "did"
    ):
        # the LLM may pick the turn; the person always comes from SPEAKS / ADDRESSES
        picks = result.reading.kind in ATTRIBUTION_KINDS
        picked = llm.read(result, attribution=True) if llm is not None and picks else None
        notes += picked.notes if picked else []
        if picked and picked.chosen and _carries(result, picked.chosen[1], embed):
            chosen, answerer = picked.chosen, "llm"
        else:
            if picked and picked.chosen:
                notes.append("the LLM picked a turn that shares neither words nor meaning with the question")
            notes.append("attribution question without SPEAKS/ADDRESSES support in the evidence: not guessed")
    elif llm is not None:
        fallback = ExtractiveAnswerer(embed).answer(result)  # the LLM's draft, and the fallback
        # raises LLMUnavailable (503) only for a configured LLM
        outcome = llm.read(result, hint=fallback) if llm.worth_asking(result, fallback) else None
        if outcome is None:  # a short span found offline, or nothing (see LLMReader.worth_asking)
            chosen, answerer = fallback, "extractive" if fallback else "none"
            why = "the offline short answer stands" if fallback else "the offline reader found nothing"
            notes.append(f"the LLM was not asked: {why}")
        elif outcome.failed:
            notes += [*outcome.notes, "extractive answer used"]
            chosen, answerer = fallback, "extractive" if fallback else "none"
        else:
            notes += outcome.notes
            # the LLM's answer, or abstention (None), against the offline draft (see _judged)
            chosen, answerer, why = _judged(result, outcome, fallback, embed)
            notes += [why] if why else []
            if chosen is not None and answerer == "llm":
                # "Mexican" → "Mexican food": a phrase cut inside a noun phrase of its line, grown to it
                names = _name_words(result.reading.people)
                lines = _texts(result, chosen[1])
                grown = whole_phrase(result.reading.text, chosen[0], lines, names)
                # "airport" → "at the airport": a where-question's place with its preposition
                chosen = (placed(result.reading.text, grown, lines), chosen[1])
    else:
        chosen = ExtractiveAnswerer(embed).answer(result)
        answerer = "extractive" if chosen else "none"
    if chosen is not None and answerer in ("llm", "extractive"):
        # the final answer, whoever gave it, must not name another kind than the one asked for
        names = _name_words(result.reading.people)
        other = off_kind(result.reading.text, chosen[0], names)
        if other is not None:
            draft = fallback[0] if answerer == "llm" and fallback is not None else None
            keep = draft is not None and off_kind(result.reading.text, draft, names) is None
            notes.append(
                f"the {answerer} answer names {other}, not the kind asked for: "
                + ("the offline draft stands" if keep else "not answered")
            )
            chosen, answerer = (fallback, "extractive") if keep else (None, "none")
    if chosen is None and result.scope.asker is None and result.scope.access_policy != "open":
        # "not in memory" alone would mislead: the memory may hold it, the asker may not read it
        notes.append(
            f"asker not recognised and the space's policy is {result.scope.access_policy!r}: "
            "an unknown asker reads nothing here; name the asker (participant id or name) or ask by voice"
        )
    evidence = result.evidence[:max_evidence]
    used = [*hop, *chosen[1]] if chosen else []
    shown = {e.id for e in evidence}
    evidence += [e for e in result.evidence if e.id in used and e.id not in shown]
    trace = [asdict(t) for t in result.trace]
    return Answer(
        question=result.query,
        answer=chosen[0] if chosen else NOT_IN_MEMORY,
        supported=chosen is not None,
        answerer=answerer,
        evidence=[e.as_dict() for e in evidence],
        used=used,
        trace=trace,
        scope=result.scope.describe(),
        policy=result.policy,
        reading=result.reading.as_dict(),
        notes=notes,
    )
