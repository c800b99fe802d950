"""The LLM reader: a short answer from numbered evidence, with the turns it rests on, or abstention.

Why this shape (2 CPU cores, 0.5–1.5 B models): on this machine llama.cpp reads a prompt at
~20 (1.5B) to ~45 (0.5B) tokens per CPU-second and writes ~9 / ~16, so the *prompt* is the
cost (the first version's 12 whole turns were ~900 tokens, ~45 s per question). So:

- the prompt shows at most ``max_evidence`` (5) turns, each one line
  ``[n] speaker -> addressees: text`` under a ``date, session:`` heading per run of lines from one
  session and day (the issue's ``[n] date, session, speaker -> addressees: text`` without
  repeating date and session), clipped to the sentences that share the most (rarity-weighted)
  words with the question (≤ ``max_chars``, 120), chosen from the first 30 retrieved by that
  overlap, whether the speaker is the person asked about, and retrieval rank (:func:`layout`),
  the offline reader's cited turn always among them, in the order they were said; at most one
  fact or profile attribute fused onto a turn is indented beneath it;
- the system prompt is fixed and comes first, so the llama.cpp server reuses its evaluated
  prefix (its KV cache) from one question to the next;
- the offline reader's answer is shown as a *draft* with its line; the system prompt asks for the
  line's own words that answer, all of them but not the whole line (the 1.5B model copied whole
  drafts back; asked for "the shortest phrase" it cut "magical" to "joy"), several things as a
  comma-separated list, and "Yes"/"No"/"Likely yes"/"Likely no" for yes/no and would/might
  questions; four worked examples (made up, in no benchmark's wording: a thing, a reason, a list
  that skips the other person's suggestion, a hedged verdict) sit in the fixed prefix, so the
  server evaluates them once, not per question. On all 80 LoCoMo dev questions of the LLM
  benchmark the mean answer is ~50 characters (offline 105), containment the offline reader's,
  token F1 0.38 -> 0.41 against the shorter prompt (docs/retrieval.md "Seventh" and "Eighth LLM
  pass"). The model answers from that line or another, or abstains — it reads ~150 tokens
  instead of searching ~900;
- the reply is constrained to a JSON object (``voxmem.llm.client.constrain``: on the local server
  the grammar :func:`answer_grammar`), ``{"answer": str|null, "ids": [n]}`` with the evidence
  numbers as an enum, so generation is the answer's few tokens plus ~8 of JSON (the ids written
  without spaces: every generated token is a decode of the whole model).

Turns are numbered 1..n in the prompt (small models copy "3" reliably, a 30-character message
id less so) and mapped back to message ids here. The reply is then checked strictly (every id
shown, at least one id for an answer, every person and number the answer names present in the
cited turns); a rejected reply gets one repair turn quoting the reason, then the reader gives up
and the caller falls back to the offline answer, saying so. A timeout also falls back. An accepted
answer that stops at a title or at the kind of thing gets the name a shown line gives right after
it ("Brave" → "Brave by Sara Bareilles", :func:`completed`).

Attribution is never the model's to invent: for "who said …" / "to whom …" questions the model
only picks the turn (``{"turn": n}``) and the person comes from that turn's ``SPEAKS`` /
``ADDRESSES`` edges.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from voxmem.llm.client import Endpoint, LLMUnavailable, constrain
from voxmem.retrieval.agent import AgentResult
from voxmem.retrieval.fusion import FusedEvidence
from voxmem.retrieval.question import asked_about, asks_for_list
from voxmem.retrieval.spans import day_of, wanted_shape, with_dates
from voxmem.retrieval.text import (
    SENTENCE_BREAK,
    STAGE_DIRECTION,
    content_words,
    narration,
    normalise,
    only_asked,
    split_sentences,
)

ATTRIBUTION_KINDS = ("who_said", "addressee")

ANSWER_SYSTEM = """Answer the question from the numbered conversation lines only,
with the line's own words that answer it (a name, thing, place, date, number or phrase),
all of them but never the whole line.
For several things (activities, events, books ...), name each one the lines give, comma-separated, in the order said.
For a yes/no question, or whether someone would or might do something, answer "Yes", "No", "Likely yes" or "Likely no".
A draft answer may follow: use its line if it answers, else another line.
Reply with JSON {"answer": "<short phrase>", "ids": [<line numbers>]},
or {"answer": null, "ids": []} if the lines do not say.

Example:
Question: What does Omar grow on his balcony?
Lines:
4 April 2024, s2:
[1] Omar -> Lena: The tomatoes on my balcony finally turned red, so proud of them!
[2] Lena -> Omar: Nice, mine never survive the wind up here.
Reply: {"answer": "tomatoes", "ids": [1]}

Example:
Question: Why did Lena leave the choir?
Lines:
9 May 2024, s3:
[1] Lena -> Omar: I left the choir because rehearsals clashed with my night shifts.
Draft answer: Lena: I left the choir because rehearsals clashed with my night shifts. (line 1)
Reply: {"answer": "rehearsals clashed with her night shifts", "ids": [1]}

Example:
Question: What sports does Lena play?
Lines:
2 June 2024, s4:
[1] Lena -> Omar: Tennis on Saturday was brutal, my arm still hurts.
[2] Omar -> Lena: You should try swimming instead.
[3] Lena -> Omar: Maybe! Volleyball with the team is more my thing though.
Reply: {"answer": "tennis, volleyball", "ids": [1, 3]}

