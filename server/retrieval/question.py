"""Reading a question without a model: its kind, quotes, named people, first person, time cues.

The heuristic planner and the graph-native answerer both need the same reading, so it
lives here once. Pure string logic: unit-tested without a database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from voxmem.extractors.name_lexicon import frequent_word
from voxmem.ids import name_key
from voxmem.retrieval.text import DETERMINERS, content_words, words
from voxmem.stopwords import QUESTION_STOP_WORDS

_QUOTE = re.compile(
    r"[\"“”]([^\"“”]{2,200})[\"“”]|(?<![A-Za-z])'([^']{3,200})'(?![A-Za-z])|``\s*(.{2,200}?)\s*''"
)
_FIRST_PERSON = {"i", "me", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll"}
_SAY_VERBS = (
    r"(?:said|say|says|told|tell|asked|ask|mentioned|suggested|promised|wanted|requested|shouted|yelled"
    r"|spoke|talked|agreed|offered|volunteered|announced|proposed|raised|brought\s+up|complained"
    r"|reminded|warned|invited|recommended|explained|admitted|insisted|claimed|thanked|apologi[sz]ed"
    r"|got|needed|wondered|noted|pointed\s+out|came\s+up\s+with|took\s+on|gave|let\s+(?:\w+\s+){0,2}know)"
)
# "Who was it that asked …", "Who is the one who said …", "Which person was it who …" → "Who asked …"
_CLEFT = re.compile(
    r"^\s*(who|which\s+(?:character|person|one|participant))\s+(?:was|is)\s+(?:it|the\s+(?:one|person))\s+"
    r"(?:that|who)\s+",
    re.I,
)
# "Whose idea was it to go camping?", "Whose request was it that Ben print the passes?": the
# person asked for is who suggested / requested it, so the question is read as that who-question
_WHOSE_ACT = re.compile(
    r"^\s*whose\s+(?P<act>idea|suggestion|proposal|request|plan|offer)\s+(?:was|is)\s+it\s+"
    r"(?:that\s+|to\s+|for\s+)?",
    re.I,
)
_WHOSE_VERB = {
    "idea": "suggested",
    "suggestion": "suggested",
    "proposal": "proposed",
    "request": "requested",
    "plan": "suggested",
    "offer": "offered",
}
# What a who-question asks for by its verb: the person who asked, or the one who took a task on.
_COMMIT_VERBS = re.compile(
    r"\b(?:agreed|agree|offered|offer|volunteered|promised|took\s+on|accepted|said\s+(?:they|he|she)"
    r"(?:['’]d|\s+would|\s+will|['’]ll)|would|will)\b",
    re.I,
)
_REQUEST_VERBS = re.compile(r"\b(?:asked|ask|wanted|requested|told|got|needed|reminded|invited)\b", re.I)
# "… when she asked about the train", "… after Tom mentioned the tour": the utterance described
_DESCRIBED = re.compile(
    r"\b(?:when|while|after|before|as|where)\s+(?:he|she|they|i|\w+)\s+(?P<what>[^,?]+)", re.I
)
# "Daniel asked someone to find fuel on the way. Who?": the person asked, told of as "someone"
_SOMEONE = re.compile(
    r"^\s*(?P<name>[\w'’-]+(?:\s[\w'’-]+)?)\s+(?:asked|told|wanted|got|needed)\s+(?:someone|somebody"
    r"|a\s+person|one\s+of\s+(?:us|them))\s+(?:to\s+)?(?P<what>[^;.?:]+?)\s*[;.,:?-]+\s*(?:who|whom)\b",
    re.I,
)
_PRONOUNS = {"he", "she", "they", "him", "her", "them", "i", "me"}
_WHO_SAID = re.compile(
    rf"^\s*(?:who|which\s+(?:character|person|one|participant)(?:\s+of\s+\w+)?)\s+{_SAY_VERBS}\b(?P<rest>.*)$"
    rf"|^\s*by\s+whom\s+(?:was|were|is|did)\s+(?P<by_rest>.*)$",
    re.I,
)
_WHOM = re.compile(
    r"\bwho(?:m)?\s+(?:was|were|is|did)\s+(?P<name>[\w .'-]+?)\s+"
    r"(?:talking|speaking|asking|telling|saying|addressing|referring|replying|answering|responding)\b"
    r"(?:\s+(?:to|at))?"
    r"|\b(?:to\s+)?who(?:m)?\s+did\s+(?P<name2>[\w .'-]+?)\s+(?:ask|tell|thank|call|address|want|need"
    r"|remind|invite|announce|say|speak|talk|mention|direct|get)\b"
    r"|^\s*who(?:m)?\s+(?:was|were|is)\s+(?P<name3>[\w .'-]+?)['’]s?\s+.*\b(?:addressed|directed|aimed|said"
    r"|meant)\s+(?:to|at|for)\s*\??\s*$"
    r"|\bwhom\b|\bto\s+whom\b",
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
    # who-questions: 'request' (who asked/wanted …), 'commit' (who agreed/offered/promised …), 'say',
    # or 'did' (a verb of doing: answered by the speaker only of a first-person turn)
    act: str = "say"
    # "Lucy said Olivia likes rock. Is that right?": the person whose claim the question reports.
    # What they said is the thing in doubt, so their turns never answer it (:func:`asked_about`).
    claimant: dict[str, Any] | None = None
    # "What music does the person who agreed to check the tyres like?": the who-question naming
    # the person asked about (the first hop); the answerer resolves it from SPEAKS, then reads the
    # rest of the question (``keywords``) about that person; the hop's ``rest`` is the question
    # with "{}" where the described person was ("Does {} like hip hop?")
    hop: Reading | None = None
    rest: str | None = None
    # "How did Ross tell Chandler to …?", "What does Rachel say she …?", "Why does it fail according
    # to unop?": the subject of a verb of saying, whose own turns hold the answer (:func:`_teller`)
    teller: dict[str, Any] | None = None
    # "What did Chandler do when his boss kept slapping him?": the event told of, and the person
    # whose next turn answers (:func:`_did_next`)
    event: str | None = None
    doer: dict[str, Any] | None = None

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
            "act": self.act,
            "claimant": (self.claimant or {}).get("name"),
            "hop": self.hop.as_dict() if self.hop else None,
            "teller": (self.teller or {}).get("name"),
            "event": self.event,
            "doer": (self.doer or {}).get("name"),
        }


# "What did I ask for?", "What did Leo ask for?", "What did Maya request?" (also as an ASR may hear
# it: "Well, did I ask for it?"): the requester's own request turns answer it. Anchored at the
# start, so "When did Maya ask for the cake?" or "Which shop did Tom request it from?" are not it.
_REQUESTS = re.compile(
    r"^(?:(?:so|well|and|okay|ok)\W+)?(?:what\s+)?did\s+(?P<who>\w[\w.'’-]*(?:\s\w[\w.'’-]*){0,2}?)"
    r"\s+(?:ask\s+for|request)\b",
    re.I,
)


# A question asking for several things of one kind: "What pets does Ana have?", "Which books has
# he read?", "In what ways …", "What kinds of music …" (a plural noun then an auxiliary), "What has
# Leo painted / done?", "What does Ana do to relax?", "What do the twins like?". Their answers are
# lists said over several sessions (LoCoMo's "Running, pottery"), which the default five lines,
# chosen for one answering turn, rarely hold. Not "What does X do after / when <event>?": that
# asks for the one thing done next (Molweni tune "What does abedo do after receiving warbler's
# suggestion?"), nor "What does X do for a living / for work / for money?": that asks for one
# job (FriendsQA "What does Rachel do for a living?" was read as a list through "do for"), nor
# "What does X need / have / want to do in …": the one task or plan asked for ("to" before "do"
# marks it; read through "do in" it gathered the person's turns as a list).
_AUXILIARY = r"(?:do|does|did|has|have|had|is|are|was|were|can|could|would|will|might|should)"
_LIST_QUESTION = re.compile(
    rf"""^\s*(?:what|which)\s+(?:kinds|types|sorts)\s+of\b
      | ^\s*(?:in\s+)?(?:what|which)\s+(?:(?:kind|type|sort)\s+of\s+)?(?:[a-z-]+\s+){{0,2}}?
        (?!{_AUXILIARY}\b|news\b|series\b)[a-z-]+(?:ies|[^s'u\W]s)\s+{_AUXILIARY}\b
      | ^\s*what\s+(?:has|have)\s+(?:\w+(?:'s)?\s+){{1,3}}?(?:done|made|seen|read|written|drawn|bought|built
        |grown|taken|won|cooked|baked|painted|visited|tried|played|watched|learned|learnt|collected)\b
      | ^\s*what\s+(?:does|do)\s+(?:(?!to\b)\w+(?:'s)?\s+){{1,3}}?(?:do\s+(?:to|in|on|with)\b
        |do\s+for\b(?!\s+(?:a\s+|her\s+|his\s+|their\s+)?(?:living|work|job|money|income|cash|pay)\b)
        |like|enjoy|love)\b""",
    re.I | re.X,
)


def asks_for_list(question: str) -> bool:
    """Whether the question asks for several things of one kind (see ``_LIST_QUESTION``)."""
    return bool(_LIST_QUESTION.search(question))


# "Who thinks …?", "Whose bike …?", "To whom …?", "Which person …?": the answer is a person
_PERSON_QUESTION = re.compile(
    r"^\W*(?:(?:by|to|with|from|for)\s+)?(?:who|whom|whose)\b"
    r"|^\W*which\s+(?:character|person|participant|speaker)\b",
    re.I,
)


def asks_for_person(reading: Reading) -> bool:
    """Whether the question asks who: a who-question read as attribution (``who_said``,
    ``addressee``, also "When Sophie mentioned the outage, who was she addressing?") or one whose
    wh-word asks for a person ("Who thinks the hallway is too dark?", "Whose bike …?")."""
    return reading.kind in ("who_said", "addressee") or bool(_PERSON_QUESTION.search(reading.text))


_POSSESSIVE_ME = re.compile(r"\b(?:my|mine|me|i)\b", re.I)


def asked_about(reading: Reading, asker: str | None, asker_name: str | None = None) -> list[dict[str, Any]]:
    """The people a question is about: those it names, and the asker when the question is about
    themself ("What's my favourite drink?", "Where do I work?"). Why one helper: the extractive
    reader answers only from these people's turns, and an LLM answer must rest on one of them."""
    claimant = (reading.claimant or {}).get("id")
    people = [p for p in reading.people if p.get("id") != claimant]
    if reading.first_person and asker and asker != claimant and _POSSESSIVE_ME.search(reading.text):
        people.append({"id": asker, "name": asker_name or ""})
    return people


def _name_index(participants: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every full name and alias, and every part of one (first or last name) when only one
    participant has that part → participant."""
    index: dict[str, dict[str, Any]] = {}
    parts: dict[str, list[dict[str, Any]]] = {}
    for p in participants:
        names = [p.get("name") or "", *(p.get("aliases") or [])]
        for name in names:
            key = name_key(name)
            if key:
                index.setdefault(key, p)
                for part in key.split():
                    if part != key and len(part) > 1:
                        parts.setdefault(part, []).append(p)
    for part, owners in parts.items():
        if part not in index and len({o["id"] for o in owners}) == 1:
            index[part] = owners[0]
    return index


def sound_key(word: str) -> str:
    """A sound-alike key for names an ASR or a typist spells differently ("Jon" / "John",
    "Sara" / "Sarah", "Katherine" / "Catherine", "Stephen" / "Steven", "Philip" / "Phillip"):
    the first sound, then consonant classes with vowels, h, w, y and repeats dropped."""
    w = re.sub(r"[^a-z]", "", word.lower())
    if not w:
        return ""
    for a, b in (("ph", "f"), ("ck", "k"), ("sch", "sk"), ("gh", "g"), ("kn", "n"), ("wr", "r")):
        w = w.replace(a, b)
    first = {"c": "k", "q": "k", "z": "s", "y": "i", "e": "a", "i": "a", "o": "a", "u": "a"}.get(w[0], w[0])
    classes = {
        **dict.fromkeys("bfpv", "1"),
        **dict.fromkeys("cgjkqsxz", "2"),
        **dict.fromkeys("dt", "3"),
        "l": "4",
        **dict.fromkeys("mn", "5"),
        "r": "6",
    }
    code, last = [], classes.get(w[0], "")
    for ch in w[1:]:
        c = classes.get(ch, "")
        if c and c != last:
            code.append(c)
        last = c if ch not in "hw" else last
    return first + "".join(code)


def _nickname(token: str, index: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The one participant a short or pet form names ("Dan", "Soph" for Sophie, "Liv" for Olivia,
    "Benny" for Ben): a part of at least three letters of exactly one one-word name covering at
    least half of it, or that name with at most two letters added ("Sammy")."""
    if len(token) < 3:
        return None
    owners = {
        p["id"]: p
        for name, p in index.items()
        if " " not in name
        and name != token
        and (
            (token in name and 2 * len(token) >= len(name))
            or (len(name) >= 3 and token.startswith(name) and len(token) <= len(name) + 2)
        )
    }
    return next(iter(owners.values())) if len(owners) == 1 else None


def _misspelt(token: str, name: str) -> bool:
    """Whether ``token`` is ``name`` with vowels dropped or swapped, as a recogniser or a hurried
    typist writes it ("mya" for Maya, "kyan" for Kian, "toms" for Tomas): the same consonants in the
    same order (y, h and w counted as vowels, doubles as one), the same first letter (a recogniser
    keeps a name's onset: "mya" is not Emma) and the token's vowels a part of the name's, in order.
    Stricter than :func:`sound_key`, whose classes let a word in lower case sound
    like anyone ("router" like "rhodry")."""

    def consonants(w: str) -> str:
        return re.sub(r"(.)\1+", r"\1", re.sub(r"[^a-z]|[aeiouyhw]", "", w))

    left = iter(re.sub(r"[^aeiou]", "", name))
    return (
        token[:1] == name[:1]
        and consonants(token) == consonants(name)
        and all(v in left for v in re.sub(r"[^aeiou]", "", token))
    )


def _sounds_like(
    token: str, index: dict[str, dict[str, Any]], written: bool, rare: bool
) -> dict[str, Any] | None:
    """The one participant whose name (or a part of it) ``token`` may be heard as, else None.

    A capitalised (``written``) token may share the name's :func:`sound_key`; short names differ by
    a vowel too often to ignore it ("Tim" is not "Tom"), so a token of four letters or fewer must
    keep the name's vowels. A ``rare`` token (no frequent English word: a misspelling, not a word of
    its own) may also be the name :func:`_misspelt`, the only match a word in lower case gets."""
    if len(token) < 3:
        return None
    key = sound_key(token)

    def vowels(w: str) -> str:
        return re.sub(r"[^aeiou]", "", w)

    def heard(name: str) -> bool:
        if (
            written
            and sound_key(name) == key
            and (min(len(name), len(token)) > 4 or vowels(name) == vowels(token))
        ):
            return True
        return rare and _misspelt(token, name)

    owners = {p["id"]: p for name, p in index.items() if " " not in name and heard(name)}
    return next(iter(owners.values())) if len(owners) == 1 else None


_WH = frozenset({"what", "when", "where", "which", "who", "whom", "whose", "why", "how"})


def _name_slot(raw: list[str], i: int) -> bool:
    """Whether word ``i`` of ``raw`` stands where a question puts a person's name: the subject
    right after an auxiliary that opens the question or follows its wh-phrase ("does dan want the
    window", "what seat did mark book"), or an owner before a possessive with no determiner
    ("is dan's seat free", not "the mark's edge"). Why: a name that is also a frequent word ("dan",
    "mark", "rob") is taken in lower case only where a name goes, never where the word does ("I did
    mark it", "the mark's edge"). A question's own words ("will", "may") stay words even there."""
    before = [w.lower() for w in raw[max(0, i - 4) : i]]
    if re.fullmatch(r"[a-z]+['’]s", raw[i]):
        return not before or before[-1] not in DETERMINERS
    if not before or not re.fullmatch(_AUXILIARY, before[-1]):
        return False
    return len(before) == 1 or bool(_WH & set(before[:-1]))


def _heard_name(
    raw: str, token: str, first: bool, index: dict[str, dict[str, Any]], slot: bool = False
) -> dict[str, Any] | None:
    """The one participant a word no name matches exactly may still name: by sound ("Jon" for
    John) or as a short form ("Soph"), for a capitalised word that is not the question's first;
    and for a word in lower case only when it is no frequent English word and only as the name
    misspelt or shortened ("mya" for Maya, "toma" for Toma-, "bennys" for Benny's), since
    recognisers and chat write names in lower case and a frequent word in lower case ("may",
    "will", "mark") is that word. A rare word that ends in s is also tried without it (a
    possessive heard without its apostrophe). A frequent word in lower case is taken as a name
    only in a name's ``slot`` (:func:`_name_slot`: "does dan want …" is Daniel's question), and
    then only as a short form that begins the name: a word's letters are too often a name's
    misspelt ("say" / "Shea") or inside it ("hard" / Richard)."""
    if token in QUESTION_STOP_WORDS:
        return None
    written = raw[:1].isupper()
    if written and first:
        return None
    rare = not frequent_word(token)
    if not written and (not (rare or slot) or not re.fullmatch(r"[a-z]+(?:['’]s)?", raw)):
        return None
    forms = [token, token[:-1]] if rare and len(token) > 3 and token.endswith("s") else [token]
    for form in forms:
        person = _sounds_like(form, index, written, rare) or _nickname(form, index)
        if person is not None and not (written or rare) and not _begins(form, person):
            continue  # "is hard" is not Richard, "is one" not noone: a short form begins the name
        if person is not None:
            return person
    return None


def _begins(token: str, person: dict[str, Any]) -> bool:
    """Whether a part of one of ``person``'s names begins with ``token`` ("dan" Daniel)."""
    names = [person.get("name") or "", *(person.get("aliases") or [])]
    return any(part.startswith(token) for name in names for part in name_key(name).split())


def find_people(text: str, participants: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """Participants named in ``text`` with the word position where each first appears.

    A name matches in full, by any unambiguous part (the question says "Caroline Smith", the
    conversation only "Caroline"; or the other way round), by alias, or, for a capitalised word
    that is no other participant's name, by sound ("Jon" for John, as an ASR may write it).
    """
    index = _name_index(participants)
    raw = re.findall(r"[\w'’-]+", text)
    tokens = [name_key(w).replace("’", "'") for w in raw]
    tokens = [t[:-2] if t.endswith("'s") else t for t in tokens]
    found: dict[str, tuple[int, dict[str, Any]]] = {}
    longest = max((len(k.split()) for k in index), default=1)
    for i in range(len(tokens)):
        for n in range(min(longest, len(tokens) - i), 0, -1):
            key = " ".join(tokens[i : i + n])
            person = index.get(key)
            if person is None and n == 1 and len(key) > 3 and key.endswith("s"):
                person = index.get(key[:-1])  # a possessive heard without its apostrophe: "lucys drink"
            if person is not None:
                found.setdefault(person["id"], (i, person))
                break
        else:
            person = _heard_name(raw[i], tokens[i], i == 0, index, _name_slot(raw, i))
            if person is not None:
                found.setdefault(person["id"], (i, person))
    for person in participants:  # names a word split cannot see: IRC nicks "Sa[i]nT", "{Bo}"
        for name in [person.get("name") or "", *(person.get("aliases") or [])]:
            if re.search(r"[^\w\s'’-]", name) and person["id"] not in found:
                match = re.search(rf"(?<!\S){re.escape(name)}(?=[\s'’,.;:!?]|$)", text, re.I)
                if match:
                    found[person["id"]] = (len(re.findall(r"[\w'’-]+", text[: match.start()])), person)
    return sorted(found.values(), key=lambda item: item[0])


def _person_in(fragment: str | None, participants: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not fragment:
        return None
    people = find_people(fragment, participants)
    return people[0][1] if people else None


def _described(text: str) -> str | None:
    """The utterance a question describes rather than quotes: "Who was Maya talking to when she
    asked about the train?" → "asked about the train"."""
    match = _DESCRIBED.search(text)
    return match.group("what").strip() if match else None


def _act(verbs: str, said: bool = True) -> str:
    """What a who-question wants by its verb: who took a task on, who asked for it, who said it,
    or (a verb of doing, not saying: "Who went to the dentist?") who did it."""
    if _COMMIT_VERBS.search(verbs):
        return "commit"
    if _REQUEST_VERBS.search(verbs):
        return "request"
    return "say" if said else "did"


# "Who went …", "Which person took …": a who-question with any verb (not a copula or auxiliary,
# which ask about a relation: "Who is Tom's sister?", "Who did Tom meet?") asks who said or did it.
_WHO_VERB = re.compile(
    r"^\s*(?:who|which\s+(?:character|person|one|participant)(?:\s+of\s+\w+)?)\s+"
    r"(?!(?:is|was|are|were|did|does|do|has|have|had|will|would|can|could|should|may|might)\b)"
    r"(?P<verb>[a-z]+(?:ed|ght|ew|ook|ave|ent|old|id|ade|ote|ang|ame|ok|ld|ew))\b(?P<rest>.*)$",
    re.I,
)


# A person's claim reported by the question: "Lucy said …", "Ben's sure …", "Maya remembers …",
# "… like Maya said", "Was Olivia right about …". Only the -s / -ed forms and "is sure": the bare
# "What did Tom say about Ana?" / "Why does Ross think …" ask what was said, not whether it holds.
_CLAIMS_AFTER = re.compile(
    r"^(?:(?:also|always|really|just|once)\s+)?(?:said|says|told|tells|thinks|thought|claims|claimed"
    r"|believes|believed|reckons|reckoned|remembers|remembered|insists|insisted|assumes|assumed"
    r"|(?:is|was|'s|’s|seems|seemed)\s+(?:sure|certain|convinced))\b",
    re.I,
)
_CLAIMS_BEFORE = re.compile(r"(?:\b(?:like|as|according\s+to)|^(?:was|is|were)|\b(?:was|is)\s+)\s*$", re.I)
_VERDICT_AFTER = re.compile(r"^(?:right|correct|wrong|mistaken)\b", re.I)


def _claimant(
    text: str, found: list[tuple[int, dict[str, Any]]], me: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The person whose claim about someone else the question reports ("Lucy said Olivia only
    listens to rock. Was she right?", "Does Jack really use foam pillows, like Maya said?", "I
    said Sophie prefers mornings; was I right?"), or None. Someone else must be asked about: a
    named person other than the claimant, or the asker after the claim ("Ben said I love …")."""
    raw = re.findall(r"[\w'’-]+", text)
    people: list[tuple[int, dict[str, Any]]] = list(found)
    if me is not None:
        people += [(i, me) for i, w in enumerate(raw) if w.lower() == "i"]
    for i, person in people:
        after = " ".join(raw[i + 1 : i + 5])
        if re.search(r"['’]s$", raw[i]):  # "Ben's sure …"
            after = "'s " + after
        before = " ".join(raw[max(0, i - 3) : i])
        claims = _CLAIMS_AFTER.match(after) or (
            _CLAIMS_BEFORE.search(before) and (_VERDICT_AFTER.match(after) or _CLAIMS_AFTER.match(after))
        )
        if not claims or re.search(r"\b(?:when|while|after|before|once|since)\s*$", before, re.I):
            continue  # "How did Joey react when Rachel said …" describes a turn; it doubts nothing
        others = [p for j, p in found if p["id"] != person["id"]]
        about_me = (
            me is not None
            and me["id"] != person["id"]
            and any(w.lower() in ("i", "me", "my") for w in raw[i + 1 :])
        )
        if others or about_me:
            return person
    return None


# Verbs by which a question asks for what someone said ("What did Ana *suggest*", "How does Tom
# *describe* it", "What did Ross *threaten* them with"), in every form a question uses after "did" /
# "does" / "is" / "was", and "according to X", which names the teller outright.
_TELLING = (
    r"(?:say|says|saying|said|tell|tells|telling|told|describe|describes|describing|described|suggest"
    r"|suggests|suggesting|suggested|recommend|recommends|recommending|recommended|advise|advises|advising"
    r"|advised|threaten|threatens|threatening|threatened|promise|promises|promising|promised|explain"
    r"|explains|explaining|explained|mention|mentions|mentioning|mentioned|claim|claims|claiming|claimed"
    r"|answer|answers|answering|answered|reply|replies|replying|replied|respond|responds|responding"
    r"|responded|admit|admits|admitting|admitted|complain|complains|complaining|complained|warn|warns"
    r"|warning|warned|think|thinks|thinking|thought|propose|proposes|proposing|proposed|offer|offers"
    r"|offering|offered|call|calls|calling|called)"
)
_TOLD_BY = re.compile(
    rf"\b(?:did|does|do|would|will|has|have|had|is|was|are|were)\s+(?P<who>[^\s,?]+(?:\s+[^\s,?]+)?)"
    rf"\s+{_TELLING}\b"
    r"|\baccording\s+to\s+(?P<source>[^,?.!]+?)\s*[?.!]?\s*$",
    re.I,
)


def _teller(
    text: str, participants: list[dict[str, Any]], me: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The person whose own words a question asks for: the subject of a verb of saying ("How did
    Ross tell Chandler to stop it?" → Ross, not Chandler, though both are named; "When Peter lists
    his plans, what does he say is missing?" → Peter, the one person named), or the source after
    "according to" ("Why does the setup fail according to abedo?"); None otherwise. Why: the
    sentence sharing most words is often the other person's (the one told, or someone naming the
    teller), while the answer is in the teller's turn."""
    for match in _TOLD_BY.finditer(text):
        who = (match.group("who") or match.group("source") or "").strip()
        person = _person_in(who, participants)
        if person is None and who.lower() in ("i", "me"):
            person = me
        if person is None and who.lower() in _PRONOUNS - {"i", "me"}:
            named = find_people(text, participants)
            person = named[0][1] if len({p["id"] for _, p in named}) == 1 else None
        if person is not None:
            return person
    return None


# "What did Chandler do when his boss kept slapping him?", "How did Ross react after Rachel left?",
# "What does abedo do after receiving the suggestion?": what the person did on an event, told in
# their turn after the event's. Not a state ("What did Ana do when she was in Rome?"), nor how
# someone felt ("How did Mel feel after the accident?"): both are told in the turn that tells it.
_DID_NEXT = re.compile(
    r"^\s*(?:what|how)\s+(?:did|does|do|would|will|had)\s+(?P<who>[^\s,?]+(?:\s+[^\s,?]+)?)\s+"
    r"(?:do|react|respond|reply|answer|say|act)\s+(?:right\s+|just\s+)?(?:when|after|once|upon"
    r"|as\s+soon\s+as)\s+(?P<event>[^?]+?)\s*\??\s*$",
    re.I,
)
_STATE = re.compile(r"^(?:\S+\s+)?(?:was|were|is|are|am|being|had\s+been|has\s+been)\b", re.I)


def _did_next(
    text: str, participants: list[dict[str, Any]], me: dict[str, Any] | None
) -> tuple[str, dict[str, Any]] | None:
    """(event, doer) of a question asking what someone did on an event ("What did Chandler do
    when his boss kept slapping his butt?" → the slapping, Chandler), else None. Why: the turn
    that tells the event shares the question's words and is quoted back, while the answer is the
    doer's next turn ("Well, I didn't do anything.")."""
    match = _DID_NEXT.match(text)
    if match is None or _STATE.match(match.group("event")):
        return None
    who = match.group("who").strip()
    person = _person_in(who, participants) or (me if who.lower() in ("i", "we") else None)
    event = match.group("event").strip()
    return (event, person) if person is not None and content_words(event) else None


# "the person who agreed to check the tyres", "whoever said they'd book the tour", "the one
# booking the museum tour": a person described by what they said or took on
_DESCRIBED_PERSON = re.compile(
    r"\b(?:(?:the|that)\s+(?:person|one|guy|woman|man|colleague|guest|passenger|participant|someone)"
    r"(?:\s+(?:who|that)(?:['’]s|\s+(?:is|was))?|(?=\s+\w+ing\b))|whoever|(?:someone|somebody)\s+who)"
    r"\s+(?P<clause>[^.,:;?!]+)",
    re.I,
)
# the question's own verb, where the clause runs on into it: "… whoever took on the tyre check
# like?" → "took on the tyre check", "the person who's sending the summary want their updates"
# → "sending the summary"; not after a subject of the clause's own ("who said they like tea")
_MAIN_VERB = re.compile(
    r"(?<!\bthey)(?<!\bhe)(?<!\bshe)(?<!\bi)(?<!\bto)\s+(?:like|likes|love|loves|prefer|prefers|want"
    r"|wants|need|needs|enjoy|enjoys|drink|drinks|eat|eats|listen|listens|use|uses)\b.*$"
    r"|\s+(?:what|whats|what['’]s|which|how|when|where)\b.*$",
    re.I,
)
_THINK_OF = re.compile(
    r"^\s*(?:think|thinking)\s+(?:of|about)\s+|\b(?:that|this|the)\s+(?:person|one)\b", re.I
)


def _first_hop(text: str, participants: list[dict[str, Any]]) -> Reading | None:
    """The who-question inside a two-hop question ("What music does the person who agreed to
    check the tyres like?" → "who agreed to check the tyres", a commitment), or None. Someone
    doing a task ("the one booking the tour", "who checked the tyres") is who took it on, unless
    the clause says they asked for it."""
    match = _DESCRIBED_PERSON.search(text)
    if match is None or re.match(r"^\s*(?:who|whom|which)\b", text, re.I):
        return None
    clause = _MAIN_VERB.sub("", match.group("clause").strip())
    if not content_words(clause):
        return None
    act = "request" if _REQUEST_VERBS.search(clause) and not _COMMIT_VERBS.search(clause) else "commit"
    hop = Reading(text=f"Who {clause}?", kind="who_said", quote=clause, act=act)
    hop.people = [p for _, p in find_people(clause, participants)]
    # the rest of the question, with the described person taken out, is asked about them
    rest = text[: match.start()] + "{}" + text[match.start("clause") + len(clause) :]
    hop.rest = rest.replace("{", "{{").replace("}", "}}").replace("{{}}", "{}")
    hop.keywords = content_words(_THINK_OF.sub("", rest.replace("{}", " ")))
    return hop


# Words that frame a question rather than name what it asks about: a negated auxiliary ("doesn't",
# "don't": the stop words hold "does" and "do" but not these) and "according to", which names
# whose words answer (``Reading.teller``), not a word those words hold.
_FRAMING = re.compile(r"\b[a-z]+n['’]t\b|\baccording\s+to\b", re.I)


def _keywords(text: str) -> list[str]:
    """The content words a question's answer should share: :func:`content_words` without framing
    (:data:`_FRAMING`). Here, not in the stop words, so retrieval's queries stay as they are."""
    return content_words(_FRAMING.sub(" ", text))


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
        keywords=_keywords(text),
    )
    me = asker if (first_person and asker) else None
    found = find_people(text, participants)
    reading.claimant = _claimant(text, found, me)
    teller = _teller(text, participants, me)
    if teller is not None and teller.get("id") != (reading.claimant or {}).get("id"):
        reading.teller = teller
    did_next = _did_next(text, participants, me)
    if did_next is not None:
        reading.event, reading.doer = did_next
    reading.hop = _first_hop(text, participants)
    if reading.hop is not None:
        # the rest of the question is about the person the first hop names: its words only
        reading.keywords, reading.hop.keywords = reading.hop.keywords, content_words(reading.hop.quote or "")
        return reading
    plain = _CLEFT.sub(r"\1 ", text)
    plain = _WHOSE_ACT.sub(lambda m: f"Who {_WHOSE_VERB[m.group('act').lower()]} ", plain)

    said_to = _SAID_TO.search(plain)
    who_said = _WHO_SAID.search(plain)
    whom = None if who_said else _WHOM.search(plain)
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
        name = whom.group("name") or whom.group("name2") or whom.group("name3")
        speaker = _person_in(name, participants)
        if speaker is None and name and name.strip().lower() in {"i", "me"}:
            speaker = me
        if speaker is None and (not name or name.strip().lower() in _PRONOUNS) and people:
            # "When Sophie mentioned the outage, who was she addressing?": the pronoun is the one
            # person the question names
            speaker = people[0]
        reading.kind, reading.speaker = "addressee", speaker
        if reading.quote is None:
            reading.quote = _described(plain) or _addressee_topic(plain, whom)
        return reading
    someone = _SOMEONE.match(plain)
    speaker = _person_in(someone.group("name"), participants) if someone else None
    if someone and speaker is not None:
        reading.kind, reading.speaker, reading.quote = "addressee", speaker, someone.group("what").strip()
        return reading
    # whitespace collapsed first: the pattern then cannot backtrack over long runs of spaces
    requests = None if (who_said or quote) else _REQUESTS.search(" ".join(text.split()))
    if requests:
        who = requests.group("who").strip()
        requester = me if who.lower() == "i" else _person_in(who, participants)
        if requester is not None:
            reading.kind, reading.speaker = "requests", requester
            return reading
    who_verb = None if who_said or quote else _WHO_VERB.search(plain)
    if who_said or who_verb:
        if who_said:
            rest = who_said.group("rest")
        else:
            assert who_verb is not None  # one of the two matched
            rest = who_verb.group("verb") + who_verb.group("rest")
        if (
            who_said and rest is None
        ):  # "By whom was Ross told to count faster?" → "Ross told to count faster"
            rest = re.sub(rf"^\s*([\w'-]+)\s+{_SAY_VERBS}\b", r"\1", who_said.group("by_rest"), flags=re.I)
        reading.kind = "who_said"
        reading.act = _act(
            plain,
            said=bool(who_said) or bool(who_verb and re.match(_SAY_VERBS, who_verb.group("verb"), re.I)),
        )
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


def _addressee_topic(text: str, whom: re.Match[str]) -> str | None:
    """For "Who was Ben's announcement about painting the hallway addressed to?" or "Whom did Sophie
    ask to phone the plumber?": the words after the name and verb describe the utterance."""
    tail = text[whom.end() :].strip(" ?")
    if whom.group("name3"):
        tail = re.sub(r"^.*?['’]s?\s+", "", text[: whom.end()]).strip(" ?")
    return tail or None
