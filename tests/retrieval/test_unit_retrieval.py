"""Pure logic of retrieval (no database): question reading, fusion, planner, stop rule, answerers,
LLM planner/answerer parsing with a scripted fake chat model."""

from __future__ import annotations

import json
from datetime import date

import pytest

from voxmem.errors import InvalidInput
from voxmem.retrieval.agent import Action, AgentResult, AgentState, FixedPolicy, HeuristicPlanner, sufficient
from voxmem.retrieval.answer import (
    NOT_IN_MEMORY,
    ExtractiveAnswerer,
    compose,
    parse_json_object,
)
from voxmem.retrieval.fusion import expand_neighbours, fuse, merge_into, ranked, turn_ranking
from voxmem.retrieval.llm import LLMPlanner
from voxmem.retrieval.question import find_people, read_question
from voxmem.retrieval.scope import AccessScope
from voxmem.retrieval.service import parse_budgets
from voxmem.retrieval.spans import relative_date
from voxmem.retrieval.text import content_words, keyword_lucene, phrase_lucene
from voxmem.retrieval.tools import Evidence, Filters, Hit

from .fake_llm import ScriptedChat

PEOPLE = [
    {"id": "p_maya", "name": "Maya", "aliases": []},
    {"id": "p_tom", "name": "Tom Becker", "aliases": ["Dad"]},
    {"id": "p_ross", "name": "Ross Geller", "aliases": []},
]


def ev(i: str, text: str, speaker: str | None = "Tom", to: list[str] | None = None, idx: int = 0) -> Evidence:
    return Evidence(
        id=i,
        session="s1",
        idx=idx,
        text=text,
        ts="2026-11-02T18:00:00Z",
        speaker={"id": f"p_{speaker.lower()}", "name": speaker} if speaker else None,
        addressees=[{"id": f"p_{a.lower()}", "name": a} for a in (to or [])],
    )


def msg(i: str, text: str, tool: str = "message_vector", score: float = 1.0, **kw) -> Hit:
    return Hit("interaction", tool, i, text, score, [ev(i, text, **kw)])


# --- question reading ------------------------------------------------------------------------
def test_reading_who_said_with_addressee_and_quote():
    r = read_question("Who told Ross to count faster?", PEOPLE)
    assert r.kind == "who_said" and r.addressee["id"] == "p_ross" and r.quote == "count faster"
    quoted = read_question('Who said "no peanuts for you"?', PEOPLE)
    assert quoted.kind == "who_said" and quoted.quote == "no peanuts for you"


def test_reading_whom_said_to_first_person_and_time():
    whom = read_question("Who was Maya talking to when she asked for pizza?", PEOPLE)
    assert whom.kind == "addressee" and whom.speaker["id"] == "p_maya"
    said = read_question("What did Maya say to Dad?", PEOPLE)
    assert said.kind == "said_to" and said.speaker["id"] == "p_maya" and said.addressee["id"] == "p_tom"
    mine = read_question(
        "When did I book my dentist appointment?", PEOPLE, asker={"id": "p_maya", "name": "Maya"}
    )
    assert mine.first_person and mine.temporal and mine.kind == "general"
    assert "dentist" in mine.keywords and "i" not in mine.keywords


def test_find_people_full_names_first_names_aliases_possessives():
    found = [p["id"] for _, p in find_people("Did Tom's son talk to Ross Geller or to Dad?", PEOPLE)]
    assert found == ["p_tom", "p_ross"]


def test_text_helpers():
    assert content_words("What did I say about the pizza's crust?") == ["pizza", "crust"]
    assert keyword_lucene("the a of") is None
    assert keyword_lucene("garage door: code?") == "garage OR door OR code"
    assert phrase_lucene("count faster") == '"count faster"^4 OR count OR faster'


# --- fusion ----------------------------------------------------------------------------------
def test_fusion_rrf_dedups_by_source_turn_and_carries_support():
    fact = Hit(
        "fact",
        "fact_vector",
        "fact_1",
        "Tom knows the code.",
        0.9,
        [ev("m2", "code is 4417")],
        {"current": True},
    )
    vector = [msg("m1", "hello"), msg("m2", "code is 4417")]
    fulltext = [msg("m2", "code is 4417", tool="message_fulltext")]
    fused = fuse([vector, fulltext, [fact]], k=60)
    assert [f.id for f in fused] == ["m2", "m1"]
    top = fused[0]
    assert top.score == pytest.approx(1 / 62 + 1 / 61 + 1 / 61)
    assert set(top.tools) == {"message_vector", "message_fulltext", "fact_vector"}
    assert top.support == [{"layer": "fact", "id": "fact_1", "text": "Tom knows the code.", "current": True}]
    assert turn_ranking([fact, msg("m2", "x"), msg("m3", "y")]) == ["m2", "m3"]


