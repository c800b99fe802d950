"""The offline reader's second pass on generated-case questions phrased by people (issue 11): a
reported claim, a yes/no question about a liking, a liking that changed, a person described by
what they took on, a request to act on the asker's taste, hearsay about someone's taste, pet
names. Pure: evidence built in memory (the helpers of ``test_reader_generalises``), no database;
the wording here is this file's own."""

from __future__ import annotations

from tests.retrieval.fake_llm import ScriptedChat
from tests.retrieval.test_reader_generalises import PEOPLE, PLUMBER, _ask, _BagOfWords, _hit
from voxmem.retrieval.agent import AgentResult
from voxmem.retrieval.answer import compose
from voxmem.retrieval.fusion import fuse
from voxmem.retrieval.llm_reader import LLMReader
from voxmem.retrieval.question import asked_about, find_people, read_question
from voxmem.retrieval.scope import AccessScope

SOPHIE, PETER, LEO = PEOPLE[0], PEOPLE[1], PEOPLE[2]
EARLY, LATE = "2026-04-02T10:00:00Z", "2026-04-20T10:00:00Z"

LEO_DRINKS = [
    _hit("m4", "For me it's always ginger ale, that's my favourite drink.", "Leo", ts=EARLY),
    _hit("m5", "Actually I've switched, I don't drink ginger ale any more, my favourite now is black coffee.",
         "Leo", ts=LATE),
]  # fmt: skip


class _Tastes(_BagOfWords):
    """Vectors sharing a dimension for drinks, for seats, for warmth."""

    groups = (
        {"beverage", "drink", "coffee", "ale", "tea", "thirsty"},
        {"seat", "sit", "window", "aisle"},
        {"warm", "degrees", "heating"},
    )


# --- a claim the question reports ----------------------------------------------------------------
def test_the_person_whose_claim_is_reported_is_not_the_one_asked_about():
    for question, asker in [
        ("Sophie said Leo loves ginger ale. Is that right?", None),
        ("Does Leo really drink ginger ale, as Sophie claims?", None),
        ("Was Sophie right about what Leo drinks?", None),
        ("Sophie's sure Leo loves ginger ale; true?", None),
        ("I said Leo loves ginger ale. Was I right?", SOPHIE),
    ]:
        reading = read_question(question, PEOPLE, asker)
        assert (reading.claimant or {}).get("id") == "p_sophie", question
        about = asked_about(reading, (asker or {}).get("id"), (asker or {}).get("name"))
        assert [p["id"] for p in about] == ["p_leo"], question
    # asking what was said is no claim in doubt
    assert read_question("What did Sophie say about Leo?", PEOPLE).claimant is None
    assert read_question("What does Leo drink?", PEOPLE).claimant is None
    assert read_question("How did Leo react when Sophie said Peter was late?", PEOPLE).claimant is None


def test_a_reported_claim_is_answered_by_the_person_it_is_about_not_by_the_claim():
    hits = [
        _hit("m1", "Leo loves ginger ale, I'm sure of it.", "Sophie"),
        _hit("m2", "No, that's wrong, I never liked ginger ale. My favourite drink is black coffee.", "Leo"),
    ]
    answer = _ask("Sophie said Leo loves ginger ale. Was she right?", hits)
    assert "black coffee" in answer.answer and answer.used == ["m2"]


# --- yes/no about a liking, a liking that changed --------------------------------------------
def test_a_yes_no_question_about_a_liking_says_what_holds_instead():
    answer = _ask("Is ginger ale still Leo's favourite?", LEO_DRINKS)
    assert answer.answer.startswith("No — Leo: ") and "black coffee" in answer.answer
    assert "(said on 20 April 2026)" in answer.answer
    held = _ask("Does Leo enjoy black coffee?", LEO_DRINKS[1:])
    assert held.answer.startswith("No — ")  # the turn negates ginger ale; the value is quoted either way
    agrees = _ask("Does Peter need a window seat?", [_hit("m6", "I always want a window seat.", "Peter")])
    assert agrees.answer == "Yes — Peter: I always want a window seat."
    other = _ask("Does Peter like the aisle seat?", [_hit("m6", "I always want a window seat.", "Peter")])
    assert other.answer.startswith("No — ")  # the question's value is not the one he said


