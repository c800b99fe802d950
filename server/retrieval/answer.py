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
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import date, timedelta
from typing import Any

from voxmem.retrieval.agent import AgentResult
from voxmem.retrieval.fusion import FusedEvidence
from voxmem.retrieval.text import content_words, normalise

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


def _label(person: dict[str, Any] | None) -> str:
    """A person's name, or an honest label for a voice nobody has named yet."""
    if not person:
        return "someone unknown"
    return person.get("name") or f"an unnamed voice ({person.get('id', '?')})"


def _names(people: list[dict[str, Any]]) -> str:
    names = [_label(p) for p in people if p]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _overlap(needle: list[str], text: str) -> float:
    if not needle:
        return 0.0
    return len(set(needle) & set(content_words(text))) / len(set(needle))


_REQUEST_FORM = re.compile(
    r"\b(?:can|could|would|will)\s+(?:we|you|i|someone)\b|\bplease\b|\bi(?:['’]d| would) like\b|"
    r"\bi want\b|\bi need\b|\blet's\b|\bmay i\b",
    re.I,
)


def is_request(text: str) -> bool:
    """A turn phrased as a request ("Can we have pizza on Friday?", "Could you …", "I'd like …")."""
    return bool(_REQUEST_FORM.search(text))


class GraphAnswerer:
    """Who said…, to whom…, what A said to B, what X asked for: read from SPEAKS / ADDRESSES on
    the evidence turns."""

    name = "graph"
    min_quote_overlap = 0.6

    def answer(self, result: AgentResult) -> tuple[str, list[str]] | None:
        reading = result.reading
        evidence = result.evidence
        if reading.kind == "who_said" and reading.quote:
            return self._who_said(reading, evidence)
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

    def _who_said(self, reading, evidence: list[FusedEvidence]) -> tuple[str, list[str]] | None:
        quote = content_words(reading.quote or "")
        best: tuple[float, FusedEvidence] | None = None
        for entry in evidence[:10]:
            if entry.evidence.speaker is None:
                continue
            if reading.addressee and all(
                a.get("id") != reading.addressee["id"] for a in entry.evidence.addressees
            ):
                bonus = 0.0
            else:
                bonus = 0.05 if reading.addressee else 0.0
            score = _overlap(quote, entry.evidence.text) + bonus
            if best is None or score > best[0]:
                best = (score, entry)
        if best is None or best[0] < self.min_quote_overlap:
            return None
        entry = best[1]
        return _label(entry.evidence.speaker), [entry.id]

    def _requests(self, reading, evidence: list[FusedEvidence]) -> tuple[str, list[str]] | None:
        """What a person asked for: their own turns (SPEAKS) that are phrased as requests."""
        requester = reading.speaker.get("id")
        mine = [
            e
            for e in evidence[:20]
            if requester and (e.evidence.speaker or {}).get("id") == requester and is_request(e.evidence.text)
        ][:3]
        if not mine:
            return None
        quoted = "; ".join(f'"{e.evidence.text.strip()}"' for e in mine)
        return f"{_label(reading.speaker)} asked: {quoted}", [e.id for e in mine]

    def _addressee(self, reading, evidence: list[FusedEvidence]) -> tuple[str, list[str]] | None:
        keywords = [
            w
            for w in reading.keywords
            if not reading.speaker or w not in (reading.speaker.get("name") or "").lower().split()
        ]
        for entry in evidence[:10]:
            ev = entry.evidence
            if reading.speaker and (ev.speaker or {}).get("id") != reading.speaker["id"]:
                continue
            if not ev.addressees:
                continue
            if keywords and _overlap(keywords, ev.text) < 0.3:
                continue
            return _names(ev.addressees), [ev.id]
        return None


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_DATE = re.compile(
    r"\b(\d{4}|\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\s+\d{1,2}|yesterday|today|tomorrow|"
    r"last\s+\w+|next\s+\w+|ago)\b",
    re.I,
)


_RELATIVE_DAY = re.compile(
    r"\b(today|tonight|this (?:morning|afternoon|evening)|yesterday|last night|tomorrow|"
    r"(\d{1,3}|two|three|four|five|six|seven) days ago)\b",
    re.I,
)
_SMALL = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


