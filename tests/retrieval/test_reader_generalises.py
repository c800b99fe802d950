"""The offline reader on hand-written questions phrased otherwise than the generator phrases them:
paraphrased who-said / to-whom questions, names by part and by sound, short answers, the asker's
own turns, no pseudonyms. Pure: evidence is built in memory, no database."""

from __future__ import annotations

from datetime import date

import numpy as np

from voxmem.retrieval.agent import AgentResult
from voxmem.retrieval.answer import Meaning, _label, compose
from voxmem.retrieval.fusion import fuse
from voxmem.retrieval.question import find_people, read_question, sound_key
from voxmem.retrieval.scope import AccessScope
from voxmem.retrieval.spans import place_phrase, relative_date, short_span, wanted_shape
from voxmem.retrieval.tools import Evidence, Hit

PEOPLE = [
    {"id": "p_sophie", "name": "Sophie"},
    {"id": "p_peter", "name": "Peter"},
    {"id": "p_leo", "name": "Leo"},
    {"id": "p_carol", "name": "Caroline", "aliases": ["Caro"]},
]


def _hit(
    i: str, text: str, speaker: str, to: list[str] | None = None, ts: str = "2026-05-08T10:00:00Z"
) -> Hit:
    person = {p["name"]: p for p in PEOPLE}
    evidence = Evidence(
        id=i,
        session="s1",
        idx=int(i[1:]) if i[1:].isdigit() else 0,
        text=text,
        ts=ts,
        speaker=person[speaker],
        addressees=[person[a] for a in (to or [])],
    )
    return Hit("interaction", "message_vector", i, text, 1.0, [evidence])


def _ask(question: str, hits: list[Hit], asker: str | None = None, embed=None):
    me = next((p for p in PEOPLE if p["id"] == asker), None)
    scope = AccessScope("sp", "participant" if asker else "open", asker, (me or {}).get("name"))
    reading = read_question(question, PEOPLE, me)
    result = AgentResult(question, scope, reading, "heuristic", fuse([hits]), [], {})
    return compose(result, embed=embed)


PLUMBER = [
    _hit("m1", "Peter, could you call the plumber?", "Sophie", ["Peter"]),
    _hit("m2", "Sure, I'll call the plumber.", "Peter", ["Sophie"]),
    _hit("m3", "Everyone, the internet will be down on Tuesday for repairs.", "Sophie", ["Peter", "Leo"]),
]


# --- reading paraphrased attribution questions -------------------------------------------------
def test_who_questions_with_any_verb_or_a_cleft_are_attribution_questions():
    for question, act in [
        ("Who offered to get in touch with the plumber?", "commit"),
        ("Which person took on calling the plumber?", "commit"),
        ("Who was it that asked Peter about calling the plumber?", "request"),
        ("Who got Peter to ring the plumber?", "request"),
        ("Who gave everyone the heads-up about the outage?", "say"),
    ]:
        r = read_question(question, PEOPLE)
        assert (r.kind, r.act) == ("who_said", act), question
        assert (r.quote and "plumber" in r.quote) or "outage" in (r.quote or "")
    # a copula or an auxiliary asks about a relation, not about who said something
    assert read_question("Who is Peter's sister?", PEOPLE).kind == "general"
    assert read_question("Who did Peter meet at the station?", PEOPLE).kind == "general"


def test_to_whom_questions_that_describe_the_utterance():
    for question in [
        "Who was Sophie talking to when she brought up the plumber?",
        "Whom did Sophie ask to phone the plumber?",
        "When Sophie mentioned the plumber, who was she speaking to?",
        "Who did Sophie want to contact the plumber?",
        "Who was Sophie's request about the plumber addressed to?",
    ]:
        r = read_question(question, PEOPLE)
        assert r.kind == "addressee" and r.speaker["id"] == "p_sophie", question
        assert "plumber" in (r.quote or ""), question


