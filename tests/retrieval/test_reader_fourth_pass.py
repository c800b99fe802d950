"""The offline reader's rules from the 3 December fourth pass (engineer Y): a turn about another
thing of the asked kind is no answer. Pure: evidence built in memory, no embedder. Every question
and line here is made up for the rule it tests."""

from __future__ import annotations

from tests.retrieval.test_reader_generalises import _ask, _hit
from voxmem.retrieval.answer import NOT_IN_MEMORY


def test_a_turn_about_another_pastime_does_not_answer_for_the_asked_one():
    hits = [
        _hit("m1", "Got any favourite styles?", "Sophie", ["Leo"]),
        _hit("m2", "I love all dances, but tango is my favourite style by far.", "Leo", ["Sophie"]),
    ]
    assert _ask("What is Leo's favourite style of painting?", hits).answer == NOT_IN_MEMORY
    assert "tango" in _ask("What is Leo's favourite style of dance?", hits).answer
    # another word for the same thing is no sibling: she "painted" the portrait asked as "drawn"
    portrait = [_hit("m3", "I painted my own portrait last week, my first one.", "Caroline", ["Peter"])]
    assert "last week" in _ask("When did Caroline draw her portrait?", portrait).answer


def test_a_trip_to_another_named_place_does_not_answer_for_the_asked_place():
    madrid = [_hit("m1", "Best find on my trip to Madrid: a blue ceramic bowl.", "Sophie", ["Peter"])]
    assert _ask("What did Sophie find on her trip to Lisbon?", madrid).answer == NOT_IN_MEMORY
    # the place not said again, nothing else named: the turn may still be about it
    that_trip = [_hit("m1", "Best find on that trip: a blue ceramic bowl.", "Sophie", ["Peter"])]
    assert "bowl" in _ask("What did Sophie find on her trip to Lisbon?", that_trip).answer
    # a month after "in" is a time, not a place the turn must name
    rome = [_hit("m1", "Best find in Rome: a straw hat, it was so hot.", "Peter", ["Sophie"])]
    assert "hat" in _ask("What was Peter's best find in May?", rome).answer


class _Counting:
    """A stand-in embedder that counts the texts it embeds (one dimension per text)."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def prime(self, texts: list[str]) -> None:
        for text in texts:
            self(text)

    def __call__(self, text: str) -> list[float]:
        self.texts.append(text)
        return [float(len(text)), 1.0, float(text[:1].isupper())]


def test_only_the_words_of_sentences_that_may_answer_are_embedded_and_kept_across_questions():
    hits = [
        _hit("m1", "I repaired the garden fence on Saturday.", "Peter", ["Sophie"]),
        _hit("m2", "Lovely weather for sunbathing, apricots and lemonade.", "Sophie", ["Leo"]),
    ]
    embed = _Counting()
    _ask("What did Peter repair on Saturday?", hits, embed=embed)
    # Sophie's sentence is not about Peter: it never answers, so its words are not weighed
    assert "apricots" not in embed.texts and "fence" in embed.texts
    before = len(embed.texts)
    _ask("What did Peter repair on Saturday?", hits, embed=embed)
    words_again = [t for t in embed.texts[before:] if " " not in t]
    assert "fence" not in words_again, words_again
