"""Word lists the offline rules share: non-names, kinship/role terms, group address words.

Kept in one place so a reader can see (and extend) every word the rules treat specially.
"""

from __future__ import annotations

# Capitalised words that start sentences or follow "I'm" without being names.
NOT_NAMES = frozenset(
    ["i", "im", "i'm", "me", "my", "you", "your", "we", "our", "they", "he", "she", "it", "its", "the", "a", "an", "this", "that", "these", "those", "what", "why", "how", "when", "where", "who", "which", "whose", "yes", "no", "yeah", "yep", "nope", "ok", "okay", "thanks", "thank", "sure", "well", "so", "hey", "hi", "hello", "oh", "ah", "wow", "great", "good", "nice", "cool", "right", "sorry", "please", "really", "actually", "maybe", "anyway", "also", "and", "but", "or", "god", "man", "dude", "everyone", "everybody", "guys", "all", "folks", "team", "lol", "haha", "awesome", "amazing", "absolutely", "definitely", "totally", "exactly", "congrats", "congratulations", "bye", "goodbye", "morning", "evening", "afternoon", "night", "tonight", "today", "tomorrow", "yesterday", "here", "there", "now", "then", "just", "not", "never", "always", "sometimes", "glad", "happy", "sad", "tired", "busy", "fine", "excited", "sorry", "afraid", "sure", "ready", "going", "gonna", "trying", "looking", "doing", "thinking", "working", "back", "home", "done", "new", "old", "fun", "true", "false", "hmm", "um", "uh", "er", "yup", "alright", "let", "lets", "let's", "can", "could", "would", "should", "will", "shall", "may", "might", "must", "do", "does", "did", "is", "are", "was", "were", "be", "been", "am", "have", "has", "had", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december", "mr", "mrs", "ms", "dr", "ubuntu", "linux", "windows", "english", "french", "german", "spanish", "anyone", "someone", "something", "nothing", "everything", "one", "two", "three", "first", "second", "next", "last", "another", "other", "both", "welcome", "cheers", "bless", "honey", "sweetie", "dear", "buddy", "pal", "mate", "bro", "sis", "love", "babe", "baby", "guy"]
)

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