def test_paraphrased_attribution_answers_come_from_speaks_and_addresses():
    # no shared verb: only the meaning ("get in touch" ~ "call") finds the turn
    assert _ask("Who offered to get in touch with the plumber?", PLUMBER).answer == "not in memory"
    assert (
        _ask("Who offered to get in touch with the plumber?", PLUMBER, embed=_BagOfWords()).answer == "Peter"
    )
    assert _ask("Who said they would phone the plumber?", PLUMBER, embed=_BagOfWords()).answer == "Peter"
    assert _ask("Who wanted Peter to call the plumber?", PLUMBER).answer == "Sophie"
    out = _ask("When Sophie brought up the plumber, who was she speaking to?", PLUMBER)
    assert (out.answer, out.answerer, out.used) == ("Peter", "graph", ["m1"])
    group = _ask("Who did Sophie tell about the internet repairs?", PLUMBER)
    assert group.answer == "Peter and Leo"


def test_who_asked_for_something_is_the_speaker_of_the_request():
    hits = [
        _hit("m1", "Dad, can we have pizza for dinner on Friday?", "Leo", ["Peter"]),
        _hit("m2", "Only if it is vegetarian, Leo.", "Peter", ["Leo"]),
    ]
    out = _ask("Who asked for pizza?", hits)
    assert (out.answer, out.answerer) == ("Leo", "graph")


class _BagOfWords:
    """A stand-in sentence embedder whose vectors share a dimension for words of one meaning
    (so the reader's use of meaning is tested without a model)."""

    groups = ({"phone", "call", "ring", "contact", "touch"}, {"plumber"}, {"internet", "outage", "down"})

    def __call__(self, text: str) -> list[float]:
        words = {w.strip(".,?!'").lower() for w in text.split()}
        return [float(bool(words & g)) for g in self.groups] + [0.1]


def test_meaning_matches_a_paraphrase_that_shares_no_content_word():
    m = Meaning(_BagOfWords())
    scores = m.scores("ring him up", ["Sure, I'll call the plumber.", "Everyone, the internet is down."])
    assert scores[0] > 0.5 > scores[1]
    assert Meaning().scores("ring him up", ["Sure, I'll call the plumber."]) == [0.0]  # words only
    cos = Meaning(lambda t: np.ones(3))._cosines("a", ["b"])
    assert abs(cos[0] - 1.0) < 1e-9


# --- names by part, alias and sound -----------------------------------------------------------
def test_people_found_by_any_part_of_their_name_alias_or_sound():
    people = [
        {"id": "1", "name": "John"},
        {"id": "2", "name": "Melanie Smith"},
        {"id": "3", "name": "Caroline"},
    ]
    assert [p["id"] for _, p in find_people("What did Caroline Jones say?", people)] == ["3"]
    assert [p["id"] for _, p in find_people("Where does Smith work?", people)] == ["2"]
    assert [p["id"] for _, p in find_people("When did Jon arrive?", people)] == ["1"]  # ASR spelling
    assert [p["id"] for _, p in find_people("What did Carolyn bake?", people)] == ["3"]
    assert find_people("What did Tim bake?", [{"id": "t", "name": "Tom"}]) == []  # a vowel apart
    assert find_people("When did they arrive?", people) == []
    assert sound_key("Katherine") == sound_key("Catherine")
    assert sound_key("Sarah") == sound_key("Sara") != sound_key("Sam")


def test_no_pseudonym_or_voice_id_when_a_name_is_known():
    assert _label({"id": "p_1", "name": "person-3f2a1c", "aliases": ["Priya"]}) == "Priya"
    assert _label({"id": "p_1", "name": "Priya", "aliases": []}) == "Priya"
    assert _label({"id": "p_9", "name": "person-3f2a1c"}) == "an unnamed voice (p_9)"


# --- short answers --------------------------------------------------------------------------
def test_wanted_shape_of_questions():
    assert wanted_shape("When did Leo go to the dentist?") == "date"
    assert wanted_shape("In what year did she move?") == "date"
    assert wanted_shape("What time is the match on Sunday?") == "time"
    assert wanted_shape("How many kids does Melanie have?") == "number"
    assert wanted_shape("Where are the old football boots?") == "place"
    assert wanted_shape("Did Peter fix the light?") == "yesno"
    assert wanted_shape("On which day did Peter paint the fence?") == "date"
    assert wanted_shape("In what month did they move?") == "date"
    assert wanted_shape("How warm does Leo want the room?") == "number"
    assert wanted_shape("Which temperature does Sophie like?") == "number"
    assert wanted_shape("What is Leo's favourite drink?") is None