def spoken_date(day: date) -> str:
    """How people say a date: "6 April 2026"."""
    return f"{day.day} {day.strftime('%B')} {day.year}"


def resolve_day(sentence: str, ts: str | None) -> str | None:
    """The calendar day a relative day word in ``sentence`` means, given when it was said
    ("yesterday" said on 7 April 2026 → "6 April 2026"); None without one or without a time."""
    match = _RELATIVE_DAY.search(sentence)
    said = _day_of(ts)
    if not match or said is None:
        return None
    word = match.group(1).lower()
    if match.group(2):
        n = match.group(2).lower()
        offset = -(int(n) if n.isdigit() else _SMALL[n])
    elif word in ("yesterday", "last night"):
        offset = -1
    elif word == "tomorrow":
        offset = 1
    else:
        offset = 0
    try:
        return spoken_date(said + timedelta(days=offset))
    except OverflowError:
        return None


def _mentions(person: dict[str, Any]) -> list[str]:
    """How a sentence may name a person: full name, first name, aliases (normalised)."""
    names = [person.get("name") or "", *(person.get("aliases") or [])]
    first = (person.get("name") or "").split()[:1]
    return [n for n in {normalise(x) for x in [*names, *first]} if n]


def _about(entry: FusedEvidence, sentence: str, ids: set[str], mentions: list[str]) -> bool:
    """Whether a sentence is by one of the people (participant id) or names one of them."""
    if (entry.evidence.speaker or {}).get("id") in ids:
        return True
    padded = f" {normalise(sentence)} "
    return any(f" {m} " in padded for m in mentions)


class ExtractiveAnswerer:
    """Offline: the evidence sentence sharing the most (rarity-weighted) question words.

    Below ``min_support`` of the question's weighted content words the evidence does not
    support an answer, and the answer is "not in memory". A turn of at most ``max_turn_chars``
    is quoted whole. A question naming people is answered only from their turns or sentences
    that name them.
    """

    name = "extractive"
    min_support = 0.34
    max_turn_chars = 240

    def answer(self, result: AgentResult, top: int = 10) -> tuple[str, list[str]] | None:
        reading = result.reading
        wanted = [w for w in reading.keywords]
        if not wanted or not result.evidence:
            return None
        candidates: list[tuple[str, FusedEvidence]] = []
        for entry in result.evidence[:top]:
            for sentence in _SENTENCE.split(entry.evidence.text):
                if sentence.strip():
                    candidates.append((sentence.strip(), entry))
            for support in entry.support:
                candidates.append((support.get("text", ""), entry))
        df = Counter(w for sentence, _ in candidates for w in set(content_words(sentence)))
        n = len(candidates)
        weight = {w: math.log(1 + n / (1 + df.get(w, 0))) for w in wanted}
        total = sum(weight.values()) or 1.0
        # A question about named people is answered only from what they said or what names them:
        # "What is Grace's favourite food?" must not be answered by Lucy's favourite food.
        people = list(reading.people)
        # A first-person preference ("the way I like it") is about the asker, not Grace. Only
        # preference questions: ASR invents first-person words ("Let me read to call the plumber"
        # for "Who agreed to call the plumber?"), and other questions may be about anyone.
        if reading.first_person and reading.preference and result.scope.asker:
            people.append({"id": result.scope.asker, "name": result.scope.asker_name or ""})
        named_ids = {p.get("id") for p in people if p.get("id")}
        mentions = [m for p in people for m in _mentions(p)]
        best: tuple[float, int, str, FusedEvidence] | None = None
        for rank, (sentence, entry) in enumerate(candidates):
            words_here = set(content_words(sentence))
            # the speaker's name counts as present in their own turn
            if entry.evidence.speaker:
                words_here |= set(content_words(entry.evidence.speaker.get("name") or ""))
            if people and not _about(entry, sentence, named_ids, mentions):
                continue
            support = sum(weight[w] for w in wanted if w in words_here) / total
            if reading.temporal and _DATE.search(sentence):
                support += 0.1
            key = (support, -rank)
            if best is None or key > (best[0], -best[1]):
                best = (support, rank, sentence, entry)
        if best is None or best[0] < self.min_support:
            return None
        _, _, sentence, entry = best
        if sentence in entry.evidence.text and len(entry.evidence.text) <= self.max_turn_chars:
            # A short spoken turn is quoted whole: its answer often sits in the sentence next to
            # the one that matches the question ("For me it's always green tea. That's my
            # favourite drink.").
            sentence = entry.evidence.text.strip()
        speaker = (entry.evidence.speaker or {}).get("name")
        text = f"{speaker}: {sentence}" if speaker else sentence
        if reading.temporal and entry.evidence.ts:
            day = resolve_day(sentence, entry.evidence.ts)
            if day is not None:  # "yesterday" means nothing later: say which day it was
                text += f" ({day})"
            elif not _DATE.search(sentence):
                text += f" (said {_said_on(entry.evidence.ts)})"
        return text, [entry.id]