def test_a_question_about_today_takes_the_latest_word_on_a_changed_liking():
    assert "black coffee" in _ask("What does Leo drink these days?", LEO_DRINKS).answer
    # the past is still asked for as before: the change turn names both, the old one first
    assert "ginger ale" in _ask("What did Leo use to drink?", LEO_DRINKS).answer


# --- two hops ------------------------------------------------------------------------------------
def test_a_person_described_by_what_they_took_on_is_read_as_a_first_hop():
    for question, clause, rest in [
        ("What does the person who agreed to call the plumber like to drink?",
         "agreed to call the plumber", ["drink"]),
        ("Whoever said they'd call the plumber: what's their favourite drink?",
         "said they'd call the plumber", ["favorite", "drink"]),
        ("Does the one calling the plumber like tea?", "calling the plumber", ["tea"]),
    ]:  # fmt: skip
        reading = read_question(question, PEOPLE)
        assert reading.hop is not None and reading.hop.quote == clause and reading.hop.act == "commit", (
            question
        )
        assert [w for w in reading.keywords if w not in ("like",)] == rest, question
    assert read_question("Who agreed to call the plumber?", PEOPLE).hop is None


def test_a_two_hop_question_is_answered_about_the_person_the_first_hop_names():
    hits = [*PLUMBER, _hit("m6", "For me it's always black coffee, that's my favourite drink.", "Peter"),
            _hit("m7", "Honestly, the drink I like best is hot chocolate.", "Sophie")]  # fmt: skip
    answer = _ask("What does the person who agreed to call the plumber like to drink?", hits)
    assert "black coffee" in answer.answer and answer.used == ["m2", "m6"]
    assert any(note.startswith("first hop: Peter") for note in answer.notes)


# --- acting on the asker's taste, hearsay, pet names ---------------------------------------------
def test_a_request_in_the_askers_own_words_is_answered_by_their_liking_by_meaning():
    hits = [*LEO_DRINKS, _hit("m6", "Whenever we travel I want the window seat.", "Leo", ts=EARLY)]
    answer = _ask("Fetch me a beverage I'd enjoy.", hits, asker="p_leo", embed=_Tastes())
    assert "black coffee" in answer.answer  # his latest liking of that kind
    seat = _ask("Book me somewhere to sit, please.", hits, asker="p_leo", embed=_Tastes())
    assert "window seat" in seat.answer
    # nothing he said holds a number: "how warm" is not answered by a drink
    assert _ask("How warm do I like it?", hits, asker="p_leo", embed=_Tastes()).answer == "not in memory"


def test_a_persons_own_word_on_their_taste_outweighs_what_others_say_of_it():
    hits = [
        _hit("m1", "Give Leo the aisle seat, that's what he likes.", "Sophie"),
        _hit("m2", "Whenever we travel I want the window seat, please remember that.", "Leo"),
    ]
    assert "window seat" in _ask("Where does Leo like to sit?", hits, embed=_Tastes()).answer
    # what Sophie says of Leo's pillows is not what Sophie uses
    about_leo = [
        _hit("m3", "Leo needs foam pillows, I remember that.", "Sophie"),
        _hit("m4", "Morning!", "Leo"),
    ]
    assert _ask("Which pillows does Sophie use?", about_leo).answer == "not in memory"


def test_pet_and_short_forms_of_a_name_find_the_person():
    assert [p["id"] for _, p in find_people("What does Soph drink?", PEOPLE)] == ["p_sophie"]
    assert [p["id"] for _, p in find_people("Is Pete coming?", PEOPLE)] == ["p_peter"]
    assert find_people("Is Pe coming?", PEOPLE) == []  # too short to tell


def test_someone_asked_to_do_a_task_and_letting_everyone_know_are_attribution_questions():
    reading = read_question("Sophie asked someone to phone the plumber. Who?", PEOPLE)
    assert (reading.kind, (reading.speaker or {}).get("id")) == ("addressee", "p_sophie")
    assert _ask("Sophie asked someone to call the plumber; who was it?", PLUMBER).answer == "Peter"
    assert read_question("Who let everyone know about the outage?", PEOPLE).kind == "who_said"
    assert _ask("Who let everyone know the internet would be down?", PLUMBER).answer == "Sophie"


