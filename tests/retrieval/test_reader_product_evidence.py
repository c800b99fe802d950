"""The offline reader's rules from the 3 December seventh pass (engineer A): faults the product's own
evidence (speaker-aware passages, SPLADE terms, the fused round) exposed, because it retrieves more
of the conversation's near matches into the top ten. Pure: evidence built in memory, stand-in
embedders. Every question and line here is made up for the rule it tests."""

from __future__ import annotations

from tests.retrieval.test_reader_generalises import PEOPLE, _ask, _hit
from voxmem.retrieval.agent import AgentResult
from voxmem.retrieval.answer import NOT_IN_MEMORY, asked_kind, compose
from voxmem.retrieval.fusion import FusedEvidence
from voxmem.retrieval.question import read_question
from voxmem.retrieval.scope import AccessScope
from voxmem.retrieval.tools import Hit


class _Alike:
    """A stand-in sentence embedder under which every text means the same (cosine 1): what meaning
    alone would let through is let through."""

    def __call__(self, text: str) -> list[float]:
        return [1.0, 0.0]


def test_the_asked_kind_is_the_noun_not_the_verb_after_it():
    # a subject question: the word after the noun is the question's verb
    assert asked_kind("Which song motivates Caroline to be courageous?", {"caroline"}) == ["song"]
    assert asked_kind("Which team won the cup last year?", set()) == ["team"]
    # an auxiliary after two words closes a noun phrase: its head is the second word
    assert asked_kind("What kind of dance piece did Sophie's team perform?", {"sophie"}) == ["piece"]
    assert asked_kind("What book series is Leo reading?", {"leo"}) == ["series"]


def test_a_liking_read_by_meaning_alone_is_held_to_the_asked_thing():
    dance = [_hit("m1", "I love all dances, but contemporary is my top pick.", "Peter", ["Sophie"])]
    # nothing Peter said is about painting: his dance is another thing of the kind asked about
    assert _ask("What is Peter's favourite style of painting?", dance, embed=_Alike()).answer == NOT_IN_MEMORY
    # … and it answers the question about dance
    assert "contemporary" in _ask("What is Peter's favourite style of dance?", dance, embed=_Alike()).answer


def test_a_question_said_as_a_fragment_states_nothing_of_its_speaker():
    shoes = [
        _hit("m1", "Love that colour! For walking or running?", "Sophie", ["Peter"]),
        _hit("m2", "These are for running, I go every morning before work.", "Peter", ["Sophie"]),
    ]
    # Sophie asked about Peter's running; she said nothing of her own
    assert _ask("What got Sophie into running?", shoes).answer == NOT_IN_MEMORY
    # the fragment's reply answers the question about the one who replied
    assert "every morning" in _ask("When does Peter go running?", shoes).answer