def test_short_spans_of_the_wanted_shape():
    said = date(2023, 5, 8)
    assert short_span("date", "I went to a support group yesterday.", said) == "yesterday (7 May 2023)"
    assert short_span("date", "We moved there in 2019.", said) == "2019"
    assert short_span("date", "The game was last Saturday!", said) == (
        "last Saturday (the Saturday before 8 May 2023, 6 May 2023)"
    )
    assert relative_date("I started two years ago.", said) == "two years ago (2021)"
    assert relative_date("Got the tattoo a few years ago.", said) == "a few years ago (before 2023)"
    assert short_span("date", "Last Fri I took my kids to a pottery workshop.", said) == (
        "Last Fri (the Friday before 8 May 2023, 5 May 2023)"
    )
    # a clock time right after the day is part of the answer, the words said come first
    assert (
        short_span("date", "The team meets tomorrow at 8:30 sharp.", said) == "tomorrow at 8:30 (9 May 2023)"
    )
    assert short_span("date", "He got drunk last night.", said) == "last night (7 May 2023)"
    # a weekday is read to its calendar day: the nearest before (last) or after (next), never the
    # day it was said; "this Friday" (this week's or the coming one?) only by its week
    sunday = date(2023, 7, 23)
    assert relative_date("Last Friday at dance class", sunday) == (
        "Last Friday (the Friday before 23 July 2023, 21 July 2023)"
    )
    last, following = relative_date("last Sunday", sunday), relative_date("next Sun", sunday)
    assert last == "last Sunday (the Sunday before 23 July 2023, 16 July 2023)"
    assert following == "next Sun (the Sunday after 23 July 2023, 30 July 2023)"
    assert relative_date("this Friday", sunday) == "this Friday (the Friday of 23 July 2023)"
    assert relative_date("We perform next month!", said) == "next month (June 2023)"
    assert relative_date("I lost my job this month.", date(2023, 1, 20)) == "this month (January 2023)"
    assert relative_date("It was hard last month.", date(2023, 1, 20)) == "last month (December 2022)"
    assert short_span("time", "The match moved to Sunday morning at nine.", said) == "nine"
    assert short_span("time", "Dinner is at 7:30 pm sharp.", said) == "7:30 pm"
    assert short_span("number", "I have three kids and a dog.", said) == "three kids"
    assert short_span("number", "I like it at eighteen degrees.", said) == "eighteen degrees"  # not "eight"
    assert short_span("number", "Set it to twenty one degrees.", said) == "twenty one degrees"
    assert short_span("place", "Sure, they are in the garage next to the bikes.", said) is None
    assert (
        place_phrase("Sure, they are in the garage next to the bikes.") == "in the garage next to the bikes"
    )
    assert short_span("place", "I need new football boots.", said) is None
    assert short_span("place", "She moved to New Zealand last spring.", said) == "New Zealand"
    assert short_span("yesno", "I never fixed it.", said) == "No"
    assert short_span("date", "I like pottery.", said) is None
    assert short_span("date", "Tom, the plumber is coming on Thursday at ten, can you be home?", said) == (
        "Thursday at ten"
    )


def test_when_question_is_answered_with_a_date_not_the_turn():
    hits = [_hit("m1", "I went to the LGBTQ support group yesterday and it was powerful.", "Caroline")]
    out = _ask("When did Caroline go to the LGBTQ support group?", hits)
    assert out.answer == "yesterday (7 May 2026)" and out.used == ["m1"]


