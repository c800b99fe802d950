"""Deeper for the asked person (``Agent.deepen``): which questions, which search, what the readers see.

No database: the tools are fakes that honour the speaker filter the way the scoped Cypher does,
and record the calls made to them. The access rule itself is checked against Neo4j in
``test_scope_adversarial.py`` (two of its questions are deepened)."""

from __future__ import annotations

from typing import Any

import pytest

from voxmem.retrieval.agent import Action, Agent, AgentState, person_to_deepen
from voxmem.retrieval.question import read_question
from voxmem.retrieval.scope import AccessScope
from voxmem.retrieval.tools import Evidence, Filters, Hit

PEOPLE = [
    {"id": "p_maya", "name": "Maya", "aliases": []},
    {"id": "p_tom", "name": "Tom Becker", "aliases": ["Dad"]},
]
OPEN = AccessScope("sp", "open")

# (id, session, speaker, text): Maya's ways to unwind said in three sessions; the first session
# says the question's words most, the pottery turn shares none of them
TURNS = [
    ("m1", "s1", "Maya", "Running helps me unwind after work, I run every morning."),
    ("m2", "s1", "Tom", "You should unwind more, Maya, work is crazy."),
    ("m3", "s1", "Tom", "I unwind with a beer after work."),
    ("m4", "s2", "Maya", "Signed up for a pottery class, clay is so calming for me."),
    ("m5", "s3", "Maya", "Reading in the bath on Sundays, my favourite way to switch off."),
    ("m6", "s3", "Tom", "The garage door code is 4417."),
]


def _evidence(mid: str, session: str, speaker: str, text: str) -> Evidence:
    person = next(p for p in PEOPLE if p["name"].split()[0] == speaker)
    return Evidence(mid, session, int(mid[1:]), text, "2026-11-02T18:00:00+00:00", person, [])


class FakeTool:
    """A message search tool over TURNS: word overlap with the query, speaker filter honoured."""

    layer, needs = "interaction", "query"

    def __init__(self, name: str, calls: list[tuple[str, str, Filters]]) -> None:
        self.name, self.calls = name, calls

    def search(
        self, scope: AccessScope, text: str = "", filters: Filters | None = None, k: int = 10
    ) -> list[Hit]:
        filters = filters or Filters()
        self.calls.append((self.name, text, filters))
        asked = set(text.lower().replace("?", "").split())
        hits = []
        for mid, session, speaker, said in TURNS:
            ev = _evidence(mid, session, speaker, said)
            if filters.speaker and (ev.speaker or {}).get("id") != filters.speaker:
                continue
            overlap = len(asked & set(said.lower().replace(",", "").split()))
            if overlap or filters.speaker:  # a semantic tool ranks every turn it may see
                hits.append(Hit("interaction", self.name, mid, said, float(overlap), [ev]))
        return sorted(hits, key=lambda h: -h.score)[:k]


class OneRound:
    """Round 1 only: the whole question by keywords (two of the three session-1 turns win)."""

    name = "one-round"

    def plan(self, state: AgentState) -> list[Action]:
        if state.rounds:
            return []
        return [Action("interaction", "message_fulltext", state.query, k=2)]


class FirstOnly(OneRound):
    """The same round 1, and no person step (a policy cannot turn it off: this one asks about
    nobody, so the same round-1 evidence comes back without the step)."""

    def plan(self, state: AgentState) -> list[Action]:
        state.reading.people = []
        return super().plan(state)


def _agent(calls: list[tuple[str, str, Filters]]) -> Agent:
    tools: dict[str, Any] = {n: FakeTool(n, calls) for n in ("message_vector", "message_fulltext")}
    return Agent(tools, lambda space: PEOPLE, budgets=(2, 2, 2), max_rounds=1)


@pytest.mark.parametrize(
    "question",
    [
        "What does Maya do to unwind?",
        "What do Maya's kids enjoy?",
        "Which board games has Tom played?",
        "Would Maya enjoy a week of hiking?",
        "What careers might Tom pursue?",
    ],
)
def test_a_question_about_one_persons_things_is_deepened_for_them(question):
    person = person_to_deepen(read_question(question, PEOPLE), OPEN)
    assert person is not None and person["id"] in ("p_maya", "p_tom")


@pytest.mark.parametrize(
    "question",
    [
        "When did Maya go hiking?",  # a date: one turn says it
        "Who said the garage code is 4417?",  # attribution: the graph answers it
        "What do Maya and Tom have in common?",  # two people
        "What pets are there in the house?",  # nobody
        "What is Maya's favourite drink?",  # one thing
        "What does Maya do for a living?",  # one job
    ],
)
def test_other_questions_are_not_deepened(question):
    assert person_to_deepen(read_question(question, PEOPLE), OPEN) is None


def test_the_askers_own_list_question_is_deepened_for_the_asker():
    me = AccessScope("sp", "participant", "p_maya", "Maya")
    reading = read_question("What do I do to unwind?", PEOPLE, {"id": "p_maya", "name": "Maya"})
    assert (person_to_deepen(reading, me) or {}).get("id") == "p_maya"


def test_deepen_adds_the_persons_own_turns_from_every_session_to_what_readers_see():
    calls: list[tuple[str, str, Filters]] = []
    question = "What does Maya do to unwind?"
    result = _agent(calls).run(question, OPEN, OneRound())
    ids = [e.id for e in result.evidence]
    # round 1 kept two session-1 turns sharing "unwind"; the pottery and bath turns joined after it
    assert {"m4", "m5"} <= set(ids) and "m6" not in ids
    person = [(tool, text, f.speaker) for tool, text, f in calls if f.speaker]
    assert ("message_vector", question, "p_maya") in person
    assert ("message_fulltext", "unwind", "p_maya") in person  # her name left out of the keywords
    assert result.trace[-1].policy == "person" and set(result.trace[-1].gained) >= {"m4", "m5"}


def test_a_turn_already_retained_keeps_its_score():
    calls: list[tuple[str, str, Filters]] = []
    question = "What does Maya do to unwind?"
    before = _agent(calls).run(question, OPEN, FirstOnly()).evidence
    after = _agent(calls).run(question, OPEN, OneRound()).evidence
    kept = {e.id: e.score for e in before}
    # m1 (hers) was retained by round 1 and found again by the person step: its score stands
    assert {e.id: e.score for e in after if e.id in kept} == kept


def test_a_question_about_one_thing_is_not_searched_again():
    calls: list[tuple[str, str, Filters]] = []
    result = _agent(calls).run("What is Maya's favourite drink?", OPEN, OneRound())
    assert all(f.speaker is None for _, _, f in calls)
    assert [t.policy for t in result.trace] == ["one-round"]
