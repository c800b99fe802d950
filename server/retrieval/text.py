"""Small text helpers shared by the planner, fusion and answerers (no model, no I/O)."""

from __future__ import annotations

import re

from voxmem.messages import lucene_query

_STOPWORD_TEXT = (
    "a about above after again against all am an and any are as at be because been before being below "
    "between both but by can could did do does doing down during each few for from further had has have "
    "having he her here hers herself him himself his how i if in into is it its itself just me more most "
    "my myself no nor not now of off on once only or other our ours ourselves out over own same she "
    "should so some such than that the their theirs them themselves then there these they this those "
    "through to too under until up very was we were what when where which while who whom whose why will "
    "with would you your yours yourself yourselves ever also did does said say says tell told ask asked "
    "anything something thing things gon na n't 's 're 'm 've 'll 'd talking speaking talk speak talked "
    "spoke mentioned mention mentions saying"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")


def words(text: str) -> list[str]:
    """Lower-cased word tokens (apostrophes kept inside words)."""
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def content_words(text: str) -> list[str]:
    """Words that carry meaning: stop words and one-letter tokens dropped, order kept, no repeats."""
    seen: dict[str, None] = {}
    for word in words(text):
        base = word.split("'")[0]
        if len(base) > 1 and base not in STOPWORDS and word not in STOPWORDS:
            seen.setdefault(base, None)
    return list(seen)


def keyword_lucene(text: str) -> str | None:
    """A Lucene OR-query of the content words of ``text``, or None when nothing is left."""
    terms = content_words(text)
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