def _day_of(ts: str | None) -> date | None:
    """The calendar day of an ISO timestamp, or None when there is none or it does not parse."""
    try:
        return date.fromisoformat(ts[:10]) if ts else None
    except ValueError:
        return None


def _said_on(ts: str) -> str:
    day = _day_of(ts)
    return spoken_date(day) if day is not None else ts[:10]


class LLMAnswerer:
    """An LLM (langchain chat model) answers from the numbered evidence only, as JSON."""

    name = "llm"

    def __init__(self, chat_model: Any, max_evidence: int = 20) -> None:
        self.chat_model = chat_model
        self.max_evidence = max_evidence

    def prompt(self, result: AgentResult) -> list[tuple[str, str]]:
        lines = []
        for entry in result.evidence[: self.max_evidence]:
            ev = entry.evidence
            to = _names(ev.addressees) or "everyone"
            speaker = (ev.speaker or {}).get("name", "unknown")
            lines.append(f"[{ev.id}] ({ev.session}, {ev.ts}) {speaker} → {to}: {ev.text}")
            for s in entry.support:
                lines.append(f"    {s['layer']}: {s.get('text', '')}")
        system = (
            "You answer questions about past conversations using ONLY the evidence given. "
            'Reply with JSON only: {"answer": string or null, "evidence": [ids used]}. '
            "Use null when the evidence does not support an answer. Keep answers short."
        )
        user = (
            f"Question: {result.query}\nAsker: {result.scope.asker_name or 'unknown'}\nEvidence:\n"
            + "\n".join(lines)
        )
        return [("system", system), ("human", user)]

    def answer(self, result: AgentResult) -> tuple[str, list[str]] | None:
        reply = self.chat_model.invoke(self.prompt(result))
        content = getattr(reply, "content", reply)
        parsed = parse_json_object(content if isinstance(content, str) else str(content))
        if not parsed or not parsed.get("answer"):
            return None
        known = {e.id for e in result.evidence[: self.max_evidence]}
        used = [i for i in parsed.get("evidence") or [] if i in known]
        if not used:  # an answer that cites nothing we gave it is not supported
            return None
        return str(parsed["answer"]).strip(), used


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


def compose(result: AgentResult, llm: LLMAnswerer | None = None, max_evidence: int = 10) -> Answer:
    """Graph-native first for attribution questions, then the LLM if configured, else extractive."""
    chosen: tuple[str, list[str]] | None = None
    answerer = "none"
    notes: list[str] = []
    graph = GraphAnswerer().answer(result)
    if graph is not None:
        chosen, answerer = graph, "graph"
    elif result.reading.kind in ("who_said", "addressee", "said_to", "requests"):
        notes.append("attribution question without SPEAKS/ADDRESSES support in the evidence: not guessed")
    elif llm is not None:
        try:
            chosen = llm.answer(result)
        except Exception as exc:  # an unreachable LLM degrades to the offline answer, named as such
            notes.append(f"LLM answerer failed, extractive answer used: {str(exc)[:200]}")
            chosen = None
        answerer = "llm" if chosen else "none"
        if chosen is None:
            chosen = ExtractiveAnswerer().answer(result)
            answerer = "extractive" if chosen else "none"
    else:
        chosen = ExtractiveAnswerer().answer(result)
        answerer = "extractive" if chosen else "none"
    evidence = result.evidence[:max_evidence]
    used = chosen[1] if chosen else []
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