def test_neighbour_expansion_adds_adjacent_turns_below_their_parent():
    fused = fuse([[msg("m1", "a", idx=1), msg("m5", "b", idx=5)]], k=10)
    top = fused[0].score
    neighbours = {"m1": [ev("m0", "before", idx=0), ev("m2", "after", idx=2)], "gone": [ev("m9", "x")]}
    out = expand_neighbours(fused, neighbours, factor=0.5)
    scores = {e.id: e.score for e in out}
    assert scores["m0"] == pytest.approx(top * 0.5) and scores["m2"] == pytest.approx(top * 0.5)
    assert "m9" not in scores  # neighbours of a turn that is not in the fused list are ignored
    assert [e.id for e in out] == ["m1", "m5", "m0", "m2"]
    assert next(e for e in out if e.id == "m0").tools == ["context"]
    # a neighbour that already scores higher keeps its own score
    again = expand_neighbours(fuse([[msg("m1", "a", idx=1), msg("m2", "b", idx=2)]], k=10), neighbours, 0.1)
    assert {e.id: e.score for e in again}["m2"] == pytest.approx(1 / 12)
    # additive (the shipped round): a neighbour the channels found gains on top of its own score,
    # from its parent's pre-expansion score, and a bare neighbour enters at factor x parent
    pair = fuse([[msg("m1", "a", idx=1), msg("m2", "b", idx=2)]], k=10)
    both = {"m1": [ev("m0", "before", idx=0), ev("m2", "after", idx=2)], "m2": [ev("m1", "a", idx=1)]}
    added = {e.id: e for e in expand_neighbours(pair, both, 0.5, additive=True)}
    assert added["m2"].score == pytest.approx(1 / 12 + 0.5 / 11) and "context" in added["m2"].tools
    assert added["m1"].score == pytest.approx(1 / 11 + 0.5 / 12)  # m2's score before it gained
    assert added["m0"].score == pytest.approx(0.5 / 11)


def test_context_selection_respects_budget_and_accumulates():
    retained: dict = {}
    gained = merge_into(retained, fuse([[msg(f"m{i}", "t") for i in range(10)]]), budget=3, round_no=1)
    assert [g.id for g in gained] == ["m0", "m1", "m2"] and len(retained) == 3
    again = merge_into(retained, fuse([[msg("m2", "t"), msg("m7", "t")]]), budget=1, round_no=2)
    assert [g.id for g in again] == ["m7"] and retained["m7"].round == 2
    assert ranked(retained)[0].id == "m2"  # found twice: scores add up


# --- planner and stop rule --------------------------------------------------------------------
def _state(question: str, asker: str | None = None, policy: str = "open") -> AgentState:
    scope = AccessScope("sp", policy, asker, "Maya" if asker else None)
    me = {"id": asker, "name": "Maya"} if asker else None
    return AgentState(question, scope, read_question(question, PEOPLE, me), PEOPLE, [30, 8, 5], 3)


def test_fixed_policy_runs_every_search_tool_once():
    state = _state("what about pizza")
    first = FixedPolicy().plan(state)
    assert {a.tool for a in first} == {
        "message_vector",
        "message_fulltext",
        "message_sparse",
        "fact_vector",
        "fact_fulltext",
        "attribute_vector",
        "attribute_fulltext",
    }
    state.rounds.append(object())  # type: ignore[arg-type]
    assert FixedPolicy().plan(state) == []


def test_heuristic_planner_reads_the_question():
    who = HeuristicPlanner().plan(_state("Who told Ross to count faster?"))
    assert who[0].tool == "who_said" and who[0].query == "count faster"
    assert who[1].filters.addressee == "p_ross"
    mine = HeuristicPlanner().plan(_state("What did I ask for?", asker="p_maya"))
    assert any(a.filters.speaker == "p_maya" for a in mine)
    assert any(a.layer == "profile" and a.filters.participant == "p_maya" for a in mine)
    said = HeuristicPlanner().plan(_state("What did Maya say to Tom?"))
    assert (
        said[0].tool == "said_to"
        and said[0].filters.speaker == "p_maya"
        and said[0].filters.addressee == "p_tom"
    )
    when = HeuristicPlanner().plan(_state("When is the dentist appointment?"))
    assert any(a.tool == "timeline" for a in when)


