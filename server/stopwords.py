"""The stop-word lists, in one place: three lists because three jobs need different ones.

Each list decides which words carry no meaning *for its job*; merging them would change what
search, question reading and fact extraction do (and their measured numbers):

- :data:`SEARCH_STOP_WORDS`: function words dropped from a full-text (Lucene OR) query. Lucene's
  standard analyser keeps stop words, so an OR on "the" or "who" would rank every message that
  has one. Kept short: a content word dropped here can never be searched for.
- :data:`QUESTION_STOP_WORDS`: the search list plus the words a *question* is made of but does
  not ask about ("tell", "said", "talking", "anything", contractions, negated auxiliaries with and
  without their apostrophe). The planner and the
  answerers read the remaining words as the question's keywords.
- :data:`SENTENCE_FILLER_WORDS`: what a spoken *sentence* may be full of and still say nothing
  ("yeah", "um", "like", "really", "going", pronouns, auxiliaries). The offline fact extractor
  counts the other words to decide whether a sentence states something. Question words ("who",
  "when", "where") are deliberately absent: a statement with them still says something.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    """Word lists read best as running text; any white space separates words."""
    return frozenset(text.split())


SEARCH_STOP_WORDS = _words(
    """a an and are as at be but by do does did for from had has have he her his i if in
into is it its me my of on or our she so that the their them there they this to was we were what when where
which who whom why will with you your"""
)

# Negated auxiliaries, generated so each is written once: "doesn't", "didn't", "won't" ... and the
# forms the ASR writes without the apostrophe ("doesnt", "didnt"). Why listed whole: a reader keeps
# the part of a word before its apostrophe ("doesn" of "doesn't"), which is no stop word, so "Why
# doesn't Tom ..." searched for "doesn"; and "won't"/"can't" are not their auxiliary plus "n't".
_AUXILIARIES = _words("do does did is are was were has have had could would should must need might")
_NEGATED = {f"{aux}n't" for aux in _AUXILIARIES} | {"won't", "can't", "shan't", "ain't"}
_NEGATED_AUXILIARIES = frozenset(_NEGATED | {word.replace("'", "") for word in _NEGATED})

QUESTION_STOP_WORDS = (
    SEARCH_STOP_WORDS
    | _NEGATED_AUXILIARIES
    | _words(
        """about above after again against all am any because been before being below between both can could
doing down during each few further having here hers herself him himself how itself just more most myself no
nor not now off once only other ours ourselves out over own same should some such than theirs themselves
then these those through too under until up very while whose would yours yourself yourselves ever also
said say says tell told ask asked anything something thing things gon na n't 's 're 'm 've 'll 'd talking
speaking talk speak talked spoke mentioned mention mentions saying"""
    )
)

SENTENCE_FILLER_WORDS = _words(
    """i me my we our us you your he she it they them the a an and or but so to of in on at for with is am
are was were be been have has had do does did not that this there what just really very too also it's i'm
much will would can could should get got go going like know think yeah oh lol haha um uh well"""
)
