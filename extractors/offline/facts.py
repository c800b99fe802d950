"""Facts and profile attributes from one turn: third person, names resolved, slots for updates.

Why rewrite rather than summarise: without an LLM the safest self-contained fact is the
speaker's own sentence with "I/my/you" replaced by names and verbs agreed ("I love
hiking" → "Maya loves hiking"), so nothing is invented. Slots (checkout time, room,
diet, drink…) give the writer a key for supersession; a sentence that matches no slot is
still a fact, it just never supersedes another one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from voxmem.extractors.offline.lexicon import IRREGULAR_PAST, RELATION_NOUNS
from voxmem.extractors.offline.names import sentences
from voxmem.extractors.offline.temporal import MONTHS, WEEKDAYS
from voxmem.stopwords import SENTENCE_FILLER_WORDS

_ADVERBS = (
    "really|also|just|usually|always|never|still|actually|recently|finally|often|sometimes|totally|"
    "definitely|absolutely|kinda|even|already|mostly|generally|normally|truly|honestly|now|currently|"
    "only|rarely|probably|mainly|especially"
)
_IRREGULAR_3SG = {"have": "has", "do": "does", "go": "goes", "am": "is", "are": "is", "be": "is"}
# Forms _third_person leaves as they are: every irregular past (the lexicon's table), the pasts
# that table does not stem, modals and negations.
_PAST_OR_MODAL = set(IRREGULAR_PAST) | {
    "can",
    "can't",
    "could",
    "couldn't",
    "cut",
    "did",
    "didn't",
    "had",
    "hadn't",
    "haven't",
    "hit",
    "hurt",
    "let",
    "may",
    "might",
    "must",
    "need",
    "ought",
    "put",
    "quit",
    "read",
    "said",
    "sat",
    "set",
    "shall",
    "should",
    "shouldn't",
    "slept",
    "used",
    "was",
    "wasn't",
    "were",
    "will",
    "woke",
    "won't",
    "would",
    "wouldn't",
}
_CONTRACTIONS = [
    (r"\bI'm\b", "I am"),
    (r"\bI've\b", "I have"),
    (r"\bI'll\b", "I will"),
    (r"\bI'd\b", "I would"),
    (r"\bwe're\b", "we are"),
    (r"\bwe've\b", "we have"),
    (r"\bwe'll\b", "we will"),
    (r"\byou're\b", "you are"),
    (r"\byou've\b", "you have"),
    (r"\byou'll\b", "you will"),
    (r"\byou'd\b", "you would"),
    (r"\bdon't\b", "do not"),
    (r"\bdoesn't\b", "does not"),
]
_PLEASANTRY = re.compile(
    r"^(?:hi|hey|hello|thanks|thank you|bye|goodbye|lol|haha|wow|yeah|yes|no|ok|okay|sure|cool|great|nice|"
    r"awesome|good to see you|nice to meet you|sounds good|see you|take care|congrats|"
    r"congratulations)\b[^.]*$",
    re.I,
)
_REACTION = re.compile(
    r"^(?:that's|that is|it's|it is|this is|so|how|what a|you're|you are)\s+(?:\w+\s+){0,2}?"
    r"(?:cool|great|awesome|nice|amazing|sweet|good|wonderful|lovely|fun|interesting|kind|true|right|"
    r"beautiful|incredible|impressive|exciting|sad|tough|hard|crazy|funny)\b[^.]{0,25}[.!]*$",
    re.I,
)
_IMPERATIVE = re.compile(
    r"^(?:by the way,?\s+)?(?:please\s+)?(?:take|look|let|check|tell|give|come|go|see|keep|try|have|make|"
    r"remember|don't|do|get|put|bring|call|send|wait|listen|imagine|guess)\b",
    re.I,
)
_NAMED = re.compile(r"(?<=\s)[A-Z][a-z]{2,}\b")

_TIME = r"(\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)?|noon|midnight)"
_DRINKS = (
    "coffee|tea|green tea|water|sparkling water|juice|orange juice|soda|latte|espresso|cappuccino|milk|wine|"
    "beer|hot chocolate"
)
_MUSIC = "jazz|rock|pop|classical|country|hip hop|rap|podcasts?|the news|audiobooks?|metal|blues|folk"
_SLOTS: list[tuple[str, re.Pattern[str]]] = [
    ("checkout_time", re.compile(r"\bcheck[- ]?out\b[^.]*?\b(?:at|by|is|until|to)\s+" + _TIME, re.I)),
    ("checkin_time", re.compile(r"\bcheck[- ]?in\b[^.]*?\b(?:at|by|is|until|to)\s+" + _TIME, re.I)),
    ("wake_up_time", re.compile(r"\bwake[- ]?up(?: call)?\b[^.]*?\b(?:at|for|to)\s+" + _TIME, re.I)),
    ("breakfast_time", re.compile(r"\bbreakfast\b[^.]*?\b(?:at|for|to)\s+" + _TIME, re.I)),
    ("meeting_time", re.compile(r"\b(?:meeting|appointment|call)\b[^.]*?\b(?:at|to|for)\s+" + _TIME, re.I)),
    ("pickup_time", re.compile(r"\bpick(?: me)?[- ]?up\b[^.]*?\b(?:at|to|for)\s+" + _TIME, re.I)),
    ("dinner_time", re.compile(r"\b(?:dinner|reservation)\b[^.]*?\b(?:at|to|for)\s+" + _TIME, re.I)),
    ("room", re.compile(r"\broom (?:is |number |no\.? |will be |now )*(\d{1,4}[a-z]?)\b", re.I)),
    ("temperature", re.compile(r"\b(\d{2}) degrees\b", re.I)),
    (
        "diet",
        re.compile(
            r"\b(vegetarian|vegan|pescatarian|gluten[- ]free|lactose[- ]free|keto|halal|kosher|"
            r"(?:do not|don't|never) eat (?:meat|fish|pork|dairy|eggs|gluten))\b",
            re.I,
        ),
    ),
    (
        "drink",
        re.compile(
            r"\b(?:prefer|like|love|want|drink|take|have|order|switched to|rather have)\b[^.]*?\b("
            + _DRINKS
            + r")\b",
            re.I,
        ),
    ),
    (
        "music",
        re.compile(
            r"\b(?:prefer|like|love|want|listen to|play|put on|rather)\b[^.]*?\b(" + _MUSIC + r")\b", re.I
        ),
    ),
    ("seat", re.compile(r"\b(window|aisle|front|back) seat\b", re.I)),
    # A place name: capitalised in the text (case-sensitive capture, so "living in the city" and
    # "living in the moment" are not a residence), never a day or month ("the match moved to
    # Sunday morning"). Every residence this fired on in LoCoMo, FriendsQA and Molweni dev with a
    # case-blind capture was one of those (7 of 7).
    (
        "residence",
        re.compile(
            r"\b(?i:live|living|moved|moving) (?i:in|to) "
            r"(?!(?:" + "|".join(w.capitalize() for w in WEEKDAYS + MONTHS) + r")\b)((?:[A-Z][\w-]+ ?){1,3})"
        ),
    ),
    (
        "job",
        re.compile(r"\b(?:work|working) (?:as an?|at|for) ([\w -]{2,40}?)(?:[,.!]|$| and | since)", re.I),
    ),
]
# When an event happens, one slot per event: ``when:<event>`` ("when:match", "when:client call"),
# the day/time as its value. Why keyed by the event: a household holds many plans at once (a match,
# a client call, a party), and one speaker's "the match moved to Sunday" must supersede the match's
# old day without touching the call's. Why the subject stays the speaker (the writer's usual
# subject): two people's "my match" are often two matches (siblings' games), so an event shared
# by the whole household would let one person's plan overwrite another's. The event must be a
# noun phrase ("the/my/a [one modifier] match", "Saturday's match"), never the verb ("I'll call
# tomorrow"); a statement of a time in the past ("went to the concert on Saturday") is a
# finished event, not a plan, and gets no slot; a change ("moved/postponed/pushed … to Friday")
# always does. Tried after every other slot, so a sentence those give a slot keeps it.
_EVENT_NOUNS = (
    r"match|game|party|concert|appointment|meeting|call|class|lesson|practice|rehearsal|recital|flight|"
    r"interview|exam|wedding|visit|reservation|check-?up|surgery|tournament|race|gig|shift|training|"
    r"playdate|sleepover|barbecue|picnic|ceremony|trip"
)
_DAY_NAMES = "|".join(WEEKDAYS)
_DETERMINERS = "the|my|our|your|his|her|their|a|an|this|that|[A-Za-z]+['’]s"  # … or "Sam's", "Saturday's"
# a modifier names which event ("client call", "football match"); words that only say which
# occurrence or how it went are not part of the event's name
_NOT_MODIFIER = "|".join(
    [
        _DETERMINERS,
        _DAY_NAMES,
        *MONTHS,
        "next|last|first|final|big|new|old|usual|weekly|daily|own|only|same|other|whole|entire|little",
        "great|good|short|long|important|today|tomorrow|tonight",
    ]
)
_EVENT = rf"(?P<ev>(?:(?!(?:{_NOT_MODIFIER})\b)[A-Za-z][A-Za-z-]+\s+)?(?:{_EVENT_NOUNS}))(?![\w-])"
_NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
# a bare hour ("at nine", "at 9") counts only where a clock time can end: not "at one point"
_HOUR_END = r"(?=\s*(?:[.,!;?]|$|\b(?:on|tomorrow|tonight|today|this|next|in the)\b))"
_CLOCK = (
    r"(?:\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o['’]clock)|\d{1,2}:\d{2}|noon|midnight|"
    rf"(?:{_NUMBER_WORDS})\s+(?:o['’]clock|thirty|fifteen|forty-five)|(?:\d{{1,2}}|{_NUMBER_WORDS}){_HOUR_END})"
)
_PART_OF_DAY = r"(?:\s+(?:morning|afternoon|evening|night))?"
_DAY = (
    rf"(?:(?:(?:next|this|coming)\s+)?(?:{_DAY_NAMES}){_PART_OF_DAY}|(?:tomorrow|tonight|today){_PART_OF_DAY}|"
    rf"(?:{'|'.join(MONTHS)})\s+\d{{1,2}}(?:st|nd|rd|th)?\b|the\s+\d{{1,2}}(?:st|nd|rd|th)\b|"
    r"next\s+week(?:end)?|this\s+weekend)"
)
_WHEN = rf"(?P<when>{_DAY}(?:\s+at\s+{_CLOCK})?|{_CLOCK}(?:\s+(?:on\s+)?{_DAY})?)"
_MOVED = r"(?:moved|moves|moving|postponed|rescheduled|pushed|bumped|shifted|changed)"
_EVENT_WHEN: list[tuple[bool, re.Pattern[str]]] = [  # (a change, pattern)
    (  # "I moved my client call to Friday"
        True,
        re.compile(
            r"\b(?:move|moved|moving|reschedule|rescheduled|postpone|postponed|push|pushed|shift|shifted|bump|"
            rf"bumped|change|changed)\s+(?:{_DETERMINERS})\s+{_EVENT}\s+(?:(?:back|forward|up)\s+)?"
            rf"(?:to|until|till)\s+(?:on\s+)?{_WHEN}",
            re.I,
        ),
    ),
    (  # "the match moved to Sunday morning at nine", "our flight got pushed back to 9 pm"
        True,
        re.compile(
            rf"\b(?:{_DETERMINERS})\s+{_EVENT}\s+(?:(?:has|had|was|is|got|been|just|now)\s+)*{_MOVED}"
            rf"(?:\s+(?:back|forward|up))?\s+(?:to|until|till|for)\s+(?:on\s+)?{_WHEN}",
            re.I,
        ),
    ),
    (  # "the match is on Saturday", "my call is at nine", "I have a client call at one"
        False,
        re.compile(
            rf"\b(?:(?P<day>(?:{_DAY_NAMES}|tomorrow|tonight){_PART_OF_DAY})['’]s|{_DETERMINERS})\s+{_EVENT}"
            r"(?:['’]s|\s+(?:is|will be|starts|begins|kicks off))?\s+"
            rf"(?:(?:still|now|set for|scheduled for|planned for)\s+)?(?:(?:on|at)\s+)?{_WHEN}",
            re.I,
        ),
    ),
    (  # "Saturday's match"
        False,
        re.compile(
            rf"\b(?P<when>(?:{_DAY_NAMES}|tomorrow|tonight|today){_PART_OF_DAY})['’]s\s+{_EVENT}", re.I
        ),
    ),
]
_PAST = re.compile(
    r"\b(?:was|were|went|had|did|attended|enjoyed|loved|saw|watched|played|won|lost|missed|last|ago|yesterday)\b",
    re.I,
)


_ANY_EVENT = re.compile(rf"\b(?:{_EVENT_NOUNS})\b", re.I)
_HYPOTHETICAL = re.compile(r"\b(?:if|unless|whether)\b", re.I)
_NEGATED = re.compile(r"(?:\bnot|n['’]t|\bnever)\s+(?:\w+\s+)?$", re.I)  # "didn't (really) move the match …"


def event_when(sentence: str) -> tuple[str | None, str | None]:
    """``("when:<event>", day/time)`` for a plan's time or its change, else ``(None, None)``.
    Not for a hypothetical ("if the match is on Sunday") nor a move that did not happen."""
    if not _ANY_EVENT.search(sentence) or _HYPOTHETICAL.search(sentence):
        return None, None  # the noun first: one cheap search for the many sentences without an event
    for change, pattern in _EVENT_WHEN:
        m = pattern.search(sentence)
        if m and _NEGATED.search(sentence[: m.start()]):
            continue
        if m and (change or not _PAST.search(sentence)):
            when = re.sub(r"^(?:this|coming)\s+", "", " ".join(m.group("when").lower().split()))
            if m.groupdict().get("day") and re.fullmatch(_CLOCK, when, re.I):  # "Friday's gig is at 9"
                when = f"{m.group('day').lower()} at {when}"
            return "when:" + " ".join(m.group("ev").lower().split()), when
    return None, None


_FAVOURITE = re.compile(r"\bfavou?rite (\w+) (?:is|are|was) ([\w' -]{2,40}?)(?:[,.!]|$)", re.I)
_PREFERENCE = re.compile(
    r"\b(?:like|love|enjoy|prefer|hate|dislike|can't stand|am into|favou?rite|allergic|vegetarian|vegan|"
    r"would rather|rather|fan of|adore|not a fan)\b",
    re.I,
)
_BACKGROUND = re.compile(
    r"\b(?:am an? \w+|work(?:ing|ed)? (?:as|at|for|in)|grew up|am from|live in|lived in|born in|studied|"
    r"graduated|retired|years old|my job|my career|moved (?:here|to)|am studying|am a student|"
    r"have (?:\w+ )?(?:kids|children|a son|a daughter))\b",
    re.I,
)
_RELATION = re.compile(
    r"\b[Mm]y (" + "|".join(sorted(RELATION_NOUNS, key=len, reverse=True)) + r")s?\b(?:,? ([A-Z][a-z]+))?"
)


_CLAUSE = re.compile(r"(?:,?\s+(?:and|but|so)\s+(?=(?:I|I'm|I've|my|we|our)\b)|;\s+)")


@dataclass
class Draft:
    """A rewritten sentence before it becomes a FactRecord/AttributeRecord."""

    content: str
    subject: str  # "speaker" | "addressee" | "named" (the person in ``named``)
    slot: str | None
    value: str | None
    kinds: list[str]  # attribute kinds the sentence also carries
    relation: tuple[str, str | None] | None  # (noun, name)
    mentions_you: bool
    source: str
    named: str | None = None  # a known person the sentence is about as its subject ("Maya's checkout …")


def _third_person(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR_3SG:
        return _IRREGULAR_3SG[low]
    if low in _PAST_OR_MODAL or low.endswith("ed") or low.endswith("n't"):
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def _subject_sub(text: str, pronoun: str, name: str) -> str:
    """``I <adv>* <verb>`` → ``Name <adv>* <verb-s>`` (and the same for 'you')."""
    pattern = re.compile(rf"\b{pronoun}((?: (?:{_ADVERBS}))*) (\w+(?:'t)?)\b", re.I if pronoun != "I" else 0)

    def repl(m: re.Match[str]) -> str:
        verb = m.group(2)
        if verb.lower() == "not":
            return f"{name}{m.group(1)} not"
        if verb.lower() == "were":
            return f"{name}{m.group(1)} was"
        return f"{name}{m.group(1)} {_third_person(verb)}"

    return pattern.sub(repl, text)


def rewrite(sentence: str, speaker: str, addressee: str | None) -> str:
    """First and second person replaced by names, verbs agreed; 'you' stays if no addressee."""
    text = sentence.strip()
    for pattern, repl in _CONTRACTIONS:
        text = re.sub(pattern, repl, text, flags=re.I if not pattern.startswith(r"\bI") else 0)
    text = _subject_sub(text, "I", speaker)
    text = re.sub(r"\b(?:[Mm]yself)\b", speaker, text)
    text = re.sub(r"\b(?:[Mm]y|[Mm]ine)\b", f"{speaker}'s", text)
    text = re.sub(r"\bme\b", speaker, text)
    text = re.sub(r"\b[Ww]e\b", f"{speaker} and others", text)
    text = re.sub(r"\b[Oo]ur\b", f"{speaker}'s", text)
    text = re.sub(r"\bus\b", f"{speaker} and others", text)
    if addressee:
        text = _subject_sub(text, "you", addressee)
        text = re.sub(r"\b[Yy]ourself\b", addressee, text)
        text = re.sub(r"\b[Yy]our(?:s)?\b", f"{addressee}'s", text)
        text = re.sub(r"\b[Yy]ou\b", addressee, text)
    text = re.sub(r"\s+", " ", text).strip()
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    if text and text[-1] not in ".!":
        text = text.rstrip("?,;:") + "."
    return text


def informative(sentence: str) -> bool:
    """A declarative sentence with at least two content words, not a pleasantry or question."""
    s = sentence.strip()
    if not s or s.endswith("?") or _PLEASANTRY.match(s) or _REACTION.match(s):
        return False
    if _IMPERATIVE.match(s) and slot_of(s)[0] is None and not _NAMED.search(s):
        return False  # a request or suggestion, not a statement of fact (unless it names someone)
    words = re.findall(r"[a-zA-Z0-9']+", s.lower())
    content = [w for w in words if w not in SENTENCE_FILLER_WORDS and len(w) > 2]
    if slot_of(s)[0] is not None:
        return len(words) >= 3
    return len(words) >= 3 and len(content) >= 2


def slot_of(sentence: str) -> tuple[str | None, str | None]:
    fav = _FAVOURITE.search(sentence)
    if fav:
        return f"favourite_{fav.group(1).lower()}", fav.group(2).strip().lower()
    for slot, pattern in _SLOTS:
        m = pattern.search(sentence)
        if m:
            return slot, " ".join(m.group(1).lower().split())
    return event_when(sentence)


_LEAD_CUE = re.compile(
    r"^(?:(?:hi|hey|hello|thanks|thank you|ok|okay|so|well|sorry|yes|no|yeah|oh|listen|look|sure|right|great)"
    r"[,!.]?\s+)+",
    re.I,
)


def strip_vocatives(sentence: str, terms: list[str]) -> str:
    """Drop greetings and the names used to address someone at the edges of a sentence."""
    s = sentence.strip()
    for _ in range(2):
        s = _LEAD_CUE.sub("", s)
        for term in terms:
            t = re.escape(term)
            s = re.sub(rf"^(?:{t})\s*[,!:]\s*", "", s, flags=re.I)
            s = re.sub(rf",\s*(?:{t})\s*([.!?]*)\s*$", r"\1", s, flags=re.I)
    return s[:1].upper() + s[1:] if s else s


_NAMED_SUBJECT_VERB = re.compile(
    r"(?:['’]s\b|\s+(?:is|was|has|had|will|would|can|could|does|did|needs|wants|likes|loves|hates"
    r"|prefers|works|lives|arrives|leaves|starts|finishes|moved|left|arrived|got|went)\b)"
)


def named_subject(sentence: str, people: list[str]) -> str | None:
    """The known person a sentence opens with as its subject ("Maya's checkout is at noon.", "Maya
    is vegetarian.") when the sentence has no first or second person, else None. Why: once its
    vocative is dropped ("Tom, Maya's checkout is at noon."), such a sentence is about Maya, not
    about the speaker who said it nor the person addressed. Only names the window knows count,
    so "Monday's meeting is at noon" names nobody."""
    s = sentence.strip()
    for name in sorted(people, key=len, reverse=True):
        if name and s.lower().startswith(name.lower()) and _NAMED_SUBJECT_VERB.match(s[len(name) :]):
            return name
    return None


def drafts(
    text: str,
    speaker: str,
    addressee: str | None,
    vocative_terms: list[str] | None = None,
    people: list[str] | None = None,
) -> list[Draft]:
    """Every informative sentence of a turn, rewritten, with its slot and attribute kinds
    (``people``: names of the people the window knows, for :func:`named_subject`)."""
    out: list[Draft] = []
    terms = sorted(set(vocative_terms or []), key=len, reverse=True)
    clauses = [strip_vocatives(c, terms) for s in sentences(text) for c in _CLAUSE.split(s) if c.strip()]
    for sentence in clauses:
        if not informative(sentence):
            continue
        first = bool(re.search(r"\b(?:I|I'm|I've|I'll|I'd|my|me|mine|myself|we|our|us)\b", sentence))
        you = bool(re.search(r"\b(?:you|your|yours|yourself)\b", sentence, re.I))
        if you and not addressee and not first:
            continue  # "you should try it" to nobody known: not self-contained
        named = None if first else named_subject(sentence, people or [])
        subject = "named" if named else "addressee" if (you and not first and addressee) else "speaker"
        slot, value = slot_of(sentence)
        kinds: list[str] = []
        if first:
            if (
                _PREFERENCE.search(sentence)
                or slot in ("diet", "drink", "music", "seat", "temperature")
                or (slot or "").startswith("favourite_")
            ):
                kinds.append("preference")
            if _BACKGROUND.search(sentence) or slot in ("residence", "job"):
                kinds.append("background")
        rel = _RELATION.search(sentence)
        relation = (rel.group(1).lower(), rel.group(2)) if rel else None
        if relation:
            kinds.append("relationship")
        out.append(
            Draft(
                content=rewrite(sentence, speaker, addressee),
                subject=subject,
                slot=slot,
                value=value,
                kinds=kinds,
                relation=relation,
                mentions_you=you,
                source=sentence,
                named=named,
            )
        )
    return out
