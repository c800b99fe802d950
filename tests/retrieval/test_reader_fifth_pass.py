"""The offline reader's rule from the 3 December fifth pass (engineer Y): asked how someone
describes a thing, the sentence saying what it is like answers. Pure: evidence built in memory,
no embedder. Every question and line here is made up for the rule it tests."""

from __future__ import annotations

from tests.retrieval.test_reader_generalises import _ask, _hit

LAKE = [
    _hit("m1", "We rented the lake house for the whole family in June.", "Sophie", ["Peter"]),
    _hit("m2", "Peter, the lake house, it's magical at sunset.", "Sophie", ["Peter"]),
    _hit("m3", "The lake house looked so small from the road.", "Leo", ["Sophie"]),
]


def test_asked_how_someone_describes_a_thing_their_saying_what_it_is_like_answers():
    # both of Sophie's turns name the lake house; only the second says what it is like
    assert "magical" in _ask("How does Sophie describe the lake house?", LAKE).answer
    assert "magical" in _ask("How did Sophie describe the lake house to Peter?", LAKE).answer
    # spoken forms: the apostrophe apart ("it 's"), a pronoun for the thing, "seems"
    flat = [
        _hit("m1", "We looked at the new flat on Monday , the one near the station .", "Leo", ["Sophie"]),
        _hit("m2", "The new flat ? Honestly , the new flat it 's so bright .", "Leo", ["Sophie"]),
    ]
    assert "bright" in _ask("How does Leo describe the new flat?", flat).answer


def test_without_describe_or_without_a_quality_the_rule_stays_out():
    # not a describe question: the first of two equal turns still answers
    assert "June" in _ask("When did Sophie rent the lake house?", LAKE).answer
    # "it's been" tells what happened, not what the thing is like
    busy = [
        _hit("m1", "The garden needs a new fence before the party.", "Peter", ["Sophie"]),
        _hit("m2", "The garden, it's been a lot of work lately.", "Peter", ["Sophie"]),
    ]
    assert "fence" in _ask("How does Peter describe the garden?", busy).answer
