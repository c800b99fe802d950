"""An attribution answer the LLM picks must rest on a turn that carries what the question describes
(issue 11 item 2: the LLM may pick the turn, never invent the person). Pure: evidence built in
memory with the helpers of ``test_reader_generalises``; the scripted model always picks turn 1."""

from __future__ import annotations

from tests.retrieval.fake_llm import ScriptedChat
from tests.retrieval.test_reader_generalises import PEOPLE, _hit
from voxmem.retrieval.agent import AgentResult
from voxmem.retrieval.answer import compose
from voxmem.retrieval.fusion import fuse
from voxmem.retrieval.llm_reader import LLMReader
from voxmem.retrieval.question import read_question
from voxmem.retrieval.scope import AccessScope


def _ask_llm(question: str, hits: list) -> tuple[object, ScriptedChat]:
    chat = ScriptedChat(planner=lambda _: "{}", answerer=lambda _: '{"turn": 1}')
    scope = AccessScope("sp", "open", None, None)
    result = AgentResult(question, scope, read_question(question, PEOPLE), "heuristic", fuse([hits]), [], {})
    return compose(result, llm=LLMReader(chat)), chat


def test_a_picked_turn_about_something_else_names_nobody():
    """The demo's case: the asker may read only turns that say nothing about pizza."""
    car = [
        _hit(
            "m1", "Sophie, I moved my client call to Friday, so I am free all Thursday.", "Peter", ["Sophie"]
        ),
        _hit("m2", "Great, then you handle the plumber and I will pick up grandma.", "Sophie", ["Peter"]),
    ]
    out, chat = _ask_llm("Who asked for pizza?", car)
    assert chat.calls, "the LLM was asked to pick a turn"
    assert out.answer != "Peter" and out.answerer == "none"
    assert any("neither words nor meaning" in n for n in out.notes)


def test_a_picked_turn_that_carries_the_described_utterance_still_answers():
    """A paraphrase the offline quote match misses at its own bar (one of three words shared)
    is still the LLM's to pick, and the person comes from SPEAKS."""
    hits = [_hit("m1", "Can we get pizza on Friday?", "Leo", ["Peter"])]
    out, chat = _ask_llm("Who asked about pizza toppings for the party?", hits)
    assert chat.calls and (out.answer, out.answerer, out.used) == ("Leo", "llm", ["m1"])


def test_a_question_that_describes_no_utterance_needs_no_shared_word():
    """A question like "Who was Peter talking to?" names a person and describes nothing: the addressee of the
    picked turn of Peter's stands, read from ADDRESSES."""
    hits = [_hit("m1", "The boiler is fixed now.", "Peter", ["Caroline"])]
    out, _ = _ask_llm("Who was Peter talking to?", hits)
    assert out.answer == "Caroline"
