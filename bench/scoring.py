"""Scoring of benchmark answers, evidence and identity (pure functions, no I/O).

Why these rules:
* Attribution questions ("who said / to whom") have one right person, so they get exact
  match on the *set of people named* in the answer: naming the right person plus a wrong
  one is wrong, and extra words around the name are fine.
* Other answers are free text, so they get gold-answer containment (after normalising
  case, punctuation, articles and number words, so "twenty one degrees" matches the ASR's
  "21 degrees") and SQuAD-style token F1.
* Adversarial questions are right only when the answer abstains and does not repeat the
  trap (the answer the question's false premise invites).
* A second, reported-beside containment (``correct_person``) also folds personal pronouns to
  their grammatical person-less class on both sides (:func:`person_fold`): LoCoMo's golds
  restate a speaker's own turn in the third person ("To clear his mind" for Jon's "to clear my
  mind"), so an answer quoting the turn is right but misses the strict score. The strict score
  stays the headline; both are reported.
* A third, reported-beside containment (``correct_list``) accepts a list gold's items in any
  order (:func:`list_contains`): golds merged across sessions have an order no reader can know.
* Speaker routing gets accuracy under the best one-to-one mapping of predicted entities
  to gold speakers, plus B-cubed F1 (from ``bench.metrics``).
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from bench.cases import EVERYONE, QA
from voxmem.extractors.offline.temporal import MONTHS

ATTRIBUTION_TYPES = ("speaker_attribution", "addressee_attribution")

_UNITS = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
]  # fmt: skip
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_NUMBER_WORD = {w: i for i, w in enumerate(_UNITS)} | _TENS
_ARTICLES = {"a", "an", "the"}
_EVERYONE_WORDS = ("everyone", "everybody", "all of them", "all of you", "the whole group", "the group")
_ABSTAIN = re.compile(
    r"not mentioned|no information|not (?:been )?(?:stated|said|discussed|recorded|known|found)|"
    r"(?:do not|don't|cannot|can't|could not|couldn't) (?:know|find|tell|say|recall)|no record|"
    r"never (?:mentioned|said|stated|agreed)|unknown|no evidence|nothing (?:about|in)|"
    r"not in (?:the |my )?memory|no answer|there is no mention|isn't mentioned|wasn't mentioned|no one|nobody"
)


def _numbers_to_digits(tokens: list[str]) -> list[str]:
    """['twenty', 'one', 'degrees'] → ['21', 'degrees']; single words too ('five' → '5')."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if (
            word in _TENS
            and i + 1 < len(tokens)
            and tokens[i + 1] in _NUMBER_WORD
            and _NUMBER_WORD[tokens[i + 1]] < 10
        ):
            out.append(str(_TENS[word] + _NUMBER_WORD[tokens[i + 1]]))
            i += 2
            continue
        out.append(str(_NUMBER_WORD[word]) if word in _NUMBER_WORD and word != "one" else word)
        i += 1
    return out


_DASHES = re.compile(r"[\u2010-\u2015\u2212-]")
_CLOCK = re.compile(r"\b(\d{1,2})[:.](\d{2})\b")  # "7:20" / "7.20" → "720", as the ASR writes it
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")  # "1,000" → "1000"
_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")  # "7th May" → "7 May"
# "Ed Sheeran's" → "Ed Sheeran" (also FriendsQA's tokenised "Monica 's"): a possessive names the same
_POSSESSIVE = re.compile(r"\s?'s\b")
_ABBREVIATED = ("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sept", "sep", "oct", "nov", "dec")
_MONTH_ALT = "|".join([*MONTHS, *_ABBREVIATED])
# "August 9, 2022" / "Aug. 9th" → "9 august 2022" / "9 august"; "14September" → "14 september": one
# order for a day and its month on both sides, as "9 August 2022" is written in the other form
_MONTH_DAY = re.compile(rf"\b({_MONTH_ALT})\.?\s*(\d{{1,2}})(?:st|nd|rd|th)?\b(?!:)")
_DAY_MONTH_GLUED = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?({_MONTH_ALT})\b")
_MONTH_ABBREV = re.compile(rf"\b({_MONTH_ALT})\.?(?=\s*\d)")


def _month(name: str) -> str:
    """The full month name for a month or its abbreviation ("sept" → "september")."""
    return next(m for m in MONTHS if m.startswith(name[:3]))


