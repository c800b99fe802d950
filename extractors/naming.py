"""What counts as a person's name in a record: shared by every extractor backend and the writer.

Why here and not in a backend: a record names people by window label or by a plain name,
and the memory writer makes a placeholder participant for a plain name nobody bears yet. It
must refuse "Yeah" or "The" whichever backend (offline rules, an LLM, graphiti) produced the
record, so the test belongs to the extraction contract, next to :mod:`voxmem.extractors.schema`.
"""

from __future__ import annotations

import re

# Capitalised words that start sentences or follow "I'm" without being names.
NOT_NAMES = frozenset(
    [
        "i",
        "im",
        "i'm",
        "me",
        "my",
        "you",
        "your",
        "we",
        "our",
        "they",
        "he",
        "she",
        "it",
        "its",
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "what",
        "why",
        "how",
        "when",
        "where",
        "who",
        "which",
        "whose",
        "yes",
        "no",
        "yeah",
        "yep",
        "nope",
        "ok",
        "okay",
        "thanks",
        "thank",
        "sure",
        "well",
        "so",
        "hey",
        "hi",
        "hello",
        "oh",
        "ah",
        "wow",
        "great",
        "good",
        "nice",
        "cool",
        "right",
        "sorry",
        "please",
        "really",
        "actually",
        "maybe",
        "anyway",
        "also",
        "and",
        "but",
        "or",
        "god",
        "man",
        "dude",
        "everyone",
        "everybody",
        "guys",
        "all",
        "folks",
        "team",
        "lol",
        "haha",
        "awesome",
        "amazing",
        "absolutely",
        "definitely",
        "totally",
        "exactly",
        "congrats",
        "congratulations",
        "bye",
        "goodbye",
        "morning",
        "evening",
        "afternoon",
        "night",
        "tonight",
        "today",
        "tomorrow",
        "yesterday",
        "here",
        "there",
        "now",
        "then",
        "just",
        "not",
        "never",
        "always",
        "sometimes",
        "glad",
        "happy",
        "sad",
        "tired",
        "busy",
        "fine",
        "excited",
        "sorry",
        "afraid",
        "sure",
        "ready",
        "going",
        "gonna",
        "trying",
        "looking",
        "doing",
        "thinking",
        "working",
        "back",
        "home",
        "done",
        "new",
        "old",
        "fun",
        "true",
        "false",
        "hmm",
        "um",
        "uh",
        "er",
        "yup",
        "alright",
        "let",
        "lets",
        "let's",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "do",
        "does",
        "did",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "am",
        "have",
        "has",
        "had",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "february",
        "march",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "mr",
        "mrs",
        "ms",
        "dr",
        "ubuntu",
        "linux",
        "windows",
        "english",
        "french",
        "german",
        "spanish",
        "anyone",
        "someone",
        "something",
        "nothing",
        "everything",
        "one",
        "two",
        "three",
        "first",
        "second",
        "next",
        "last",
        "another",
        "other",
        "both",
        "welcome",
        "cheers",
        "bless",
        "honey",
        "sweetie",
        "dear",
        "buddy",
        "pal",
        "mate",
        "bro",
        "sis",
        "love",
        "babe",
        "baby",
        "guy",
        # sentence adverbs and fillers that open a sentence with a comma ("Honestly, …")
        "honestly",
        "seriously",
        "basically",
        "obviously",
        "apparently",
        "luckily",
        "unfortunately",
        "fortunately",
        "frankly",
        "still",
        "besides",
        "however",
        "meanwhile",
        "otherwise",
        "wait",
        "listen",
        "look",
        "like",
        "whatever",
        "anyways",
        "indeed",
        "perfect",
        "fair",
        "hold",
        # interjections and contractions that open or close a sentence like a name would
        # ("Shoot!", "Whoa, …", "You're Bonnie?")
        "ooh",
        "oooh",
        "ohh",
        "whoa",
        "woah",
        "wha",
        "umm",
        "uhm",
        "hmmm",
        "huh",
        "uh-huh",
        "shoot",
        "damn",
        "dammit",
        "oops",
        "ow",
        "ouch",
        "ugh",
        "yay",
        "yikes",
        "gosh",
        "jeez",
        "geez",
        "hah",
        "ha",
        "aw",
        "aww",
        "eh",
        "duh",
        "boy",
        "ahh",
        "oh-oh",
        "uh-oh",
        "whoo",
        "hooray",
        "bravo",
        "sir",
        "ma'am",
        "you're",
        "you've",
        "you'll",
        "it's",
        "that's",
        "there's",
        "here's",
        "what's",
        "i'll",
        "i've",
        "i'd",
        "we're",
        "they're",
        "he's",
        "she's",
        "don't",
        "didn't",
        "can't",
        "won't",
        "isn't",
        "mister",
        "miss",
        "missus",
        # closed-class words (pronouns, conjunctions, prepositions, particles), the discourse
        # verbs that open a sentence like "look" and "listen" do ("See, I …", "Remember?"), and
        # interjections and name suffixes: said where a call would be ("Because, I …", "Her, she
        # …", "Yo!", "Ew!", "Ed Begley, Jr.") they made name-only placeholders on FriendsQA tune
        # episodes (docs/memory.md, "Names are name-shaped, 2 December (N2)")
        "her",
        "him",
        "his",
        "hers",
        "them",
        "us",
        "mine",
        "yours",
        "none",
        "any",
        "some",
        "each",
        "every",
        "because",
        "cause",
        "if",
        "unless",
        "since",
        "though",
        "although",
        "while",
        "to",
        "at",
        "in",
        "on",
        "of",
        "for",
        "with",
        "from",
        "about",
        "into",
        "by",
        "out",
        "up",
        "down",
        "off",
        "away",
        "again",
        "too",
        "very",
        "see",
        "remember",
        "guess",
        "imagine",
        "pardon",
        "kinda",
        "sorta",
        "ya",
        "yo",
        "ew",
        "eww",
        "oy",
        "heh",
        "eeh",
        "noo",
        "jr",
        "sr",
    ]
)