def test_heuristic_round_two_follows_graph_and_missing_words():
    state = _state("Who was Maya talking to about the pizza and homework?")
    merge_into(state.retained, fuse([[msg("m1", "pizza please", speaker="Maya", to=["Tom"])]]), 30, 1)
    state.rounds.append(object())  # type: ignore[arg-type]
    actions = HeuristicPlanner().plan(state)
    tools = [a.tool for a in actions]
    assert "addressees" in tools and "context" in tools
    assert any(a.tool == "message_fulltext" and a.query == "homework" for a in actions)


def test_stop_rule_quote_found_and_coverage():
    state = _state("Who told Ross to count faster?")
    assert sufficient(state) is None
    merge_into(state.retained, fuse([[msg("m1", "Count faster.", speaker="Carol")]]), 30, 1)
    assert sufficient(state) == "quote found with its speaker"


# --- answerers --------------------------------------------------------------------------------
def _result(question: str, evidence_hits: list[Hit], scope: AccessScope | None = None) -> AgentResult:
    state = _state(question)
    return AgentResult(
        question, scope or state.scope, state.reading, "heuristic", fuse([evidence_hits]), [], {}
    )


def test_graph_answers_who_said_and_to_whom_from_edges():
    res = _result(
        "Who told Ross to count faster?", [msg("m1", "Count faster.", speaker="Carol", to=["Ross"])]
    )
    out = compose(res)
    assert (out.answer, out.answerer, out.used) == ("Carol", "graph", ["m1"])
    whom = _result(
        "Who was Maya talking to about pizza?",
        [msg("m1", "Can we get pizza?", speaker="Maya", to=["Tom", "Ana"])],
    )
    assert compose(whom).answer == "Tom and Ana"


def test_attribution_without_edge_support_is_not_in_memory():
    res = _result(
        "Who was Maya talking to about pizza?", [msg("m1", "Can we get pizza?", speaker="Maya", to=[])]
    )
    out = compose(res)
    assert out.answer == NOT_IN_MEMORY and not out.supported and out.notes


def test_extractive_answer_and_unsupported_question():
    hits = [
        msg("m1", "The garage door code is 4417. Don't tell the kids.", speaker="Tom", to=["Ana"]),
        msg("m2", "Let's get pizza.", speaker="Maya"),
    ]
    out = compose(_result("What is the garage door code?", hits))
    assert out.answerer == "extractive" and "4417" in out.answer and out.used == ["m1"]
    assert out.evidence[0]["speaker"]["name"] == "Tom" and out.evidence[0]["session"] == "s1"
    none = compose(_result("What colour is the boat?", hits))
    assert none.answer == NOT_IN_MEMORY and none.answerer == "none"
    assert ExtractiveAnswerer().answer(_result("What colour is the boat?", [])) is None


def test_parse_json_object_tolerates_chatter():
    assert parse_json_object('noise {"a": {"b": 1}} trailing {"c": 2}') == {"a": {"b": 1}}
    assert parse_json_object("no json here") is None
    assert parse_json_object("[1, 2]") is None


# --- LLM planner parsing ----------------------------------------------------------------------
def test_llm_planner_parses_actions_maps_names_and_stops():
    reply = json.dumps(
        {
            "stop": False,
            "actions": [
                {
                    "layer": "interaction",
                    "tool": "message_vector",
                    "query": "pizza",
                    "speaker": "Maya",
                    "addressee": "me",
                },
                {"tool": "not_a_tool", "query": "x"},
                {"layer": "profile", "tool": "attribute_vector", "query": "food", "about": "Tom Becker"},
            ],
        }
    )
    chat = ScriptedChat(planner=lambda p: reply, answerer=lambda p: "{}")
    planner = LLMPlanner(chat)
    state = _state("What did I ask Maya?", asker="p_me")
    actions = planner.plan(state)
    assert [a.tool for a in actions] == ["message_vector", "attribute_vector"]
    assert actions[0].filters == Filters(speaker="p_maya", addressee="p_me")
    assert actions[1].filters.participant == "p_tom" and actions[1].layer == "profile"
    assert "plan memory retrieval" in chat.calls[0] and "What did I ask Maya?" in chat.calls[0]
    stop = LLMPlanner(ScriptedChat(planner=lambda p: '{"stop": true, "actions": []}', answerer=lambda p: ""))
    assert stop.plan(state) == []