def _date_order(text: str) -> str:
    """Dates in one form, day before month, months in full (``text`` is lower case)."""
    text = _MONTH_ABBREV.sub(lambda m: _month(m.group(1)) + " ", text)
    text = _MONTH_DAY.sub(lambda m: f"{m.group(2)} {_month(m.group(1))}", text)
    return _DAY_MONTH_GLUED.sub(lambda m: f"{m.group(1)} {_month(m.group(2))}", text)


def _join_spoken_numbers(tokens: list[str]) -> list[str]:
    """Digit groups an ASR splits, joined: "400 12" → "412", "4 100 12" (from "four hundred
    twelve") → "412", "2 thousand 5" → "2005". Only a round hundred/thousand absorbs a smaller
    number after it, so "10 20" or "2 12" stay apart."""
    out: list[str] = []
    for tok in tokens:
        prev = out[-1] if out else ""
        if tok in ("hundred", "thousand") and prev.isdigit():
            out[-1] = str(int(prev) * (100 if tok == "hundred" else 1000))
            continue
        if tok.isdigit() and prev.isdigit() and not prev.startswith("0"):
            p, t = int(prev), int(tok)
            round_to = 1000 if p % 1000 == 0 else 100 if p % 100 == 0 else 0
            if round_to and 0 < t < round_to and len(tok) < len(prev):
                out[-1] = str(p + t)
                continue
        out.append(tok)
    return out


def normalize(text: str) -> str:
    """Lower case, no punctuation or articles, number words as digits, single spaces.

    ASR forms fold to one spelling on both sides: possessives lose their "'s", dashes (em/en
    dashes glued to words included) become spaces, clock times lose their colon ("7:20" =
    "720"), thousands lose their comma, ordinals their suffix, and split spoken numbers are
    joined ("400 12" = "412"). Dates take one order, day then month in full ("August 9, 2022" =
    "9 Aug 2022" = "9 August, 2022"): the same day written two ways is the same answer.
    """
    text = str(text).lower().replace("’", "'")
    text = _POSSESSIVE.sub("", text)
    text = _date_order(text)
    text = _DASHES.sub(" ", text)
    text = _CLOCK.sub(r"\1\2", text)
    text = _THOUSANDS.sub("", text)
    text = text.translate(str.maketrans({c: " " for c in string.punctuation if c != "'"})).replace("'", "")
    text = _ORDINAL.sub(r"\1", text)
    tokens = [t for t in text.split() if t not in _ARTICLES]
    return " ".join(_join_spoken_numbers(_numbers_to_digits(tokens)))


def tokens(text: str) -> list[str]:
    return normalize(text).split()


def contains(prediction: str, gold: str) -> float:
    """1.0 when the normalised gold answer occurs in the normalised prediction (whole words)."""
    return _occurs(normalize(gold), normalize(prediction))


def _occurs(gold: str, prediction: str) -> float:
    """1.0 when the already normalised ``gold`` occurs in ``prediction`` as whole words (an empty
    gold never does): the one containment test behind :func:`contains` and its folded variant."""
    if not gold:
        return 0.0
    return 1.0 if re.search(rf"(?:^| ){re.escape(gold)}(?: |$)", prediction) else 0.0


# singular personal pronouns of every person and gender → one token; plural ones → another. Not
# merged with the singular class: "their" for a couple is not "her". "her" is both possessive and
# object, "you" singular and plural, so the classes are by number only, not by case.
_SINGULAR = {
    "i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself",
    "he", "him", "his", "himself", "she", "her", "hers", "herself",
}  # fmt: skip
_PLURAL = {"we", "us", "our", "ours", "ourselves", "they", "them", "their", "theirs", "themselves"}


def person_fold(normalised: str) -> str:
    """A normalised text with every personal pronoun replaced by its number class ("to clear my
    mind" = "to clear his mind" = "to clear your mind"; "our bond" = "their bond").

    Why: a question about a person is answered from that person's own turn ("I wanted to feel
    closer to a community and my faith") or a turn spoken to them ("Your positivity and
    determination"), while the gold restates it in the third person ("her faith", "His
    positivity"). Applied to both sides alike, so it only ever adds matches (a substring stays
    a substring); it can wrongly accept an answer whose pronoun names a different person ("my
    car" said by someone else), which the headline strict score never does. Checked on every
    answer in results/answers (offline reader): 10 of the 1,347 LoCoMo answers change, all quoting
    the asked person's own turn or a turn spoken to them; none of FriendsQA, Molweni or the
    household paraphrases change."""
    return " ".join("‹1›" if w in _SINGULAR else "‹n›" if w in _PLURAL else w for w in normalised.split())


