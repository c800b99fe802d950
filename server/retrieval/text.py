"""Small text helpers shared by the planner, fusion and answerers (no model, no I/O)."""

from __future__ import annotations

import re

from voxmem.extractors.offline.lexicon import IRREGULAR_PAST
from voxmem.stopwords import QUESTION_STOP_WORDS
from voxmem.stores.messages import lucene_query

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")
# Words that open a noun phrase: a word after one is a thing, not a name ("the mark's edge"), and the
# describing word after one belongs to the noun ("a detailed spreadsheet")
DETERMINERS = frozenset(
    {"a", "an", "the", "this", "that", "these", "those", "some"}
    | {"my", "your", "his", "her", "its", "our", "their"}
)
# Where one sentence of a turn ends and the next begins: the readers' unit (the sentence that
# matches a question, the one next to it, a greeting-only aside).
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")

# British → American spellings of common words. Why: the ASR (Whisper) writes American
# spelling ("favorite") while people type and benchmarks write British ("favourite"); without
# folding, a question about a "favourite drink" shares no keyword with the spoken turn.
_UK_US = {
    "favourite": "favorite",
    "favourites": "favorites",
    "favour": "favor",
    "colour": "color",
    "colours": "colors",
    "flavour": "flavor",
    "flavours": "flavors",
    "neighbour": "neighbor",
    "neighbours": "neighbors",
    "honour": "honor",
    "humour": "humor",
    "behaviour": "behavior",
    "centre": "center",
    "theatre": "theater",
    "metre": "meter",
    "metres": "meters",
    "litre": "liter",
    "litres": "liters",
    "organise": "organize",
    "organised": "organized",
    "realise": "realize",
    "realised": "realized",
    "recognise": "recognize",
    "apologise": "apologize",
    "cancelled": "canceled",
    "travelled": "traveled",
    "travelling": "traveling",
    "programme": "program",
    "grey": "gray",
    "pyjamas": "pajamas",
    "cheque": "check",
    "tyre": "tire",
    "tyres": "tires",
}
_US_UK: dict[str, list[str]] = {}
for _uk, _us in _UK_US.items():
    _US_UK.setdefault(_us, []).append(_uk)


def words(text: str) -> list[str]:
    """Lower-cased word tokens (apostrophes kept inside words)."""
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def split_sentences(text: str) -> list[str]:
    """The sentences of a turn (:data:`SENTENCE_BREAK`), stripped, empty ones dropped."""
    return [s.strip() for s in SENTENCE_BREAK.split(text) if s.strip()]


_CLOSING = {"(": ")", "[": "]", "{": "}"}


# How answers and the LLM's evidence lines show a stage direction: what it tells, no speaker before it
STAGE_DIRECTION = "(stage direction)"


def narration(text: str) -> bool:
    """Whether a turn is a transcript's stage direction or annotation rather than speech: the whole
    turn sits in one pair of brackets ("[ Scene : Monica's apartment . Richard and Monica are in
    bed . ]", "( Ross leaves . )", "[laughs]"), or opens one that never closes. Subtitles,
    screenplays and meeting transcripts write what happens this way, under a narrator's label
    (FriendsQA's "#NOTE#") or the actor's; a bracket that closes before words follow ("( to Ross )
    Hi !") is a direction inside speech, which stays speech.

    Why: its label said nothing, so a reader must not quote it as someone's words nor answer "who
    said …" with its label; the people it names are who did what it tells."""
    told = text.strip()
    if not told or told[0] not in _CLOSING:
        return False
    opening, closing, depth = told[0], _CLOSING[told[0]], 0
    for i, ch in enumerate(told):
        depth += (ch == opening) - (ch == closing)
        if depth == 0:
            return not told[i + 1 :].strip(" .!?")
    return True


def content_words(text: str) -> list[str]:
    """Words that carry meaning: stop words and one-letter tokens dropped, order kept, no repeats;
    British spellings folded to American ones (the ASR's)."""
    seen: dict[str, None] = {}
    for word in words(text):
        base = word.split("'")[0]
        if len(base) > 1 and base not in QUESTION_STOP_WORDS and word not in QUESTION_STOP_WORDS:
            seen.setdefault(_UK_US.get(base, base), None)
    return list(seen)


def stem(word: str, irregular: bool = True) -> str:
    """A crude stem so that "watering" meets "water", "tomatoes" meets "tomato" and "found" meets
    "find" (:data:`~voxmem.extractors.offline.lexicon.IRREGULAR_PAST`; not with ``irregular``
    False)."""
    word = word.lower().replace("’", "'").split("'")[0]
    if irregular:
        word = IRREGULAR_PAST.get(word, word)
    if len(word) > 4:
        word = re.sub(r"(?:ing|ed|es|s)$", "", word)
    return word[:5]


def only_asked(text: str, question: str, ignore: set[str] | frozenset[str] = frozenset()) -> bool:
    """Whether every content word of ``text`` (those in ``ignore`` aside) is one of the
    question's, by :func:`stem` ("The book Caroline recommended to Melanie" for "What book did
    Caroline recommend to Melanie?"); False when nothing is left. The one test behind both
    readers' "it only restates the question" (the offline reader's matched line, the LLM's
    answer); each caller adds its own exceptions."""
    said = {stem(w) for w in content_words(text) if w not in ignore}
    return bool(said) and said <= {stem(w) for w in content_words(question)}


def spellings(word: str) -> list[str]:
    """A folded content word and its British spellings, for searching stored text as written."""
    return [word, *_US_UK.get(word, [])]


def keyword_terms(text: str) -> list[str]:
    """The content words of ``text`` in every spelling: the words of a keyword (BM25) search."""
    return [variant for word in content_words(text) for variant in spellings(word)]


def keyword_lucene(text: str) -> str | None:
    """A Lucene OR-query of the content words of ``text`` (in every spelling), or None when
    nothing is left."""
    terms = keyword_terms(text)
    if not terms:
        return None
    return lucene_query(" ".join(terms))


def phrase_lucene(quote: str) -> str | None:
    """A Lucene query that prefers the exact phrase but also accepts its words."""
    terms = words(quote)
    if not terms:
        return None
    escaped = lucene_query(" ".join(terms)).split(" OR ")
    phrase = " ".join(escaped)
    return f'"{phrase}"^4 OR ' + " OR ".join(escaped)


def normalise(text: str) -> str:
    """Lower case, punctuation folded to spaces, single spaces: for answer-in-evidence checks."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", str(text).lower()).split())