def test_llm_planner_falls_back_to_heuristic_on_garbage_or_errors():
    garbage = LLMPlanner(ScriptedChat(planner=lambda p: "I think you should search.", answerer=lambda p: ""))
    actions = garbage.plan(_state("Who told Ross to count faster?"))
    assert actions[0].tool == "who_said" and actions[0].why.startswith("heuristic fallback")
    assert garbage.fallbacks == 1

    def boom(_p: str) -> str:
        raise ConnectionError("endpoint down")

    broken = LLMPlanner(ScriptedChat(planner=boom, answerer=boom))
    assert broken.plan(_state("What is the code?")) and broken.fallbacks == 1


def test_budgets_and_action_keys():
    assert parse_budgets("30,8,5") == (30, 8, 5) and parse_budgets(None) == (30, 8, 5)
    with pytest.raises(InvalidInput):
        parse_budgets("30,x")
    with pytest.raises(InvalidInput):
        parse_budgets("0,8")
    a = Action("interaction", "message_vector", "q", Filters(speaker="p_1"))
    assert a.key() == Action("interaction", "message_vector", "q", Filters(speaker="p_1")).key()
    assert a.key() != Action("interaction", "message_vector", "q").key()


def test_service_reads_budgets_rounds_and_policy_from_settings():
    from voxmem.config import Settings
    from voxmem.db import Database
    from voxmem.embeddings import TextEmbedder
    from voxmem.retrieval.service import RetrievalService

    settings = Settings(retrieval_budgets="10,4", retrieval_max_rounds=3, retrieval_policy="fixed")
    db = Database(settings)  # the driver connects lazily: nothing here touches Neo4j
    try:
        service = RetrievalService(settings, db, TextEmbedder(settings), chat_model=None)
        agent = service.agent()
        assert agent.budgets == [10, 4] and agent.max_rounds == 2
        assert service.policy(None).name == "fixed" and service.policy("heuristic").name == "heuristic"
        assert "llm" not in service.policies
        with pytest.raises(InvalidInput):
            service.policy("llm")
        chat = ScriptedChat(planner=lambda p: "{}", answerer=lambda p: "{}")
        with_llm = RetrievalService(Settings(), db, TextEmbedder(settings), chat_model=chat)
        assert with_llm.default_policy == "llm" and with_llm.policy(None).name == "llm"
    finally:
        db.close()


def test_reading_passive_which_character_and_ptb_quotes():
    by_whom = read_question("By whom was Ross told to count faster ?", PEOPLE)
    assert (
        by_whom.kind == "who_said" and by_whom.quote == "count faster" and by_whom.addressee["id"] == "p_ross"
    )
    which = read_question("Which character said the phrase `` Oh God `` ?", PEOPLE)
    assert which.kind == "who_said" and which.quote == "Oh God"
    assert read_question("Who did Ross ask about the ring?", PEOPLE).kind == "addressee"


def test_british_spelling_folds_to_the_asr_spelling():
    assert content_words("What's my favourite colour?") == ["favorite", "color"]
    assert keyword_lucene("favourite drink") == "favorite OR favourite OR drink"
    hits = [msg("m1", "For me it's always green tea. That's my favorite drink.", speaker="Maya")]
    out = compose(_result("What is Maya's favourite drink?", hits))
    assert out.answerer == "extractive" and "green tea" in out.answer


def test_temporal_answer_resolves_relative_days_against_when_they_were_said():
    assert relative_date("I went to the dentist yesterday.", date(2026, 3, 28)) == "yesterday (27 March 2026)"
    assert relative_date("We land in three days ago", date(2026, 3, 28)) == "three days ago (25 March 2026)"
    assert relative_date("I passed today!", date(2026, 4, 6)) == "today (6 April 2026)"
    assert relative_date("I passed my test.", date(2026, 4, 6)) is None
    hits = [msg("m1", "I went to the dentist yesterday.", speaker="Maya")]  # said 2026-11-02
    out = compose(_result("When did Maya go to the dentist?", hits))
    assert out.answer == "yesterday (1 November 2026)"  # a when-question gets the date, not the turn
    plain = compose(
        _result("When did Maya book the dentist?", [msg("m2", "I booked the dentist.", speaker="Maya")])
    )
    # nothing dated in the turn: the sentence, with the day it was said (not the day of the event)
    assert plain.answer == "Maya: I booked the dentist. (said on 2 November 2026)"


