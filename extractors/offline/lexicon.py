"""Word lists the offline rules share: kinship/role terms, group address words, person nouns.

Kept in one place so a reader can see (and extend) every word the rules treat specially; the
words that are never names live with the name test itself (``voxmem.extractors.naming``).
"""

from __future__ import annotations

# Vocative-only kinship and role terms: aliases of the addressed person, never their name.
KINSHIP = {
    "dad": "dad",
    "daddy": "dad",
    "papa": "dad",
    "father": "dad",
    "mom": "mom",
    "mum": "mom",
    "mommy": "mom",
    "mummy": "mom",
    "mama": "mom",
    "mother": "mom",
    "grandma": "grandma",
    "granny": "grandma",
    "nana": "grandma",
    "grandpa": "grandpa",
    "grandad": "grandpa",
    "granddad": "grandpa",
    "auntie": "aunt",
    "aunt": "aunt",
    "uncle": "uncle",
    "son": "son",
    "sis": "sister",
    "bro": "brother",
}
ROLES = {
    "doctor": "doctor",
    "doc": "doctor",
    "nurse": "nurse",
    "officer": "officer",
    "captain": "captain",
    "coach": "coach",
    "teacher": "teacher",
    "professor": "professor",
    "driver": "driver",
    "boss": "boss",
}

# Words that address everyone present.
GROUP_WORDS = (
    "everyone",
    "everybody",
    "you all",
    "y'all",
    "you guys",
    "guys",
    "folks",
    "all of you",
    "team",
    "both of you",
    "you two",
    "people",
)

# Relationship nouns for "my sister Anna" / "this is my husband Tom".
RELATION_NOUNS = (
    "wife",
    "husband",
    "partner",
    "girlfriend",
    "boyfriend",
    "fiance",
    "fiancee",
    "son",
    "daughter",
    "kid",
    "kids",
    "children",
    "child",
    "mother",
    "father",
    "mom",
    "dad",
    "mum",
    "sister",
    "brother",
    "sibling",
    "grandma",
    "grandpa",
    "grandmother",
    "grandfather",
    "aunt",
    "uncle",
    "cousin",
    "niece",
    "nephew",
    "friend",
    "best friend",
    "colleague",
    "coworker",
    "boss",
    "manager",
    "neighbor",
    "neighbour",
    "roommate",
    "doctor",
    "dog",
    "cat",
    "pet",
)

# Nouns for people a name can stand in apposition to ("our neighbour, Dave", "Dave, my
# brother,"): a name next to one is being talked about, not called (a mention, not an address).
PERSON_NOUNS = tuple(
    dict.fromkeys(
        [
            *(n for n in RELATION_NOUNS if n not in ("dog", "cat", "pet", "kids", "children")),
            *KINSHIP,
            *ROLES,
            "neighbor",
            "landlord",
            "landlady",
            "plumber",
            "electrician",
            "mechanic",
            "dentist",
            "lawyer",
            "nanny",
            "babysitter",
            "cleaner",
            "tenant",
            "client",
            "customer",
            "guest",
            "guy",
            "man",
            "woman",
            "lady",
            "girl",
            "boy",
            "baby",
            "ex",
            "flatmate",
            "housemate",
            "classmate",
            "teammate",
            "mate",
            "buddy",
            "pal",
            "stepson",
            "stepdaughter",
            "stepmother",
            "stepfather",
            "grandson",
            "granddaughter",
            "in-law",
            "mother-in-law",
            "father-in-law",
            "postman",
            "courier",
            "vet",
            "therapist",
            "coach",
        ]
    )
)


# Irregular past forms (simple past and participle) -> the base verb. Why one table: the answer
# reader stems "found" as "find" so that "What did Kworth find?" meets the turn that says it (the
# suffix stem cannot), and the fact extractor keeps a past form unconjugated when it turns "I drew
# it" into "Maya drew it" (not "drews"); both read the same forms here. A past form that is also
# a word of another sense ("left", "saw", "felt") is taken for the verb: in a conversation it
# mostly is.
IRREGULAR_PAST = {
    past: base
    for base, forms in {
        "buy": "bought", "bring": "brought", "find": "found", "see": "saw seen", "go": "went gone",
        "take": "took taken", "fall": "fell fallen", "feel": "felt", "leave": "left",
        "give": "gave given", "tell": "told", "make": "made", "get": "got gotten", "think": "thought",
        "meet": "met", "lose": "lost", "win": "won", "teach": "taught", "catch": "caught", "keep": "kept",
        "run": "ran", "sing": "sang sung", "write": "wrote written", "begin": "began begun",
        "choose": "chose chosen", "eat": "ate eaten", "fly": "flew flown", "grow": "grew grown",
        "hear": "heard", "hold": "held", "know": "knew known", "pay": "paid", "sell": "sold", "send": "sent",
        "speak": "spoke spoken", "spend": "spent", "stand": "stood", "swim": "swam", "wear": "wore worn",
        "build": "built", "draw": "drew drawn", "drive": "drove driven", "drink": "drank",
        "ride": "rode ridden", "forget": "forgot forgotten", "understand": "understood",
        "become": "became", "come": "came",
    }.items()
    for past in forms.split()
}  # fmt: skip