# --- the LLM's answer against the offline draft --------------------------------------------------
def _read_by(reply: str, question: str, hits: list, asker: str | None = None):
    """``question`` answered with an LLM that always replies ``reply`` (a scripted chat model)."""
    me = next((p for p in PEOPLE if p["id"] == asker), None)
    scope = AccessScope("sp", "participant" if asker else "open", asker, (me or {}).get("name"))
    result = AgentResult(
        question, scope, read_question(question, PEOPLE, me), "heuristic", fuse([hits]), [], {}
    )
    chat = ScriptedChat(planner=lambda prompt: "{}", answerer=lambda prompt: reply)
    return compose(result, llm=LLMReader(chat)), chat


def test_an_llm_answer_resting_on_the_claimants_own_turn_is_not_taken():
    hits = [
        _hit("m1", "Leo has ginger ale with every meal, I'm sure of it.", "Sophie"),
        _hit("m2", "No, that's wrong, I never liked ginger ale. My favourite drink is black coffee.", "Leo"),
    ]
    reply = '{"answer": "ginger ale with every meal", "ids": [1]}'
    answer, chat = _read_by(reply, "Sophie said Leo loves ginger ale. Right?", hits)
    assert chat.calls and "black coffee" in answer.answer and answer.answerer == "extractive"


def test_an_llm_answer_from_a_line_that_only_calls_the_person_by_name_is_not_taken():
    hits = [_hit("m1", "Leo, let's take that offline.", "Sophie", ["Leo"])]
    answer, chat = _read_by('{"answer": "offline", "ids": [1]}', "How does Leo want his updates?", hits)
    assert chat.calls and answer.answer == "not in memory"


def test_a_bare_yes_or_no_from_the_llm_keeps_the_draft_that_says_what_holds():
    answer, chat = _read_by(
        '{"answer": "No", "ids": [2]}', "Is ginger ale still Leo's favourite?", LEO_DRINKS
    )
    assert chat.calls and answer.answer.startswith("No — Leo: ") and "black coffee" in answer.answer


def test_hearsay_matching_the_question_best_yields_to_the_persons_own_word_by_meaning():
    hits = [
        _hit("m1", "Leo likes to sit on the aisle, he told me.", "Sophie"),
        _hit("m2", "I always want the window seat.", "Leo"),
    ]
    assert "window seat" in _ask("Where does Leo like to sit?", hits, embed=_Tastes()).answer


def test_the_later_word_on_a_changed_liking_counts_though_ranked_below_the_first_ten():
    noise = [_hit(f"m{i}", f"The bus is late again, number {i}.", "Peter", ts=EARLY) for i in range(10, 21)]
    hits = [LEO_DRINKS[0], *noise, LEO_DRINKS[1]]
    assert "black coffee" in _ask("What does Leo drink these days?", hits).answer


def test_a_possessive_heard_without_its_apostrophe_names_the_person():
    assert [p["id"] for _, p in find_people("whats leos drink now", PEOPLE)] == ["p_leo"]


def test_what_someone_asked_for_includes_what_they_said_they_always_want():
    hits = [
        _hit("m1", "When I stay here I always want a garden view room.", "Leo"),
        _hit("m2", "The weather is lovely today.", "Leo"),
    ]
    answer = _ask("What did Leo ask for?", hits)
    assert answer.answer == 'Leo asked: "When I stay here I always want a garden view room."'


def test_the_llms_yes_or_no_on_a_taste_opens_the_draft_that_says_what_holds():
    hits = [_hit("m1", "Honestly, the music I like best is hip hop.", "Leo")]
    answer, chat = _read_by(
        '{"answer": "No", "ids": [1]}', "Should you play rock for me?", hits, asker="p_leo"
    )
    assert chat.calls and answer.answer == "No — Leo: Honestly, the music I like best is hip hop."
    # not a question about a taste: the verdict stands alone, as the prompt asks
    plain = [_hit("m2", "We missed the bus this morning.", "Leo")]
    answer, _ = _read_by('{"answer": "Yes", "ids": [1]}', "Did Leo miss the bus?", plain)
    assert answer.answer == "Yes"