def _name_like(word: str) -> bool:
    """Letters (and ' or -) starting with a capital, or with a letter of a script without case
    ("李", "م"): names in any script, never digits or punctuation alone."""
    first = word[:1]
    cased = first.isupper() or (first.isalpha() and first.lower() == first.upper())
    if word.lower().endswith(("'s", "’s")):  # "Rachel's" (boyfriend): a possessive, not a name
        return False
    parts = [p for p in re.split(r"[-'’]", word.lower()) if p]
    if len(parts) > 1 and all(p in NOT_NAMES for p in parts):  # "No-no-no", "Oh-oh"
        return False
    if not _spoken_sound(word):
        return False
    return cased and all(c.isalpha() or c in "'’-" for c in word)


def _spoken_sound(word: str) -> bool:
    """False for the spellings of sounds and slurred words that open a sentence like a call
    ("Ahhhh, …", "Shhhh!", "W-w-w-wait!", "Woo-hoo!", "Y'know, …"): a letter written three times
    in a row, a hyphenated word whose parts are not each a capitalised name ("Jean-Luc" and
    "Anne-Marie" are), or one letter and an apostrophe before a small letter ("O'Brien" keeps
    its capital). On FriendsQA (speakers hidden) such words made name-only placeholders, which
    join the session as people who were called (docs/memory.md, "Naming heard through ASR, 2
    December second pass")."""
    if re.search(r"([^\W\d_])\1\1", word.lower()):
        return False
    hyphenated = [p for p in re.split(r"[-‐]", word) if p]
    if len(hyphenated) > 1 and not all(len(p) >= 2 and not p[0].islower() for p in hyphenated):
        return False
    return not re.match(r"^[^\W\d_]['’][a-z]", word)


# The generic nouns that end the proper name of a place, building or institution. Such a name is a
# specific word plus a noun saying what kind of thing it is ("Westminster Abbey", "Baker Street",
# "Grand Central Station", "Carnegie Mellon University"); a person's name is a given name plus a
# family name and does not end in one. Read as a call, "first stop, Westminster Abbey." named a
# FriendsQA voice "Westminster Abbey" (docs/memory.md, "Names are name-shaped, 2 December (N2)").
# Generics that are also common English family names stay out ("Monty Hall", "Faith Hill",
# "Nathan Lane", "Bill Gates", "Shirley Temple", "Jimin Park", "Natalie Wood", "Harrison Ford").
PLACE_HEADS = frozenset(
    [
        # streets and open places
        "street",
        "road",
        "avenue",
        "boulevard",
        "square",
        "plaza",
        "highway",
        "freeway",
        "bridge",
        "tunnel",
        "pier",
        "harbor",
        "harbour",
        "airport",
        "station",
        "terminal",
        # land and water
        "beach",
        "bay",
        "lake",
        "river",
        "ocean",
        "sea",
        "island",
        "islands",
        "mountain",
        "mountains",
        "valley",
        "canyon",
        "falls",
        "springs",
        "heights",
        "garden",
        "gardens",
        "zoo",
        # settlements and states
        "city",
        "town",
        "village",
        "county",
        "state",
        "kingdom",
        "republic",
        # buildings and institutions
        "abbey",
        "cathedral",
        "church",
        "chapel",
        "mosque",
        "synagogue",
        "monastery",
        "palace",
        "castle",
        "tower",
        "towers",
        "house",
        "building",
        "center",
        "centre",
        "museum",
        "gallery",
        "library",
        "theater",
        "theatre",
        "cinema",
        "stadium",
        "arena",
        "university",
        "college",
        "school",
        "academy",
        "institute",
        "hospital",
        "clinic",
        "prison",
        "embassy",
        "memorial",
        "monument",
        "cemetery",
        "hotel",
        "motel",
        "inn",
        "resort",
        "casino",
        "restaurant",
        "cafe",
        "café",
        "diner",
        "bar",
        "pub",
        "club",
        "mall",
        "market",
        "store",
        "shop",
        "studio",
        "studios",
        "farm",
        "ranch",
        "lodge",
        "manor",
        "estate",
        "apartments",
        "company",
        "corporation",
        "inc",
        "ltd",
        "airlines",
        "records",
    ]
)