Example:
Question: Would Omar enjoy a week of camping?
Lines:
3 July 2024, s5:
[1] Omar -> Lena: Honestly I hate sleeping outdoors, the bugs drive me crazy.
Reply: {"answer": "Likely no", "ids": [1]}"""  # noqa: E501 (the prompt's lines, as measured)

TURN_SYSTEM = """You find the conversation turn a question refers to, using ONLY the numbered evidence lines.
Reply with JSON: {"turn": <line number>}, or {"turn": null} if no line is the turn the question describes."""

MAX_ANSWER_CHARS = 80
MAX_TOKENS = 48  # an answer of ≤ 80 characters plus the JSON around it
# a list gathered from several lines: more items, each from its own line, so more characters and ids
LIST_ANSWER_CHARS = 120
LIST_TOKENS = 72
LIST_LINES = 6
LIST_NOTE = (
    "It asks for several things: name each one the lines give, comma-separated, in the lines' own words."
)


def answer_schema(numbers: list[int], max_ids: int = 3, max_chars: int = MAX_ANSWER_CHARS) -> dict[str, Any]:
    """The reply's JSON schema: the answer (or null) and the evidence numbers shown, at most
    ``max_ids`` (3; a gathered list cites one line per item). An OpenAI endpoint is held to it;
    the local server to :func:`answer_grammar`, the same object written with fewer tokens."""
    return {
        "type": "object",
        "properties": {
            "answer": {"anyOf": [{"type": "string", "maxLength": max_chars}, {"type": "null"}]},
            "ids": {"type": "array", "items": {"enum": numbers}, "maxItems": max_ids},
        },
        "required": ["answer", "ids"],
    }


def answer_grammar(numbers: list[int], max_ids: int = 3, max_chars: int = MAX_ANSWER_CHARS) -> str:
    """The reply's grammar (GBNF, the local server's ``grammar`` field): the JSON object
    ``{"answer": "…","ids":[n,…]}`` with 1 to ``max_ids`` of the evidence numbers shown, or
    ``{"answer": null,"ids":[]}``; the answer at most ``max_chars`` characters. Up to the
    answer's value it is exactly what llama-cpp-python compiles from the schema (an optional space
    around ``:``), after it there is no space.

    Why: every generated token is one decode of the whole model (~95 ms on one core), and after
    the answer the schema's grammar let the model write ``", "ids": [2, 4]}`` (9 tokens) where
    ``","ids":[2,4]}`` is 6. Why only after it: the answer is the model's choice of tokens, and any
    change before or inside it (a compact ``{"answer":"``, compact examples in the system prompt,
    a plain ``answer [ids]`` line) changed answers on the same evidence, some for the worse
    (docs/retrieval.md, "Fourteenth LLM pass"). Why an answer must cite: written compactly, the
    model closed ``[]`` after two answers it had cited a line for, a reply :func:`parse_answer`
    rejects (a repair call, then the draft); the parser's rule is now the grammar's. Same
    object, same strict parser."""
    ids = " | ".join(f'"{n}"' for n in numbers)
    more = f' ("," id){{0,{max_ids - 1}}}' if max_ids > 1 else ""
    return (
        'root ::= "{" space "\\"answer\\"" space ":" space'
        f' (string ",\\"ids\\":[" id{more} "]}}" | "null,\\"ids\\":[]}}")\n'
        f'string ::= "\\"" char{{0,{max_chars}}} "\\""\n'
        'char ::= [^"\\\\] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4})\n'
        f"id ::= {ids}\n"
        'space ::= " "?\n'
    )


def turn_schema(numbers: list[int]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"turn": {"anyOf": [{"enum": numbers}, {"type": "null"}]}},
        "required": ["turn"],
    }


@dataclass(frozen=True)
class Reply:
    """The shape a reply is held to, as a JSON ``schema`` and, where there is a cheaper way to
    write it, a GBNF ``grammar`` for the local server (:func:`answer_grammar`)."""

    schema: dict[str, Any] | None = None
    grammar: str | None = None


class ReaderError(Exception):
    """The model's reply was rejected (after the repair turn)."""


class ReaderTimeout(Exception):
    """The model did not reply within ``VOXMEM_LLM_TIMEOUT_S``: the offline answer stands."""


@dataclass
class Outcome:
    """What one reading gave: an answer (None = abstained or failed), whether it failed, notes."""

    chosen: tuple[str, list[str]] | None
    failed: bool = False
    notes: list[str] = field(default_factory=list)


@dataclass
class Layout:
    """The prompt's evidence block and the mapping from its numbers back to evidence."""

    text: str
    entries: dict[int, FusedEvidence] = field(default_factory=dict)
    listing: bool = False  # gathered for a list question (``layout(gather=True)``)


def _person(p: dict[str, Any] | None) -> str:
    if not p:
        return "unknown"
    return p.get("name") or f"unnamed voice {p.get('id', '?')}"


def _when(ts: str | None) -> str:
    """'2023-05-08T13:56:00+00:00' → '8 May 2023': the form people (and gold answers) use; the
    clock is left out (it answers no question here and costs tokens), the line order keeps it."""
    if not ts:
        return "date unknown"
    try:
        moment = datetime.fromisoformat(ts)
    except ValueError:
        return ts[:10]
    return f"{moment.day} {moment:%B %Y}"


def _dated(entry: FusedEvidence) -> str:
    """The turn's text with its relative times resolved against the day it was said
    (``spans.with_dates``: "last year" → "last year (2022)")."""
    return with_dates(entry.evidence.text, day_of(entry.evidence.ts))


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_SAID_ON = re.compile(r"\s*\(said on [^)]*\)$")


def _draft_shown(draft: str, limit: int) -> str:
    """The draft clipped to ``limit`` characters, keeping its "(said on …)" tail: for a
    when-question quoted whole that date is the offline reader's answer, and cut off it left the
    model to pick a date from another line ("launch tomorrow (20 June 2023)" for an ad campaign
    launched on the day the draft's turn was said)."""
    tail = _SAID_ON.search(draft)
    if tail is None or len(" ".join(draft.split())) <= limit:
        return _clip(draft, limit)
    return _clip(draft[: tail.start()], limit - len(tail.group().strip()) - 1) + " " + tail.group().strip()


_WORD = re.compile(r"[a-z0-9]+")


def word_keys(text: str) -> set[str]:
    """Crude word keys (lower case, first five letters) for overlap between question and turn."""
    return {w[:5] for w in _WORD.findall(text.lower()) if len(w) > 2 or w.isdigit()}


def _tokens(text: str) -> set[str]:
    """The lower-case words and numbers of ``text``, whole (unlike :func:`word_keys`)."""
    return set(_WORD.findall(text.lower()))


def rarity(focus: set[str], texts: list[str]) -> dict[str, float]:
    """Each question word key's weight, ``log(1 + n / (1 + df))`` over the candidate turns: a word
    most candidates share (the topic every retrieved turn is about) says little about which of
    them answers."""
    df = Counter(k for t in texts for k in word_keys(t) & focus)
    return {k: math.log(1 + len(texts) / (1 + df[k])) for k in focus}


def said_weight(text: str, weight: dict[str, float]) -> float:
    """How much of the weighted question ``text`` says: the summed :func:`rarity` weights of the
    question's word keys it holds."""
    return sum(weight[k] for k in word_keys(text) & weight.keys())


def _focus(text: str, weight: dict[str, float], limit: int) -> tuple[str, float]:
    """The turn clipped to ``limit`` characters: its sentence sharing most (rarity-weighted) words
    with the question, the other sentences holding question words that one lacks (most weight
    first, an elided gap shown as " … "), then the sentences after and before them; and the best
    sentence's share of the question's weight.

    Why the other sentences: a turn often names the thing in one sentence and says what was
    asked about it two sentences on ("… like my hand-painted bowl. A friend made it for my 18th
    birthday ten years ago. The pattern and colors are awesome-- it reminds me of art and
    self-expression." for "What is the hand-painted bowl a reminder of?"); grown from the first
    sentence only, the line stopped before the answer."""
    text = " ".join(text.split())
    sentences = [x for x in SENTENCE_BREAK.split(text) if x] or [text]
    keys = [word_keys(x) & weight.keys() for x in sentences]
    hits = [sum(weight[k] for k in found) for found in keys]
    best = max(range(len(sentences)), key=lambda i: (hits[i], -i))
    total = sum(weight.values())
    share = hits[best] / total if total else 0.0
    if len(text) <= limit:
        return text, share

    def joined(picked: set[int]) -> str:
        order = sorted(picked)
        return "".join(
            ("" if n == 0 else " " if i == order[n - 1] + 1 else " … ") + sentences[i]
            for n, i in enumerate(order)
        )

    picked, covered = {best}, set(keys[best])
    while True:  # the sentences holding question words not yet shown, most new weight first
        gain = {
            i: sum(weight[k] for k in keys[i] - covered) for i in range(len(sentences)) if i not in picked
        }
        more = [i for i in sorted(gain, key=lambda i: (-gain[i], abs(i - best))) if gain[i] > 0]
        fits = next((i for i in more if len(joined(picked | {i})) <= limit), None)
        if fits is None:
            break
        picked.add(fits)
        covered |= keys[fits]
    while True:  # then the neighbours, after before before, while they fit
        grown = next(
            (
                j
                for j in [i + 1 for i in sorted(picked)] + [i - 1 for i in sorted(picked)]
                if 0 <= j < len(sentences) and j not in picked and len(joined(picked | {j})) <= limit
            ),
            None,
        )
        if grown is None:
            break
        picked.add(grown)
    return _clip(joined(picked), limit), share


SHOWN = 10  # the turns an answer shows (``answer.compose``'s max_evidence): retrieved as on the question


class _Scored(NamedTuple):
    """One candidate line of :func:`layout`: ``kept`` (the draft's turn), its ``score``, retrieval
    ``rank``, the ``entry``, its clipped ``text`` and the ``share`` of the question's words it holds."""

    kept: bool
    score: float
    rank: int
    entry: FusedEvidence
    text: str
    share: float


def layout(
    result: AgentResult,
    max_evidence: int = 5,
    max_chars: int = 120,
    max_support: int = 1,
    keep: tuple[str, ...] = (),
    pool: int = 30,
    own_turn: float = 0.1,
    gather: bool = False,
) -> Layout:
    """``date, session:`` once per run of lines said that day in that session, then
    ``[n] speaker -> addressees: text`` per turn, facts/attributes beneath (the issue's
    ``[n] date, session, speaker -> addressees: text`` with the date and session not repeated:
    ~10 tokens a line on 2 cores).

    Which turns: of the first ``pool`` retrieved, the ``max_evidence`` best by
    - the share of the question's words their best sentence holds, each word weighted by its
      rarity among those turns (:func:`rarity`), the names of the people asked about left out
      (a line only addressing "Leo, the post just arrived" is no better for it);
    - plus ``own_turn`` when the speaker is someone the question is about (``asked_about``: the
      people it names, or the asker for "my …"): their own turns answer what they did or like;
    - plus ``0.5 / (1 + rank)`` for the retrieval rank;
    ``keep`` (the draft's turn) is shown whatever its score. Each turn is clipped around its best
    sentence, and they are numbered in the order they were said.

    Why (scratch /tmp/k/eval.py over the answers benchmark's cached evidence, the questions the
    LLM reads, LoCoMo dev all 160, 98 of them answerable): a gold turn was among the lines for 45
    (answer words visible for 38) when the 5 came from the first 12 by rank and plain overlap;
    with rarity, names out, the own-turn weight and the first 30, 50 (45), for the same prompt
    size. An own-turn weight of 0.3 showed 55 (46) but filled the lines with the person's turns
    whatever they said: in an LLM run the model then answered an adversarial question from the
    person's unrelated "pottery workshop" and a when-question from their "launch tomorrow";
    0.1 only breaks near-ties in word overlap. Seven lines of <= 90 characters showed a gold turn
    for 63 but no more answer words, for ~15 % more prompt.

    ``gather`` (a list question, :func:`asks_for_list`): only the turns of the people asked about
    (when they said any of those retrieved), and one line per session before a second one from
    any session, so that a list said over several sessions is shown whole rather than five turns
    of the session that says most of the question's words (:func:`_spread`)."""
    people = asked_about(result.reading, result.scope.asker, result.scope.asker_name)
    ids = {p["id"] for p in people if p.get("id")}
    focus = question_keys(result, people)
    candidates = [(entry, _dated(entry)) for entry in result.evidence[:pool]]
    weight = rarity(focus, [text for _, text in candidates])
    scored = []
    for rank, (entry, dated) in enumerate(candidates):
        text, share = _focus(dated, weight, max_chars)
        own = own_turn if (entry.evidence.speaker or {}).get("id") in ids else 0.0
        scored.append(_Scored(entry.id in keep, share + own + 0.5 / (1 + rank), rank, entry, text, share))
    ranked = sorted(scored, key=lambda s: (s.kept, s.score, -s.rank), reverse=True)
    if gather:
        theirs = [s for s in ranked if s.kept or (s.entry.evidence.speaker or {}).get("id") in ids] or ranked
        # one line per session only among the turns on the question (a word of it said, or among
        # the first ``SHOWN`` retrieved): spread over all, the person's small talk of other
        # sessions took the lines ("Wow, what an experience!" for "What does Melanie do to destress?")
        on_it = _spread([s for s in theirs if s.kept or s.share > 0 or s.rank < SHOWN], max_evidence)
        picked = {s.entry.id for s in on_it}
        chosen = on_it + [s for s in theirs if s.entry.id not in picked][: max_evidence - len(on_it)]
    else:
        chosen = ranked[:max_evidence]
    chosen.sort(key=lambda s: _said_order(s.entry))
    lines: list[str] = []
    entries: dict[int, FusedEvidence] = {}
    heading = None
    for n, line in enumerate(chosen, start=1):
        entry, text = line.entry, line.text
        ev = entry.evidence
        if (_when(ev.ts), ev.session) != heading:  # the date and session once per run of lines
            heading = (_when(ev.ts), ev.session)
            lines.append(f"{heading[0]}, {ev.session}:")
        if narration(ev.text):  # its label ("#NOTE#") said nothing; the model must not read it as a person
            lines.append(f"[{n}] {STAGE_DIRECTION}: {text}")
        else:
            to = ", ".join(_person(a) for a in ev.addressees) or "everyone"
            lines.append(f"[{n}] {_person(ev.speaker)} -> {to}: {text}")
        for support in entry.support[:max_support]:
            kind = "fact" if support.get("layer") == "fact" else "profile"
            lines.append(f"    {kind}: {_clip(str(support.get('text', '')), 100)}")
        entries[n] = entry
    return Layout("\n".join(lines), entries, listing=gather)


def question_keys(result: AgentResult, people: list[dict[str, Any]]) -> set[str]:
    """The question's word keys (its reading's keywords, else its text) without the names of the
    ``people`` asked about: what a line must say to be on the question, not merely about them."""
    focus = word_keys(" ".join(result.reading.keywords) or result.query)
    return (focus - {k for p in people for k in word_keys(p.get("name") or "")}) or focus


def _source_lines(answer: str, holders: list[int], shown: Layout, result: AgentResult) -> list[int]:
    """Of the shown lines holding the answer's words, those whose sentence holding them says most
    of the question's (rarity-weighted) words: the line the model read the answer from.

    Why: an answer cited to no line holding it is re-cited to the lines that do, and the asked-person
    rule (``answer._rests_on_asked``) passed when *any* of them was the asked person's. Asked what
    Caroline does to keep busy during her pottery break (Melanie's break), the 1.5B model answered
    "painting" from Melanie's "Been reading … and painting to keep busy" and it passed on Caroline's
    "I've been busy painting" (LoCoMo dev adversarial, docs/retrieval.md "Eighteenth LLM pass")."""
    if len(holders) < 2:
        return holders
    people = asked_about(result.reading, result.scope.asker, result.scope.asker_name)
    focus = question_keys(result, people)
    texts = {n: _dated(shown.entries[n]) for n in holders}
    weight = rarity(focus, [_dated(e) for e in shown.entries.values()])
    said = _answer_words(answer)

    def share(n: int) -> float:
        holding = [x for x in SENTENCE_BREAK.split(texts[n]) if said & _tokens(x)]
        return max((said_weight(x, weight) for x in holding), default=0.0)

    shares = {n: share(n) for n in holders}
    best = max(shares.values())
    return [n for n in holders if shares[n] == best]


def _said_order(entry: FusedEvidence) -> tuple[str, str, int]:
    """Lines are numbered in the order they were said: by time, session and turn index."""
    ev = entry.evidence
    return (ev.ts or "", ev.session or "", ev.idx)


def _spread(ranked: list[_Scored], n: int) -> list[_Scored]:
    """The first ``n`` of ``ranked`` (scored turns, best first) taking one turn per session
    before a second from any session, then the best of the rest: items of a list merged over
    sessions come from different sessions."""
    first: list[_Scored] = []
    rest: list[_Scored] = []
    seen: set[str | None] = set()
    for item in ranked:
        session = item.entry.evidence.session
        (rest if session in seen else first).append(item)
        seen.add(session)
    return (first + rest)[:n]


def _strict_object(text: str) -> dict[str, Any]:
    """The reply as one JSON object: only whitespace or a code fence may surround it."""
    body = re.sub(r"^\s*```(?:json)?\s*|\s*```\s*$", "", text.strip())
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ReaderError(f"the reply is not a single JSON object ({exc.msg})") from exc
    if not isinstance(value, dict):
        raise ReaderError("the reply is JSON but not an object")
    return value


def _number(value: Any, shown: dict[int, FusedEvidence]) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip().isdigit():
        raise ReaderError(f"{value!r} is not an evidence number")
    n = int(value)
    if n not in shown:
        raise ReaderError(f"there is no evidence line [{n}]; use 1..{len(shown)}")
    return n


_NAME = re.compile(r"\b[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?\b")
_COMMON = {
    "The", "A", "An", "On", "In", "At", "It", "He", "She", "They", "We", "I", "Yes", "No", "Not",
    "Likely", "Probably", "Maybe", "Most",
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February",
    "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
}  # fmt: skip


def parse_answer(
    text: str, shown: dict[int, FusedEvidence], draft: str | None = None
) -> tuple[str, list[int]] | None:
    """A validated ``(answer, ids)``, None for a justified abstention; ReaderError otherwise.

    A copy of the ``draft`` (the offline reader's answer, grounded by construction) is returned
    with no ids and is not checked further: the caller keeps the draft with its own ids."""
    data = _strict_object(text)
    if set(data) - {"answer", "ids"} or "answer" not in data:
        raise ReaderError('the object must have exactly the keys "answer" and "ids"')
    answer = data["answer"]
    if answer is None or (isinstance(answer, str) and not answer.strip()):
        return None
    if not isinstance(answer, str | int | float) or isinstance(answer, bool):
        raise ReaderError('"answer" must be a string or null')
    if draft is not None and _kept(str(answer), draft):
        return str(answer).strip(), []
    ids = data.get("ids")
    if not isinstance(ids, list) or not ids:
        raise ReaderError('an answer needs "ids": the numbers of the evidence lines it rests on')
    numbers = list(dict.fromkeys(_number(i, shown) for i in ids))
    answer = _unlabelled_reply(str(answer).strip(), shown)
    cited = [shown[n] for n in numbers]
    _check_script(answer, cited)
    _check_people(answer, cited)
    _check_numbers(answer, cited)
    _check_words(answer, list(shown.values()))
    return answer, numbers


def _unlabelled_reply(answer: str, shown: dict[int, FusedEvidence]) -> str:
    """The answer without a copied line label, ``[3]`` and/or ``Maya:`` / ``Maya -> Leo:`` where
    Maya speaks a shown line: the model copies a line as the prompt lays it out, and "Maya: pizza
    on Friday" answers "What did Maya ask for?" with her name glued on (seen in the demo). Only a
    shown speaker's name is a label ("Note: …" is not), and a label with nothing after it stays."""
    speakers = {_person(e.evidence.speaker) for e in shown.values() if e.evidence.speaker}
    names = "|".join(re.escape(n) for n in sorted(speakers, key=len, reverse=True)) or "(?!)"
    label = rf"^\s*(?:\[\d+\]\s*)?(?:(?:{names})(?:\s*->\s*[^:]{{1,60}})?\s*:\s*)?"
    bare = re.sub(label, "", answer, count=1).strip()
    return bare or answer


def _cited_words(cited: list[FusedEvidence]) -> set[str]:
    """The lower-case words of the cited turns: text, speaker, addressees and support."""
    seen = " ".join(
        " ".join(
            [
                _dated(e),
                _person(e.evidence.speaker),
                *(_person(a) for a in e.evidence.addressees),
                *(str(s.get("text", "")) for s in e.support),
            ]
        )
        for e in cited
    ).lower()
    return set(re.findall(r"[a-z0-9']+", seen))


_FOREIGN = re.compile(r"[\u0400-\u052f\u0590-\u06ff\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _check_script(answer: str, cited: list[FusedEvidence]) -> None:
    """No letters of a script the cited turns do not use: Qwen2.5-Coder drifts into Chinese
    mid-copy ("…growing the业务" for "…growing the business"), seen twice in 48 LoCoMo answers."""
    seen = " ".join(e.evidence.text for e in cited)
    foreign = {c for c in _FOREIGN.findall(answer) if c not in seen}
    if foreign:
        raise ReaderError(f"the answer has characters ({''.join(sorted(foreign))}) the evidence does not use")


def _check_people(answer: str, cited: list[FusedEvidence]) -> None:
    """Every capitalised name in the answer must appear in the cited turns (speaker, addressees,
    text or support): the model may not introduce a person the evidence does not hold."""
    words = _cited_words(cited)
    strangers = [w for w in _NAME.findall(answer) if w not in _COMMON and w.lower() not in words]
    if strangers:
        raise ReaderError(f"the answer names {', '.join(strangers)}, who is not in the cited evidence")


_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "noon": 12, "midnight": 0, "half": 30, "quarter": 15,
}  # fmt: skip


def _check_numbers(answer: str, cited: list[FusedEvidence]) -> None:
    """Every number in the answer must be said in the cited turns (as digits or as a word), so
    that a small model cannot invent a time, a count or a code ("17:45" from "at nine").

    A 12-hour clock is folded both ways (21 and 9), and a date's or year's digits count when the
    turn was said then, since relative dates ("yesterday") are resolved against the turn's time."""
    words = _cited_words(cited)
    said: set[int] = {int(w) for w in words if w.isdigit()} | {
        n for w, n in _NUMBER_WORDS.items() if w in words
    }
    for e in cited:  # the date a turn was said (not its clock time: that is no answer)
        said |= {int(d) for d in re.findall(r"\d+", (e.evidence.ts or "")[:10])}
    said |= {n + 12 for n in said if 0 < n <= 12} | {n - 12 for n in said if 12 < n <= 24}
    invented = [d for d in re.findall(r"\d+", answer) if int(d) not in said and int(d) != 0]
    if invented:
        raise ReaderError(f"the answer says {', '.join(invented)}, which no cited line says")


# the model saying the lines do not say it, in words rather than null: left to the caller as is
_SAYS_NOTHING = re.compile(
    r"\s*(?:not\s+(?:in\s+memory|mentioned|stated|said|known|given)|unknown|none|n/?a)\W*", re.I
)


def _key(word: str) -> str:
    """A word's first four letters after a plural "s" ("pots" meets "pot", "months" "month")."""
    return (word[:-1] if len(word) > 3 and word.endswith("s") else word)[:4]


def _check_words(answer: str, shown: list[FusedEvidence]) -> None:
    """At least one content word of the answer must be said in a shown line (its text, date,
    people or support), the lines the prompt asks it to answer in the words of. A verdict
    ("Likely no") or a "not mentioned" is exempt.

    Why: asked the adversarial "How is Jon's store doing?" (Jon has no store; the lines were his
    turns about Gina's), the 1.5B model answered "good", a word no line says, while the offline
    reader rightly found nothing; "positive" for the sentiment about a grand opening (gold
    "excitement") and "about 2 months" for an opening no line dates were the same kind. The
    rejection gets the usual repair turn; a second ungrounded reply falls back to the draft."""
    said = [w for w in content_words(answer) if not w.isdigit()]
    if not said or _VERDICT.fullmatch(answer.strip()) or _SAYS_NOTHING.fullmatch(answer):
        return
    seen = " ".join(" ".join([_when(e.evidence.ts), *_cited_words([e])]) for e in shown)
    keys = {_key(w) for w in _tokens(seen)}
    if not any(_key(w.lower()) in keys for w in said):
        raise ReaderError(
            f"no line says {', '.join(said[:4])}: answer in the lines' own words, or null if they do not say"
        )


def _answer_words(answer: str) -> set[str]:
    """The answer's words that can say where it came from (longer than two letters, or numbers)."""
    return {w for w in _tokens(answer) if len(w) > 2 or w.isdigit()}


def _holds(answer: str, entry: FusedEvidence) -> bool:
    """Whether a turn (its text or the facts on it) contains one of the answer's content words."""
    words = _answer_words(answer)
    text = " ".join([_dated(entry), *(str(s.get("text", "")) for s in entry.support)])
    return bool(words & _tokens(text))


def _said_on(answer: str, entry: FusedEvidence) -> bool:
    """Whether the answer gives the day the turn was said (a when-question answered from the date
    the line is shown under): its day and month, or its month and year."""
    day = _when(entry.evidence.ts).lower().split()
    words = _tokens(answer)
    return len(day) == 3 and day[1] in words and bool({day[0], day[2]} & words)


# what names the answer right after it in its line: a title's author or performer ('"Brave" by
# Sara Bareilles'), or the name of the thing ('a contemporary piece called "Finding Freedom."')
_CAPITALISED = r"[A-Z](?:[\w'-]|\.(?=[A-Za-z]))*"  # "Bareilles", "J.K" (a full stop ends it)
_NAMES = rf"{_CAPITALISED}(?:\s+{_CAPITALISED}){{0,3}}"
_QUOTED = r"[\"\u201c]([^\"\u201d]{2,60}?)[.,!?]?[\"\u201d]"
_NAMING = rf"[\"'\u2019\u201d]?\s+(by|called|named|titled)\s+(?:({_NAMES})|{_QUOTED})"


def completed(
    answer: str, lines: list[FusedEvidence], question: str = ""
) -> tuple[str, FusedEvidence | None]:
    """The answer with the words of a line that name it, right after it, and that line: "Brave" →
    "Brave by Sara Bareilles", "contemporary piece" → 'contemporary piece called "Finding
    Freedom"'. The 1.5B model stops at the title or at the kind of thing, and either alone is half
    the answer (LoCoMo dev golds "Brave by Sara Bareilles", "Finding Freedom"); it also cites the
    draft's line for words it took from another, so every shown line is searched, the cited ones
    first. Only a capitalised name, or a quoted title, directly after the answer's own words
    counts, so "tennis by the lake" and "a walk by The River" (a common word, a place) gain
    nothing. Between the answer and the naming word one word of the ``question`` may stand, the
    kind it asks for: asked "What kind of dance piece did Gina's team perform?", the model wrote
    "contemporary" from 'a contemporary piece called "Finding Freedom"' (LoCoMo dev, product
    evidence), and "piece" is the question's word."""
    said = answer.strip().strip("\"'\u201c\u201d\u2018\u2019")
    if not said or re.search(r"\b(?:by|called|named|titled)\b", said, re.I):
        return answer, None
    kinds = "|".join(re.escape(w) for w in content_words(question)) or "(?!)"
    kind = rf"(?:\s+((?i:{kinds})))?"
    pattern = re.compile(f"(?i:{re.escape(said)})" + kind + _NAMING)  # the name's capitals count
    for entry in lines:
        found = pattern.search(_dated(entry))
        if found is None:
            continue
        noun, verb, name, quoted = found.groups()
        head = f"{answer.strip()} {noun}" if noun else answer.strip()
        if name and name.split()[0] not in _COMMON:
            return f"{head} {verb} {name}", entry
        if quoted:
            return f'{head} {verb} "{quoted}"', entry
    return answer, None


# a question asking how, why, or what something is about / means / felt like: its answer is a
# statement, not a name ("How", "Why" but not "How many / long / often …": those want a number;
# not a yes/no question opening with its auxiliary, "Would Tom think …")
_OPEN_QUESTION = re.compile(
    r"^\s*(?:why|how(?!\s+(?:many|much|long|old|often|far|soon|big|tall|late|early)\b))\b"
    r"|^(?!\s*(?:would|will|is|are|was|were|do|does|did|can|could|should|has|have|had|might|may)\b)"
    r".*\b(?:about|describes?|described|feels?|felt|thinks?|thought|means?|meant|represents?|symboli[sz]es?"
    r"|remind(?:s|ed|er)?)\b",
    re.I,
)


def widened(answer: str, question: str, draft_turns: list[FusedEvidence]) -> str:
    """For an open question (:data:`_OPEN_QUESTION`), a phrase the model cut from one sentence of
    the offline draft's turn becomes that sentence: the draft's turn is the offline reader's
    choice and the model chose the sentence, but where it cuts inside it is a guess. A list, a
    verdict, or a question wanting a date, number or place (``spans.wanted_shape``) keeps the
    model's words, and so does a phrase from another line (the model's correction of the draft).

    Why (LoCoMo dev, the eleventh pass's canonical run): "How does Gina describe the feeling that
    dance brings?" → "joy and thrill" from "Capture the joy and thrill that dance brings - it's
    magical!" (gold "magical"), "What was the poetry reading that Caroline attended about?" →
    "transgender poetry reading" from "It was a transgender poetry reading where transgender
    people shared their stories through poetry." (gold that sentence). The cost is length: the
    answer is one sentence, not a phrase."""
    if wanted_shape(question) is not None or not _OPEN_QUESTION.search(question):
        return answer
    if "," in answer or _VERDICT.fullmatch(answer.strip()):
        return answer
    said = normalise(answer)
    for entry in draft_turns:
        for sentence in split_sentences(_dated(entry)):
            whole = normalise(sentence)
            if said and whole != said and f" {said} " in f" {whole} ":
                return sentence
    return answer


# a yes/no verdict, hedged or not: an answer even when its words are the question's
_VERDICT = re.compile(r"(?:(?:likely|probably|most\s+likely)\s+)?(?:yes|no)\W*", re.I)


def restates(answer: str, question: str) -> bool:
    """Whether an answer only repeats the question's own words (:func:`only_asked`: "What book did
    Caroline recommend to Melanie?" → "The book Caroline recommended to Melanie"): it adds
    nothing, so it is no better than the draft. Two answers made of the question's words still
    answer it: a verdict ("Likely no" to "Would Ana likely move back?": its "likely" is the
    question's, and yes or no is what was asked), and a choice the question offers ("… tea or
    coffee?" → "coffee": picking one of the named options is the answer)."""
    if _VERDICT.fullmatch(answer.strip()) or " or " in f" {question.lower()} ":
        return False
    return only_asked(answer, question)


def unlabelled(draft: str) -> str:
    """A draft answer without its leading "Speaker: " label (the offline reader quotes turns as
    "Maya: …"; a colon further in is part of what was said)."""
    return draft.split(": ", 1)[1] if ": " in draft[:40] else draft


def _kept(answer: str, draft: str) -> bool:
    """Whether the model copied the draft (the schema caps an answer at ``MAX_ANSWER_CHARS``, the
    draft may be longer): the answer is the draft's beginning, at least 30 characters of it, with
    or without the draft's leading "Speaker: ", compared on letters and digits only: the model
    retypes quotes and dashes ('The Lean Startup' for "The Lean Startup"), and such a copy that
    lost the draft's tail ("(said on 29 May 2023)") must still keep the draft whole."""
    d = " ".join(draft.split())
    bare, a = normalise(unlabelled(d)), normalise(answer)
    d = normalise(d)
    return bool(a) and (a in (d, bare) or (len(a) >= 30 and (d.startswith(a) or bare.startswith(a))))


def parse_turn(text: str, shown: dict[int, FusedEvidence]) -> int | None:
    data = _strict_object(text)
    if set(data) != {"turn"}:
        raise ReaderError('the object must have exactly the key "turn"')
    return None if data["turn"] is None else _number(data["turn"], shown)


# Retried: the server is not (yet) there. Not retried: a read timeout, since a CPU server still
# works on the timed-out request and a resend would only queue behind it.
_CONNECTION_ERRORS = {
    "APIConnectionError",
    "ConnectError",
    "ConnectTimeout",
    "ConnectionError",
    "ConnectionRefusedError",
}
_TIMEOUTS = {"APITimeoutError", "ReadTimeout", "TimeoutError"}


def _is_connection_error(exc: BaseException) -> bool:
    """Connection refused or reset, from openai/httpx (names checked: no hard import)."""
    return bool(_names(exc) & _CONNECTION_ERRORS) and not _names(exc) & _TIMEOUTS


def _names(exc: BaseException | None, depth: int = 0) -> set[str]:
    """Class names of an exception and what caused it (openai wraps httpx, httpx wraps OSError)."""
    if exc is None or depth > 5:
        return set()
    return {type(exc).__name__} | _names(exc.__cause__ or exc.__context__, depth + 1)


class LLMReader:
    """Answers from evidence with a langchain chat model; see the module docstring."""

    name = "llm"

    def __init__(
        self,
        chat_model: Any,
        endpoint: Endpoint | None = None,
        max_evidence: int = 5,
        connect_attempts: int = 3,
        max_chars: int = 120,
    ) -> None:
        self.chat_model = chat_model
        self.endpoint = endpoint
        self.max_evidence = max_evidence
        self.max_chars = max_chars
        self.connect_attempts = connect_attempts
        self.calls = 0
        self.seconds = 0.0
        self.tokens: list[tuple[int, int]] = []  # (prompt, generated) per call, where reported

    @property
    def required(self) -> bool:
        """An unreachable configured LLM is an error (503); an auto-detected one is skipped."""
        return self.endpoint is not None and self.endpoint.required

    def describe(self) -> str:
        return self.endpoint.describe() if self.endpoint else type(self.chat_model).__name__

    def prompt(
        self,
        result: AgentResult,
        attribution: bool = False,
        hint: tuple[str, list[str]] | None = None,
    ) -> tuple[list[BaseMessage], Layout]:
        """The fixed system prompt (a reusable prefix), then question, evidence and the draft.

        A list question (:func:`asks_for_list`) gets more, shorter lines gathered from the asked
        people's turns across sessions (``layout(gather=True)``), a note under the question, and
        no draft: the draft is one turn, and shown it the model answered from that turn alone
        ("running" for a gold "Running, pottery"). The draft's turn is still among the lines. The
        system prompt, with its list example, is the same, so the server's cached prefix serves
        these questions too (a second system prompt would be evaluated anew, ~25 CPU-s).

        Only with a draft: when the offline reader found no turn on the question, the gathered
        lines are the person's turns on anything near it, and told to list, the model listed
        them (LoCoMo dev adversarial "What type of individuals does the adoption agency Melanie is
        considering support?" → "inclusivity, support", from her praise of Caroline's agency; the
        five usual lines gave "not in memory")."""
        keep = tuple(hint[1]) if hint and not attribution else ()
        listing = bool(hint) and not attribution and asks_for_list(result.query)
        if listing:
            shown = layout(
                result, LIST_LINES, self.max_chars - 20, keep=keep, pool=len(result.evidence), gather=True
            )
        else:
            shown = layout(result, self.max_evidence, self.max_chars, keep=keep)
        asker = f"\nAsker: {result.scope.asker_name}" if result.scope.asker_name else ""
        note = f"\n{LIST_NOTE}" if listing else ""
        user = f"Question: {result.query}{note}{asker}\nLines:\n{shown.text}"
        if hint and not attribution and not listing:
            # the draft's words with its line: shown only "Likely line: n", the 0.5B model abstained
            # on the garage-code question its line answers (tests/llm/test_local_llm.py); the
            # system prompt asks for a few words, since the 1.5B model copied whole drafts back
            lines = [n for n, e in shown.entries.items() if e.id in hint[1]]
            where = f" (line {', '.join(map(str, lines))})" if lines else ""
            user += f"\nDraft answer: {_draft_shown(hint[0], 140)}{where}"
        system = TURN_SYSTEM if attribution else ANSWER_SYSTEM
        return [SystemMessage(system), HumanMessage(user)], shown

    def worth_asking(self, result: AgentResult, draft: tuple[str, list[str]] | None) -> bool:
        """Whether the LLM should read this question, given the offline reader's draft.

        Not when the draft is already the short span the question wants (a date, time, number,
        place or yes/no read by ``spans``): measured on LoCoMo dev, the small models turned
        "yesterday (7 May 2023)" back into "yesterday" and cost 40–50 s doing it. Not when the
        offline reader found nothing: on the same 24 dev questions the 0.5B model then answered
        every adversarial question ("a local church" where the gold is "not mentioned") and
        recovered no answerable one. So the LLM reads the questions whose draft is a sentence, and
        those without a draft that are about named people (or the asker: ``asked_about``): its
        answer must then rest on a turn by or about them (``answer._rests_on_asked``), which is what
        the adversarial answers failed ("What did Melanie make for a local church?" from Caroline's
        own painting). On the household tune set 4 of the LLM's 6 misses were such questions ("What
        drink do I like best?"); asked, the 1.5B model answered 3 of them right."""
        if draft is None:
            return bool(result.evidence) and bool(
                asked_about(result.reading, result.scope.asker, result.scope.asker_name)
            )
        if wanted_shape(result.query) is None:
            return True
        cited = [e.evidence for e in result.evidence if e.id in draft[1]]
        quoted = any(draft[0].startswith(f"{_person(ev.speaker)}: ") for ev in cited if ev.speaker)
        return quoted or len(draft[0]) > MAX_ANSWER_CHARS

    def _model(self, reply: Reply, max_tokens: int = MAX_TOKENS) -> Any:
        """The chat model constrained to the ``reply``'s shape and length, where the server allows."""
        provider = self.endpoint.provider if self.endpoint else None
        extra = {"max_tokens": max_tokens} if provider in ("local", "openai") else {}
        return constrain(self.chat_model, self.endpoint, reply.schema, grammar=reply.grammar, **extra)

    def _invoke(self, messages: list[BaseMessage], reply: Reply, max_tokens: int = MAX_TOKENS) -> str:
        model = self._model(reply, max_tokens)
        try:
            for attempt in Retrying(
                retry=retry_if_exception(_is_connection_error),
                stop=stop_after_attempt(self.connect_attempts),
                wait=wait_exponential(multiplier=0.5, max=4),
                reraise=True,
            ):
                with attempt:
                    start = time.perf_counter()
                    reply = model.invoke(messages)
                    self.seconds += time.perf_counter() - start
                    self.calls += 1
        except Exception as exc:
            if _names(exc) & _TIMEOUTS:
                raise ReaderTimeout(
                    f"the LLM ({self.describe()}) did not reply within the timeout (VOXMEM_LLM_TIMEOUT_S)"
                ) from exc
            if _is_connection_error(exc):
                raise LLMUnavailable(
                    f"the LLM ({self.describe()}) does not answer after {self.connect_attempts} attempts: "
                    f"{type(exc).__name__}. Start it with `voxmem llm up` or set VOXMEM_LLM_PROVIDER=none."
                ) from exc
            raise
        usage = getattr(reply, "usage_metadata", None) or {}
        self.tokens.append((int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))))
        content = getattr(reply, "content", reply)
        return content if isinstance(content, str) else json.dumps(content)

    def _ask(
        self, messages: list[BaseMessage], reply: Reply, parse: Any, max_tokens: int = MAX_TOKENS
    ) -> Any:
        """One call, and one repair turn quoting why the first reply was rejected."""
        text = self._invoke(messages, reply, max_tokens)
        try:
            return parse(text)
        except ReaderError as first:
            repair = [
                *messages,
                AIMessage(text),
                HumanMessage(f"Rejected: {first}. Reply with the JSON object only."),
            ]
            text = self._invoke(repair, reply, max_tokens)
            try:
                return parse(text)
            except ReaderError as second:
                raise ReaderError(f"{second} (after one repair)") from second

    def read(
        self,
        result: AgentResult,
        attribution: bool = False,
        hint: tuple[str, list[str]] | None = None,
    ) -> Outcome:
        """Answer (``hint``: the offline reader's answer, shown as a draft) or, for attribution,
        pick the turn. Failures and timeouts become notes (the caller falls back to the offline
        answer); only an unreachable *configured* LLM raises :class:`LLMUnavailable` (503)."""
        start = time.perf_counter()
        try:
            chosen = self.attribute(result) if attribution else self.answer(result, hint)
        except ReaderTimeout as exc:
            return Outcome(None, True, [f"LLM timed out: {exc}"])
        except LLMUnavailable as exc:
            if self.required:
                raise
            return Outcome(None, True, [f"LLM skipped: {exc}"])
        except ReaderError as exc:
            return Outcome(None, True, [f"LLM reply rejected: {exc}"])
        except Exception as exc:  # e.g. HTTP 500 from the server: degrade, named as such
            return Outcome(None, True, [f"LLM failed: {type(exc).__name__}: {str(exc)[:160]}"])
        spent = time.perf_counter() - start
        note = f"LLM reader: {self.describe()}, {spent:.1f} s"
        if attribution and chosen:
            note += "; the LLM picked the turn, the person is read from SPEAKS/ADDRESSES"
        elif hint and chosen:
            note += "; kept the offline draft" if chosen[0] == hint[0] else "; the offline draft was shown"
        return Outcome(chosen, False, [note])

    def answer(
        self, result: AgentResult, hint: tuple[str, list[str]] | None = None
    ) -> tuple[str, list[str]] | None:
        """``(answer, evidence ids)``, or None when the evidence does not support an answer."""
        if not result.evidence:
            return None
        messages, shown = self.prompt(result, hint=hint)
        listing = shown.listing
        shape = (list(shown.entries), LIST_LINES, LIST_ANSWER_CHARS) if listing else (list(shown.entries),)
        reply = Reply(answer_schema(*shape), answer_grammar(*shape))
        draft = hint[0] if hint else None
        parsed = self._ask(
            messages,
            reply,
            lambda text: parse_answer(text, shown.entries, draft),
            LIST_TOKENS if listing else MAX_TOKENS,
        )
        if parsed is None:
            return None
        answer, numbers = parsed
        if hint and _kept(answer, hint[0]):
            return hint  # the draft copied (maybe cut at the answer's length cap)
        if restates(answer, result.query):
            # no better than the draft; without one, no answer: asked "What kind of impact does
            # Joanna hope to have with her painting?" (LoCoMo adversarial, nothing drafted), the
            # 1.5B model answered "impact"
            return hint
        # small models cite every line they were shown; keep the cited turns that hold the answer,
        # and when none does, not even as the day it was said ("29 January 2023" from the day of
        # the turn), the shown line that does and says most of the question: the words came from
        # there, so the answer is judged on it (asked what Caroline does during her pottery break,
        # the 1.5B model answered "painting" from Melanie's line and cited Caroline's, which passed
        # as hers; re-cited to every line saying "painting", it passed on Caroline's own)
        grounded = [n for n in numbers if _holds(answer, shown.entries[n])]
        if not grounded and not any(_said_on(answer, shown.entries[n]) for n in numbers):
            holders = [n for n, e in shown.entries.items() if _holds(answer, e)]
            grounded = holders if listing else _source_lines(answer, holders, shown, result)
        grounded = grounded or numbers
        if hint:
            answer = widened(answer, result.query, [e for e in result.evidence if e.id in hint[1]])
        # a relative time copied without its reading ("last year") means nothing later: resolved
        # against the day the (first) cited turn was said, as the lines showed it
        answer = with_dates(answer, day_of(shown.entries[grounded[0]].evidence.ts))
        ids = [shown.entries[n].id for n in grounded]
        others = [e for n, e in shown.entries.items() if n not in grounded]
        answer, namer = completed(answer, [*(shown.entries[n] for n in grounded), *others], result.query)
        if namer is not None and namer.id not in ids:
            ids.append(namer.id)  # the name came from that line
        return answer, ids

    def attribute(self, result: AgentResult) -> tuple[str, list[str]] | None:
        """Who said / to whom: the model picks the turn, the graph names the person."""
        kind = result.reading.kind
        if kind not in ATTRIBUTION_KINDS or not result.evidence:
            return None
        messages, shown = self.prompt(result, attribution=True)
        reply = Reply(schema=turn_schema(list(shown.entries)))
        n = self._ask(messages, reply, lambda text: parse_turn(text, shown.entries))
        if n is None:
            return None
        ev = shown.entries[n].evidence
        if kind == "who_said":  # a stage direction's label said nothing (text.narration)
            return (_person(ev.speaker), [ev.id]) if ev.speaker and not narration(ev.text) else None
        if not ev.addressees:  # no ADDRESSES edge: the graph does not know, so neither do we
            return None
        names = [_person(a) for a in ev.addressees]
        text = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        return text, [ev.id]
