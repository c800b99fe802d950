"""The LLM reader with a scripted chat model: layout, strict parsing, repair, abstention, guards.

The scripted model replays fixed replies through langchain's ``invoke`` path; it says nothing
about answer quality (tests/llm/test_local_llm.py runs a real model).
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from voxmem.config import Settings
from voxmem.llm import client
from voxmem.llm.client import Endpoint, LLMUnavailable
from voxmem.retrieval.agent import AgentResult
from voxmem.retrieval.answer import NOT_IN_MEMORY, compose
from voxmem.retrieval.fusion import FusedEvidence
from voxmem.retrieval.llm_reader import (
    LIST_ANSWER_CHARS,
    LIST_LINES,
    LIST_NOTE,
    LLMReader,
    ReaderError,
    Reply,
    answer_grammar,
    answer_schema,
    layout,
    parse_answer,
)
from voxmem.retrieval.question import Reading, asks_for_list
from voxmem.retrieval.scope import AccessScope
from voxmem.retrieval.tools import Evidence

TOM = {"id": "p_tom", "name": "Tom"}
ANA = {"id": "p_ana", "name": "Ana"}


class Replies(BaseChatModel):
    """Returns ``replies`` in order (the last one repeats) and records every prompt."""

    replies: list[str]
    prompts: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "replies"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any):
        self.prompts.append(list(messages))
        reply = self.replies[min(len(self.prompts), len(self.replies)) - 1]
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])


class Refused(BaseChatModel):
    """A chat model whose endpoint refuses connections (as a stopped server does)."""

    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "refused"

    def _generate(self, *args: Any, **kw: Any):
        self.calls += 1
        raise ConnectionError("[Errno 111] Connection refused")


def turn(mid: str, text: str, speaker: dict, to: list[dict], support: list | None = None) -> FusedEvidence:
    ts = "2026-11-02T09:30:00+00:00"
    ev = Evidence(mid, "kitchen", int(mid[-1]), text, ts, speaker, to)
    return FusedEvidence(evidence=ev, score=1.0, support=support or [])


FACT = {"layer": "fact", "id": "f1", "text": "The garage door code is 4417."}
EVIDENCE = [
    turn("msg-1", "The garage door code is 4417, don't tell the kids.", TOM, [ANA], [FACT]),
    turn("msg-2", "Can we have pizza on Friday?", ANA, [TOM]),
]


def result(question: str, kind: str = "general", evidence: list[FusedEvidence] | None = None) -> AgentResult:
    reading = Reading(text=question, kind=kind, keywords=[w for w in question.lower().split() if len(w) > 3])
    scope = AccessScope(space="s", access_policy="open", asker="p_ana", asker_name="Ana", identified_by="id")
    shown = EVIDENCE if evidence is None else evidence
    return AgentResult(question, scope, reading, "heuristic", shown, [], {})


def test_prompt_lays_out_numbered_turns_with_time_session_people_and_support():
    shown = layout(result("What is the garage door code?"))
    lines = shown.text.splitlines()
    assert lines[0] == "2 November 2026, kitchen:"  # date and session once for the lines beneath
    assert lines[1] == "[1] Tom -> Ana: The garage door code is 4417, don't tell the kids."
    assert lines[2] == "    fact: The garage door code is 4417."
    assert lines[3].startswith("[2] Ana -> Tom: Can we have pizza")
    assert {n: e.id for n, e in shown.entries.items()} == {1: "msg-1", 2: "msg-2"}
    messages, _ = LLMReader(Replies(replies=["{}"])).prompt(result("What is the garage door code?"))
    assert "Question: What is the garage door code?\nAsker: Ana\nLines:\n2 November" in messages[1].content
    # another session (or day) gets its own heading
    later = turn("msg-3", "Pizza it is.", TOM, [ANA])
    later.evidence.session, later.evidence.ts = "hall", "2026-11-03T08:00:00+00:00"
    lines = layout(result("pizza?", evidence=[*EVIDENCE, later])).text.splitlines()
    assert lines[-2:] == ["3 November 2026, hall:", "[3] Tom -> Ana: Pizza it is."]


def test_a_stage_direction_is_laid_out_without_its_label_as_a_speaker():
    """FriendsQA files a scene's description under the speaker "#NOTE#": shown as "#NOTE# -> everyone",
    the model reads a person who spoke; the line says what happened, with no speaker."""
    note = {"id": "p_note", "name": "#NOTE#"}
    scene = turn("msg-3", "( Tom leaves the kitchen , slamming the door . )", note, [])
    lines = layout(result("Who slammed the door?", evidence=[*EVIDENCE, scene])).text.splitlines()
    assert "[3] (stage direction): ( Tom leaves the kitchen , slamming the door . )" in lines
    assert not any("#NOTE#" in line for line in lines)
    # a direction inside speech stays the speaker's line
    aside = turn("msg-3", "( to Ana ) The door sticks, I had to slam it.", TOM, [ANA])
    lines = layout(result("Who slammed the door?", evidence=[*EVIDENCE, aside])).text.splitlines()
    assert "[3] Tom -> Ana: ( to Ana ) The door sticks, I had to slam it." in lines


def test_answer_maps_numbers_back_to_message_ids():
    chat = Replies(replies=['{"answer": "4417", "ids": [1]}'])
    out = compose(result("What is the garage door code?"), llm=LLMReader(chat))
    assert (out.answer, out.answerer, out.used, out.supported) == ("4417", "llm", ["msg-1"], True)
    assert any(n.startswith("LLM reader:") for n in out.notes)


@pytest.mark.parametrize(
    "reply, reason",
    [
        ('Sure! {"answer": "4417", "ids": [1]}', "not a single JSON object"),
        ('{"answer": "4417", "ids": [7]}', r"no evidence line \[7\]"),
        ('{"answer": "4417", "ids": []}', 'needs "ids"'),
        ('{"answer": "4417", "ids": ["msg-1"]}', "not an evidence number"),
        ('{"answer": "4417", "ids": [1], "confidence": 0.9}', "exactly the keys"),
        ('{"answer": "Bob knows it", "ids": [1]}', "names Bob"),
        ('{"answer": "4471", "ids": [1]}', "says 4471"),
        ('{"answer": "Friday at 17:45", "ids": [2]}', "says 17, 45"),
        ('{"answer": "the garage 代码 4417", "ids": [1]}', "characters"),
    ],
)
def test_strict_parsing_rejects_with_a_reason(reply, reason):
    with pytest.raises(ReaderError, match=reason):
        parse_answer(reply, layout(result("What is the garage door code?")).entries)


def test_cited_lines_that_do_not_hold_the_answer_are_dropped():
    chat = Replies(replies=['{"answer": "4417", "ids": [1, 2]}'])
    assert LLMReader(chat).answer(result("What is the garage door code?")) == ("4417", ["msg-1"])


def test_fenced_json_is_accepted_and_null_is_abstention():
    entries = layout(result("q")).entries
    assert parse_answer('```json\n{"answer": "4417", "ids": [1]}\n```', entries) == ("4417", [1])
    assert parse_answer('{"answer": null, "ids": []}', entries) is None


def test_one_repair_turn_quotes_the_rejection_then_succeeds():
    chat = Replies(replies=["The code is 4417 [1]", '{"answer": "4417", "ids": [1]}'])
    out = compose(result("What is the garage door code?"), llm=LLMReader(chat))
    assert out.answer == "4417" and out.answerer == "llm" and len(chat.prompts) == 2
    repair = chat.prompts[1]
    assert repair[-2].content == "The code is 4417 [1]" and "Rejected:" in repair[-1].content


def test_two_bad_replies_fall_back_to_the_offline_answer_and_say_so():
    chat = Replies(replies=["no idea", "still no JSON"])
    out = compose(result("What is the garage door code?"), llm=LLMReader(chat))
    assert len(chat.prompts) == 2  # exactly one repair
    assert out.answerer in ("extractive", "none")
    assert any("after one repair" in n for n in out.notes)
    assert any("extractive answer used" in n for n in out.notes)


def test_without_an_offline_draft_the_llm_is_not_asked_and_nothing_is_answered():
    chat = Replies(replies=['{"answer": "blue", "ids": [1]}'])
    out = compose(result("What colour is the boat?"), llm=LLMReader(chat))
    assert (out.answer, out.answerer, out.supported, out.used) == (NOT_IN_MEMORY, "none", False, [])
    assert not chat.prompts and any("LLM was not asked" in n for n in out.notes)


def test_an_llm_abstention_on_a_draft_is_not_in_memory_only_if_offline_has_nothing():
    chat = Replies(replies=['{"answer": null, "ids": []}'])
    draft = ("Tom: The garage door code is 4417", ["msg-1"])
    assert LLMReader(chat).read(result("What is the garage door code?"), hint=draft).chosen is None


def test_an_llm_abstention_is_checked_by_the_offline_reader():
    chat = Replies(replies=['{"answer": null, "ids": []}'])
    out = compose(result("What is the garage door code?"), llm=LLMReader(chat))
    assert out.answerer == "extractive" and "4417" in out.answer and "msg-1" in out.used
    assert any("LLM abstained" in n for n in out.notes)


def test_a_clock_time_is_not_grounded_by_when_the_turn_was_said():
    entries = layout(result("When is the match?")).entries  # turns said at 09:30
    with pytest.raises(ReaderError, match="says 9, 30"):
        parse_answer('{"answer": "at 9:30", "ids": [2]}', entries)


def test_attribution_person_comes_from_speaks_not_from_the_model():
    """The model picks turn 1 and also tries to name someone; only SPEAKS is read."""
    chat = Replies(replies=['{"turn": 1}'])
    who = result("Who told Ana the code for the door?", kind="who_said")
    out = compose(who, llm=LLMReader(chat))
    if out.answerer == "graph":  # the offline quote match found it first: the LLM was not needed
        assert out.answer == "Tom" and not chat.prompts
    else:
        assert (out.answer, out.answerer, out.used) == ("Tom", "llm", ["msg-1"])
        assert '{"turn"' in chat.prompts[0][0].content  # it was asked for a turn, not a person
    # the model cannot name a person: a reply with a name instead of a turn is rejected twice
    liar = Replies(replies=['{"turn": null, "person": "Zed"}', '{"person": "Zed"}'])
    out = LLMReader(liar).read(who, attribution=True)
    assert out.chosen is None and out.failed and "Zed" not in str(out.chosen)


def test_addressee_comes_from_addresses_and_a_turn_without_one_is_not_answered():
    to_whom = result("Who was Tom talking to about the garage?", kind="addressee")
    assert LLMReader(Replies(replies=['{"turn": 1}'])).attribute(to_whom) == ("Ana", ["msg-1"])
    lonely = [turn("msg-3", "The garage needs painting.", TOM, [])]
    nobody = result("Who was Tom talking to about painting?", kind="addressee", evidence=lonely)
    assert LLMReader(Replies(replies=['{"turn": 1}'])).attribute(nobody) is None


def test_unreachable_configured_llm_is_a_503_and_auto_detected_one_degrades():
    configured = Endpoint("local", "http://127.0.0.1:9/v1", "m", "configured")
    dead = Refused()
    reader = LLMReader(dead, configured, connect_attempts=2)
    with pytest.raises(LLMUnavailable, match="voxmem llm up") as info:
        compose(result("What is the garage door code?"), llm=reader)
    assert info.value.status_code == 503 and dead.calls == 2  # retried, then a clear error
    auto = LLMReader(Refused(), Endpoint("local", "http://127.0.0.1:9/v1", "m", "auto-detected"), 2)
    out = compose(result("What is the garage door code?"), llm=auto)
    assert out.answerer == "extractive" and "4417" in out.answer
    assert any(n.startswith("LLM skipped:") for n in out.notes)


def test_provider_resolution_and_health_description(tmp_path):
    assert client.resolve(Settings(llm_provider="none")) is None
    idle = Settings(llm_provider="auto", cache_dir=tmp_path, llm_local_port=18799)
    assert client.resolve(idle) is None  # nothing started: offline
    described = client.describe(idle)
    assert described["answerer"] == "extractive" and "voxmem llm up" in described["llm"]
    local = client.resolve(Settings(llm_provider="local", cache_dir=tmp_path, llm_local_port=18799))
    assert local is not None and local.required and local.base_url == "http://127.0.0.1:18799/v1"
    remote = Settings(llm_provider="openai", llm_model="gpt", llm_base_url="http://h/v1")
    assert client.describe(remote) == {"answerer": "llm", "llm": "openai gpt at http://h/v1 (configured)"}
    assert Settings(llm_provider="auto").llm_enabled is False and Settings(llm_provider="local").llm_enabled
    with pytest.raises(ValueError, match="no LLM configured"):
        client.chat_model(Settings(llm_provider="none"))


def test_numbers_said_as_words_or_on_a_12_hour_clock_are_grounded():
    match = turn("msg-3", "The match moves to Sunday morning at nine, half past.", TOM, [ANA])
    entries = layout(result("When is the match?", evidence=[match])).entries
    assert parse_answer('{"answer": "9:30 on Sunday", "ids": [1]}', entries) == ("9:30 on Sunday", [1])
    assert parse_answer('{"answer": "21:30", "ids": [1]}', entries) == ("21:30", [1])
    with pytest.raises(ReaderError, match="says 10"):
        parse_answer('{"answer": "10:30", "ids": [1]}', entries)


def test_layout_keeps_few_turns_clipped_around_the_sentence_the_question_is_about():
    long = (
        "We spent the whole morning cleaning out the shed and sorting old paint tins. "
        "The garage door code is now 5120 because the old one leaked. "
        "After that we had lunch at the bakery and talked about the holidays for ages."
    )
    filler = [
        turn(f"msg-{i}", f"Unrelated chatter number {i} about the weather.", ANA, [TOM]) for i in range(2, 9)
    ]
    evidence = [*filler, turn("msg-1", long, TOM, [ANA])]
    shown = layout(
        result("What is the garage door code now?", evidence=evidence), max_evidence=5, max_chars=120
    )
    assert len(shown.entries) == 5  # at most max_evidence turns, however many were retrieved
    line = next(x for x in shown.text.splitlines() if "Tom ->" in x)
    assert (
        "garage door code is now 5120" in line and "bakery" not in line and len(line.split(": ", 1)[1]) <= 120
    )
    # the draft's turn is always shown, even when it ranks last
    kept = layout(result("weather?", evidence=evidence), max_evidence=2, keep=("msg-1",))
    assert "msg-1" in {e.id for e in kept.entries.values()}


LEO = {"id": "p_leo", "name": "Leo"}


def about(
    question: str, keywords: list[str], people: list[dict], evidence: list[FusedEvidence]
) -> AgentResult:
    reading = Reading(text=question, kind="general", keywords=keywords, people=people)
    scope = AccessScope(space="s", access_policy="open", asker=None, asker_name=None, identified_by="id")
    return AgentResult(question, scope, reading, "heuristic", evidence, [], {})


def test_layout_prefers_the_asked_persons_own_turn_to_a_line_only_addressing_them():
    addressed = turn("msg-1", "Leo, would you like the post on the table?", TOM, [LEO])
    own = turn("msg-2", "Ginger ale is the drink I like best.", LEO, [ANA])
    question = about("Which drink does Leo like?", ["drink", "leo", "like"], [LEO], [addressed, own])
    # the name is left out of the overlap: the address alone says nothing about Leo
    assert [e.id for e in layout(question, max_evidence=1).entries.values()] == ["msg-2"]
    # between turns of equal overlap, Leo's own beats another person's ranked just above it
    filler = [turn(f"msg-{i}", f"Chatter number {i} about the weather.", TOM, [ANA]) for i in range(3)]
    other = turn("msg-7", "A cold drink sounds good.", ANA, [TOM])
    his = turn("msg-8", "Ginger ale is my drink.", LEO, [ANA])
    question = about("Which drink does Leo like?", ["drink", "leo", "like"], [LEO], [*filler, other, his])
    assert [e.id for e in layout(question, max_evidence=1).entries.values()] == ["msg-8"]
    assert [e.id for e in layout(question, max_evidence=1, own_turn=0.0).entries.values()] != ["msg-8"]


def test_layout_weighs_question_words_by_their_rarity_among_the_retrieved_turns():
    evidence = [
        turn("msg-1", "The party is at eight and the party room is booked.", TOM, [ANA]),
        turn("msg-2", "Party music, party lights, the party is sorted.", ANA, [TOM]),
        turn("msg-3", "I made a lemon cake yesterday.", ANA, [TOM]),
        turn("msg-4", "We still need balloons for the party.", TOM, [ANA]),
    ]
    question = about("What cake was baked for the party?", ["cake", "baked", "party"], [], evidence)
    # every turn is about the party; the one line holding the rarer "cake" beats a better-ranked one
    assert {e.id for e in layout(question, max_evidence=2).entries.values()} == {"msg-1", "msg-3"}


def test_layout_reads_deeper_than_the_first_twelve_retrieved():
    filler = [turn(f"msg-{i}", f"Chatter number {i} about the weather.", ANA, [TOM]) for i in range(20)]
    code = turn("msg-29", "The garage door code is now 5120.", TOM, [ANA])
    question = about("What is the garage door code?", ["garage", "door", "code"], [], [*filler, code])
    assert "msg-29" in {e.id for e in layout(question, max_evidence=2).entries.values()}
    assert "msg-29" not in {e.id for e in layout(question, max_evidence=2, pool=12).entries.values()}


def test_a_long_draft_is_shown_with_the_day_it_was_said():
    chat = Replies(replies=['{"answer": null, "ids": []}'])
    said = (
        "Tom: I finally repainted the garden shed a deep green after weeks of scraping off the old flaking "
        "paint, and the neighbours keep stopping to look at it. (said on 2 November 2026)"
    )
    LLMReader(chat).read(result("When did Tom repaint the shed?"), hint=(said, ["msg-1"]))
    shown = next(x for x in chat.prompts[0][1].content.splitlines() if x.startswith("Draft answer:"))
    assert shown.endswith("… (said on 2 November 2026) (line 1)") and len(shown) < 180


def test_the_offline_draft_is_shown_with_its_line_and_the_note_says_so():
    chat = Replies(replies=['{"answer": "4417", "ids": [1]}'])
    reader = LLMReader(chat)
    out = reader.read(
        result("What is the garage door code?"), hint=("Tom: The garage door code is 4417", ["msg-1"])
    )
    assert "Draft answer: Tom: The garage door code is 4417 (line 1)" in chat.prompts[0][1].content
    assert "the line's own words that answer it" in chat.prompts[0][0].content
    assert out.chosen == ("4417", ["msg-1"]) and "the offline draft was shown" in out.notes[0]


def test_local_replies_are_constrained_to_their_grammar_or_schema_and_short():
    from langchain_openai import ChatOpenAI

    endpoint = Endpoint("local", "http://127.0.0.1:9/v1", "m", "configured")
    model = ChatOpenAI(model="m", base_url=endpoint.base_url, api_key="x")
    reply = Reply(answer_schema([1, 2]), answer_grammar([1, 2]))
    bound = LLMReader(model, endpoint)._model(reply)
    assert bound.kwargs["extra_body"] == {"grammar": reply.grammar} and "response_format" not in bound.kwargs
    assert bound.kwargs["max_tokens"] == 48
    bound = LLMReader(model, endpoint)._model(Reply(schema={"type": "object"}))  # the turn picker's
    assert bound.kwargs["response_format"] == {"type": "json_object", "schema": {"type": "object"}}
    # an OpenAI endpoint has no grammar field: it is held to the schema
    bound = LLMReader(model, Endpoint("openai", None, "m", "configured"))._model(reply)
    assert "extra_body" not in bound.kwargs
    assert bound.kwargs["response_format"]["json_schema"]["schema"] == reply.schema


def test_the_answer_grammar_writes_the_ids_without_spaces_after_the_schema_s_answer():
    """Up to the answer's value the rules llama-cpp-python compiles from the schema (so the model
    writes the same answer), after it no space: ``","ids":[2,4]}`` is 6 generated tokens where
    ``", "ids": [2, 4]}`` was 9, each a decode of the whole model. An answer cites at least one
    line (written compactly, the model closed ``[]`` after answers it had cited a line for)."""
    grammar = answer_grammar([1, 2, 3])
    rules = dict(line.split(" ::= ", 1) for line in grammar.strip().splitlines())
    assert rules["root"] == (
        '"{" space "\\"answer\\"" space ":" space'
        ' (string ",\\"ids\\":[" id ("," id){0,2} "]}" | "null,\\"ids\\":[]}")'
    )
    assert rules["space"] == '" "?' and rules["id"] == '"1" | "2" | "3"'
    assert rules["string"] == '"\\"" char{0,80} "\\""'
    list_grammar = answer_grammar([1, 2], LIST_LINES, LIST_ANSWER_CHARS)
    assert f'("," id){{0,{LIST_LINES - 1}}}' in list_grammar and "char{0,120}" in list_grammar
    assert ':[" id "]}"' in answer_grammar([4], 1)
    # what it lets through, the strict parser reads
    entries = layout(result("What is the garage door code?")).entries
    assert parse_answer('{"answer": "4417","ids":[1,2]}', entries) == ("4417", [1, 2])
    assert parse_answer('{"answer": null,"ids":[]}', entries) is None


class Slow(BaseChatModel):
    """A chat model whose endpoint does not reply in time."""

    @property
    def _llm_type(self) -> str:
        return "slow"

    def _generate(self, *args: Any, **kw: Any):
        raise TimeoutError("timed out")


def test_a_timeout_falls_back_to_the_offline_answer_even_for_a_configured_llm():
    configured = Endpoint("local", "http://127.0.0.1:9/v1", "m", "configured")
    out = compose(result("What is the garage door code?"), llm=LLMReader(Slow(), configured))
    assert out.answerer == "extractive" and "4417" in out.answer
    assert any(n.startswith("LLM timed out") for n in out.notes)


def test_a_draft_the_model_copies_up_to_its_length_cap_is_kept_whole():
    draft = "Tom: The garage door code is 4417, don't tell the kids, and the shed key is under the mat."
    chat = Replies(
        replies=['{"answer": "Tom: The garage door code is 4417, don\'t tell the kids", "ids": [1]}']
    )
    out = LLMReader(chat).read(result("What is the garage door code?"), hint=(draft, ["msg-1"]))
    assert out.chosen == (draft, ["msg-1"]) and "kept the offline draft" in out.notes[0]


def test_a_copied_draft_is_not_rejected_for_its_capitalised_words_or_missing_ids():
    draft = "Tom: Hey Ana! Still busy. The garage door code is 4417"
    entries = layout(result("What is the garage door code?")).entries
    assert parse_answer(
        '{"answer": "Tom: Hey Ana! Still busy. The garage door", "ids": []}', entries, draft
    ) == (
        "Tom: Hey Ana! Still busy. The garage door",
        [],
    )
    with pytest.raises(ReaderError, match="names Hey"):
        parse_answer('{"answer": "Hey Ana! Still busy", "ids": [1]}', entries)
    chat = Replies(replies=[f'{{"answer": "{draft}", "ids": []}}'])
    assert LLMReader(chat).read(result("What is the garage door code?"), hint=(draft, ["msg-1"])).chosen == (
        draft,
        ["msg-1"],
    )
    assert len(chat.prompts) == 1  # accepted without a repair turn
    bare = Replies(replies=['{"answer": "Hey Ana! Still busy. The garage door code is", "ids": [1]}'])
    assert LLMReader(bare).read(result("What is the garage door code?"), hint=(draft, ["msg-1"])).chosen == (
        draft,
        ["msg-1"],
    )


def test_relative_times_in_the_lines_are_resolved_against_the_day_they_were_said():
    said = turn("msg-3", "We went to the pride festival last year, it was amazing.", TOM, [ANA])
    shown = layout(result("When did Tom go to the pride festival?", evidence=[said]))
    assert "last year (2025), it was amazing" in shown.text  # said on 2 November 2026
    # the year the line now shows grounds a dated answer (rejected as invented without the rule)
    assert parse_answer('{"answer": "2025", "ids": [1]}', shown.entries) == ("2025", [1])


def test_a_relative_time_the_model_copies_bare_is_given_its_date():
    said = turn("msg-3", "Went to the dentist yesterday, all good.", TOM, [ANA])
    chat = Replies(replies=['{"answer": "yesterday", "ids": [1]}'])
    answer = LLMReader(chat).answer(result("When did Tom go to the dentist?", evidence=[said]))
    assert answer == ("yesterday (1 November 2026)", ["msg-3"])


def test_an_answer_that_only_restates_the_question_keeps_the_draft():
    from voxmem.retrieval.llm_reader import restates

    book = "What book did Caroline recommend to Melanie?"
    assert restates("The book Caroline recommended to Melanie", book)
    assert restates("Rome", "What did Jon take a trip to Rome for?")
    assert not restates("mental health", "What did the charity race raise awareness for?")
    assert not restates("Yes", "Did Tom go?") and not restates("Rome", "Did he pick Paris or Rome?")
    draft = ("Tom: The garage door code is 4417, don't tell the kids.", ["msg-1"])
    chat = Replies(replies=['{"answer": "the garage door code", "ids": [1]}'])
    assert LLMReader(chat).read(result("What is the garage door code?"), hint=draft).chosen == draft


def test_without_a_draft_an_answer_that_only_restates_the_question_is_an_abstention():
    said = turn("msg-3", "I hope my paintings have an impact on people.", TOM, [ANA])
    question = result("What kind of impact does Tom hope to have with his painting?", evidence=[said])
    chat = Replies(replies=['{"answer": "impact", "ids": [1]}'])
    assert LLMReader(chat).answer(question) is None
    chat = Replies(replies=['{"answer": "an impact on people", "ids": [1]}'])
    assert LLMReader(chat).answer(question) == ("an impact on people", ["msg-3"])


@pytest.mark.parametrize(
    "reply",
    ["Tom: 4417", "[1] Tom -> Ana: 4417", "[1] 4417", "Tom -> Ana: 4417"],
)
def test_a_copied_line_label_is_not_part_of_the_answer(reply):
    chat = Replies(replies=[f'{{"answer": "{reply}", "ids": [1]}}'])
    assert LLMReader(chat).answer(result("What is the garage door code?")) == ("4417", ["msg-1"])


def test_only_a_shown_speakers_name_is_a_label():
    entries = layout(result("What is the garage door code?")).entries
    assert parse_answer('{"answer": "Code: 4417", "ids": [1]}', entries) == ("Code: 4417", [1])
    assert parse_answer('{"answer": "Tom:", "ids": [1]}', entries) == ("Tom:", [1])


def test_a_draft_copied_with_retyped_quotes_is_kept_whole():
    draft = 'Jon: I\'m currently reading "The Lean Startup" and hoping it helps. (said on 29 May 2023)'
    reply = '{"answer": "Jon: I\'m currently reading \'The Lean Startup\' and hoping it helps", "ids": [1]}'
    chat = Replies(replies=[reply])
    question = result("When did Jon start reading The Lean Startup?")
    out = LLMReader(chat).read(question, hint=(draft, ["msg-1"]))
    assert out.chosen == (draft, ["msg-1"])


def test_an_llm_abstention_stands_when_the_draft_holds_nothing_of_the_asked_kind():
    def asked(text: str) -> AgentResult:
        evidence = [turn("msg-3", f"Honestly, the {text} I like best is classical music.", TOM, [ANA])]
        asking = result("What drink does Tom like best?", evidence=evidence)
        asking.reading.keywords = ["drink", "like", "best"]
        return asking

    chat = Replies(replies=['{"answer": null, "ids": []}'])
    out = compose(asked("music"), llm=LLMReader(chat))
    assert chat.prompts, "the offline reader drafted an answer and the LLM read it"
    assert (out.answer, out.answerer, out.supported) == (NOT_IN_MEMORY, "llm", False)
    assert any("nothing of the asked kind" in n for n in out.notes)
    # a draft of the asked kind still overrules the abstention
    out = compose(asked("drink"), llm=LLMReader(chat))
    assert out.answerer == "extractive" and "classical music" in out.answer


def test_a_draft_of_the_asked_kind_stands_against_an_answer_from_other_turns():
    old = turn("msg-3", "For me it's always orange juice, that's my favourite drink.", ANA, [TOM])
    # (no "now": a turn marking the value as current is caught first, by test_a_preference_that_changed_…)
    new = turn("msg-4", "I switched, hot chocolate every morning.", ANA, [TOM])
    asking = result("Which drink was Ana's favorite before?", evidence=[old, new])
    asking.reading.keywords = ["drink", "favorite"]
    chat = Replies(replies=['{"answer": "hot chocolate", "ids": [2]}'])
    out = compose(asking, llm=LLMReader(chat))
    assert chat.prompts and "orange juice" in out.answer and out.answerer == "extractive"
    assert any("asked kind" in n for n in out.notes)
    # shortening the draft from its own turn is the LLM's answer
    chat = Replies(replies=['{"answer": "orange juice", "ids": [1]}'])
    out = compose(asking, llm=LLMReader(chat))
    assert (out.answer, out.answerer, out.used) == ("orange juice", "llm", ["msg-3"])


def _about_ana(text: str, speaker: dict) -> AgentResult:
    asking = result("What did Ana paint for the church?", evidence=[turn("msg-5", text, speaker, [])])
    asking.evidence[0].evidence.addressees = [TOM if speaker is ANA else ANA]
    asking.reading.people = [ANA]
    asking.reading.keywords = ["paint", "church"]
    return asking


def test_an_answer_about_a_named_person_must_rest_on_a_turn_by_or_about_them():
    chat = Replies(replies=['{"answer": "a picture of the lake", "ids": [1]}'])
    # Tom's own painting answers nothing about Ana: dropped, and the offline reader had nothing
    out = compose(_about_ana("I painted a picture of the lake for the church.", TOM), llm=LLMReader(chat))
    assert chat.prompts, "a question about a named person is read by the LLM even without a draft"
    assert (out.answer, out.answerer, out.supported) == (NOT_IN_MEMORY, "none", False)
    assert any("rests on no turn by or about Ana" in n for n in out.notes)
    # her own turn, or one spoken to her about her, grounds the same answer
    for text, speaker in [
        ("I painted a picture of the lake for the church.", ANA),
        ("Your picture of the lake for the church is lovely.", TOM),
        ("Thanks, Ana! Your picture of the lake for the church is lovely.", TOM),
    ]:
        out = compose(_about_ana(text, speaker), llm=LLMReader(chat))
        assert (out.answer, out.answerer, out.used) == ("a picture of the lake", "llm", ["msg-5"]), text


def test_an_answer_from_another_persons_turn_keeps_the_offline_draft():
    own = turn("msg-6", "I painted the old mill for the church bazaar.", ANA, [TOM])
    his = turn("msg-7", "I painted a picture of the lake for the church.", TOM, [ANA])
    asking = result("What did Ana paint for the church?", evidence=[own, his])
    asking.reading.people, asking.reading.keywords = [ANA], ["paint", "church"]
    chat = Replies(replies=['{"answer": "a picture of the lake", "ids": [2]}'])
    out = compose(asking, llm=LLMReader(chat))
    assert chat.prompts and out.answerer == "extractive" and "old mill" in out.answer
    assert any("rests on no turn by or about Ana" in n for n in out.notes)


# --- the final answer checked against the kind asked for, and against a preference that changed ---
def test_an_answer_naming_another_kind_than_asked_is_found_whatever_the_embeddings_say():
    from voxmem.retrieval.answer import off_kind

    assert off_kind("Which drink is Tom's favourite?", "Mexican food", set()) == "food"
    assert off_kind("What is Tom's favourite drink?", "Tom: we'd have Mexican food", set()) == "food"
    assert off_kind("What drink does Tom like best?", "the music I like best is jazz", set()) == "music"
    # of the kind, or naming no kind at all (a title, a drink MiniLM does not place): no judgement
    for question, answer in [
        ("Which drink is Tom's favourite?", "black coffee"),
        ("Which drink is Tom's favourite?", "hot chocolate"),
        ("Which drink is Tom's favourite?", "my favourite drink is the one with lemon"),
        ("What food does Ana like?", "an Italian dish"),
        ("What book is Ana reading?", "The Lean Startup"),
        ("What did Ana cook?", "Mexican food"),
    ]:
        assert off_kind(question, answer, set()) is None, (question, answer)


def _favourite(question: str, text: str) -> AgentResult:
    asking = result(question, evidence=[turn("msg-3", text, TOM, [ANA])])
    asking.reading.keywords, asking.reading.people = ["drink", "tom", "favorite"], [TOM]
    return asking


def test_the_final_answer_of_another_kind_is_not_given_by_the_llm_nor_offline():
    mexican = "If it were up to me we'd have Mexican food every night, it's my favorite."
    chat = Replies(replies=['{"answer": "Mexican food", "ids": [1]}'])
    out = compose(_favourite("Which drink is Tom's favorite?", mexican), llm=LLMReader(chat))
    assert chat.prompts, "the LLM read the question"
    assert (out.answer, out.answerer, out.supported) == (NOT_IN_MEMORY, "none", False)
    assert any("names food, not the kind asked for" in n for n in out.notes)
    out = compose(_favourite("Which drink is Tom's favorite?", mexican))  # offline: the same check
    assert (out.answer, out.supported) == (NOT_IN_MEMORY, False)
    assert any("extractive answer names food" in n for n in out.notes)
    # an answer of the kind stands, on both paths
    ale = "Ginger ale, always ginger ale, it's my favorite."
    chat = Replies(replies=['{"answer": "ginger ale", "ids": [1]}'])
    out = compose(_favourite("Which drink is Tom's favorite?", ale), llm=LLMReader(chat))
    assert (out.answer, out.answerer) == ("ginger ale", "llm")


def test_a_preference_that_changed_is_answered_for_the_time_asked():
    from voxmem.retrieval.answer import wrong_time

    said = ["I used to love Greek food, but now my favorite is Italian food."]
    before = "Which food did Tom like best before he changed his mind?"
    assert wrong_time(before, "Italian food", said) is not None
    assert wrong_time(before, "Greek food", said) is None
    assert wrong_time("What food does Tom like best?", "Greek food", said) is not None
    assert wrong_time("What food does Tom like best?", "Italian food", said) is None
    # a turn that marks no change says nothing about time
    assert wrong_time(before, "Greek food", ["Greek food is the best, honestly."]) is None

    def asked(question: str, reply: str) -> Any:
        asking = result(question, evidence=[turn("msg-3", said[0], TOM, [ANA])])
        asking.reading.keywords, asking.reading.people = ["food", "favorite"], [TOM]
        return compose(asking, llm=LLMReader(Replies(replies=[reply])))

    # the LLM's current value for a question about the past: the offline draft (the whole turn) stands
    out = asked(before, '{"answer": "Italian food", "ids": [1]}')
    assert out.answerer == "extractive" and "Greek food" in out.answer
    assert any("asks about the past" in n for n in out.notes)
    assert asked(before, '{"answer": "Greek food", "ids": [1]}').answer == "Greek food"
    now = "What food does Tom like best?"
    assert asked(now, '{"answer": "Greek food", "ids": [1]}').answerer == "extractive"
    assert asked(now, '{"answer": "Italian food", "ids": [1]}').answer == "Italian food"


def test_a_date_the_llm_gives_less_precisely_than_the_draft_keeps_the_draft():
    from voxmem.retrieval.spans import coarser_date

    assert coarser_date("2023", "Tom: we moved the shed (said on 16 March 2023)")
    assert coarser_date("March 2023", "on 16 March, 2023")
    # as precise, another date, or no date at all: not coarser
    for answer in ("16 March 2023", "March 16th, 2023", "2022", "in spring", "April 2023"):
        assert not coarser_date(answer, "Tom: we moved the shed (said on 16 March 2023)"), answer

    draft = "Tom: I finally repainted the garden shed a deep green after weeks of scraping."
    asking = result("When did Tom repaint the shed?", evidence=[turn("msg-1", draft, TOM, [ANA])])
    asking.reading.keywords = ["repaint", "shed"]
    out = compose(asking, llm=LLMReader(Replies(replies=['{"answer": "2026", "ids": [1]}'])))
    assert out.answerer == "extractive" and "2 November 2026" in out.answer
    assert any("less precise" in n for n in out.notes)
    # the day itself, shortened from the draft, is the LLM's answer
    out = compose(asking, llm=LLMReader(Replies(replies=['{"answer": "2 November 2026", "ids": [1]}'])))
    assert (out.answer, out.answerer) == ("2 November 2026", "llm")


def test_the_worked_examples_answer_with_a_phrase_of_their_line_that_the_reader_accepts():
    import json
    import re

    from voxmem.retrieval.llm_reader import ANSWER_SYSTEM

    examples = ANSWER_SYSTEM.split("Example:")[1:]
    assert examples, "the system prompt shows worked examples (a cached prefix: free after the first call)"
    for example in examples:
        lines = dict(re.findall(r"^\[(\d+)\] \w+ -> \w+: (.*)$", example, re.M))
        reply = json.loads(example.split("Reply: ", 1)[1])
        cited = [turn(f"msg-{n}", lines[str(n)], TOM, [ANA]) for n in reply["ids"]]
        shown = {n: c for n, c in zip(reply["ids"], cited, strict=True)}
        assert parse_answer(json.dumps(reply), shown) == (reply["answer"], reply["ids"])
        assert len(reply["answer"]) < 0.75 * len(lines[str(reply["ids"][0])]), "a phrase, not the line"


def _asked_about_tom(question: str, text: str, speaker: dict) -> AgentResult:
    asking = result(question, evidence=[turn("msg-4", text, speaker, [ANA if speaker is TOM else TOM])])
    asking.reading.people = [TOM]
    return asking


def test_a_hedged_verdict_is_an_answer_though_its_likely_is_the_questions():
    from voxmem.retrieval.llm_reader import restates

    assert not restates("Likely no", "Would Tom likely enjoy a week of camping?")
    assert not restates("Yes", "Is Tom likely to go?")
    assert restates("likely camping", "Would Tom likely enjoy a week of camping?")  # words, no verdict
    hates = "Honestly I hate sleeping outdoors, the bugs drive me crazy."
    asking = _asked_about_tom("Would Tom likely enjoy a week of camping?", hates, TOM)
    asking.reading.keywords = ["likely", "enjoy", "camping"]
    chat = Replies(replies=['{"answer": "Likely no", "ids": [1]}'])
    out = compose(asking, llm=LLMReader(chat))
    assert chat.prompts and (out.answer, out.answerer, out.used) == ("Likely no", "llm", ["msg-4"])


def test_a_line_that_drops_its_i_is_about_its_speaker_not_the_listener_it_mentions():
    # LoCoMo: Melanie to Caroline, "Been reading that book you recommended … and painting to keep
    # busy": asked what Caroline does to keep busy, "painting" is Melanie's, not Caroline's
    mine = "It was tough, but I'm doing ok. Been reading that book you recommended and painting to keep busy."
    asking = _asked_about_tom("What does Tom do to keep busy?", mine, ANA)
    asking.reading.keywords = ["keep", "busy"]
    chat = Replies(replies=['{"answer": "painting", "ids": [1]}'])
    out = compose(asking, llm=LLMReader(chat))
    assert chat.prompts and out.answer == NOT_IN_MEMORY
    assert any("rests on no turn by or about Tom" in n for n in out.notes)
    # said to him about him, the same words ground the answer
    yours = "Glad to hear it. You've been painting to keep busy, that's great."
    out = compose(_asked_about_tom("What does Tom do to keep busy?", yours, ANA), llm=LLMReader(chat))
    assert (out.answer, out.answerer) == ("painting", "llm")


def test_an_answer_whose_words_only_another_line_holds_is_judged_on_that_line():
    # LoCoMo adversarial: asked what Caroline does during her pottery break (Melanie's break), the
    # 1.5B model answered "painting", a word of Melanie's line, and cited Caroline's own line
    his = "Oh man, sorry to hear that. I hope you're okay. Need any help?"
    hers = "It was tough, but I'm doing ok. Been reading that book you recommended and painting to keep busy."
    asking = result(
        "What does Tom do to keep busy during his pottery break?",
        evidence=[turn("msg-1", his, TOM, [ANA]), turn("msg-2", hers, ANA, [TOM])],
    )
    asking.reading.people, asking.reading.keywords = [TOM], ["keep", "busy", "pottery", "break"]
    chat = Replies(replies=['{"answer": "painting", "ids": [1]}'])
    out = compose(asking, llm=LLMReader(chat))
    assert chat.prompts and out.answer == NOT_IN_MEMORY
    assert any("rests on no turn by or about Tom" in n for n in out.notes)
    # the citation moves to the line holding the words: the answer cites what it came from
    assert LLMReader(chat).answer(asking) == ("painting", ["msg-2"])
    # a date answered from the day the cited line was said keeps that line, though another
    # shown line holds one of its words
    dated = result(
        "When did Tom start the pottery class?",
        evidence=[
            turn("msg-1", "Started my pottery class, finally!", TOM, [ANA]),
            turn("msg-2", "Cool, 2 November.", ANA, [TOM]),
        ],
    )
    reply = Replies(replies=['{"answer": "2 November 2026", "ids": [1]}'])
    assert LLMReader(reply).answer(dated) == ("2 November 2026", ["msg-1"])
    # cited right, the same words from his own line are his answer
    mine = "I've been painting to keep busy while the pottery studio is closed."
    asking.evidence[0] = turn("msg-1", mine, TOM, [ANA])
    out = compose(asking, llm=LLMReader(chat))
    assert (out.answer, out.answerer, out.used) == ("painting", "llm", ["msg-1"])


def test_an_answer_re_cited_rests_on_the_line_saying_the_question_not_on_any_holding_its_word():
    # LoCoMo adversarial: asked what Caroline does during her pottery break (the break is
    # Melanie's), the 1.5B model answered "painting" and cited Caroline's "what's up?" line; both
    # Caroline's "busy painting" and Melanie's "painting to keep busy" hold the word, and re-cited
    # to both the answer passed on Caroline's. The words came from the line saying the question's words
    hello = "Hey Ana, what's up? Been a busy week since we talked."
    mine = "I've been busy painting - here's something I just finished."
    hers = "Had to take a break from pottery. Been reading and painting to keep busy during the break."
    asking = result(
        "What does Tom do to keep busy during his pottery break?",
        evidence=[
            turn("msg-1", hello, TOM, [ANA]),
            turn("msg-2", mine, TOM, [ANA]),
            turn("msg-3", hers, ANA, [TOM]),
        ],
    )
    asking.reading.people, asking.reading.keywords = [TOM], ["keep", "busy", "pottery", "break"]
    chat = Replies(replies=['{"answer": "painting", "ids": [1]}'])
    assert LLMReader(chat).answer(asking) == ("painting", ["msg-3"])
    out = compose(asking, llm=LLMReader(chat))
    assert chat.prompts and out.answer == NOT_IN_MEMORY  # no draft: abstains, as the offline reader
    assert any("rests on no turn by or about Tom" in n for n in out.notes)
    # his own line saying the question's words is where the answer came from, and it stands
    asking.evidence[1] = turn("msg-2", "Since the pottery break I keep busy painting.", TOM, [ANA])
    out = compose(asking, llm=LLMReader(chat))
    assert (out.answer, out.answerer, out.used) == ("painting", "llm", ["msg-2"])
    # a list answer keeps every line holding one of its items, not only the one saying "hobbies"
    best = turn("msg-2", "Painting is the best of my hobbies.", TOM, [ANA])
    listing = result("What hobbies does Tom have?", evidence=[turn("msg-1", hello, TOM, [ANA]), best])
    listing.evidence.append(turn("msg-3", "And hiking.", TOM, [ANA]))
    listing.reading.people, listing.reading.keywords = [TOM], ["hobbies"]
    reply = Replies(replies=['{"answer": "painting, hiking", "ids": [1]}'])
    cited = LLMReader(reply).answer(listing, hint=("Tom: Painting is the best of my hobbies.", ["msg-2"]))
    assert cited == ("painting, hiking", ["msg-2", "msg-3"])


def test_a_question_whose_premise_is_another_persons_is_not_answered_from_the_asked_persons_line():
    # LoCoMo adversarial (an event of Gina's asked of Jon), in other words: Ana's team won the
    # contest, Tom only bakes bread for the market; with no offline draft the model answered from
    # Tom's line, which shares one word of the question and passed as his
    question = "What kind of cake did Tom's team bake to win the contest?"
    hers = turn("msg-1", "My team baked a lemon cake to win the contest last spring.", ANA, [TOM])
    bread = turn("msg-2", "I bake bread for the market every week.", TOM, [ANA])
    cheer = turn("msg-3", "Winning a contest must feel amazing! What did you bake?", TOM, [ANA])
    reply = '{"answer": "bread for the market", "ids": [2]}'

    def asking(first: FusedEvidence) -> AgentResult:
        out = result(question, evidence=[first, bread, cheer])
        out.reading.people, out.reading.keywords = [TOM], ["kind", "cake", "team", "bake", "win", "contest"]
        return out

    chat = Replies(replies=[reply])
    out = compose(asking(hers), llm=LLMReader(chat))
    assert chat.prompts and (out.answer, out.answerer) == (NOT_IN_MEMORY, "none")
    assert any("premise is Ana's, not Tom's" in n for n in out.notes)
    # the same statement about Tom ("Tom's team …") makes the premise his, not Ana's
    from voxmem.retrieval.answer import _premise_owner

    about_him = turn("msg-1", "Tom's team baked a lemon cake to win the contest last spring.", ANA, [TOM])
    assert _premise_owner(asking(hers), ("bread for the market", ["msg-2"])) == "Ana"
    assert _premise_owner(asking(about_him), ("bread for the market", ["msg-2"])) is None
    # someone else's line saying little of the premise takes nothing from his answer
    small = turn("msg-1", "The contest was fun to watch.", ANA, [TOM])
    out = compose(asking(small), llm=LLMReader(Replies(replies=[reply])))
    assert (out.answer, out.answerer) == ("bread for the market", "llm")


def test_the_asked_persons_question_to_the_listener_is_not_about_them():
    # LoCoMo adversarial "How is Jon's store doing?" (Gina has the store) answered from Jon's
    # "What gave you the idea to start the online store?"
    chat = Replies(replies=['{"answer": "online store", "ids": [1]}'])
    for text in ("What gave you the idea to start the online store?", "Your online store looks great!"):
        out = compose(_asked_about_tom("How is Tom's store doing?", text, TOM), llm=LLMReader(chat))
        assert chat.prompts and out.answer == NOT_IN_MEMORY, text
        assert any("rests on no turn by or about Tom" in n for n in out.notes), text
    # his own statement about his store answers it (a how-question: the phrase's whole sentence)
    out = compose(
        _asked_about_tom("How is Tom's store doing?", "My online store is doing great.", TOM),
        llm=LLMReader(chat),
    )
    assert (out.answer, out.answerer) == ("My online store is doing great.", "llm")


def test_an_answer_gets_the_name_its_line_gives_it_right_after_it():
    song = turn("msg-5", '"Brave" by Sara Bareilles has a lot of significance for me.', ANA, [TOM])
    piece = turn("msg-7", 'We did a contemporary piece called "Finding Freedom." So emotional.', ANA, [TOM])
    walk = turn("msg-6", "A walk by The River always calms me, and tennis by the lake too.", TOM, [ANA])
    evidence = [song, piece, walk]  # lines in the order said: 1 song, 2 walk, 3 piece
    for question, reply, expected in [
        ("Which song moves Ana?", '{"answer": "Brave", "ids": [1]}', ("Brave by Sara Bareilles", ["msg-5"])),
        ("What did Ana dance?", '{"answer": "contemporary piece", "ids": [3]}',
         ('contemporary piece called "Finding Freedom"', ["msg-7"])),
        # cited the wrong line: the line that says it (and names it) is cited instead
        ("What did Ana dance?", '{"answer": "contemporary piece", "ids": [1]}',
         ('contemporary piece called "Finding Freedom"', ["msg-7"])),
    ]:  # fmt: skip
        assert LLMReader(Replies(replies=[reply])).answer(result(question, evidence=evidence)) == expected
    # the kind the question asks for may stand between the answer and its name, another word not
    for question, expected in [
        ("What kind of dance piece did Ana do?", 'contemporary piece called "Finding Freedom"'),
        ("What kind of dance did Ana do?", "contemporary"),
    ]:
        reply = '{"answer": "contemporary", "ids": [3]}'
        assert LLMReader(Replies(replies=[reply])).answer(result(question, evidence=evidence)) == (
            expected,
            ["msg-7"],
        )
    # a lower-case word after "by", or a capitalised common word ("The River"), is no name
    for reply in ('{"answer": "tennis", "ids": [2]}', '{"answer": "walk", "ids": [2]}'):
        answer = LLMReader(Replies(replies=[reply])).answer(result("What calms Tom?", evidence=evidence))
        assert answer is not None and " by " not in answer[0]


@pytest.mark.parametrize(
    "question",
    [
        "What pets does Ana have?",
        "Which board games do the twins play on Sundays?",
        "What instruments can Priya play?",
        "In what ways does Tom help at the shelter?",
        "What kinds of music does Leo listen to?",
        "What has Omar cooked for the neighbours?",
        "What has Leo painted?",
        "What does Ana do for fun?",
        "What does Leo do in his spare time?",
        "What does Ana like to do on weekends?",
        "What do the twins like?",
    ],
)
def test_a_question_asking_for_several_things_of_one_kind_is_a_list_question(question):
    assert asks_for_list(question)


@pytest.mark.parametrize(
    "question",
    [
        "What is the garage door code?",
        "What kind of car does Leo drive?",
        "What does Ana think about the new flat?",
        "What news did Leo share?",
        "Which bus does Ana take?",
        "What class does Leo teach?",
        "What did Tom do after the match?",
        "What does Ana do after the alarm rings?",
        "What do you do when the screen goes black?",
        "Who likes pizza?",
        # one job, not several things (the rule once read "do for" as "do for fun")
        "What does Ana do for a living?",
        "What does Leo do for work?",
        "What does Priya do for her job?",
        "What does Omar do for money these days?",
        # one task or plan: "to" before "do" (the rule read "need to do in" through "do in")
        "What does Ana need to do in the morning?",
        "What does Leo have to do on Friday?",
        "What does Priya want to do with the old bike?",
        "What do the twins plan to do in Lisbon?",
    ],
)
def test_a_question_about_one_thing_is_no_list_question(question):
    assert not asks_for_list(question)


def _sessions() -> list[FusedEvidence]:
    """Leo's hobbies said over three sessions; the first session says the question's words most."""
    out = []
    for mid, session, day, text, speaker in [
        ("msg-1", "s1", "01", "My hobbies? Chess, mostly chess, my hobby since school.", LEO),
        ("msg-2", "s1", "01", "Chess club hobbies night was fun, hobbies are the best.", LEO),
        ("msg-3", "s1", "01", "Your hobbies sound fun, Leo.", ANA),
        ("msg-4", "s2", "08", "Went hiking up the ridge on Sunday, my new hobby.", LEO),
        ("msg-5", "s3", "15", "Pottery class again tonight, my favourite hobby now.", LEO),
        ("msg-6", "s3", "15", "I prefer hobbies like baking.", ANA),
    ]:
        e = turn(mid, text, speaker, [ANA if speaker is LEO else LEO])
        e.evidence.session, e.evidence.ts = session, f"2026-11-{day}T09:30:00+00:00"
        out.append(e)
    return out


def test_a_list_question_gathers_the_persons_own_turns_one_session_at_a_time():
    question = about("What hobbies does Leo have?", ["hobbies", "leo", "have"], [LEO], _sessions())
    plain = {e.id for e in layout(question, max_evidence=3).entries.values()}
    gathered = {e.id for e in layout(question, max_evidence=3, gather=True).entries.values()}
    assert not {"msg-4", "msg-5"} <= plain  # five lines chosen for one answering turn miss a session
    assert gathered == {"msg-1", "msg-4", "msg-5"}  # Leo's turns, one per session, Ana's left out
    # a second line of a session only after every session has one
    assert {e.id for e in layout(question, max_evidence=4, gather=True).entries.values()} == {
        "msg-1",
        "msg-2",
        "msg-4",
        "msg-5",
    }


def test_a_list_question_spreads_over_sessions_only_the_turns_on_it():
    """Leo's small talk of a fourth session, retrieved far down and sharing no word with the
    question, does not take a line from a second turn on his hobbies (before, one line per
    session came first, whatever the line said)."""
    chat = [turn(f"ana-{i}", f"Ana's aside number {i}.", ANA, [LEO]) for i in range(5)]
    small = turn("msg-7", "Morning Ana, how was the trip?", LEO, [ANA])
    small.evidence.session, small.evidence.ts = "s4", "2026-11-22T09:30:00+00:00"
    question = about(
        "What hobbies does Leo have?", ["hobbies", "leo", "have"], [LEO], [*_sessions(), *chat, small]
    )
    gathered = {e.id for e in layout(question, max_evidence=4, gather=True).entries.values()}
    assert gathered == {"msg-1", "msg-2", "msg-4", "msg-5"}
    # retrieved among the first SHOWN, a turn counts as on the question whatever its words
    near = about("What hobbies does Leo have?", ["hobbies", "leo", "have"], [LEO], [*_sessions(), small])
    assert "msg-7" in {e.id for e in layout(near, max_evidence=4, gather=True).entries.values()}


def test_a_list_question_is_read_without_the_draft_and_may_cite_a_line_per_item():
    chat = Replies(replies=['{"answer": "chess, hiking, pottery", "ids": [1, 3, 4]}'])
    question = about("What hobbies does Leo have?", ["hobbies", "leo", "have"], [LEO], _sessions())
    draft = ("Leo: My hobbies? Chess, mostly chess, my hobby since school.", ["msg-1"])
    out = LLMReader(chat).read(question, hint=draft)
    assert out.chosen == ("chess, hiking, pottery", ["msg-1", "msg-4", "msg-5"])
    prompt = chat.prompts[0][1].content
    assert "Draft answer" not in prompt and LIST_NOTE in prompt
    assert f'("," id){{0,{LIST_LINES - 1}}}' in answer_grammar([1, 2], LIST_LINES, LIST_ANSWER_CHARS)
    # a question about one thing keeps the draft and the five lines
    LLMReader(chat).read(about("What is Leo's hobby?", ["hobby", "leo"], [LEO], _sessions()), hint=draft)
    assert "Draft answer" in chat.prompts[-1][1].content and LIST_NOTE not in chat.prompts[-1][1].content


def test_a_list_question_without_an_offline_draft_gets_the_usual_lines():
    """No draft: the offline reader found no turn on it, and gathered lines invite a list of
    whatever the person said (an adversarial question answered); the usual prompt stands."""
    chat = Replies(replies=['{"answer": null, "ids": []}'])
    question = about("What hobbies does Leo have?", ["hobbies", "leo", "have"], [LEO], _sessions())
    LLMReader(chat).read(question, hint=None)
    assert LIST_NOTE not in chat.prompts[0][1].content


def test_a_clipped_line_shows_the_sentence_holding_the_other_question_words_after_a_gap():
    long = turn(
        "msg-1",
        "I keep things with sentimental value, like my red scarf. My aunt knitted it for my tenth "
        "birthday in the mountains. It is scratchy, but it reminds me of home.",
        LEO,
        [ANA],
    )
    question = about("What does Leo's red scarf remind him of?", ["red", "scarf", "remind"], [LEO], [long])
    text = layout(question, max_chars=120).text.splitlines()[1]
    assert text.endswith("like my red scarf. … It is scratchy, but it reminds me of home.")
    assert "tenth birthday" not in text  # the gap is elided, the line stays within the limit


def test_an_answer_no_shown_line_has_a_word_of_is_rejected():
    # LoCoMo adversarial "How is Jon's store doing?": his lines are about Ana's store, and the
    # model answered "good", a word none of them says
    lines = [turn("msg-1", "Your store looks great, your customers will be so comfy.", TOM, [ANA])]
    with pytest.raises(ReaderError, match="no line says good"):
        parse_answer('{"answer": "good", "ids": [1]}', dict(enumerate(lines, start=1)))
    pots = [turn("msg-1", "We each made a pot at the workshop, so fun!", TOM, [ANA])]
    for said in ("pots", "Likely no", "not mentioned"):  # a plural of a line's word, a verdict, no answer
        assert parse_answer(f'{{"answer": "{said}", "ids": [1]}}', dict(enumerate(pots, start=1)))
    # with no draft to fall back on, a second ungrounded reply leaves the question unanswered
    chat = Replies(replies=['{"answer": "good", "ids": [1]}'])
    out = compose(
        _asked_about_tom("How is Tom's store doing?", lines[0].evidence.text, TOM), llm=LLMReader(chat)
    )
    assert len(chat.prompts) == 2 and "no line says good" in chat.prompts[1][-1].content
    assert out.answer == NOT_IN_MEMORY


@pytest.mark.parametrize(
    "question",
    [
        "How does Tom describe the feeling dancing gives him?",
        "Why did Tom start dancing again?",
        "What was the show Tom went to about?",
        "What does dancing mean to Tom?",
    ],
)
def test_an_open_questions_phrase_cut_from_the_drafts_turn_becomes_its_sentence(question):
    from voxmem.retrieval.llm_reader import widened

    said = turn(
        "msg-3",
        "Back on stage at last. Capture the joy and thrill of it - it's magical! See you.",
        TOM,
        [ANA],
    )
    other = turn("msg-4", "Dancing is my joy and thrill.", ANA, [TOM])
    sentence = "Capture the joy and thrill of it - it's magical!"
    assert widened("joy and thrill", question, [said]) == sentence
    assert widened("the joy and thrill of it", question, [said]) == sentence
    assert widened("joy and thrill", question, [other, said]) == "Dancing is my joy and thrill."
    assert widened("joy, thrill", question, [said]) == "joy, thrill"  # a list stays a list
    assert widened("nerves", question, [said]) == "nerves"  # not from the draft's turn: the model's words


@pytest.mark.parametrize(
    "question",
    [
        "What kind of dance did Tom perform?",
        "Which song does Tom dance to?",
        "How many shows did Tom dance in?",
        "How long did Tom rehearse?",
        "When did Tom describe the show?",
        "Would Tom think the show was good?",
    ],
)
def test_a_question_wanting_a_thing_a_number_a_date_or_a_verdict_keeps_the_models_phrase(question):
    from voxmem.retrieval.llm_reader import widened

    said = turn(
        "msg-3", "We did a contemporary piece called Freedom. It took 3 shows to get it right.", TOM, [ANA]
    )
    assert widened("contemporary piece", question, [said]) == "contemporary piece"
    assert widened("Yes", question, [said]) == "Yes"


# --- twentieth pass: a short answer cut inside a noun phrase of its line ---


def test_a_short_answer_gets_the_asked_kinds_noun_its_line_says_right_after_it():
    # household tune: "Which cuisine is my favorite?" answered "Mexican" from "… we'd have Mexican
    # food every night" (gold "Mexican food")
    line = "If it were up to me we'd have Mexican food every night."
    for question in ("Which cuisine does Tom like best?", "What is Tom's favourite food?"):
        asking = _asked_about_tom(question, line, TOM)
        chat = Replies(replies=['{"answer": "Mexican", "ids": [1]}'])
        out = compose(asking, llm=LLMReader(chat))
        assert chat.prompts and (out.answer, out.answerer) == ("Mexican food", "llm"), question


def test_a_short_answer_grows_only_to_the_noun_phrase_its_line_says_around_it():
    from voxmem.retrieval.answer import whole_phrase

    line = ["If it were up to me we'd have Mexican food every night, with a window seat."]
    assert whole_phrase("Which seat does Tom want?", "window", line, set()) == "window seat"
    assert whole_phrase("Which seat does Tom want?", "window seat", line, set()) == "window seat"  # named
    assert whole_phrase("Which drink does Tom like?", "Mexican", line, set()) == "Mexican"  # food: no drink
    assert whole_phrase("What does Tom want every night?", "Mexican", line, set()) == "Mexican"  # no kind
    assert (
        whole_phrase("Which cuisine does Tom like?", "Mexican, Thai", line, set()) == "Mexican, Thai"
    )  # a list
    # household tune2: the word telling which one, and the asked kind joined by a preposition
    report = ["When you send me updates, I want a detailed spreadsheet."]
    assert whole_phrase("What format does Tom want?", "spreadsheet", report, set()) == "detailed spreadsheet"
    room = ["When I stay here I always want a room on a high floor."]
    assert whole_phrase("what room should you give me", "high floor", room, set()) == "room on a high floor"
    assert whole_phrase("where should you put me", "high floor", room, set()) == "high floor"  # no kind
    assert whole_phrase("What did Tom make?", "pots", ["We all made our own pots."], set()) == "pots"


@pytest.mark.parametrize(
    "question",
    [
        "Which drink did Tom give up?",
        "Which drink did Tom switch away from?",
        "Which drink did Tom ask for last time?",
    ],
)
def test_a_question_giving_up_or_switching_from_a_preference_asks_about_the_past(question):
    # household tune2: "Which drink did Ben switch away from?" answered "green tea", the new drink
    from voxmem.retrieval.answer import wrong_time

    said = ["Actually I've switched, I don't drink hot chocolate any more, my favourite now is green tea."]
    assert wrong_time(question, "green tea", said) is not None
    assert wrong_time(question, "hot chocolate", said) is None


def test_a_where_questions_bare_place_keeps_the_preposition_its_line_places_it_with():
    # FriendsQA tune: "Where does Rachel say she is supposed to be?" answered "airport" from "I am
    # supposed to pick up a friend at the airport" (gold "at the airport")
    line = "Sorry, I can't stay, I'm supposed to pick up my sister at the station. You two finish."
    asking = _asked_about_tom("Where is Tom supposed to be?", line, TOM)
    chat = Replies(replies=['{"answer": "station", "ids": [1]}'])
    out = compose(asking, llm=LLMReader(chat))
    assert chat.prompts and (out.answer, out.answerer) == ("at the station", "llm")
    from voxmem.retrieval.answer import placed

    said = ["He hid the key on the couch and went to bed.", "Ana is at home."]
    assert placed("Where did Tom hide the key?", "couch", said) == "on the couch"
    assert placed("Where did Tom hide the key?", "the couch", said) == "on the couch"
    assert placed("Where is Ana?", "home", said) == "at home"  # no determiner
    assert placed("Where did Tom hide the key?", "on the couch", said) == "on the couch"  # placed already
    assert placed("What did Tom hide the key on?", "couch", said) == "couch"  # not a where-question
    assert placed("Where did Tom go?", "bed", ["He went to bed early, the couch is mine."]) == "to bed"
    assert placed("Where did Tom go?", "bed, couch", said) == "bed, couch"  # a list


def test_a_persons_name_is_no_answer_to_a_question_that_does_not_ask_for_a_person():
    # Molweni tune: "What version fixed dns issues with some routers?" answered "Linux_Galore", the
    # line's speaker; the draft quoting the line holds the version
    nico = {"id": "p_nico", "name": "Linux_Galore"}
    line = "0.9.2 fixed the dns issue with those routers, upgrade and it works."
    question = "What version fixed the dns issue with the routers?"
    asking = result(question, evidence=[turn("msg-4", line, nico, [TOM])])
    asking.reading.keywords = ["version", "fixed", "dns", "issue", "routers"]
    chat = Replies(replies=['{"answer": "Linux_Galore", "ids": [1]}'])
    out = compose(asking, llm=LLMReader(chat))
    assert chat.prompts and out.answerer == "extractive" and "0.9.2" in out.answer
    assert any("does not ask who" in n for n in out.notes)
    from voxmem.retrieval.answer import _only_a_person

    assert _only_a_person(asking, "Tom")  # an addressee's name too
    assert not _only_a_person(asking, "0.9.2")
    for question in ("Which of us fixed the dns issue?", "What is the name of the one who fixed it?"):
        asking.reading.text = question
        assert not _only_a_person(asking, "Linux_Galore"), question