def names_a_place(term: str) -> bool:
    """A phrase of several words that ends in a place or institution noun (``PLACE_HEADS``): it
    names that place, not a person. One such word alone ("Abbey") may be a given name."""
    words = term.split()
    return len(words) > 1 and words[-1].lower().strip(".,!?") in PLACE_HEADS


def plausible_new_name(term: str) -> bool:
    """A capitalised word (or a word of an uncased script) that is not a common word and no place
    phrase: could be a person's name."""
    words = term.split()
    return (
        bool(words)
        and not names_a_place(term)
        and all(_name_like(w) and w.lower().strip("'") not in NOT_NAMES for w in words)
    )


# --- names heard through ASR: sound-alike spellings ---------------------------------------------
# Soundex digit classes: letters that sound alike share a digit; vowels, h, w and y carry none.
_SOUND_CLASS = {
    **dict.fromkeys("bfpv", "1"),
    **dict.fromkeys("cgjkqsxz", "2"),
    **dict.fromkeys("dt", "3"),
    "l": "4",
    **dict.fromkeys("mn", "5"),
    "r": "6",
}
# Spellings of the same first sound ("Katherine"/"Catherine", "Philip"/"Filip").
_FIRST_SOUND = (("ph", "f"), ("kh", "k"), ("c", "k"), ("q", "k"), ("wh", "w"))


def sound_key(name: str) -> str:
    """A Soundex-like key of a one-word name: its first sound plus the digit classes of the
    consonants that follow (repeats folded). "Priya", "Pria", "Preeya" → "p6"."""
    word = "".join(c for c in name.lower() if c.isalpha())
    if not word:
        return ""
    for spelled, sound in _FIRST_SOUND:
        if word.startswith(spelled):
            word = sound + word[len(spelled) :]
            break
    digits = []
    last = _SOUND_CLASS.get(word[0], "")
    for c in word[1:]:
        d = _SOUND_CLASS.get(c, "")
        if d and d != last:
            digits.append(d)
        if c not in "hw":  # Soundex: h and w do not separate two equal codes
            last = d
    return word[0] + "".join(digits)


def _substitution(a: str, b: str) -> float:
    """Cost of hearing ``b`` for ``a``: nothing for the same letter, little for letters of one
    sound ("c"/"k", "i"/"y"), more for another vowel, most for anything else (as an insertion
    plus a deletion)."""
    if a == b:
        return 0.0
    if {a, b} == {"i", "y"} or (_SOUND_CLASS.get(a) and _SOUND_CLASS.get(a) == _SOUND_CLASS.get(b)):
        return 0.5
    if a in "aeiou" and b in "aeiou":
        return 1.5
    return 2.0


def _edits(a: str, b: str) -> float:
    """Weighted Levenshtein distance (insertions and deletions cost 1; see ``_substitution``)."""
    prev = [float(j) for j in range(len(b) + 1)]
    for i, ca in enumerate(a, 1):
        cur = [float(i)]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + _substitution(ca, cb)))
        prev = cur
    return prev[-1]


def sounds_like(heard: str, name: str) -> bool:
    """``heard`` is plausibly ``name`` misheard or misspelt by ASR ("Pria" for "Priya", "Maia"
    for "Maya", "Catherine" for "Katherine", "Rachael" for "Rachel"): one-word names of at least
    four letters with the same sound key, at most one weighted edit per four letters apart, and
    not the same word. Strict on purpose, since a wrong match gives one person's words to
    another: "Tom" is not "Tim", "Ross" not "Rose", "Dana" not "Dina", "Mia" not "Maya"."""
    a, b = heard.lower(), name.lower()
    if a == b or " " in a or " " in b or min(len(a), len(b)) < 4:
        return False
    if sound_key(a) != sound_key(b):
        return False
    return _edits(a, b) <= max(1, max(len(a), len(b)) // 4)