def contains_person_folded(prediction: str, gold: str) -> float:
    """:func:`contains` after :func:`person_fold` on both sides."""
    return _occurs(person_fold(normalize(gold)), person_fold(normalize(prediction)))


def token_f1(prediction: str, gold: str) -> float:
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return float(p == g)
    common = sum((Counter(p) & Counter(g)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def named_people(answer: str, roster: Iterable[str]) -> set[str]:
    """Participants (and 'everyone') an answer names, matched on whole normalised words."""
    text = f" {normalize(answer)} "
    found = {name for name in roster if f" {normalize(name)} " in text}
    if any(f" {normalize(w)} " in text for w in _EVERYONE_WORDS):
        found.add(EVERYONE)
    return found


def attribution_exact(prediction: str, gold: str, roster: Sequence[str]) -> float:
    """1.0 only if the answer names exactly the gold person (or only 'everyone' for a group)."""
    named = named_people(prediction, [*roster, gold] if gold != EVERYONE else roster)
    if gold == EVERYONE:
        # Naming every other participant also counts as addressing everyone.
        return (
            1.0
            if named == {EVERYONE} or (EVERYONE not in named and len(named) >= max(2, len(roster) - 1))
            else 0.0
        )
    return 1.0 if named == {gold} else 0.0


def abstains(prediction: str) -> bool:
    return bool(_ABSTAIN.search(prediction.lower()))


def adversarial_correct(prediction: str, trap: str | None) -> float:
    if not abstains(prediction):
        return 0.0
    if trap and contains(prediction, trap):
        return 0.0
    return 1.0


@dataclass
class AnswerScore:
    exact: float | None  # attribution types only
    contains: float
    f1: float
    correct: float  # the headline per-question score: exact for attribution, containment otherwise
    # the same, also accepting a first name for a full-name gold the conversation never said in full
    correct_first_name: float | None = None
    # a list gold ("running, pottery"): the share of its items the answer contains; None otherwise
    items: float | None = None
    # ``correct``, with containment after person_fold on both sides (my/his/her, our/their); the
    # same as ``correct`` for attribution and adversarial questions
    correct_person: float | None = None
    # ``correct``, also right when the gold is a list and the answer contains every item in any
    # order (:func:`list_contains`); the same as ``correct`` for attribution and adversarial questions
    correct_list: float | None = None


def gold_items(gold: str) -> list[str]:
    """The items of a list answer ("Oliver, Luna and Bailey" → three), [] for a single answer.

    Why: containment asks for the whole list in the gold's order, which an answer gathered from
    several turns almost never matches; the share of items found says whether the gathering works."""
    parts = [p.strip() for p in re.split(r"[,;]|\band\b", gold) if normalize(p)]
    return parts if len(parts) >= 2 else []


def item_recall(prediction: str, gold: str) -> float | None:
    """Share of a list gold's items contained in the prediction; None for a single-item gold."""
    items = gold_items(gold)
    return sum(contains(prediction, i) for i in items) / len(items) if items else None


def list_contains(prediction: str, gold: str) -> float:
    """1.0 when the gold is a list (:func:`gold_items`) and the prediction contains every item, in
    any order; else strict :func:`contains`.

    Why: LoCoMo's list golds merge things a person said in different sessions ("Running, pottery")
    and strict containment wants them in the gold's order, which an answer gathered turn by turn
    need not follow. Every item must be there, so one of two things is still wrong, and a
    whole-turn answer gains only if it really holds every item. Implied by strict containment
    (each item is a piece of the gold), so it can only add matches; reported beside strict."""
    items = gold_items(gold)
    if items and all(contains(prediction, i) for i in items):
        return 1.0
    return contains(prediction, gold)


def first_name_only(name: str, conversation: str | None) -> str | None:
    """The first name of a multi-word name when ``conversation`` (all its text) never says the
    full name but does say the first: then memory can only ever know the first name, so an
    answer naming it is as right as the conversation allows. None otherwise."""
    parts = normalize(name).split()
    if len(parts) < 2 or conversation is None:
        return None
    said = f" {normalize(conversation)} "
    if f" {' '.join(parts)} " in said or f" {parts[0]} " not in said:
        return None
    return name.split()[0]


def _score(qa: QA, prediction: str, gold: str, roster: Sequence[str]) -> AnswerScore:
    if qa.type in ATTRIBUTION_TYPES:
        exact = attribution_exact(prediction, gold, roster)
        return AnswerScore(exact, contains(prediction, gold), token_f1(prediction, gold), exact)
    if qa.type == "adversarial":
        ok = adversarial_correct(prediction, qa.meta.get("trap_answer"))
        return AnswerScore(None, ok, max(ok, token_f1(prediction, gold)), ok)
    hit = contains(prediction, gold)
    return AnswerScore(
        None,
        hit,
        token_f1(prediction, gold),
        hit,
        items=item_recall(prediction, gold),
        correct_person=max(hit, contains_person_folded(prediction, gold)),
        correct_list=list_contains(prediction, gold),
    )


def score_answer(
    qa: QA, prediction: str, roster: Sequence[str], conversation: str | None = None
) -> AnswerScore:
    """Score one answer by the rules of its question type.

    ``correct`` is strict (the gold as written). ``correct_first_name`` also accepts, for every
    full name in the gold or roster that ``conversation`` only ever said by its first name, that
    first name (see :func:`first_name_only`); ``correct_person`` accepts a pronoun of another
    person or gender for the gold's (see :func:`person_fold`); all are reported, never merged.
    """
    prediction = prediction or ""
    strict = _score(qa, prediction, qa.answer, roster)
    lenient_roster = [first_name_only(n, conversation) or n for n in roster]
    lenient_gold = qa.answer
    for name in {qa.answer, *roster}:
        short = first_name_only(name, conversation)
        if short and normalize(name) in normalize(lenient_gold):
            lenient_gold = re.sub(re.escape(name), short, lenient_gold, flags=re.I)
    lenient = _score(qa, prediction, lenient_gold, lenient_roster)
    strict.correct_first_name = max(strict.correct, lenient.correct)
    if strict.correct_person is None:  # attribution, adversarial: pronouns name no answer there
        strict.correct_person = strict.correct
    if strict.correct_list is None:  # attribution, adversarial: no list to gather
        strict.correct_list = strict.correct
    return strict


def recall_at_k(gold: Sequence[str], retrieved: Sequence[str], k: int) -> float | None:
    """Share of gold evidence ids among the first k retrieved; None when there is no gold."""
    if not gold:
        return None
    top = set(retrieved[:k])
    return sum(1 for g in set(gold) if g in top) / len(set(gold))


def routing_accuracy(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Turns whose predicted entity maps to their gold speaker under the best one-to-one map.

    The map is the assignment maximising agreement (Hungarian via scipy when available,
    else greedy by overlap), so extra fragments of a speaker count as errors.
    """
    if len(gold) != len(pred):
        raise ValueError("gold and pred must have the same length")
    if not gold:
        return 1.0
    g_labels = sorted(set(gold))
    p_labels = sorted(set(pred))
    overlap = np.zeros((len(p_labels), len(g_labels)))
    gi = {g: i for i, g in enumerate(g_labels)}
    pi = {p: i for i, p in enumerate(p_labels)}
    for g, p in zip(gold, pred, strict=True):
        overlap[pi[p], gi[g]] += 1
    try:
        from scipy.optimize import linear_sum_assignment

        rows, cols = linear_sum_assignment(-overlap)
        matched = overlap[rows, cols].sum()
    except ImportError:  # greedy fallback
        matched, used_r, used_c = 0.0, set(), set()
        for r, c in sorted(np.ndindex(overlap.shape), key=lambda rc: -overlap[rc]):
            if r not in used_r and c not in used_c:
                matched += overlap[r, c]
                used_r.add(r)
                used_c.add(c)
    return float(matched / len(gold))


def b_cubed_f1(gold: Sequence[str], pred: Sequence[str]) -> tuple[float, float, float]:
    """B-cubed precision, recall, F1 (the voice engineer's implementation, one definition)."""
    from bench.metrics import b_cubed

    return b_cubed(gold, pred)


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank-free linear percentile (numpy's default); None for no values."""
    if not values:
        return None
    return float(np.percentile(np.asarray(values, dtype=float), q))


def mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None and not math.isnan(v)]
    return sum(kept) / len(kept) if kept else None