def test_question_about_a_named_person_is_not_answered_from_someone_else():
    hits = [msg("m1", "My favourite food is sushi.", speaker="Tom")]
    assert compose(_result("What is Maya's favourite food?", hits)).answer == NOT_IN_MEMORY
    about = [msg("m2", "Maya's favourite food is sushi, she told me.", speaker="Tom")]
    assert "sushi" in compose(_result("What is Maya's favourite food?", about)).answer


def test_what_did_i_ask_for_is_answered_from_the_askers_own_requests():
    maya = {"id": "p_maya", "name": "Maya"}
    for spoken in ("What did I ask for?", "Well, did I ask for it?"):  # the second: as tiny.en heard it
        r = read_question(spoken, PEOPLE, asker=maya)
        assert r.kind == "requests" and r.speaker["id"] == "p_maya"
    assert read_question("What did Tom ask for?", PEOPLE).speaker["id"] == "p_tom"
    assert read_question("What did I ask for?", PEOPLE).kind == "general"  # unknown asker: no requester
    state = _state("What did Maya ask for?")
    hits = [
        msg("m1", "Can we have pizza for dinner on Friday?", speaker="Maya"),
        msg("m2", "The match is on Sunday.", speaker="Maya"),
        msg("m3", "Could you pick me up at six?", speaker="Tom"),
    ]
    result = AgentResult(
        "What did Maya ask for?", state.scope, state.reading, "heuristic", fuse([hits]), [], {}
    )
    out = compose(result)
    assert (out.answer, out.answerer, out.used) == (
        'Maya asked: "Can we have pizza for dinner on Friday?"',
        "graph",
        ["m1"],
    )
    none = compose(_result("What did Maya ask for?", [msg("m2", "The match is on Sunday.", speaker="Maya")]))
    assert none.answer == NOT_IN_MEMORY


def test_first_person_preference_is_answered_from_the_askers_own_turns():
    state = _state("What temperature do I like?", asker="p_maya")
    hits = [
        msg("m1", "I like the temperature at 23 degrees.", speaker="Tom"),
        msg("m2", "For me the temperature should be 21 degrees.", speaker="Maya"),
    ]
    result = AgentResult(state.query, state.scope, state.reading, "heuristic", fuse([hits]), [], {})
    assert compose(result).answer == "21 degrees"  # Maya's own, as the short span a temperature wants


def test_only_what_did_x_ask_for_questions_are_requests():
    maya = {"id": "p_maya", "name": "Maya"}
    for other in (
        "When did Maya ask for the cake?",
        "Why did Tom request a new key?",
        "Which shop did Tom ask for directions in?",
        "What did Tom order?",
    ):
        assert read_question(other, PEOPLE, asker=maya).kind == "general", other
    assert read_question("So, what did Tom request?", PEOPLE).kind == "requests"
    slow = "did" + " " * 3000 + "x ask for"  # no catastrophic backtracking on long runs of spaces
    assert read_question(slow, PEOPLE).kind == "general"


def test_a_shared_surname_is_not_a_mention_but_an_alias_is():
    people = [*PEOPLE, {"id": "p_lucy", "name": "Lucy Becker", "aliases": []}]
    state = AgentState(
        "What is Tom Becker's favourite food?",
        AccessScope("sp", "open"),
        read_question("What is Tom Becker's favourite food?", people),
        people,
        [30, 8, 5],
        3,
    )
    lucy = [msg("m1", "My favourite food is curry.", speaker="Lucy")]
    result = AgentResult(state.query, state.scope, state.reading, "heuristic", fuse([lucy]), [], {})
    assert compose(result).answer == NOT_IN_MEMORY
    dad = [msg("m2", "Dad's favourite food is sushi.", speaker="Maya")]
    result = AgentResult(state.query, state.scope, state.reading, "heuristic", fuse([dad]), [], {})
    assert "sushi" in compose(result).answer


def test_absurd_relative_days_do_not_crash():
    assert relative_date("That was 999 days ago.", date(2026, 3, 28)) == "999 days ago (3 July 2023)"
    assert relative_date("That was 800000 days ago.", date(2026, 3, 28)) is None  # not a relative-day phrase