# --- personal questions by a recognised asker ---------------------------------------------------
def test_first_person_question_is_answered_from_the_askers_own_turns():
    hits = [
        _hit("m1", "For me it's always black coffee, that's my favourite drink.", "Peter"),
        _hit("m2", "For me it's always ginger ale, that's my favourite drink.", "Leo"),
    ]
    assert "ginger ale" in _ask("Which drink is my favorite?", hits, asker="p_leo").answer
    assert "black coffee" in _ask("Which drink is my favorite?", hits, asker="p_peter").answer


def test_an_address_is_not_a_mention():
    from voxmem.retrieval.answer import _vocative_only

    assert _vocative_only("Thanks, Caroline!", "caroline")
    assert _vocative_only("Wow Caroline, you look so happy.", "caroline")
    assert _vocative_only("That is great news for you, Caroline.", "caroline")
    assert not _vocative_only("Caroline went to the support group.", "caroline")
    assert not _vocative_only("Hey Caroline! I went to Caroline's party.", "caroline")
    # a question about Caroline is not answered by a turn that only greets her
    hits = [_hit("m1", "Thanks, Caroline! I ran a charity race for mental health.", "Leo")]
    assert _ask("What did Caroline run for charity?", hits).answer == "not in memory"


def test_who_did_questions_take_the_speaker_only_of_a_first_person_turn():
    r = read_question("Who performed at the concert?", PEOPLE)
    assert (r.kind, r.act) == ("who_said", "did")
    talk = [_hit("m1", "The concert was amazing, Matt Patterson performed at the concert.", "Leo")]
    assert _ask("Who performed at the concert?", talk).answerer != "graph"
    did = [_hit("m1", "I performed at the concert last night.", "Leo")]
    assert _ask("Who performed at the concert?", did).answer == "Leo"


def test_a_question_turn_is_answered_by_its_reply():
    hits = [
        _hit("m1", "Mom, I need new football boots before Saturday's match.", "Sophie"),
        _hit("m7", "Maya, can I borrow your old boots?", "Leo", ["Sophie"]),
        _hit("m8", "Sure, they are in the garage next to the bikes.", "Sophie", ["Leo"]),
    ]
    out = _ask("Where are the old football boots?", hits)
    assert out.answer == "in the garage next to the bikes" and out.used == ["m7", "m8"]


# --- questions in the evidence, the listener's things, names alone -------------------------------
def test_a_question_is_no_evidence_of_its_own_content():
    hits = [_hit("m1", "Wow! What got you into running?", "Caroline", ["Leo"])]
    assert _ask("What is Caroline's reason for getting into running?", hits).answer == "not in memory"


def test_an_interlocutors_question_is_answered_by_the_named_persons_reply():
    hits = [
        _hit("m4", "Caroline, what motivated you to pursue counseling?", "Leo", ["Caroline"]),
        _hit("m5", "My own journey and the support I got made a huge difference.", "Caroline", ["Leo"]),
    ]
    out = _ask("What motivated Caroline to pursue counseling?", hits)
    assert "own journey" in out.answer and out.used == ["m5"]
    # the reply of someone else says nothing about Caroline
    other = [hits[0], _hit("m5", "My own journey made a huge difference.", "Peter", ["Leo"])]
    assert _ask("What motivated Caroline to pursue counseling?", other).answer == "not in memory"


def test_the_listeners_things_are_not_the_speakers():
    hits = [_hit("m1", "Thanks, Sophie! Your store looks great, I remember it!", "Leo", ["Sophie"])]
    assert _ask("How is Leo's store doing?", hits).answer == "not in memory"
    mine = [_hit("m1", "Thanks, Sophie! My store is doing great, sales doubled.", "Leo", ["Sophie"])]
    assert "sales doubled" in _ask("How is Leo's store doing?", mine).answer


