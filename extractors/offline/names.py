"""Names heard in a turn: self-introductions, corrections and vocatives (people addressed by name).

Why patterns: in speech people name themselves in a handful of fixed ways ("I'm Maya",
"this is Maya", "call me Kate", "actually it's Katherine") and name others mostly as
vocatives at the edges of a sentence ("Thanks, Tom." "Dad, can we…" "…, Mel?"). A
capitalised word is only taken for a new name when it is not a common word; names the
window already knows are matched case-insensitively (and by prefix, "Mel" → "Melanie").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from voxmem.extractors.name_lexicon import not_a_name
from voxmem.extractors.naming import plausible_new_name
from voxmem.extractors.offline.lexicon import GROUP_WORDS, KINSHIP, PERSON_NOUNS, ROLES

# One word of a name: a capitalised Latin word ("Maya", "José") or a word in a script without
# case ("李雷", "محمد") or starting with a non-Latin capital ("Иван"); up to two words ("Wei 王").
_NAME_WORD = r"(?:[A-Z](?:[a-z'’-]|[^\W\d_A-Za-z])+|(?![A-Za-z])[^\W\d_](?:[^\W\d_A-Za-z]|['’-])*)"
_NAME = r"(" + _NAME_WORD + r"(?: " + _NAME_WORD + r")?)"
# "my son's name is Jamie" names the son: a bare "name is" only counts at a clause start.
_SELF_STRONG = re.compile(
    r"(?:\b(?i:my name is|my name's|the name's)|(?:^|[.!?,]\s*)(?i:name is))\s+" + _NAME + r"(?!['’]s)\b"
)
_SELF_IM = re.compile(
    r"(?:^|[.!?,]\s*|\b(?:hi|hello|hey),?\s+)(?:(?i:and),?\s+)?"  # "And I'm Sheila in Texas"
    r"(?:I'm|I am|I’m)(?:,?\s+(?:uh|um|er|erm|ah)\b,?)?\s+" + _NAME + r"(?!['’]s)\b"
)
# "It's London, baby!" is a place: "it's X" followed by a comma and more talk is not taken
# (FriendsQA tune episodes); "it's X here/speaking", "it's X." and "this is X, …" still are, and
# so is "this is X in/from <Place>" (the real pyannote call: "This is Diane in New Jersey.").
_SELF_THIS = re.compile(
    r"(?i:^(?:(?:hi|hello|hey|yes|yeah)[,!]?\s+)?(?:this is|it's|it is|it’s)\s+)" + _NAME + r"(?!['’]s)"
    r"(?i:\s*(?:(?:here|speaking)\s*(?:[.!,]|$)|[.!]|$))(?!\s*my\b)"
)
_SELF_THIS_IS = re.compile(
    r"(?i:^(?:(?:hi|hello|hey|yes|yeah)[,!]?\s+)?this is\s+)"
    + _NAME
    + r"(?!['’]s)(?:\s*,|\s+(?i:in|from)\s+[A-Z])(?!\s*my\b)"
)
_CALL_ME = re.compile(r"\b(?:call me|calls me|called me)\s+" + _NAME)
_CORRECTION = [
    re.compile(
        r"(?i:\b(?:actually|no|sorry|correction)[,.!]?\s+(?:it's|it is|i'm|i am|my name is|it’s)\s+)" + _NAME
    ),
    re.compile(r"\b(?:I'm|I am|it's|it’s) not [A-Z][a-z'-]+[,;]? (?:I'm|I am|it's|it’s) " + _NAME),
    re.compile(r"\b(?:it's|it is|I'm|I am|it’s) " + _NAME + r",? not [A-Z][a-z'-]+\b"),
]
_CUES = (
    r"hey|hi|hello|thanks|thank you|thanks a lot|ok|okay|so|well|sorry|yes|no|yeah|yep|morning|good morning|"
    r"good night|night|bye|goodbye|see you|excuse me|oh|dear|come on|listen|look|right|sure|please|great|"
    r"congrats|congratulations|wow|ah|cheers|welcome|good to see you|nice to meet you"
)
_START = re.compile(
    r"^\s*(?:(" + _CUES + r")[,!.]?\s+)?([^\W\d_][\w'’-]*(?: [A-Z][\w'’-]*)?)\s*([,!?:]|$)", re.I
)
_END = re.compile(r",\s*(?:my )?(?:dear )?([^\W\d_][\w'’-]*(?: [A-Z][\w'’-]*)?)\s*[.!?]*\s*$")
# ", Leo, your mother…": a name between commas inside a sentence (ASR often joins sentences
# with commas, so "…vegetarian, Leo. Your mother…" arrives this way). Not in a list of names.
_MID = re.compile(r"(?<![A-Z][a-z'’-]),\s+([A-Z][a-z'’-]+)\s*,(?!\s*(?:and|or|&)\b)")
# Thanking or greeting someone by name right after they spoke ("Thanks, Tom.") says who spoke.
# Reactions ("Yeah, Susan." "Wow, he's cute, Pheebs!" "Right, Tom…") do not: in multi-party
# talk they as often turn to a third person (FriendsQA, speakers hidden: with reactions counted
# as thanks 390 turns were named right and 391 wrong; without, 462 right and 308 wrong; the
# generated sets did not move).
_THANKS = re.compile(
    r"^(?:thanks|thank you|good point|congrats|congratulations|cheers|good to see you|nice to meet you)\b",
    re.I,
)
_SENTENCES = re.compile(r"[^.!?]+[.!?]*")

# A mention is not an address. "Our neighbour, Dave, must never hear about this." names Dave
# in apposition to a person noun and makes him the subject of the sentence: Dave is talked
# *about*, and treating him as an addressee would give him the session (participant policy)
# and show him the sentence (private policy). Three shapes give a name away as a mention:
_PERSON_NP = (
    r"(?:my|our|your|his|her|their|the|a|an|this|that)\s+(?:[a-z'’-]+\s+){0,2}(?:"
    + "|".join(sorted((re.escape(n) for n in PERSON_NOUNS), key=len, reverse=True))
    + r")s?"
)
# 1. right after a person noun phrase: "our neighbour, Dave", "my older brother, Tom"
_AFTER_PERSON_NP = re.compile(r"\b" + _PERSON_NP + r"\s*,\s*$", re.I)
# 2. followed by its own appositive: "Dave, our neighbour, …", "Dave, who lives upstairs, …"
_APPOSITIVE_AFTER = re.compile(r"^\s*,\s*(?:" + _PERSON_NP + r"\s*,|who\b|whom\b|whose\b)", re.I)
# 3. followed by a predicate, so the name is the sentence's subject ("…, Dave, must never…"),
#    unless the verb opens a question to the named person ("Dave, can you…", "Dave, is that you?")
_PREDICATE_AFTER = re.compile(
    r"^\s*,\s*(?:(?:must|will|would|can|could|should|shall|may|might|is|was|has|had|does|did|"
    r"won't|can't|cannot|wouldn't|couldn't|shouldn't|doesn't|didn't|isn't|wasn't|hasn't|mustn't)\b"
    r"(?!\s+(?:you|u|we|i|it|that|this|there|these|those|he|she|they|the|a|an|your|my|our|his|her|their|"
    r"not you|anyone|anybody|somebody|someone|everyone|everybody|all|both|y'all)\b)"
    r"|(?:said|says|told|tells|thinks|thought|knows|knew|wants|wanted|needs|likes|hates|came|went|"
    r"lives|works|called|asked)\b)",
    re.I,
)


def is_mention(sentence: str, start: int, end: int) -> bool:
    """True when the name at ``sentence[start:end]`` is talked about, not called: in apposition
    to a person noun ("our neighbour, Dave"), carrying its own appositive ("Dave, my brother,")
    or the subject of what follows ("…, Dave, must never hear…")."""
    before, after = sentence[:start], sentence[end:]
    return bool(
        _AFTER_PERSON_NP.search(before) or _APPOSITIVE_AFTER.match(after) or _PREDICATE_AFTER.match(after)
    )


@dataclass(frozen=True)
class Vocative:
    """A word used to address someone: a name, a kinship/role term or a group word."""

    term: str
    kind: str  # name | kinship | role | group
    cue: str  # thanks (reply-like) | question | plain
    position: str  # start | middle | end


@dataclass(frozen=True)
class SelfName:
    name: str
    kind: str  # self_intro | correction
    alias: bool
    confidence: float


def _clean(term: str) -> str:
    return term.strip().strip("'’").replace("’", "'")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.findall(text) if s.strip()]


def self_names(text: str) -> list[SelfName]:
    """Names the speaker gives themself, strongest evidence first."""
    found: list[SelfName] = []
    for pattern in _CORRECTION:
        for m in pattern.finditer(text):
            if plausible_new_name(m.group(1)):
                found.append(SelfName(_clean(m.group(1)), "correction", False, 0.95))
    if found:
        return found[:1]
    for pattern, conf in ((_SELF_STRONG, 0.95), (_SELF_THIS, 0.85), (_SELF_THIS_IS, 0.85), (_SELF_IM, 0.85)):
        intro = pattern.search(text)
        if intro and plausible_new_name(intro.group(1)):
            found.append(SelfName(_clean(intro.group(1)), "self_intro", False, conf))
            break
    call_me = _CALL_ME.search(text)
    if (
        call_me
        and plausible_new_name(call_me.group(1))
        and not re.search(r"\b(?:he|she|they|people) calls? me\b", text, re.I)
    ):
        found.append(SelfName(_clean(call_me.group(1)), "self_intro", True, 0.9))
    return found


# A word written in lower case: a common word ("push", "lights"), never a name.
_LOWER_WORD = re.compile(r"(?<![\w'’-])[a-z][a-z'’-]*")


def _classify(term: str, known: set[str], common: frozenset[str]) -> str | None:
    """What ``term`` is as a vocative. ``common`` holds the words the turn writes in lower case: a
    name is capitalised wherever it is written, so a new name the same turn also writes in lower
    case is a common word capitalised by its place at a sentence start ("Push, push!", "Knock,
    knock.", "Lights! Less lights!"). On FriendsQA tune episodes (speakers hidden) such words made
    name-only placeholders and a rival vote ("Salmon!!") that kept a voice unnamed: 246 / 106 ->
    270 / 106 right / wrong turns (docs/memory.md, "Names are name-shaped, 2 December (N2)"). The
    cost: a new name that is also a word, written both ways ("Will, will you…"), is not taken
    until it is known. A new name is also refused when the public lexicons say it is a frequent
    English word or a place and no given name (``name_lexicon.not_a_name``: "Passport, check!",
    "Condoms, dude!"). A name the window knows is not questioned."""
    low = term.lower()
    if low in GROUP_WORDS or low in ("all", "both"):
        return "group"
    if low in KINSHIP:
        return "kinship"
    if low in ROLES:
        return "role"
    if low in known or any(k.startswith(low) and len(low) >= 3 for k in known):
        return "name"
    if (
        plausible_new_name(term)
        and not common.intersection(low.replace("’", "'").split())
        and not not_a_name(term)
    ):
        return "name"
    return None


def vocatives(text: str, known_names: set[str]) -> list[Vocative]:
    """Vocatives at the start or end of each sentence; ``known_names`` are lower-case."""
    found: list[Vocative] = []
    common = frozenset(w.replace("’", "'") for w in _LOWER_WORD.findall(text))
    for sentence in sentences(text):
        question = sentence.rstrip().endswith("?")
        m = _START.match(sentence)
        if m:
            cue_word, term, punct = m.group(1), _clean(m.group(2)), m.group(3)
            # "Tom went home." is not a vocative: a bare start needs a comma/!/?/: after the name.
            if cue_word or punct:
                kind = _classify(term, known_names, common)
                if kind == "name" and is_mention(sentence, m.start(2), m.end(2)):
                    kind = None
                if kind:
                    cue = (
                        "thanks"
                        if cue_word and _THANKS.match(cue_word)
                        else ("question" if question else "plain")
                    )
                    if not cue_word and _THANKS.match(sentence):
                        cue = "thanks"
                    found.append(Vocative(term, kind, cue, "start"))
        m = _END.search(sentence)
        if m:
            term = _clean(m.group(1))
            kind = _classify(term, known_names, common)
            if kind == "name" and is_mention(sentence, m.start(1), m.end(1)):
                kind = None
            if kind and not any(v.term == term for v in found):
                cue = "thanks" if _THANKS.match(sentence) else ("question" if question else "plain")
                found.append(Vocative(term, kind, cue, "end"))
        for m in _MID.finditer(sentence):
            term = _clean(m.group(1))
            if any(v.term == term for v in found) or _mid_in_list(sentence, m):
                continue
            if is_mention(sentence, m.start(1), m.end(1)):
                continue
            kind = _classify(term, known_names, common)
            if kind in ("name", "kinship"):
                cue = "thanks" if _THANKS.match(sentence) else ("question" if question else "plain")
                # "Ahh, Pete, …": one word before the name (an interjection the cue list lacks)
                # opens the sentence as much as "Oh, Pete, …" does
                opening = len(sentence[: m.start()].split()) <= 1
                found.append(Vocative(term, kind, cue, "start" if opening else "middle"))
    return found


def _mid_in_list(sentence: str, m: re.Match[str]) -> bool:
    """ ", Maya, Leo and Tom": the word before the first comma is a capitalised name too."""
    before = sentence[: m.start()].split()
    return bool(before) and before[-1][:1].isupper() and plausible_new_name(before[-1].strip(",.!?"))


_GROUP_ANYWHERE = re.compile(
    r"\b(you all|y'all|you guys|all of you|both of you|you two|everyone|everybody)\b", re.I
)


def addresses_group(text: str) -> bool:
    """'you all', 'everyone'… anywhere, or a group vocative."""
    return bool(_GROUP_ANYWHERE.search(text))