class _Told:
    """A stand-in sentence embedder: each text's vector given by hand (unknown texts: orthogonal)."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = vectors

    def __call__(self, text: str) -> list[float]:
        return self.vectors.get(text, [0.0, 0.0, 1.0])


def _read(question: str, scored: list[tuple[Hit, float]], embed=None):
    """compose over evidence holding retrieval's own scores (``fuse`` over one list gives RRF
    scores a hair apart)."""
    evidence = [FusedEvidence(evidence=hit.sources[0], score=score) for hit, score in scored]
    scope = AccessScope("sp", "open", None, None)
    reading = read_question(question, PEOPLE, None)
    result = AgentResult(question, scope, reading, "heuristic", evidence, [], {})
    return compose(result, embed=embed)


def test_of_two_sentences_sharing_the_question_as_well_retrieval_s_first_turn_answers():
    question = "What does Leo want to name his puppy?"
    named = _hit("m1", "We all agreed, the puppy's name is Biscuit.", "Leo")
    teased = _hit("m2", "Bad time to say the wrong name for the puppy, huh Leo?", "Sophie")
    # the tease reads a little closer in meaning; retrieval ranked Leo's own turn far above it
    embed = _Told({question: [1.0, 0.0, 0.0], named.text: [0.62, 0.78, 0.0], teased.text: [0.64, 0.77, 0.0]})
    out = _read(question, [(named, 0.6), (teased, 0.2)], embed=embed)
    assert "Biscuit" in out.answer
    # ranked the other way round, the tease's closer meaning stands
    assert "huh Leo" in _read(question, [(teased, 0.6), (named, 0.2)], embed=embed).answer


def test_a_question_s_verb_meets_its_irregular_past_form():
    # the verb is the question's one word besides the person: "found" must meet "find"
    found = [
        _hit("m1", "Oh wow, I have found it: my grandfather's old pocket watch.", "Leo", ["Sophie"]),
        _hit("m2", "That's lovely, keep it somewhere safe.", "Sophie", ["Leo"]),
    ]
    assert "pocket watch" in _ask("What did Leo find?", found).answer
    brought = [_hit("m1", "I brought a lemon cake and some napkins.", "Peter", ["Sophie"])]
    assert "lemon cake" in _ask("What did Peter bring?", brought).answer
    # a verb the turn does not say still finds nothing
    assert _ask("What did Peter sell?", brought).answer == NOT_IN_MEMORY


def test_a_verb_met_only_in_its_irregular_form_needs_more_of_the_question():
    # "thought" meets "think", but Peter's thought is about something else than the report asked about
    thought = [_hit("m1", "I thought of a better name for the band.", "Peter", ["Sophie"])]
    assert _ask("What does Peter think about the report?", thought).answer == NOT_IN_MEMORY
    # with the report said too, the verb counts
    said = [_hit("m1", "I thought the report was far too long.", "Peter", ["Sophie"])]
    assert "too long" in _ask("What does Peter think about the report?", said).answer
    # "left" meets "leave" but not the party the question names
    left = [_hit("m1", "I left my umbrella on the train.", "Leo", ["Sophie"])]
    assert _ask("Why did Leo leave the party early?", left).answer == NOT_IN_MEMORY
    # a verb that is all the question asks besides the person still answers: its object is asked for
    assert "umbrella" in _ask("What did Leo leave?", left).answer


def test_a_listener_s_fragment_question_gets_the_detail_the_statement_left_out():
    bike = [
        _hit("m1", "I finally got a new bike last weekend!", "Leo", ["Sophie"]),
        _hit("m2", "Nice colour! For commuting or the mountains?", "Sophie", ["Leo"]),
        _hit("m3", "Thanks! It's for the mountains, there are great trails near home.", "Leo", ["Sophie"]),
    ]
    assert "mountains" in _ask("What is the new bike Leo got used for?", bike).answer
    # a listener's question with a clause of its own asks about something else
    asked = [bike[0], _hit("m2", "Did you ride it to work yet?", "Sophie", ["Leo"]), bike[2]]
    assert "mountains" not in _ask("What is the new bike Leo got used for?", asked).answer


def test_a_listener_s_question_about_the_statement_gets_the_detail_it_left_out():
    # hand-written; the shape of LoCoMo dev's "… my team won first place at a regionals" / "What
    # dance were you doing?" / "We just did a contemporary piece called …": the listener's question
    # is no fragment, but it asks about what was just said (shares a word with it), and the
    # speaker's next turn answers it
    choir = [
        _hit("m1", "Our choir performed at the spring festival, our best show yet!", "Leo", ["Sophie"]),
        _hit("m2", "Congrats! Which piece did you end up performing?", "Sophie", ["Leo"]),
        _hit("m3", "An old folk song called Wild Mountain Thyme, everyone joined in.", "Leo", ["Sophie"]),
    ]
    answer = _ask("What did Leo's choir perform at the spring festival?", choir).answer
    assert "spring festival" in answer and "Wild Mountain Thyme" in answer
    # a date question keeps the day the statement was said before the detail
    answer = _ask("When did Leo's choir perform at the spring festival?", choir).answer
    assert "(said on 8 May 2026)" in answer and "Wild Mountain Thyme" in answer
    # a question about something the statement never said appends nothing
    dinner = _hit("m2", "Congrats! Are you coming to dinner on Friday?", "Sophie", ["Leo"])
    other = [choir[0], dinner, choir[2]]
    answer = _ask("What did Leo's choir perform at the spring festival?", other).answer
    assert "spring festival" in answer and "Wild Mountain Thyme" not in answer


def test_a_line_saying_only_the_question_s_words_is_answered_by_its_reply():
    # hand-written; the shape of Molweni's "it's a alcatel usb speedtouch" / "probably a badly
    # ported driver, then." and FriendsQA's "He is going to marry that other girl!!!" / "I can't
    # imagine why.": the line matching the question holds nothing but the question's own words,
    # so what the question asks is told in the next turn, someone else's
    noise = [
        _hit("m1", "There's a grinding noise in the dishwasher.", "Leo", ["Sophie"]),
        _hit("m2", "Probably a worn pump, the warranty covers it.", "Sophie", ["Leo"]),
    ]
    answer = _ask("What is the grinding noise in the dishwasher?", noise).answer
    assert "grinding noise" in answer and "worn pump" in answer
    # a line that tells more than the question holds is the answer by itself
    told = [
        _hit("m1", "There's a grinding noise in the dishwasher since the power cut.", "Leo", ["Sophie"]),
        noise[1],
    ]
    answer = _ask("What is the grinding noise in the dishwasher?", told).answer
    assert "power cut" in answer and "worn pump" not in answer
    # the speaker's own next turn is no reply
    own = [noise[0], _hit("m2", "Probably a worn pump, the warranty covers it.", "Leo", ["Sophie"])]
    assert "worn pump" not in _ask("What is the grinding noise in the dishwasher?", own).answer


def test_a_who_question_is_answered_by_the_line_repeating_its_words():
    # hand-written; a who-question asks for the speaker, so a line saying only the question's words
    # answers it by itself, and the next person's reply would name a second person
    hall = [
        _hit("m1", "I think the hallway is too dark.", "Leo", ["Sophie"]),
        _hit("m2", "We could put a lamp by the stairs, it would help.", "Sophie", ["Leo"]),
    ]
    for question in (
        "Who thinks the hallway is too dark?",
        "who thinks the hallway is too dark",  # a recogniser's transcript: no capital, no mark
        "Which person thinks the hallway is too dark?",
    ):
        answer = _ask(question, hall).answer
        assert answer.startswith("Leo:") and "Sophie" not in answer, question
    bike = [
        _hit("m1", "My bike has a flat tyre.", "Leo", ["Sophie"]),
        _hit("m2", "Take it to the shop near the station, they fix them fast.", "Sophie", ["Leo"]),
    ]
    answer = _ask("Whose bike has a flat tyre?", bike).answer
    assert answer.startswith("Leo:") and "Sophie" not in answer
    # the same line asked about by what-question still gets the reply that tells it
    noise = [
        _hit("m1", "There's a grinding noise in the dishwasher.", "Leo", ["Sophie"]),
        _hit("m2", "Probably a worn pump, the warranty covers it.", "Sophie", ["Leo"]),
    ]
    assert "worn pump" in _ask("What is the grinding noise in the dishwasher?", noise).answer
    answer = _ask("Who hears a grinding noise in the dishwasher?", noise).answer
    assert answer.startswith("Leo:") and "worn pump" not in answer