def test_what_a_person_says_to_the_listener_is_about_the_listener():
    praise = [_hit("m1", "That bake sale sounds amazing, Soph! So proud of you for it.", "Leo", ["Sophie"])]
    assert _ask("What did Leo learn from his bake sale?", praise).answer == "not in memory"
    # the whole turn speaks to Sophie; "I hope" and "let me know" say nothing of Leo
    caring = [
        _hit(
            "m1",
            "Oh no, sorry to hear that, Sophie. I hope you're okay. Gardening is a great way to unwind."
            " Let me know!",
            "Leo",
            ["Sophie"],
        )
    ]
    assert _ask("What does Leo do to unwind?", caring).answer == "not in memory"
    # a turn that speaks of its speaker keeps its sentences without a subject
    busy = [
        _hit(
            "m1",
            "Hi Sophie! Work has been crazy for me. Started gardening last month to unwind. How about you?",
            "Leo",
            ["Sophie"],
        )
    ]
    assert "gardening" in _ask("What does Leo do to unwind?", busy).answer.lower()
    # a greeting is no address: the news after it is the speaker's
    news = [_hit("m1", "Hey Sophie, the gardening course last weekend was a blast!", "Leo", ["Sophie"])]
    assert "gardening course" in _ask("How was Leo's gardening course?", news).answer
    # with several listeners (or none recorded) who "you" is is not known: the rule stays out
    group = [_hit("m1", "That bake sale sounds amazing! So proud of you for it.", "Leo", ["Sophie", "Peter"])]
    assert "bake sale" in _ask("What did Leo learn from his bake sale?", group).answer
    # "What did Leo say about …" asks for his words, whoever they are about
    said = [_hit("m1", "Gardening is a great way to unwind, you should try it!", "Leo", ["Sophie"])]
    assert "unwind" in _ask("What did Leo say about gardening?", said).answer


def test_a_question_about_others_states_nothing_but_one_about_oneself_does():
    hits = [_hit("m1", "Your kids look happy! How did they take the move?", "Caroline", ["Leo"])]
    assert _ask("How did Caroline's kids take the move?", hits).answer == "not in memory"
    own = [_hit("m1", "The move was hard on us. Were we wrong to move the kids?", "Caroline", ["Leo"])]
    assert "move" in _ask("How did Caroline find the move?", own).answer


def test_a_date_said_next_to_the_matching_sentence_answers_a_when_question():
    hits = [
        _hit(
            "m1",
            "My friends and mentors are my rocks. Here's a pic from when we met up last week!",
            "Caroline",
            ts="2023-06-09T10:00:00Z",
        )
    ]
    out = _ask("When did Caroline meet up with her friends and mentors?", hits)
    assert out.answer == "last week (the week before 9 June 2023)"


def test_a_plan_said_next_to_the_matching_sentence_does_not_date_what_already_happened():
    text = "I'm expanding my shop's social media presence. I'm also hosting a sale next month."
    hits = [_hit("m1", text, "Leo", ts="2023-04-03T10:00:00Z")]
    out = _ask("When did Leo start expanding his shop's social media presence?", hits)
    assert out.answer.endswith("(said on 3 April 2023)")  # not "next month (May 2023)"
    # asked about the plan itself, the time ahead answers
    out = _ask("When is Leo hosting a sale?", hits)
    assert out.answer == "next month (May 2023)"


def test_what_counts_as_asking():
    from voxmem.retrieval.answer import _asks

    assert _asks("Caroline, what motivated you to pursue counseling?")
    assert _asks("You play any instruments?")
    assert not _asks("`` button 3 '' refers to the mouse scroll wheel , right ?")
    assert not _asks("i just need the original contents of FILEPATH , can you provide me ?")
    assert not _asks("I went to Rome.")


# --- questions that name a person and only a verb of saying ---------------------------------------
def test_what_a_person_suggested_is_read_from_their_own_turns():
    hits = [
        _hit("m1", "My laptop keeps overheating when I play games.", "Leo", ["Peter"]),
        _hit("m2", "I had the same trouble with mine last year.", "Peter", ["Leo"]),
        _hit("m3", "You should clean the fan and try a cooling pad.", "Peter", ["Leo"]),
        _hit("m4", "I bought a new game yesterday.", "Sophie"),
    ]
    out = _ask("What did Peter suggest?", hits)
    assert "cooling pad" in out.answer and out.used == ["m3"]  # the directive, not his other turn
    assert "overheating" in _ask("What does Leo say?", hits).answer
    # the verb alone makes no one else's turn an answer
    assert _ask("What did Caroline suggest?", hits).answer == "not in memory"


def test_a_when_question_without_a_date_quotes_the_sentence_with_the_day_it_was_said():
    hits = [_hit("m1", "I wait an hour and a half when I call your support line.", "Leo")]
    out = _ask("When does Leo wait an hour and a half?", hits)
    assert out.answer == "Leo: I wait an hour and a half when I call your support line. (said on 8 May 2026)"


# --- the kind of thing a what/which-question asks for --------------------------------------------
def test_the_asked_kind_is_read_from_the_question():
    from voxmem.retrieval.answer import asked_kind

    assert asked_kind("What drink does Peter like best?", {"peter"}) == ["drink"]
    assert asked_kind("Which cuisine is my favorite?", set()) == ["cuisine"]
    assert asked_kind("What kind of dance piece did Gina's team perform?", {"gina"}) == ["piece"]
    assert asked_kind("What did Peter say?", {"peter"}) == []
    assert asked_kind("Where is the key?", set()) == []


class _Kinds:
    """A stand-in word embedder: a kind and its members share a dimension."""

    groups = ({"drink", "coffee", "tea"}, {"music", "classical", "jazz"})

    def __call__(self, text: str) -> list[float]:
        words = {w.strip(".,?!'").lower() for w in text.split()}
        return [float(bool(words & g)) for g in self.groups] + [0.1]


def test_a_sentence_holding_the_asked_kind_fits_it():
    from voxmem.retrieval.answer import KindFit

    fit = KindFit(["drink"], _Kinds())
    assert fit("Black coffee every morning, always.") == 1.0  # a member of the kind, by meaning
    assert fit("That's my favourite drink.") == 1.0  # the kind's own word
    assert fit("Honestly, the music I like best is classical music.") == 0.0
    assert KindFit(["drink"])("Black coffee every morning.") == 0.0  # without an embedder: words only
    hits = [
        _hit("m1", "Honestly, the music I like best is classical.", "Peter"),
        _hit("m2", "What I like best is black coffee, every morning.", "Peter"),
    ]
    out = _ask("What drink does Peter like best?", hits, embed=_Kinds())
    assert "coffee" in out.answer and out.used == ["m2"]


def test_deeper_evidence_answers_only_with_a_span_of_the_asked_shape():
    # ten better-ranked turns share the question's words but hold no date; the 12th holds one
    undated = [_hit(f"m{i}", f"I went to the dentist with {n}.", "Leo") for i, n in enumerate("ABCDEFGHIJ")]
    nice = _hit("m10", "Ok.", "Sophie")
    dated = _hit("m11", "I went to the dentist on 3 May.", "Leo")
    assert _ask("When did Leo go to the dentist?", [*undated, nice, dated]).answer == "3 May"
    # read no deeper than the top ten when they hold the span
    first = _hit("m12", "I went to the dentist on 9 April.", "Leo")
    assert _ask("When did Leo go to the dentist?", [first, *undated, dated]).answer == "9 April"
    # a deeper turn without a span of the asked shape never replaces the first reading
    out = _ask(
        "When did Leo go to the dentist?", [*undated, nice, _hit("m11", "The dentist went well.", "Leo")]
    )
    assert out.used == ["m0"]
    # a free-text question reads the top ten only
    fillers = [
        _hit(f"m{i}", f"What I like best about {t} is the people.", "Peter")
        for i, t in enumerate("ABCDEFGHIJ")
    ]
    deep = _hit("m11", "Black tea is the drink I like best.", "Peter")
    assert _ask("What drink does Peter like best?", [*fillers, nice, deep]).used != ["m11"]


def test_a_person_is_never_the_answer_to_a_where_question():
    assert short_span("place", "I gave the keys to Rachel.", None, {"rachel"}) is None
    assert short_span("place", "I gave the keys to Rachel in Paris.", None, {"rachel"}) == "Paris"
    assert short_span("place", "I gave the keys to Rachel.", None) == "Rachel"  # no people known
    # Peter is a speaker in the evidence, so "to Peter" is no place; the spot is the answer
    hits = [
        _hit("m1", "Where is Leo hiding?", "Sophie", ["Peter"]),
        _hit("m2", "He ran to Peter, under the stairs.", "Peter", ["Sophie"]),
    ]
    assert _ask("Where is Leo hiding?", hits).answer != "Peter"


def test_list_questions_are_told_from_single_fact_questions():
    from voxmem.retrieval.spans import wants_list

    for question in [
        "What sports does Leo play?",
        "What has Sophie baked?",
        "What do Sophie and Peter both enjoy?",
        "What kinds of films does Peter watch?",
    ]:
        assert wants_list(question), question
    for question in ["What is Leo's favourite sport?", "When did Sophie bake bread?", "What did Peter say?"]:
        assert not wants_list(question), question


def test_a_list_question_gathers_the_persons_turns_on_its_topic():
    hits = [
        _hit("m1", "I baked a lemon cake for the party.", "Sophie", ["Peter"]),
        _hit("m2", "Sounds lovely!", "Peter", ["Sophie"]),
        _hit("m3", "Yesterday I baked sourdough bread, my first loaf.", "Sophie", ["Peter"]),
        _hit("m4", "Peter baked cookies once.", "Peter", ["Sophie"]),
    ]
    out = _ask("What has Sophie baked?", hits)
    assert "lemon cake" in out.answer and "sourdough" in out.answer
    assert set(out.used) == {"m1", "m3"} and "cookies" not in out.answer
    # a one-fact question quotes one turn
    assert _ask("What did Sophie bake for the party?", hits).used == ["m1"]


def test_a_list_question_gathers_items_ranked_below_the_top_ten():
    chat = [_hit(f"m{i}", f"Lovely weather in {c}!", "Peter", ["Sophie"]) for i, c in enumerate("ABCDEFGH")]
    cake = _hit("m20", "I baked a lemon cake for the party.", "Sophie", ["Peter"])
    bread = _hit("m21", "Yesterday I baked sourdough bread, my first loaf.", "Sophie", ["Peter"])
    hits = [cake, *chat, _hit("m9", "Nice.", "Peter"), bread]
    out = _ask("What has Sophie baked?", hits)
    assert set(out.used) == {"m20", "m21"} and "sourdough" in out.answer
    # a single-fact question still reads only the top ten
    assert _ask("What did Sophie bake for the party?", hits).used == ["m20"]


def test_every_relative_time_in_a_text_is_followed_by_its_calendar_reading():
    from voxmem.retrieval.spans import with_dates

    said = date(2023, 10, 13)
    assert with_dates("Went there yesterday, and last year too", said) == (
        "Went there yesterday (12 October 2023), and last year (2022) too"
    )
    assert with_dates("Two weeks ago I started; last Fri I quit.", said) == (
        "Two weeks ago (2 weeks before 13 October 2023) I started; "
        "last Fri (the Friday before 13 October 2023, 6 October 2023) I quit."
    )
    # already read, no relative time, or no day: unchanged
    assert with_dates("ten years ago (2013) I moved", said) == "ten years ago (2013) I moved"
    assert with_dates("I like tea", said) == "I like tea"
    assert with_dates("Went there yesterday", None) == "Went there yesterday"


def test_a_turn_quoted_whole_leaves_out_greetings_to_the_listener():
    hits = [
        _hit(
            "m1",
            "Thanks, Sophie! I painted the old mill for the church bazaar. It took weeks. What about you?",
            "Peter",
            ["Sophie"],
        )
    ]
    out = _ask("What did Peter paint for the church bazaar?", hits)
    assert out.answer == "Peter: I painted the old mill for the church bazaar. It took weeks. What about you?"
    # a sentence that says something beside the greeting stays
    said = "Thanks Sophie - love the mill! I painted it for the church bazaar."
    hits = [_hit("m1", said, "Peter", ["Sophie"])]
    out = _ask("What did Peter paint for the church bazaar?", hits)
    assert out.answer.startswith("Peter: Thanks Sophie - love the mill!")
